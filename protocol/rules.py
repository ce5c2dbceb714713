"""What a game must tell the session: whose event comes next, and how events change the game.

A game adapter is pure: it folds (seat, type, body) into its state and never sees signatures
or bytes (it gets the event's sequence number only to bind proofs to their position).  The
session owns authenticity and ordering; the adapter owns legality.  ``apply`` and
``apply_random`` return the new state and leave the one they are given exactly as it was, even
when they raise halfway: the session keeps the old state for a rejected event, so a rejected event
changes nothing (a frozen state gets this for free; a large mutable one, like Racer's deck, works
on a cheap fork).  Property tests check it for every game (tests/protocol/test_session_property.py).

Games with hidden information add two things: **owed steps** (``Owed``: a deck operation or any
other event a seat must author automatically, in an order the game fixes, so honest peers never
fork and a stall names its seat) and a **private side** per local seat (``PrivateSide``: the
seat's secrets and what it has decoded, beside the session, never in the shared state), which
writes the bodies of the seat's owed events and completes its decisions with proofs.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


class GameRuleError(ValueError):
    """An event the game's rules forbid; the message says why."""


class CannotPlayOn(GameRuleError):
    """The game cannot go on without a seat at all (nothing of it is escrowed): a ``retire``
    the table voted for then ends the game as abandoned by that seat (protocol/session.py)."""


@dataclass(frozen=True)
class Turn:
    """The one seat entitled to author the next event, and the event types it may author."""

    seat: int
    types: frozenset[str]
    what: str
    automatic: bool = False  # an owed step: the seat's node authors it without asking anyone


@dataclass(frozen=True)
class NeedRandom:
    """The game needs a uniform integer in [0, bound): every seat reveals a preimage, in order."""

    bound: int
    purpose: str


@dataclass(frozen=True)
class Owed:
    """An event ``seat`` owes now, written by its private side (e.g. its shuffle of a pool)."""

    seat: int
    type: str
    what: str


@dataclass(frozen=True)
class Seating:
    """Who sits at the table when the game starts: the game id and every seat's public key."""

    game: bytes
    keys: tuple[bytes, ...]


@dataclass(frozen=True)
class Result:
    """How a game ended: the winning seat (None for a draw) and why.

    ``culprit`` names a seat whose fault only the end-of-game audit could see: the game is void.
    """

    winner: int | None
    reason: str
    culprit: int | None = None


class GameRules(Protocol):
    kind: str
    min_seats: int
    max_seats: int

    def check_options(self, options: dict[str, Any], seats: int) -> None:
        """Refuse, with GameRuleError, options this game cannot start with at ``seats`` seats:
        at the genesis, so a game that was accepted always starts."""
        ...

    def start(self, seats: int, options: dict[str, Any], seating: Seating) -> Any: ...

    def next(self, game: Any) -> Turn | NeedRandom | Owed | None:
        """Whose event comes next; None once the game is over."""

    def apply(self, game: Any, seat: int, type: str, body: dict[str, Any], seq: int) -> Any:
        """The state after seat's event, or GameRuleError; ``game`` itself never changes."""

    def apply_random(self, game: Any, value: int) -> Any:
        """The state after a random draw of ``value``; ``game`` itself never changes."""

    def result(self, game: Any) -> Result | None: ...

    def action(self, game: Any, seat: int, text: str) -> tuple[str, dict[str, Any]]:
        """Turn a player's typed command into an event type and body (GameRuleError if bad)."""

    def describe(self, game: Any, seat: int) -> str:
        """A seat's role in words, e.g. 'light'."""


@runtime_checkable
class HiddenInformation(Protocol):
    """What a game with hidden information adds to ``GameRules``: each local seat's private side.

    A game without hidden information simply does not have ``private_side``; the session asks
    ``isinstance(rules, HiddenInformation)``, so the seam is declared here, not looked up."""

    def private_side(self, seating: Seating, seat: int, secrets: Any) -> PrivateSide:
        """The seat's private side, from its stored ``lobby.SeatSecrets`` and the seating."""
        ...


@runtime_checkable
class Retiring(Protocol):
    """What a game adds to ``GameRules`` to play on without a seat (protocol/retirement.py)."""

    def retire(self, game: Any, seat: int) -> Any:
        """The state once ``seat`` has left for good (its owed steps now the table's, the seat out
        of play); ``game`` itself never changes.  GameRuleError if this game cannot (no escrow)."""
        ...


@runtime_checkable
class WrapsEngine(Protocol):
    """A game state that carries its engine's own state (``Session.engine_state``), for faces
    that draw or bots that read the engine's position."""

    state: Any


class PrivateSide(Protocol):
    """One local seat's secrets for one game (made by ``rules.private_side`` when it exists).

    Everything it knows follows from the seat's stored secrets and the public log, so a node that
    restarts rebuilds it by replaying the log: nothing else needs to be stored.
    """

    def owed(self, game: Any, seq: int) -> tuple[str, dict[str, Any]]:
        """The type and body of the owed event the seat authors at ``seq``."""

    def complete(self, game: Any, seq: int, type: str, body: dict[str, Any]) -> dict[str, Any]:
        """A decision's body with what only this seat can add (e.g. the key of a played card)."""

    def view(self, game: Any) -> Any:
        """What the seat sees: the public game joined with its own hidden cards."""


class SeatBot(Protocol):
    """Chooses the local seat's next action, as the text a player would type."""

    def choose(self, game: Any, seat: int) -> str:
        """``game`` is ``Session.local_view()``: the game state, or the private side's view."""


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
