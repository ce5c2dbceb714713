"""`creepnet watch NAME-OR-ID [--addr HOST:PORT]`: follow a game as a spectator."""

from __future__ import annotations

import argparse

from creepnet.cli.commands.join import locate, pick
from creepnet.cli.network import DEFAULT_WAIT, add_network_options, open_node, run_trio
from creepnet.cli.options import home_dir, saved_player_name
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.seat_runner import add_colour_option
from creepnet.cli.web.run import add_web_options, serve_game


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("watch", help="follow a game on the LAN as a spectator")
    parser.add_argument("game", metavar="NAME-OR-ID", help="the game's name or id (prefix)")
    parser.add_argument(
        "--addr", metavar="HOST:PORT", help="the host's address: no zeroconf needed"
    )
    parser.add_argument(
        "--wait", type=float, default=DEFAULT_WAIT, help="seconds to look for the game"
    )
    add_colour_option(parser)
    add_network_options(parser)
    add_web_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_trio(_watch, args)


async def _watch(args: argparse.Namespace) -> int:
    # Our saved player name goes in the handshake, so the players see who watches.
    async with open_node(
        args, discovery=False, name=saved_player_name(home_dir(args)) or ""
    ) as node:
        address, prefix, _host = await locate(args, node)  # a spectator may watch through anyone
        target, listed = await pick(node, address, args.game, prefix)
        game = await node.watch(address, target, listed=listed)  # listed once, not twice
        print(f"watching at {address}")
        if args.web:
            return await serve_game(node, game, args)
        await play_in_terminal(node, game, colour=args.colour, leave_on_eof=False)
        session = node.session(game)
        if session.finished:
            print(f"log: {node.home.game(game).log_path}")
        return 0
