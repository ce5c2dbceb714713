"""`creepnet ui`: your node with a page in your browser — find, host, join, watch and replay."""

from __future__ import annotations

import argparse

from creepnet.cli.internet import add_internet_options, check_internet, maybe_internet
from creepnet.cli.network import add_network_options, open_node, run_trio
from creepnet.cli.options import fail, home_dir, saved_player_name
from creepnet.cli.seat_runner import player_name
from creepnet.cli.web.run import add_web_options, serve_ui


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "ui", help="play in your browser: a page served by your own node on 127.0.0.1"
    )
    parser.add_argument("--player", default=None, help="your display name (default: the OS user)")
    parser.add_argument("--port", type=int, default=0, help="the node's TCP port (default: any)")
    add_web_options(parser, flag=False)
    add_network_options(parser)
    add_internet_options(parser)  # the lobby then joins by invite; hosted games show theirs
    parser.set_defaults(func=run, bot=None)


def run(args: argparse.Namespace) -> int:
    if args.internet and (why := check_internet(args)):
        return fail(why)
    return run_trio(_ui, args)


async def _ui(args: argparse.Namespace) -> int:
    async with (
        open_node(args, discovery=True, port=args.port) as node,
        maybe_internet(node, args) as carrier,
    ):
        player = player_name(args, saved_player_name(home_dir(args)))
        return await serve_ui(node, args, player, carrier)
