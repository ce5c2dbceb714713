"""What a game must tell the session: whose event comes next, and how events change the game.

A game adapter is pure: it folds (seat, type, body) into its state and never sees signatures,
sequence numbers or bytes.  The session owns authenticity and ordering; the adapter owns legality.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Protocol


class GameRuleError(ValueError):
    """An event the game's rules forbid; the message says why."""


@dataclass(frozen=True)
class Turn:
    """The one seat entitled to author the next event, and the event types it may author."""

    seat: int
    types: frozenset[str]
    what: str


@dataclass(frozen=True)
class NeedRandom:
    """The game needs a uniform integer in [0, bound): every seat reveals a preimage, in order."""

    bound: int
    purpose: str


@dataclass(frozen=True)
class Result:
    """How a game ended: the winning seat (None for a draw) and why."""

    winner: int | None
    reason: str


class GameRules(Protocol):
    kind: str
    min_seats: int
    max_seats: int

    def check_options(self, options: dict[str, Any]) -> None: ...

    def start(self, seats: int, options: dict[str, Any]) -> Any: ...

    def next(self, game: Any) -> Turn | NeedRandom | None:
        """Whose event comes next; None once the game is over."""

    def apply(self, game: Any, seat: int, type: str, body: dict[str, Any]) -> Any: ...

    def apply_random(self, game: Any, value: int) -> Any: ...

    def result(self, game: Any) -> Result | None: ...

    def action(self, game: Any, seat: int, text: str) -> tuple[str, dict[str, Any]]:
        """Turn a player's typed command into an event type and body (GameRuleError if bad)."""

    def describe(self, game: Any, seat: int) -> str:
        """A seat's role in words, e.g. 'light'."""


class SeatBot(Protocol):
    """Chooses the local seat's next action, as the text a player would type."""

    def choose(self, game: Any, seat: int) -> str: ...


def expect_keys(
    body: dict[str, Any], required: AbstractSet[str], optional: AbstractSet[str] = frozenset()
) -> None:
    """Event bodies are closed: unknown fields would be unsigned-in-meaning malleability."""
    keys = set(body)
    if not required <= keys or not keys <= required | optional:
        raise GameRuleError(
            f"body needs {sorted(required)}"
            + (f" and may have {sorted(optional)}" if optional else "")
            + f", got {sorted(keys)}"
        )
