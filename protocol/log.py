"""The game log: one linear chain of signed events, its file format, and equivocation proofs.

A log file is the events' canonical bytes concatenated in order, nothing else (msgpack values are
self-delimiting).  A crash can leave a partial last event: the *torn tail*, which is reported
and can be dropped without touching the valid events before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from creepnet.protocol import codec
from creepnet.protocol.event import GENESIS_PREV, Event, EventError, parse_event
from creepnet.protocol.identity import fingerprint


class Rejection(Exception):
    """An event (or log) that must not be accepted: at which seq, why, and whose fault.

    ``kind`` is a short machine-readable class (``signature``, ``chain``, ``sequence``, ``game``,
    ``malformed``, ``entitlement``, ``illegal``, ``equivocation``, ``torn-tail``, ...).
    """

    def __init__(self, seq: int | None, kind: str, reason: str, author: bytes | None = None):
        self.seq = seq
        self.kind = kind
        self.reason = reason
        self.author = author
        super().__init__(self.describe())

    def describe(self) -> str:
        where = f"seq {self.seq}: " if self.seq is not None else ""
        who = f" (author {fingerprint(self.author)})" if self.author else ""
        return f"{where}{self.reason}{who}"

    def to_json(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "reason": self.reason,
            "author": self.author.hex() if self.author else None,
            "author_fingerprint": fingerprint(self.author) if self.author else None,
        }


def parse_or_reject(raw: bytes, seq: int | None = None) -> Event:
    """parse_event, turning a malformed event into a Rejection (blaming nobody: unsigned bytes)."""
    try:
        return parse_event(raw)
    except EventError as exc:
        raise Rejection(seq, "malformed", str(exc)) from None


def check_link(event: Event, game: bytes | None, seq: int, prev: bytes) -> None:
    """Check that event is the valid next link of a chain, signature included.

    Misplaced events (other game, seq or prev) blame nobody: a validly signed event can be
    replayed by anyone, so its signer is named in the reason but not as the culprit.  The
    rejection's seq is the position (``seq``), whatever the event claims.
    """
    if not event.signature_valid():
        # Bytes with a bad signature prove nothing about who sent them.
        raise Rejection(seq, "signature", "bad signature")
    if game is not None and event.game != game:
        raise Rejection(
            seq,
            "game",
            f"event of game {event.game.hex()[:8]}, not {game.hex()[:8]} "
            f"(signed by {event.author_fingerprint}; a replay?)",
        )
    if event.seq != seq:
        raise Rejection(
            seq,
            "sequence",
            f"expected seq {seq}, got {event.seq} (signed by {event.author_fingerprint})",
        )
    if event.prev != prev:
        raise Rejection(
            seq,
            "chain",
            f"prev does not match the previous event's id (signed by {event.author_fingerprint})",
        )


@dataclass
class EventLog:
    """A verified chain of events of one game (structure and signatures; rules are elsewhere)."""

    events: list[Event] = field(default_factory=list)

    @property
    def game(self) -> bytes | None:
        return self.events[0].game if self.events else None

    @property
    def head(self) -> bytes:
        return self.events[-1].id if self.events else GENESIS_PREV

    def __len__(self) -> int:
        return len(self.events)

    def check_next(self, event: Event) -> None:
        check_link(event, self.game, len(self.events), self.head)

    def append(self, event: Event) -> None:
        self.check_next(event)
        self.events.append(event)

    def to_bytes(self) -> bytes:
        return b"".join(event.raw for event in self.events)


@dataclass(frozen=True)
class LogFile:
    """The raw contents of a log file: complete event byte strings and any torn tail."""

    items: list[bytes]
    torn_tail: bytes

    @property
    def torn(self) -> bool:
        return bool(self.torn_tail)

    def torn_tail_rejection(self) -> Rejection:
        """What a verifier says of a torn tail: where it starts and that the rest is intact."""
        return Rejection(
            len(self.items),
            "torn-tail",
            f"torn tail: the last {len(self.torn_tail)} bytes are an incomplete event "
            f"(the {len(self.items)} events before it are intact)",
        )


def iter_log(data: bytes) -> Iterator[bytes]:
    """The events of log-file bytes in order, for judging one by one as live play would.

    Raises Rejection where the framing breaks (``malformed``) or for a torn tail, but only after
    yielding every complete event before it: an earlier bad event is found first."""
    consumed = index = 0
    try:
        for raw in codec.iter_stream(data):
            yield raw
            consumed, index = consumed + len(raw), index + 1
    except codec.StreamError as exc:
        raise Rejection(exc.index, "malformed", f"malformed event: {exc}") from None
    if consumed < len(data):
        raise LogFile([b""] * index, data[consumed:]).torn_tail_rejection()


def split_log(data: bytes) -> LogFile:
    """Cut log-file bytes into events; raises Rejection for bytes that are not msgpack at all."""
    try:
        split = codec.split_stream(data)
    except codec.StreamError as exc:
        raise Rejection(exc.index, "malformed", f"malformed event: {exc}") from None
    return LogFile(split.items, split.tail)


def load_log(data: bytes) -> EventLog:
    """Parse and verify (chain and signatures) a whole log; raises Rejection at the first fault.

    A torn tail is an error here; callers that recover after a crash use ``split_log`` and
    drop ``torn_tail`` explicitly.
    """
    log = EventLog()
    for raw in iter_log(data):
        log.append(parse_or_reject(raw, len(log)))
    return log


@dataclass(frozen=True)
class EquivocationProof:
    """Two different validly signed events by one author at the same game and seq.

    Portable: anyone can check it with ``verify()`` and nothing else.
    """

    first: bytes
    second: bytes

    def verify(self) -> Event:
        """Return the first event if the proof holds; raise ValueError saying why not."""
        a, b = parse_event(self.first), parse_event(self.second)
        if a.raw == b.raw:
            raise ValueError("the two events are identical")
        if (a.game, a.seq, a.author) != (b.game, b.seq, b.author):
            raise ValueError("the events differ in game, seq or author")
        if not (a.signature_valid() and b.signature_valid()):
            raise ValueError("a signature does not verify")
        return a

    @property
    def author(self) -> bytes:
        return parse_event(self.first).author

    def to_bytes(self) -> bytes:
        return codec.encode({"kind": "equivocation", "events": [self.first, self.second]})

    @classmethod
    def from_bytes(cls, data: bytes) -> EquivocationProof:
        return cls.from_value(codec.decode(data))

    @classmethod
    def from_value(cls, value: object) -> EquivocationProof:
        """The proof in an already decoded value; ValueError if it is not one."""
        if not (
            isinstance(value, dict)
            and value.get("kind") == "equivocation"
            and isinstance(value.get("events"), list)
            and len(value["events"]) == 2
            and all(isinstance(item, bytes) for item in value["events"])
        ):
            raise ValueError("not an equivocation proof")
        events = value["events"]
        return cls(events[0], events[1])


def find_equivocation(known: Event, incoming: Event) -> EquivocationProof | None:
    """An equivocation proof if incoming conflicts with an event already accepted at its seq."""
    if (
        incoming.raw != known.raw
        and incoming.game == known.game
        and incoming.seq == known.seq
        and incoming.author == known.author
        and incoming.signature_valid()
    ):
        return EquivocationProof(known.raw, incoming.raw)
    return None
