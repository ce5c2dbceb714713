"""Per-game command-line choices: seats, rule options and default bots, found by the game's kind.

`host`, `play` and `demo` share them, so a Creeper default (two seats, the greedy bot, a ply
limit) never leaks into a Racer game, and a third game adds its line here.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from creepnet.protocol.games import GAMES, get_game


@dataclass(frozen=True)
class GameChoices:
    default_bot: str  # what `play --vs` and demos use unless told
    demo_host_bot: str
    demo_players: int
    limit_option: str  # the rule option that ends a long game in a draw; its flag is derived
    limit_words: str  # what a form calls that option

    @property
    def limit_flag(self) -> str:
        return "--" + self.limit_option.replace("_", "-")


CHOICES = {
    "creeper": GameChoices(
        "greedy", "search", 2, limit_option="max_plies", limit_words="Move limit (plies)"
    ),
    "racer": GameChoices(
        "heuristic", "heuristic", 3, limit_option="turn_limit", limit_words="Turn limit"
    ),
}


def add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=sorted(GAMES), help="the game")
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="racer: seats, 2-4 (default 2; demo racer plays 3)",
    )
    for kind, choices in CHOICES.items():
        parser.add_argument(
            choices.limit_flag, type=int, default=None, help=f"{kind}: draw after this"
        )


def seats_and_options(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    """The seat count and rule options the arguments ask for (ValueError with the reason)."""
    seats = seat_count(args.kind, args.players)
    options: dict[str, Any] = {}
    for kind, choices in CHOICES.items():
        name, flag = choices.limit_option, choices.limit_flag
        value = getattr(args, name)
        if value is None:
            continue
        if kind != args.kind:
            raise ValueError(f"{flag} is a {kind} option")
        if value < 1:
            raise ValueError(f"{flag} must be positive")
        options[name] = value
    return seats, options


def seat_count(kind: str, players: int | None) -> int:
    """The seats a game of ``kind`` is hosted for: ``players``, or the game's least when None
    (ValueError when the game cannot seat that many)."""
    rules = get_game(kind).rules
    seats = rules.min_seats if players is None else players
    if not rules.min_seats <= seats <= rules.max_seats:
        raise ValueError(f"{kind} takes {rules.min_seats} to {rules.max_seats} players")
    return seats


def check_bot(kind: str, name: str | None) -> None:
    bots = get_game(kind).bots
    if name is not None and name not in bots:
        raise ValueError(f"{kind} has no bot {name!r}; choose from {', '.join(bots)}")


class BotChoices:
    """Every game's bot names as argparse ``choices``, loading games only as far as a check
    needs: `--bot random` is found among Creeper's bots without importing Creepy Racer, and
    no game loads at all when no bot is named (give the option a ``metavar``, or argparse
    lists the choices while it builds the parser)."""

    def __contains__(self, name: object) -> bool:
        return any(name in GAMES[kind].bots for kind in GAMES)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({name for kind in GAMES for name in GAMES[kind].bots}))
