"""Running the local seat of a game to its end, by a human at the terminal or by a bot."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator

import trio

from creepnet.cli.play_loop import Out, play_in_terminal
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games import bot_names


def add_player_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--player", default=None, help="your display name (default: the OS user)")
    parser.add_argument("--bot", choices=bot_names(), help="let a bot play this seat")
    parser.add_argument("--seed", type=int, default=0, help="the bot's seed")
    parser.add_argument("--pace", type=float, default=0.0, help="seconds a bot waits before moving")
    parser.add_argument("--colour", action="store_true", help="ANSI colours on the board")


def player_name(args: argparse.Namespace) -> str:
    if args.player:
        return args.player[:32]
    if args.bot:
        return f"{args.bot}-bot"
    import getpass

    try:
        return getpass.getuser()[:32] or "player"
    except (KeyError, OSError):
        return "player"


async def run_seat(
    node: Node,
    game: bytes,
    args: argparse.Namespace,
    *,
    lines: AsyncIterator[str] | None = None,
    out: Out = print,
) -> int:
    """Play until the game ends; then make sure our last event reached the others."""
    if args.bot:
        outcome = await run_bot(node, game, args.bot, args.seed, pace=args.pace)
        out(f"game over: {outcome}" if outcome else "game stopped: equivocation detected")
    else:
        await play_in_terminal(node, game, lines=lines, out=out, colour=args.colour)
    session = node.session(game)
    if session.finished or session.halted is not None:
        await linger(node, game)
        store = node.home.game(game)
        out(f"log: {store.log_path}\nverify it with: creepnet verify {store.log_path}")
    return 0


async def linger(node: Node, game: bytes, seconds: float = 5.0) -> None:
    """Give peers a moment to fetch the final events before this node goes away."""
    with trio.move_on_after(seconds):
        await node.wait_synced(game)
