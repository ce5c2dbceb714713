"""A CPU budget per peer key: what its refused events may cost us before we cut it off.

An event is cheap to send and may be dear to check (a Racer shuffle proof is tens of
milliseconds of verification), and a seated player may sign as many invalid ones as it likes.
So the node times every ``Session.receive`` of a peer's event (the CPU time of the node's own
thread, ``time.thread_time``: other threads and processes on a busy machine do not count) and
charges the peer for the events the session *rejected*.  The charge drains a token bucket per
key: ``burst`` seconds of CPU, refilled at ``rate`` seconds per second.  A key that overdraws
it is disconnected and shunned for ``shun`` seconds: its connections are refused at the hello,
so reconnecting does not renew the allowance (a fresh key does not help either: a key with no
seat cannot make the session check a proof, its events fail on the seat before any proof).

The bucket is kept per key across connections (at most ``MAX_KEYS``, least recently charged
dropped first), so the bound holds for a peer however often it reconnects.

Signed messages other than events are charged to the same bucket (``Meter``, which
``GameSync`` is): a join request the host refuses (it signed a seat event and checked the
request for nothing), a retirement vote, an objection or a leave notice whose signature (or
carried event) the node refuses each cost an Ed25519 check or more, and anyone who knows a
game's id may send them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import trio

if TYPE_CHECKING:
    from creepnet.node.game import GameRuntime
    from creepnet.node.peer import Peer

RATE = 0.05  # seconds of CPU per second (5% of a core) a key's refused events may cost, on average
BURST = 1.0  # seconds of CPU they may cost at once
SHUN = 300.0  # seconds a key over its budget is refused
MAX_KEYS = 4096


@dataclass
class _Bucket:
    allowance: float
    at: float  # when it was last refilled (trio.current_time)


class CpuBudget:
    def __init__(
        self,
        rate: float = RATE,
        burst: float = BURST,
        shun: float = SHUN,
        *,
        clock: Callable[[], float] = time.thread_time,
        now: Callable[[], float] = trio.current_time,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.shun = shun
        self.clock = clock  # measures what checking an event cost
        self.now = now  # refills the buckets
        self._buckets: OrderedDict[bytes, _Bucket] = OrderedDict()

    def charge(self, key: bytes, seconds: float) -> bool:
        """Charge key for a refused event that took ``seconds`` of CPU; True when it is now
        over its budget."""
        now = self.now()
        bucket = self._buckets.pop(key, None) or _Bucket(self.burst, now)
        bucket.allowance = min(self.burst, bucket.allowance + (now - bucket.at) * self.rate)
        bucket.at = now
        bucket.allowance -= max(0.0, seconds)
        self._buckets[key] = bucket
        while len(self._buckets) > MAX_KEYS:
            self._buckets.popitem(last=False)
        return bucket.allowance < 0

    def spent(self, key: bytes) -> float:
        """How much of its burst key has used (0 for a key never charged)."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None else self.burst - bucket.allowance


class Meter(Protocol):
    """Where a part of the node that checks a peer's signed message charges a refused check
    (``GameSync``: its ``CpuBudget``, cutting the payer off when it is over)."""

    def clock(self) -> float:
        """CPU seconds, on the budget's clock: read it before a check and after."""
        ...

    def refused(
        self,
        runtime: GameRuntime,
        peer: Peer,
        payer: bytes,
        seconds: float,
        *,
        forged: bool = False,
    ) -> None:
        """peer's message about runtime's game was refused after seconds of checking; payer
        (the sender, or the signer the refusal names) pays for it.  ``forged``: the sender's
        own fault (a signature that is nobody's, a join request refused), counted as a
        refused event of its connection too: a fresh key's budget is a whole second, and
        keys cost nothing."""
        ...


class Unmetered:
    """A meter that charges nobody (a part of the node tested on its own)."""

    def clock(self) -> float:
        return 0.0

    def refused(
        self,
        runtime: GameRuntime,
        peer: Peer,
        payer: bytes,
        seconds: float,
        *,
        forged: bool = False,
    ) -> None:
        return None
