"""The table's patience as its own player sees it: how long the game has waited on her move,
and what she is told before the others act on her silence.

The other seats' nodes count a silence from when they hear the last event, and after the
game's ``retire_after`` seconds they retire the silent seat, or at two seats offer the other
player a claim (node/retirement.py).  Her own node runs no timer on her, so a face tells her
itself: the terminal's status line and the page say the same words at the same moments, from
here.
"""

from __future__ import annotations

from dataclasses import dataclass

from creepnet.protocol.session import Phase, Session


class Quiet:
    """How long a game's log has stood still, as a face that looks now and then sees it: the
    clock starts when it first sees the log at a new length (as the others' nodes start theirs
    when they hear an event), so a face should look at least once a second."""

    def __init__(self) -> None:
        self.length, self.since = -1, 0.0

    def silent(self, length: int, now: float) -> float:
        """Seconds since the log was first seen at ``length`` events, ``now`` on the same clock."""
        if length != self.length:
            self.length, self.since = length, now
        return now - self.since


@dataclass(frozen=True)
class OwnSilence:
    """The player to move has been silent for half the table's patience or more."""

    left: float  # seconds before the others may act (0 or less: they may at any moment)
    patience: float  # the game's retire_after
    many: bool  # more than two seats remain: the others retire hers (else her opponent claims)

    @property
    def up(self) -> bool:
        return self.left < 1

    @property
    def text(self) -> str:
        claim = "your opponent may claim the game"
        if not self.up:
            then = "the others retire your seat" if self.many else claim
            return f"move within {self.left:.0f} s before {then}"
        # The others' clocks started when they heard the last event: they may vote any moment.
        now = "the others may retire your seat" if self.many else claim
        return f"silent for the table's {self.patience:g} s: {now} at any moment"


def own_silence(session: Session, silent: float) -> OwnSilence | None:
    """The warning for the local player, the game having waited ``silent`` seconds on her
    decision; None when it waits on someone else, or on nothing, or she has had less than half
    the table's patience (a person thinking is no news)."""
    waiting = session.waiting_for() if session.phase is Phase.PLAYING else None
    if waiting is None or waiting.seat != session.local_seat or session.my_turn() is None:
        return None
    if silent < session.retire_after / 2:
        return None
    left = session.retire_after - silent
    return OwnSilence(left, session.retire_after, session.retires_a_silence)
