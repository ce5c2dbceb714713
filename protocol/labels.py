"""Words for people about a session: whom it waits for, seat labels, the outcome line.

Pure formatting of what the session already decided; nothing here judges an event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from creepnet.protocol.identity import fingerprint

if TYPE_CHECKING:
    from creepnet.protocol.session import Session


@dataclass(frozen=True)
class Waiting:
    """Whose event the game is waiting for, since which accepted event, and for what."""

    seat: int
    key: bytes
    player: str
    since_seq: int
    what: str

    def describe(self) -> str:
        return f"waiting for seat {self.seat}, {self.player} ({fingerprint(self.key)}): {self.what}"


def seat_label(session: Session, seat: int) -> str:
    label = f"seat {seat}, {session.seats[seat].label}"
    if session.started and session.rules is not None:
        label += f", {session.rules.describe(session.game_state, seat)}"
    return label


def outcome_text(session: Session) -> str | None:
    result = session.result
    if result is None:
        return None
    if result.culprit is not None:
        return f"void: {seat_label(session, result.culprit)} cheated ({result.reason})"
    if result.winner is None:
        return f"draw ({result.reason})"
    return f"{seat_label(session, result.winner)} wins by {result.reason}"
