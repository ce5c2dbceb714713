"""`creepnet play creeper --vs BOT`: play against a bot running as a second node on loopback."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import trio

from creepnet.cli.network import add_network_options, open_node, run_trio, setup_logging
from creepnet.cli.seat_runner import add_player_options, player_name, run_seat
from creepnet.cli.web.run import add_web_options, serve_game
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games import bot_names


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("play", help="play against a bot (a second node on this machine)")
    parser.add_argument("kind", choices=["creeper"], help="the game to play")
    parser.add_argument(
        "--vs", choices=bot_names(), default="greedy", help="the bot (default greedy)"
    )
    parser.add_argument("--max-plies", type=int, default=None, help="draw after this many plies")
    add_player_options(parser)
    add_network_options(parser)
    add_web_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_trio(_play, args)


async def _play(args: argparse.Namespace) -> int:
    setup_logging(args)
    args.iface = ["127.0.0.1"]  # the bot lives on this machine: nothing leaves loopback
    options = {"max_plies": args.max_plies} if args.max_plies else {}
    with tempfile.TemporaryDirectory(prefix="creepnet-bot-") as bot_home:
        async with open_node(args, discovery=False) as node, Node.open(Path(bot_home)) as bot_node:
            game = await node.host_game(
                args.kind, f"vs {args.vs}", player=player_name(args), options=options
            )
            async with trio.open_nursery() as nursery:
                await bot_node.join(node.address, game, player=f"{args.vs}-bot")
                nursery.start_soon(run_bot, bot_node, game, args.vs, args.seed)
                await node.wait_for(game, lambda rt: rt.session.started)
                play = serve_game if args.web else run_seat
                code = await play(node, game, args)
                nursery.cancel_scope.cancel()
            return code
