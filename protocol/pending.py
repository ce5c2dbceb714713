"""Events that arrive before their turn, and what a sender may cost us: bounded, attributed.

A live peer can receive event n+3 before n+1 (a gap after a reconnect).  Such events are held
until the gap fills, but holding is a service to honest peers, not a right:

* only validly signed events whose author could ever write in this game are held (the host, and
  the keys already seated) — an outsider's signature proves nothing we need, so its events are
  *deferred* (not stored, not blamed: the node fetches what it misses with ``get``);
* at most ``MAX_CANDIDATES`` different events per position, ``MAX_PER_AUTHOR`` per author (so a
  seated cheater cannot squat the buffer), ``MAX_HELD`` in all and ``MAX_HELD_BYTES`` of bytes;
  a full buffer defers, it never blames the honest sender of the next event;
* held events are never judged against each other: an equivocation needs an *accepted* event,
  so two held events decide nothing until one of them is accepted in its turn.

Every event that did not move the game (duplicate, held, deferred) is charged to the sender that
delivered it (``Allowance``); a sender over its allowance is refused before we even decode its
bytes, and the node cuts it off like any peer whose events are refused.  The allowance remembers
``MAX_SENDERS`` senders at most (the one that cost least is forgotten first).
"""

from __future__ import annotations

from collections import Counter

from creepnet.protocol.event import Event

MAX_HELD = 1024  # events held while waiting for a gap to fill
MAX_CANDIDATES = 4  # different signed events held for one future position
MAX_HELD_BYTES = 4 << 20  # and their total size: a count alone would allow ~1 GiB
MAX_PER_AUTHOR = 256  # held events signed by one key
MAX_AHEAD = MAX_HELD  # how far past the next position an event may be held
FREE_WASTE = 4096  # events a sender may deliver that do not move the game ...
WASTE_PER_EVENT = 4  # ... plus this many per event of the log (honest gossip overlaps)
MAX_SENDERS = 1024  # senders whose waste is remembered: fresh keys cost nothing to make


class FutureEvents:
    """Held events by position, with every bound of the module docstring."""

    def __init__(self) -> None:
        self._by_seq: dict[int, list[Event]] = {}
        self._per_author: Counter[bytes] = Counter()
        self._count = 0
        self._bytes = 0

    def __len__(self) -> int:
        return self._count

    def __contains__(self, seq: int) -> bool:
        return seq in self._by_seq

    def hold(self, event: Event, next_seq: int) -> str:
        """``pending`` (held), ``duplicate`` (already held) or ``deferred`` (a bound is hit)."""
        held = self._by_seq.get(event.seq, [])
        if any(other.raw == event.raw for other in held):
            return "duplicate"
        if (
            len(held) >= MAX_CANDIDATES
            or self._count >= MAX_HELD
            or self._bytes + len(event.raw) > MAX_HELD_BYTES
            or self._per_author[event.author] >= MAX_PER_AUTHOR
            or event.seq - next_seq > MAX_AHEAD
        ):
            return "deferred"
        self._by_seq.setdefault(event.seq, []).append(event)
        self._per_author[event.author] += 1
        self._count += 1
        self._bytes += len(event.raw)
        return "pending"

    def pop(self, seq: int) -> list[Event]:
        """The candidates for seq, removed from the buffer (in arrival order)."""
        events = self._by_seq.pop(seq, [])
        for event in events:
            self._forget(event)
        return events

    def drop_before(self, next_seq: int) -> None:
        """Forget candidates for positions already filled."""
        for seq in [seq for seq in self._by_seq if seq < next_seq]:
            self.pop(seq)

    def _forget(self, event: Event) -> None:
        self._per_author[event.author] -= 1
        if not self._per_author[event.author]:
            del self._per_author[event.author]
        self._count -= 1
        self._bytes -= len(event.raw)


class Allowance:
    """Per sender: deliveries that did not move the game, against a budget that grows with it."""

    def __init__(self) -> None:
        self._waste: Counter[bytes] = Counter()

    def exhausted(self, sender: bytes, log_length: int) -> bool:
        return self._waste[sender] >= FREE_WASTE + WASTE_PER_EVENT * log_length

    def wasted(self, sender: bytes) -> int:
        """Deliveries from sender so far that did not move the game."""
        return self._waste[sender]

    def charge(self, sender: bytes) -> int:
        if sender not in self._waste and len(self._waste) >= MAX_SENDERS:
            # Forget the sender that cost least: the fresh allowance it gets back is one it had
            # barely used, so a flood of throw-away keys evicts its own, never a big spender.
            del self._waste[min(self._waste, key=self._waste.__getitem__)]
        self._waste[sender] += 1
        return self._waste[sender]
