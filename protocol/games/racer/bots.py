"""Racer bots behind the seat interface: an engine bot sees the seat's view only.

The heuristic and random bots read the seat's observation; the planner reads the seat's
information state (the engine state with only its own hand known), never more.  The levels
for people are the heuristic (easy) and the planner on the wall clock (a bot's think time is
no part of the game's record, so reading a clock here changes nothing any peer checks).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from creepnet.engine import racer
from creepnet.engine.racer.beliefs import MEMORY
from creepnet.engine.racer.driver import Bot
from creepnet.engine.racer.planner import PlanBudget, PlannerBot
from creepnet.protocol.games.racer.private import SeatView
from creepnet.protocol.games.racer.schedule import Seen
from creepnet.protocol.rules import SeatBot

BOT_NAMES = ("heuristic", "random")
LEVEL_SECONDS = {"medium": 0.25, "hard": 1.0}
LEVELS = {
    "easy": "the heuristic bot, instant",
    "medium": "the planner, 0.25 s a decision",
    "hard": "the planner, 1 s a decision",
}


class RacerSeatBot:
    def __init__(self, name: str, seed: int, engine_bot: Bot | PlannerBot | None = None) -> None:
        self.engine_bot = engine_bot or racer.make_bot(name, seed)
        self._told: Seen | None = None  # the newest choice the planner was told of

    def choose(self, view: Any, seat: int) -> str:
        if not isinstance(view, SeatView) or view.seat != seat:
            raise ValueError("a Racer bot needs its own seat's view (Session.local_view())")
        legal = view.legal
        if not legal:
            raise ValueError("this seat has nothing to decide now")
        bot = self.engine_bot
        action: racer.Action
        if len(legal) == 1:
            action = legal[0]
        elif isinstance(bot, PlannerBot):
            self._tell(bot, view.game.recent, seat)
            action = bot.plan(view.state, seat, legal)
        else:
            action = bot.choose(view.observation, legal)
        return racer.format_action(action)

    def _tell(self, bot: PlannerBot, recent: tuple[Seen, ...], seat: int) -> None:
        """The planner is told of every choice made since it last chose (public facts: the
        public state before each, who chose, what), as many as the game keeps."""
        start = next((i + 1 for i, seen in enumerate(recent) if seen is self._told), 0)
        for before, actor, action in recent[start:]:
            if actor != seat:
                bot.observe(before, seat, actor, action)
        if recent:
            self._told = recent[-1]


def _factory(name: str) -> Callable[[int], SeatBot]:
    return lambda seed: RacerSeatBot(name, seed)


def _level_factory(level: str) -> Callable[[int], SeatBot]:
    def make(seed: int) -> SeatBot:
        if level == "easy":
            return RacerSeatBot("heuristic", seed)
        budget = PlanBudget(seconds=LEVEL_SECONDS[level], clock=time.perf_counter)
        return RacerSeatBot(level, seed, PlannerBot(seed, budget, memory=MEMORY))

    return make


BOTS: dict[str, Callable[[int], SeatBot]] = {
    **{name: _factory(name) for name in BOT_NAMES},
    **{level: _level_factory(level) for level in LEVELS},
}
