"""`creepnet play creeper --vs BOT`: play against a bot running as a second node on loopback.

The bot keeps its own home inside yours (``<home>/bots/<bot>/``), so a game you leave can be
resumed later with the same command, bot included.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import trio

from creepnet.cli.network import add_network_options, open_node, run_trio, setup_logging
from creepnet.cli.options import home_dir, saved_player_name
from creepnet.cli.seat_runner import add_player_options, ask_name_once, player_name, run_seat
from creepnet.cli.web.run import add_web_options, serve_game
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games import bot_names

BOTS = "bots"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "play", help="play against a bot (a second node on this machine; run again: resume)"
    )
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
    ask_name_once(args)
    return run_trio(_play, args)


def bot_home(home: Path, bot: str) -> Path:
    return home / BOTS / bot


def bot_of_game(home: Path, game: bytes) -> str | None:
    """The bot that holds the other seat of this game, if it is a `creepnet play` game."""
    folder = home / BOTS
    if not folder.is_dir():
        return None
    for entry in sorted(folder.iterdir()):
        if (entry / "games" / game.hex() / "log").is_file():
            return entry.name
    return None


def unfinished_bot_game(node: Node, bot_node: Node) -> bytes | None:
    """The game we host against this bot that neither of us has finished."""
    for game, runtime in node.games.items():
        theirs = bot_node.games.get(game)
        if (
            runtime.hosted
            and runtime.state == "playing"
            and theirs is not None
            and theirs.session.local_seat is not None
        ):
            return game
    return None


async def _play(args: argparse.Namespace) -> int:
    setup_logging(args)
    args.iface = ["127.0.0.1"]  # the bot lives on this machine: nothing leaves loopback
    options = {"max_plies": args.max_plies} if args.max_plies else {}
    home = home_dir(args)
    async with (
        open_node(args, discovery=False) as node,
        Node.open(bot_home(home, args.vs), host="127.0.0.1") as bot_node,
    ):
        game = unfinished_bot_game(node, bot_node)
        async with trio.open_nursery() as nursery:
            if game is not None:
                print(f"resuming your game against the {args.vs} bot ({game.hex()[:8]})")
                await bot_node.join(node.address, game)  # seated already: it just follows
            else:
                player = player_name(args, saved_player_name(home))
                game = await node.host_game(
                    args.kind, f"vs {args.vs}", player=player, options=options
                )
                await bot_node.join(node.address, game, player=f"{args.vs}-bot")
            nursery.start_soon(run_bot, bot_node, game, args.vs, args.seed)
            await node.wait_for(game, lambda rt: rt.session.started)
            again = f"creepnet play {args.kind} --vs {args.vs}"
            if args.web:
                code = await serve_game(node, game, args)
            else:
                code = await run_seat(node, game, args, resume_hint=again)
            nursery.cancel_scope.cancel()
        return code
