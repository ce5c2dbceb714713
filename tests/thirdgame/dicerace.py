"""A third game that lives only under tests/: a dice race, 2-4 runners, first to GOAL wins.

It plugs into both registries the way any game would (rules and bot into
`creepnet.protocol.games.GAMES`, its faces into `creepnet.cli.faces.FACES`), which proves that
no shared module of the node, the protocol or the CLI has to name a game.  Every roll is a
`NeedRandom`: the seats' onion reveals decide it, so the randomness path runs too.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from creepnet.cli.faces import FACES, GameFace, PageFace
from creepnet.cli.game_options import GameChoices
from creepnet.cli.narration import status
from creepnet.cli.replay_text import replay_boards
from creepnet.cli.reply import Reply
from creepnet.protocol.games import GAMES, Game
from creepnet.protocol.rules import GameRuleError, NeedRandom, Result, Seating, Turn, expect_keys
from creepnet.protocol.session import Session

KIND = "dicerace"
GOAL = 10


# ----- rules --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Race:
    track: tuple[int, ...]
    to_move: int = 0
    rolling: bool = False  # the mover asked for a roll: the next draw is its die
    turns: int = 0
    max_turns: int = 100
    last: tuple[int, int] | None = None  # (seat, value) of the last roll


class DiceRaceRules:
    kind, min_seats, max_seats = KIND, 2, 4

    def check_options(self, options: dict[str, Any]) -> None:
        expect_keys(options, set(), {"max_turns"})
        limit = options.get("max_turns", 1)
        if type(limit) is not int or limit < 1:
            raise GameRuleError("max_turns must be a positive integer")

    def start(self, seats: int, options: dict[str, Any], seating: Seating) -> Race:
        return Race(track=(0,) * seats, max_turns=options.get("max_turns", 100))

    def next(self, game: Race) -> Turn | NeedRandom | None:
        if self.result(game) is not None:
            return None
        if game.rolling:
            return NeedRandom(6, "die")
        return Turn(game.to_move, frozenset({"roll"}), "roll the die")

    def apply(self, game: Race, seat: int, type: str, body: dict[str, Any], seq: int) -> Race:
        expect_keys(body, set())
        if type != "roll" or seat != game.to_move or game.rolling:
            raise GameRuleError(f"seat {seat} may not {type} now")
        return replace(game, rolling=True)

    def apply_random(self, game: Race, value: int) -> Race:
        seat, roll = game.to_move, value + 1
        track = tuple(p + roll if s == seat else p for s, p in enumerate(game.track))
        return replace(
            game,
            track=track,
            to_move=(seat + 1) % len(track),
            rolling=False,
            turns=game.turns + 1,
            last=(seat, roll),
        )

    def result(self, game: Race) -> Result | None:
        for seat, place in enumerate(game.track):
            if place >= GOAL:
                return Result(seat, f"reaching {GOAL}")
        if game.turns >= game.max_turns:
            return Result(None, f"turn limit of {game.max_turns}")
        return None

    def action(self, game: Race, seat: int, text: str) -> tuple[str, dict[str, Any]]:
        if text.strip() != "roll":
            raise GameRuleError("the only move is: roll")
        return "roll", {}

    def describe(self, game: Race, seat: int) -> str:
        return "runner"


class Roller:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, game: Any, seat: int) -> str:
        return "roll"


# ----- faces --------------------------------------------------------------------------------


def track(session: Session) -> str:
    race = session.game_state
    if race is None:
        return ""
    places = ", ".join(f"seat {seat} at {place}" for seat, place in enumerate(race.track))
    return f"track to {GOAL}: {places}"


class DiceConsole:
    resign_queued = False
    redraw_after: frozenset[str] = frozenset()  # the track is in every status line

    def __init__(self, session: Session, colour: bool = False) -> None:
        self.session = session

    def ready(self) -> bool:
        return self.session.started and self.session.game_state is not None

    def introduction(self) -> str:
        return f"A dice race: first to {GOAL} wins. Type roll on your turn."

    def board(self) -> str:
        return track(self.session)

    def status(self) -> str:
        where = track(self.session)
        return f"{where} | {status(self.session)}" if where else status(self.session)

    def prompt(self) -> str:
        return "roll> " if self.session.my_turn() is not None else ""

    def peer_news(
        self, connected: bool, fingerprint: str | None, text: str, back: bool = False
    ) -> str:
        return text

    def pending_action(self) -> str | None:
        return None

    def handle(self, line: str) -> Reply:
        word = line.strip()
        if word == "quit":
            return Reply(quit=True)
        if word == "roll":
            if self.session.my_turn() is None:
                return Reply(text="not your turn")
            return Reply(action="roll")
        return Reply(text="type roll (or quit)")


def page_view(session: Session) -> dict[str, Any]:
    race = session.game_state
    return {**position(race), "can_roll": session.my_turn() is not None}


def position(race: Race) -> dict[str, Any]:
    last = {"seat": race.last[0], "value": race.last[1]} if race.last else None
    return {"track": list(race.track), "goal": GOAL, "last": last}


def replay(raws: list[bytes], args: argparse.Namespace) -> int:
    return replay_boards(raws, args, track)


FACE = GameFace(
    kind=KIND,
    title="Dice race",
    choices=GameChoices(
        "roller", "roller", 2, limit_option="max_turns", limit_words="Turn limit", demo_limit=40
    ),
    console=DiceConsole,
    narrate=lambda type, body: "rolls the die" if type == "roll" else None,
    replay=replay,
    page=PageFace(
        view=page_view,
        folder=Path(__file__).parent,
        script="dicerace.js",
        words={"placeholder": "type: roll", "hint": "Click Roll, or type roll."},
        keep=position,
        position=lambda kept, final: kept,
    ),
)


def register() -> None:
    GAMES[KIND] = Game(DiceRaceRules(), {"roller": Roller})
    FACES[KIND] = FACE


def unregister() -> None:
    GAMES.pop(KIND, None)
    FACES.pop(KIND, None)
