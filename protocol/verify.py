"""Offline verification of a whole log file: a verdict with reasons, never an exception.

Every event goes through the same session code a live peer runs: decoding, signature, chain,
entitlement, commitments and the game's rules.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from creepnet.protocol import codec
from creepnet.protocol.event import Event, EventError
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.log import EquivocationProof, Rejection, iter_log, parse_or_reject
from creepnet.protocol.session import Session


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
    kind: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "events": self.events,
            "finished": self.finished,
            "outcome": self.outcome,
            "error": self.error.to_json() if self.error else None,
            "notes": self.notes,
            "game": self.game.hex() if self.game else None,
            "kind": self.kind,
        }


class SignatureVerdicts(Protocol):
    """Signature verdicts computed elsewhere (another process) for the events of one log."""

    def start(self, raws: list[bytes]) -> None:
        """Begin on the log's complete events, given in file order."""

    def verdict(self, index: int) -> bool | None:
        """``signature_valid()`` of event ``index`` if already known, else None (check here)."""


def replay(
    data: bytes, signatures: SignatureVerdicts | None = None
) -> tuple[Session, Rejection | None]:
    """Feed a log file through a verifier session; returns it and the first fault, if any.

    Events are judged one by one in file order, so the first fault in file order is reported:
    a framing error or torn tail after the last complete event counts only if every event
    before it is valid.  ``signatures`` may supply verdicts for some events; the rest, and
    every other check, run here.
    """
    session = Session()
    raws: list[bytes] = []
    framing: Rejection | None = None
    try:
        raws.extend(iter_log(data))
    except Rejection as rejection:
        framing = rejection  # judged after the events before it, as live play would
    if signatures is not None:
        signatures.start(raws)
    try:
        with _collector_paused():
            for start in range(0, len(raws), BATCH):
                _replay_batch(session, raws, start, signatures)
    except Rejection as rejection:
        return session, rejection
    if framing is not None:
        return session, framing
    if not session.log.events:
        return session, Rejection(0, "empty", "the log holds no events")
    return session, audit_fault(session)


BATCH = 256  # events whose signatures are checked back to back before their rules


def _replay_batch(
    session: Session, raws: list[bytes], start: int, signatures: SignatureVerdicts | None
) -> None:
    """Judge events ``start``.. of a batch in file order, their signatures checked first.

    A signature's verdict depends on the event's bytes alone, so checking a batch's before
    their rules changes no verdict and no order: ``accept_event`` still meets every check of
    every event in file order (the signature first) and raises at the first fault.  Checking
    them back to back keeps libsodium's code and tables in the CPU caches, which the replay
    between two verifies otherwise evicts: interleaved, a verify cost ~15-25% more than in a
    bare loop.  Parsing stops at a malformed event, raised once the events before it pass.
    """
    batch: list[Event] = []
    malformed: Rejection | None = None
    for index in range(start, min(start + BATCH, len(raws))):
        try:
            batch.append(parse_or_reject(raws[index], index))
        except Rejection as rejection:
            malformed = rejection
            break
    for index, event in enumerate(batch, start):
        known = None if signatures is None else signatures.verdict(index)
        if known is None:
            event.signature_valid()  # memoised on the event for accept_event
        else:
            event.vouch_signature(known)
    for event in batch:
        session.accept_event(event)
    if malformed is not None:
        raise malformed


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a log is replayed, then restore it.

    A replay allocates a few containers per event (the decoded map, the Event, game states)
    and keeps them all: the collector's passes over them found nothing to free and cost ~10%
    of a long log's verification.  A replay makes no reference cycles worth waiting for, and
    the first collection after it frees any there are.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def audit_fault(session: Session) -> Rejection | None:
    """A fault only the end-of-game audit could see (a hidden card that broke a rule), blamed
    on the seat whose signed event it was: the log is complete but the game is void."""
    result = session.result
    if result is None or result.culprit is None:
        return None
    key = session.seats[result.culprit].key
    return Rejection(len(session.log) - 1, "audit", result.reason, key)


def verify_log_bytes(data: bytes, signatures: SignatureVerdicts | None = None) -> Verdict:
    session, error = replay(data, signatures)
    verdict = Verdict(
        valid=error is None,
        events=len(session.log),
        error=error,
        game=session.game,
        kind=session.kind or None,
    )
    if error is not None:
        return verdict
    verdict.finished = session.finished
    verdict.outcome = session.outcome_text or abandonment_text(session)
    verdict.notes.append(f"{session.kind} game {session.name!r} ({session.game.hex()[:8]})")  # type: ignore[union-attr]
    verdict.notes.extend(session.seat_label(i) for i in range(len(session.seats)))
    verdict.notes.extend(retirement_notes(session))
    if not session.finished and session.abandoned is None:
        waiting = session.waiting_for()
        if session.exhausted():
            verdict.notes.append("stuck: the seats' committed randomness is exhausted")
        elif waiting is not None:
            verdict.notes.append(f"{waiting.describe()} (since seq {waiting.since_seq})")
    return verdict


def abandonment_text(session: Session) -> str | None:
    """The words for a game claimed abandoned: by the other of two seats, or by a retirement
    of a seat nothing of which could take its place (protocol/session.py)."""
    gone = session.abandoned
    if gone is None:
        return None
    return (
        f"unfinished: abandoned by seat {gone.seat}, claimed by seat {gone.claimant} "
        f"at seq {gone.seq}"
    )


def ended_by(session: Session, event: Event) -> bool:
    """Whether ``event`` (a ``retire``) ended the game: nothing of the seat could take its
    place, so the table stopped there, abandoned (protocol/session.py)."""
    return session.abandoned is not None and session.abandoned.seq == event.seq


def retirement_notes(session: Session) -> list[str]:
    """One line per seat the table retired: who, where, who voted, and what followed."""
    return [
        f"seat {e.body['seat']} ({session.seats[e.body['seat']].player}) retired by the table at "
        f"seq {e.seq}: votes of seats {', '.join(str(v[0]) for v in e.body['votes'])}; "
        + (
            "nothing of it could take its place, so the game ended there"
            if ended_by(session, e)
            else "the table played on without it"
        )
        for e in session.log.events
        if e.type == "retire"
    ]


def verify_file_bytes(data: bytes, signatures: SignatureVerdicts | None = None) -> Verdict:
    """Verify what a file holds: a game log, or an equivocation proof a node stored."""
    proof = _as_proof(data)
    return verify_log_bytes(data, signatures) if proof is None else verify_proof(proof)


def _as_proof(data: bytes) -> EquivocationProof | None:
    try:
        value = codec.decode(data)
    except codec.CodecError:
        return None  # a log of several events, or garbage: the log verifier will say which
    try:
        return EquivocationProof.from_value(value)
    except ValueError:
        return None  # any other value: the log verifier will say what is wrong with it


def verify_proof(proof: EquivocationProof) -> Verdict:
    """Does the proof hold: two different validly signed events by one author at one position?"""
    try:
        first = proof.verify()
    except (ValueError, EventError) as exc:
        return Verdict(
            False, 2, kind="equivocation proof", error=Rejection(None, "proof", str(exc))
        )
    second = parse_or_reject(proof.second)
    who = fingerprint(first.author)
    verdict = Verdict(True, 2, finished=True, game=first.game, kind="equivocation proof")
    verdict.outcome = f"{who} signed two different events at seq {first.seq}: a proven equivocation"
    for label, event in (("first", first), ("second", second)):
        verdict.notes.append(f"{label}: {event.type} {event.body} (event id {event.id.hex()[:16]})")
    return verdict
