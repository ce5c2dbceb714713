"""`creepnet play KIND --vs BOT [--players N]`: you against N-1 bots, each its own node in this
process on loopback (the nodes talk only over TCP, as separate machines would)."""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from pathlib import Path

import trio

from creepnet.cli.game_options import CHOICES, add_game_options, check_bot, seats_and_options
from creepnet.cli.network import add_network_options, open_node, run_trio, setup_logging
from creepnet.cli.options import fail
from creepnet.cli.seat_runner import add_player_options, player_name, run_seat
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games import bot_names


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("play", help="play against a bot (a second node on this machine)")
    add_game_options(parser)
    parser.add_argument(
        "--vs", choices=bot_names(), default=None, help="the bots (default: the game's usual one)"
    )
    add_player_options(parser)
    add_network_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    args.vs = args.vs or CHOICES[args.kind].default_bot
    try:
        seats_and_options(args)
        check_bot(args.kind, args.vs)
        check_bot(args.kind, args.bot)
    except ValueError as exc:
        return fail(str(exc))
    return run_trio(_play, args)


async def _play(args: argparse.Namespace) -> int:
    setup_logging(args)
    args.iface = ["127.0.0.1"]  # the bot lives on this machine: nothing leaves loopback
    seats, options = seats_and_options(args)
    with contextlib.ExitStack() as stack:
        homes = [
            Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="creepnet-bot-")))
            for _ in range(seats - 1)
        ]
        async with open_node(args, discovery=False) as node, contextlib.AsyncExitStack() as bots:
            bot_nodes = [await bots.enter_async_context(Node.open(home)) for home in homes]
            game = await node.host_game(
                args.kind, f"vs {args.vs}", seats=seats, player=player_name(args), options=options
            )
            async with trio.open_nursery() as nursery:
                for k, bot_node in enumerate(bot_nodes, start=1):
                    await bot_node.join(node.address, game, player=f"{args.vs}-bot-{k}")
                    nursery.start_soon(run_bot, bot_node, game, args.vs, args.seed + k)
                await node.wait_for(game, lambda rt: rt.session.started)
                code = await run_seat(node, game, args)
                nursery.cancel_scope.cancel()
            return code
