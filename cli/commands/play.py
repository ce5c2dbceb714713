"""`creepnet play KIND --vs BOT [--players N]`: you against N-1 bots, each its own node in this
process on loopback (the nodes talk only over TCP, as separate machines would).

The bots keep their own homes inside yours (``<home>/bots/<bot>/``, then ``<bot>-2/``…), so a
game you leave can be resumed later with the same command, bots included.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any

import trio

from creepnet.cli.game_options import (
    CHOICES,
    BotChoices,
    add_game_options,
    check_bot,
    seats_and_options,
)
from creepnet.cli.main import runnable
from creepnet.cli.network import add_network_options, open_node, run_trio, setup_logging
from creepnet.cli.options import fail, home_dir, kept_options, saved_player_name
from creepnet.cli.seat_runner import (
    add_player_options,
    ask_name_once,
    bot_player_name,
    player_name,
    run_seat,
)
from creepnet.cli.terminal import Out, Screen, StdinLines
from creepnet.cli.web.run import add_web_options, serve_game
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games import level_help

BOTS = "bots"


class LevelHelp:
    """Every game's levels with their think times, from the registry, built only when
    `--help` is printed (building the parser loads no game)."""

    def __str__(self) -> str:
        return level_help()


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "play", help="play against a bot (a second node on this machine; run again: resume)"
    )
    add_game_options(parser)
    vs = parser.add_argument(
        "--vs",
        choices=BotChoices(),
        metavar="BOT",
        default=None,
        help="the bots (default: the game's usual one); levels: %(levels)s",
    )
    vs.levels = LevelHelp()  # read (by argparse's %(levels)s) only when help is shown
    add_player_options(parser)
    add_network_options(parser)
    add_web_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    args.vs = args.vs or CHOICES[args.kind].default_bot
    try:
        seats_and_options(args)
        check_bot(args.kind, args.vs)
        check_bot(args.kind, args.bot)
    except ValueError as exc:
        return fail(str(exc))
    ask_name_once(args)
    return run_trio(_play, args)


def bot_home(home: Path, bot: str, number: int = 1) -> Path:
    return home / BOTS / (bot if number == 1 else f"{bot}-{number}")


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


async def _play(
    args: argparse.Namespace, *, lines: StdinLines | None = None, out: Out | None = None
) -> int:
    """``lines``/``out``: typed lines and the screen (tests drive them; default the terminal)."""
    setup_logging(args)
    args.iface = ["127.0.0.1"]  # the bot lives on this machine: nothing leaves loopback
    seats, options = seats_and_options(args)
    home = home_dir(args)
    async with open_node(args, discovery=False) as node, contextlib.AsyncExitStack() as stack:
        bot_nodes = [
            await stack.enter_async_context(Node.open(bot_home(home, args.vs, k), host="127.0.0.1"))
            for k in range(1, seats)
        ]
        game = unfinished_bot_game(node, bot_nodes[0])
        player = player_name(args, saved_player_name(home), node.fingerprint)
        async with trio.open_nursery() as nursery:
            table = BotHost(node, bot_nodes, args, nursery)
            if game is not None:
                print(f"resuming your game against the {args.vs} bot ({game.hex()[:8]})")
                await table.resume(game)
            else:
                game = await table.new_game(player, seats, options)
            again = f"{runnable()} play {args.kind} --vs {args.vs}"
            if seats > 2:
                again += f" --players {seats}"
            again += kept_options(args, iface=False)  # its nodes are on loopback anyway
            if args.web:

                async def next_game() -> bytes:  # "play again?" on the page
                    return await table.new_game(player, seats, options)

                code = await serve_game(node, game, args, player, next_game=next_game)
            else:

                async def play_again(last: bytes, screen: Screen) -> bytes:
                    session = node.session(last)
                    new = await table.new_game(player, session.seat_count, dict(session.options))
                    screen.say(f"a new game against the {args.vs} bot ({new.hex()[:8]})")
                    return new

                code = await run_seat(
                    node,
                    game,
                    args,
                    lines=lines,
                    out=out,
                    resume_hint=again,
                    player=player,
                    play_again=play_again,
                    others_wait=False,  # the bots stop with this command
                )
            nursery.cancel_scope.cancel()
        return code


class BotHost:
    """Our node hosting games that the bot nodes join and play, their bots in our nursery."""

    def __init__(
        self, node: Node, bot_nodes: list[Node], args: argparse.Namespace, nursery: trio.Nursery
    ) -> None:
        self.node, self.bot_nodes, self.args, self.nursery = node, bot_nodes, args, nursery
        self.games = 0  # started here: each game's bots draw from other seeds

    async def resume(self, game: bytes) -> None:
        for bot_node in self.bot_nodes:
            await bot_node.join(self.node.address, game)  # seated already: it just follows
        await self._start_bots(game)

    async def new_game(self, player: str, seats: int, options: dict[str, Any]) -> bytes:
        vs = self.args.vs
        game = await self.node.host_game(
            self.args.kind, f"vs {vs}", seats=seats, player=player, options=options
        )
        for bot_node in self.bot_nodes:
            name = bot_player_name(vs, bot_node.fingerprint)
            await bot_node.join(self.node.address, game, player=name)
        await self._start_bots(game)
        return game

    async def _start_bots(self, game: bytes) -> None:
        seed = self.args.seed + len(self.bot_nodes) * self.games
        self.games += 1
        for k, bot_node in enumerate(self.bot_nodes):
            self.nursery.start_soon(run_bot, bot_node, game, self.args.vs, seed + k)
        await self.node.wait_for(game, lambda rt: rt.session.started)
