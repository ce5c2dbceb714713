"""Entitlement: only the seat the session names may write the next event, and only allowed types.

An event that reaches this check is validly signed for exactly the next position of this game's
chain, so a mismatch is its author's fault: the rejection blames it.  ``Session.expected`` says
who is entitled; this module judges an event against that answer.
"""

from __future__ import annotations

from collections.abc import Callable

from creepnet.protocol.event import Event
from creepnet.protocol.log import Rejection
from creepnet.protocol.rules import Turn


def waited_on(event: Event, turn: Turn | None, exhausted: Callable[[], bool]) -> Turn:
    """The turn the table waits on (a retirement names its seat); Rejection ``finished``."""
    if turn is None:
        # Signed for exactly this position, though nobody may write here: the author's fault.
        if exhausted():
            raise Rejection(
                event.seq, "finished", "no event can follow: randomness exhausted", event.author
            )
        raise Rejection(
            event.seq, "finished", "the game is over; no event may follow", event.author
        )
    return turn


def check_entitled(
    event: Event, turn: Turn | None, seat_keys: list[bytes], exhausted: Callable[[], bool]
) -> Turn:
    """The turn this event is written in; raises Rejection ``finished`` or ``entitlement``."""
    turn = waited_on(event, turn, exhausted)
    author = seat_keys[turn.seat] if turn.seat < len(seat_keys) else None
    if event.author != author:
        raise Rejection(
            event.seq,
            "entitlement",
            f"not entitled: {turn.what} is for seat {turn.seat}",
            event.author,
        )
    if event.type not in turn.types:
        raise Rejection(
            event.seq,
            "entitlement",
            f"{event.type!r} not allowed now (expected {', '.join(sorted(turn.types))})",
            event.author,
        )
    return turn


def is_decision(turn: Turn | None, seat: int | None) -> bool:
    """Whether turn is a decision for this seat to take, not an automatic or lobby step."""
    return (
        turn is not None
        and turn.seat == seat
        and not turn.automatic
        and not turn.types & {"reveal", "seat", "start"}
    )
