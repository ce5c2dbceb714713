"""Live delivery into a session: duplicates, held events, conflicts and equivocation.

Peers deliver events in any order and any number of times.  An event for the next position goes
through the session's one commit path; one for a filled position is a duplicate, a fork by the
same author (an equivocation: the game halts with a proof anyone can check) or an unentitled
signer; one ahead of the log is held only when validly signed by a key that could ever write in
this game (protocol/pending.py bounds the buffer), else deferred without blame.  Held events are
never judged against each other, only against the event accepted at their position, so nobody
can halt a game with two events for a position nobody has reached.

The ``Inbox`` keeps what delivery needs beside the game (held events, the last batch ``passable``
parsed) and changes the session only through its own transitions: ``Session.accept_event`` (the
one commit path) and ``Session.halt`` (which checks the proof against its log).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from creepnet.protocol import retirement
from creepnet.protocol.event import Event
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.log import (
    EquivocationProof,
    Rejection,
    check_link,
    find_equivocation,
    parse_or_reject,
)
from creepnet.protocol.pending import FutureEvents

if TYPE_CHECKING:
    from creepnet.protocol.session import Session


@dataclass
class Receipt:
    """What happened to incoming bytes: status is accepted, duplicate, pending (held for a later
    position), deferred (not held, nobody blamed: see protocol/pending.py), late (a seat's own
    event at a position where the table retired it: nobody blamed), overtaken (a retirement of
    a seat where we took its event: the node checks it), rejected, equivocation or halted.
    ``accepted`` also lists held events that now fit."""

    status: str
    accepted: list[Event] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    proof: EquivocationProof | None = None

    @property
    def rejection(self) -> Rejection | None:
        return self.rejections[0] if self.rejections else None


class Inbox:
    """One session's delivery state: events held for later positions, and what ``passable``
    parsed last (so ``receive`` does not verify the same bytes twice)."""

    def __init__(self) -> None:
        self.held = FutureEvents()
        self._parsed: dict[bytes, Event] = {}

    def receive(self, session: Session, raw: bytes) -> Receipt:
        """Place one delivery (the sender's allowance is the caller's): never raises for bad
        input."""
        if session.knows(hashlib.sha256(raw).digest()):
            return Receipt("duplicate")
        event = self._parsed.pop(raw, None)  # parsed by `passable` just before: the same bytes
        if event is None:
            try:
                event = parse_or_reject(raw)
            except Rejection as rejection:
                return Receipt("rejected", rejections=[rejection])
        if session.game is not None and event.game != session.game:
            return Receipt(
                "rejected", rejections=[Rejection(event.seq, "game", "event of another game")]
            )
        if event.seq < len(session.log):
            return _conflict(session, session.log.events[event.seq], event)
        if event.seq > len(session.log):
            return self._hold(session, event)
        try:
            session.accept_event(event)
        except Rejection as rejection:
            return Receipt("rejected", rejections=[rejection])
        receipt = Receipt("accepted", accepted=[event])
        self._drain(session, receipt)
        return receipt

    def _hold(self, session: Session, event: Event) -> Receipt:
        if not event.signature_valid():  # never let forged bytes occupy a future slot
            return Receipt(
                "rejected", rejections=[Rejection(event.seq, "signature", "bad signature")]
            )
        if not _may_ever_author(session, event.author):
            return Receipt("deferred")  # maybe a seat still to join: fetched again when due
        return Receipt(self.held.hold(event, len(session.log)))

    def _drain(self, session: Session, receipt: Receipt) -> None:
        """Commit held events that now fit; losing candidates are judged against the winner."""
        while len(session.log) in self.held:
            candidates = self.held.pop(len(session.log))
            committed = None
            for event in candidates:
                if committed is None:
                    try:
                        session.accept_event(event)
                    except Rejection as rejection:
                        receipt.rejections.append(rejection)
                        continue
                    committed = event
                    receipt.accepted.append(event)
                else:
                    verdict = _conflict(session, committed, event)
                    receipt.rejections.extend(verdict.rejections)
                    if verdict.proof is not None:
                        receipt.status, receipt.proof = "equivocation", verdict.proof
                        return
            if committed is None:
                break
        self.held.drop_before(len(session.log) + 1)

    def passable(self, session: Session, raws: list[bytes]) -> int:
        """How many leading raws a relay may pass on before checking them: a chain from our head
        (``check_link``: signature, game, seq, prev) signed by the seat owed the next event.

        Cheap (parse and signature) where the full check may take a proof's worth of time; an
        event that passes this and then fails the full check is its author's fault, and names it
        at every receiver just as it does here."""
        self._parsed = {}
        author = session.owed_author()
        if author is None:
            return 0
        seq, prev = len(session.log), session.log.head
        for raw in raws:
            try:
                event = parse_or_reject(raw)
                check_link(event, session.game, seq, prev)
            except Rejection:
                break
            if event.author != author:
                break
            self._parsed[raw] = event
            seq, prev = seq + 1, event.id
        return len(self._parsed)


def _conflict(session: Session, known: Event, event: Event) -> Receipt:
    """An event for a filled position: known is accepted, so the same author is a fork."""
    if known.raw == event.raw:
        return Receipt("duplicate")
    proof = find_equivocation(known, event)
    if proof is not None:
        session.halt(proof)
        rejection = Rejection(
            known.seq,
            "equivocation",
            "two different signed events at one position: game stopped",
            proof.author,
        )
        return Receipt("equivocation", rejections=[rejection], proof=proof)
    if event.signature_valid() and event.prev == known.prev:
        keys = session.seat_keys
        if retirement.names_seat_of(known, keys, event.author):
            # The seat's own move, which crossed its retirement on the way: late, not forged.
            seat = keys.index(event.author)
            reason = f"seat {seat}'s event came after the table retired it at seq {event.seq}"
            return Receipt("late", rejections=[Rejection(event.seq, "late", reason)])
        if retirement.names_seat_of(event, keys, known.author):
            # The seat's move we took crossed its retirement: the node checks the retirement
            # and, if it holds, takes it in place of that seat's events (node/overtaken.py).
            seat = keys.index(known.author)
            reason = f"the table retired seat {seat} at seq {event.seq}, where we took its event"
            return Receipt("overtaken", rejections=[Rejection(event.seq, "overtaken", reason)])
        # Same history, so the same entitled author: this signer claimed a seat not theirs.
        reason = f"not entitled: seq {event.seq} belongs to {fingerprint(known.author)}"
        return Receipt(
            "rejected", rejections=[Rejection(event.seq, "entitlement", reason, event.author)]
        )
    return Receipt(
        "rejected",
        rejections=[Rejection(event.seq, "chain", "conflicts with an accepted event")],
    )


def _may_ever_author(session: Session, key: bytes) -> bool:
    """Whether key could write some later event of this game, as far as we know now."""
    events = session.log.events
    return bool(events) and (key == events[0].author or key in session.seat_keys)
