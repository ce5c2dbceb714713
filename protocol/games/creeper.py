"""Creeper over the session: a fair coin picks colours, then moves, draw offers and resignation."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from creepnet.engine import creeper
from creepnet.engine.creeper.bots import BOT_NAMES, Bot, SearchBot, make_bot
from creepnet.protocol.rules import (
    GameRuleError,
    NeedRandom,
    Result,
    SeatBot,
    Seating,
    Turn,
    expect_keys,
)


@dataclass(frozen=True)
class CreeperGame:
    state: creeper.State
    light_seat: int | None = None  # decided by the colour coin after start
    draw_offered_by: int | None = None
    last_move: creeper.Move | None = None
    result: Result | None = None
    max_plies: int | None = None

    def seat_of(self, colour: creeper.Colour) -> int:
        assert self.light_seat is not None
        return self.light_seat if colour is creeper.Colour.LIGHT else 1 - self.light_seat

    def colour_of(self, seat: int) -> creeper.Colour | None:
        if self.light_seat is None:
            return None
        return creeper.Colour.LIGHT if seat == self.light_seat else creeper.Colour.DARK


# Every Turn a game can be in, built once: next() runs before every event of every log.
# Keyed by "light to move?" rather than the Colour, whose (Enum) hash is a Python call.
_TURNS = {
    (colour is creeper.Colour.LIGHT, seat, offered): Turn(
        seat,
        frozenset({"move", "resign", "accept", "decline"} if offered else {"move", "resign"}),
        f"{colour} to move",
    )
    for colour in creeper.Colour
    for seat in (0, 1)
    for offered in (False, True)
}


_MOVE_ONLY = frozenset({"move"})
_LIGHT = creeper.Colour.LIGHT  # a global: the Enum's member lookup costs ~10 times more


@lru_cache(maxsize=4096)
def _read_move(text: str) -> tuple[creeper.Move, bool]:
    """A move's text parsed, and whether it is in canonical notation: a replay reads the same
    few hundred texts over and over (Moves are immutable; a bad text raises, is not cached)."""
    move = creeper.parse_move(text)
    return move, creeper.format_move(move) == text


class CreeperRules:
    kind = "creeper"
    min_seats = 2
    max_seats = 2

    def check_options(self, options: dict[str, Any], seats: int) -> None:
        unknown = set(options) - {"max_plies"}
        if unknown:
            raise GameRuleError(f"unknown creeper options {sorted(unknown)}")
        limit = options.get("max_plies")
        if "max_plies" in options and (type(limit) is not int or limit < 1):  # nil included
            raise GameRuleError("max_plies must be a positive integer")

    def start(self, seats: int, options: dict[str, Any], seating: Seating) -> CreeperGame:
        return CreeperGame(creeper.initial_state(), max_plies=options.get("max_plies"))

    def next(self, game: CreeperGame) -> Turn | NeedRandom | None:
        if game.result is not None:
            return None
        if game.light_seat is None:
            return NeedRandom(2, "coin: which seat plays light")
        light = game.state.to_move is _LIGHT
        seat = game.light_seat if light else 1 - game.light_seat
        return _TURNS[light, seat, game.draw_offered_by == 1 - seat]

    def apply_random(self, game: CreeperGame, value: int) -> CreeperGame:
        return replace(game, light_seat=value)

    def apply(
        self, game: CreeperGame, seat: int, type: str, body: dict[str, Any], seq: int = 0
    ) -> CreeperGame:
        if type == "move":
            if body.keys() != _MOVE_ONLY:  # the common body passes expect_keys: skip building sets
                expect_keys(body, {"move"}, {"draw"})
            if body.get("draw", True) is not True:
                raise GameRuleError("draw, when present, must be true")
            return self._move(game, seat, body["move"], "draw" in body)
        expect_keys(body, set())
        if type == "resign":
            return replace(game, result=Result(1 - seat, "resignation"))
        if type == "accept":
            return replace(game, result=Result(None, "agreement"))
        if type == "decline":
            return replace(game, draw_offered_by=None)
        raise GameRuleError(f"unknown event type {type!r}")

    def _move(self, game: CreeperGame, seat: int, text: Any, offer: bool) -> CreeperGame:
        if not isinstance(text, str):
            raise GameRuleError("move must be a string in Creeper notation")
        try:
            move, canonical = _read_move(text)
            state = creeper.apply(game.state, move)
        except (creeper.NotationError, creeper.IllegalMove) as exc:
            raise GameRuleError(f"illegal move {text}: {exc}") from None
        if not canonical:
            raise GameRuleError(f"move {text!r} is not in canonical notation")
        ended = creeper.outcome(state)
        result = None
        if ended is not None:
            winner = None if ended.winner is None else game.seat_of(ended.winner)
            result = Result(winner, ended.reason)
        elif game.max_plies is not None and state.ply >= game.max_plies:
            result = Result(None, f"move limit of {game.max_plies} plies")
        # Not the dataclass's __init__ (a frozen one sets each field by a call): this runs
        # for every move of every log, and every field here is already checked.
        after = object.__new__(CreeperGame)
        after.__dict__.update(
            state=state,
            light_seat=game.light_seat,
            draw_offered_by=seat if offer and result is None else None,
            last_move=move,
            result=result,
            max_plies=game.max_plies,
        )
        return after

    def result(self, game: CreeperGame) -> Result | None:
        return game.result

    def action(self, game: CreeperGame, seat: int, text: str) -> tuple[str, dict[str, Any]]:
        words = text.split()
        if words in (["resign"], ["accept"], ["decline"]):
            return words[0], {}
        if len(words) == 2 and words[1] == "draw":
            return "move", {"move": self._notation(words[0]), "draw": True}
        if len(words) == 1:
            return "move", {"move": self._notation(words[0])}
        raise GameRuleError(
            "say a move like e7-d6 (add 'draw' to offer a draw), accept, decline or resign"
        )

    @staticmethod
    def _notation(text: str) -> str:
        try:
            return creeper.format_move(creeper.parse_move(text))
        except creeper.NotationError as exc:
            raise GameRuleError(str(exc)) from None

    def describe(self, game: CreeperGame, seat: int) -> str:
        colour = game.colour_of(seat)
        return str(colour) if colour is not None else "colour not drawn yet"


class CreeperSeatBot:
    """An engine bot behind the seat interface: it sees the board, answers in notation.
    The search bot also offers a draw when the game repeats and is level, and accepts one
    unless it sees itself ahead."""

    def __init__(self, name: str, seed: int, engine_bot: Bot | None = None) -> None:
        self.engine_bot = engine_bot or make_bot(name, seed)

    def choose(self, game: CreeperGame, seat: int) -> str:
        bot = self.engine_bot
        if not isinstance(bot, SearchBot):
            return creeper.format_move(bot.choose(game.state))
        reply = bot.reply(game.state, draw_offered=game.draw_offered_by == 1 - seat)
        if reply.move is None:
            return "accept"
        return creeper.format_move(reply.move) + (" draw" if reply.offer_draw else "")


def _bot_factory(name: str) -> Callable[[int], SeatBot]:
    return lambda seed: CreeperSeatBot(name, seed)


# Levels for people: the search on the wall clock (a bot's think time is no part of the
# game's record, so reading a clock here changes nothing any peer checks).
LEVEL_SECONDS = {"easy": 0.05, "medium": 0.3, "hard": 1.5}
LEVEL_DEPTH = {"easy": 2, "medium": 64, "hard": 64}
LEVELS = {
    "easy": "a 2-ply search, 0.05 s a move",
    "medium": "the search, 0.3 s a move",
    "hard": "the search, 1.5 s a move",
}


def _level_factory(level: str) -> Callable[[int], SeatBot]:
    def make(seed: int) -> SeatBot:
        bot = SearchBot(
            seed,
            seconds=LEVEL_SECONDS[level],
            clock=time.perf_counter,
            max_depth=LEVEL_DEPTH[level],
        )
        return CreeperSeatBot(level, seed, bot)

    return make


BOTS: dict[str, Callable[[int], SeatBot]] = {
    **{name: _bot_factory(name) for name in BOT_NAMES},
    **{level: _level_factory(level) for level in LEVELS},
}
