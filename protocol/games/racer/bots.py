"""Racer bots behind the seat interface: an engine bot sees the seat's observation only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from creepnet.engine import racer
from creepnet.protocol.games.racer.private import SeatView
from creepnet.protocol.rules import SeatBot

BOT_NAMES = ("heuristic", "random")


class RacerSeatBot:
    def __init__(self, name: str, seed: int) -> None:
        self.engine_bot = racer.make_bot(name, seed)

    def choose(self, view: Any, seat: int) -> str:
        if not isinstance(view, SeatView) or view.seat != seat:
            raise ValueError("a Racer bot needs its own seat's view (Session.local_view())")
        legal = view.legal
        if not legal:
            raise ValueError("this seat has nothing to decide now")
        action = legal[0] if len(legal) == 1 else self.engine_bot.choose(view.observation, legal)
        return racer.format_action(action)


def _factory(name: str) -> Callable[[int], SeatBot]:
    return lambda seed: RacerSeatBot(name, seed)


BOTS: dict[str, Callable[[int], SeatBot]] = {name: _factory(name) for name in BOT_NAMES}
