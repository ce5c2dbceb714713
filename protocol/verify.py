"""Offline verification of a whole log file: a verdict with reasons, never an exception."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from creepnet.protocol.log import EventLog, Rejection, load_log


@dataclass
class Verdict:
    """What a verifier concluded about one log."""

    valid: bool
    events: int
    finished: bool = False
    outcome: str | None = None
    error: Rejection | None = None
    notes: list[str] = field(default_factory=list)
    game: bytes | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "events": self.events,
            "finished": self.finished,
            "outcome": self.outcome,
            "error": self.error.to_json() if self.error else None,
            "notes": self.notes,
            "game": self.game.hex() if self.game else None,
        }


def verify_log_bytes(data: bytes) -> Verdict:
    """Verify structure, signatures and chain of a log file's bytes."""
    try:
        log = load_log(data)
    except Rejection as rejection:
        return Verdict(valid=False, events=max(rejection.seq or 0, 0), error=rejection)
    return _verdict_for(log)


def _verdict_for(log: EventLog) -> Verdict:
    if not log.events:
        return Verdict(False, 0, error=Rejection(0, "empty", "the log holds no events"))
    return Verdict(True, len(log), game=log.game)
