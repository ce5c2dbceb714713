"""Per-game command-line choices: seats, rule options and default bots, found by the game's kind.

`host`, `play` and `demo` share them, so one game's defaults (two seats, its usual bot, its
limit) never leak into another's.  Each game's choices are part of its record in the CLI's
registry (`creepnet.cli.faces`); a third game states them there, not here.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from creepnet.cli.faces import FACES, face_for
from creepnet.protocol.games import GAMES, get_game
from creepnet.protocol.rules import Retiring


@dataclass(frozen=True)
class GameChoices:
    default_bot: str  # what `play --vs` and demos use unless told
    demo_host_bot: str
    demo_players: int
    limit_option: str  # the rule option that ends a long game in a draw; its flag is derived
    limit_words: str  # what a form calls that option
    demo_limit: int = 300  # the limit a demo plays to, unless told
    demo_pace: float = 0.0  # seconds a demo's bots wait before each move, unless told
    # what every game a host makes is written with beyond the choices asked for: a protocol
    # form older logs lack and still verify without (Racer's release_ahead)
    hosted_options: tuple[tuple[str, int], ...] = ()

    @property
    def limit_flag(self) -> str:
        return "--" + self.limit_option.replace("_", "-")

    def hosted(self, limit: int | None = None) -> dict[str, Any]:
        """The rule options a game hosted with this limit (None: the rules' own) is written
        with: the limit and ``hosted_options``."""
        options: dict[str, Any] = dict(self.hosted_options)
        if limit is not None:
            options[self.limit_option] = limit
        return options


class _Choices(Mapping[str, GameChoices]):
    """Every game's choices, read from its record (ValueError for a game the CLI lacks)."""

    def __getitem__(self, kind: str) -> GameChoices:
        return face_for(kind).choices

    def __iter__(self) -> Iterator[str]:
        return iter(FACES)

    def __len__(self) -> int:
        return len(FACES)


CHOICES: Mapping[str, GameChoices] = _Choices()


def add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=sorted(GAMES), help="the game")
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats, for a game of more than two (default: the game's least; a demo's own)",
    )
    for option, kinds in limit_options().items():
        parser.add_argument(
            "--" + option.replace("_", "-"),
            type=int,
            default=None,
            help=f"{', '.join(kinds)}: draw after this",
        )


def limit_options() -> dict[str, list[str]]:
    """Each limit option of the games the CLI knows, and the games that take it."""
    options: dict[str, list[str]] = {}
    for kind, choices in CHOICES.items():
        options.setdefault(choices.limit_option, []).append(kind)
    return options


def seats_and_options(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    """The seat count and rule options the arguments ask for, with the game's
    ``hosted_options`` (ValueError with the reason)."""
    seats = seat_count(args.kind, args.players)
    choices = CHOICES[args.kind]
    limit = None
    for name, kinds in limit_options().items():
        value, flag = getattr(args, name), "--" + name.replace("_", "-")
        if value is None:
            continue
        if name != choices.limit_option:
            raise ValueError(f"{flag} is a {' and '.join(kinds)} option")
        if value < 1:
            raise ValueError(f"{flag} must be positive")
        limit = value
    return seats, hosted_options(args.kind, seats, limit)


def hosted_options(kind: str, seats: int, limit: int | None) -> dict[str, Any]:
    """The rule options every face hosts a game of ``kind`` for ``seats`` with: the limit (None:
    the rules' own) and the game's ``hosted_options``; and a table of 3-4 seats of a game that
    can retire a seat escrows its keys, so it plays on without a seat that leaves or goes
    silent (docs/ESCROW.md), where otherwise one departure would end the game abandoned."""
    options = CHOICES[kind].hosted(limit)
    if seats >= 3 and isinstance(get_game(kind).rules, Retiring):
        options["escrow"] = 1
    return options


def seat_count(kind: str, players: int | None) -> int:
    """The seats a game of ``kind`` is hosted for: ``players``, or the game's least when None
    (ValueError when the game cannot seat that many)."""
    rules = get_game(kind).rules
    seats = rules.min_seats if players is None else players
    if not rules.min_seats <= seats <= rules.max_seats:
        if rules.min_seats == rules.max_seats:
            raise ValueError(f"{kind} takes exactly {rules.min_seats} players")
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
