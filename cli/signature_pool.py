"""Check a long log's signatures in a worker process while this one replays the rules.

An Ed25519 verify costs about as much as everything else a full verification does per event
(decoding, chain, entitlement, the game's rules), and libsodium's check is independent from
event to event.  So for a long log one worker process takes chunks of events from the END of
the file backwards, parses each and runs the very same ``Event.signature_valid``; the caller
replays from the start and, event by event, uses the worker's verdict when its chunk is done,
or checks the signature itself when it is not (a chunk not yet started is cancelled, one
running is left to finish for the events after).  Verdicts, and which fault is reported first
in file order, are exactly those of a serial run: every other check still runs in order in
the calling process, and a signature is judged the same wherever it is judged.

On one free core the two processes share it and the run takes about as long as a serial one;
on two it is up to twice as fast.  Small logs are checked serially (start-up is not worth it).
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING

from creepnet.protocol.event import EventError, parse_event

if TYPE_CHECKING:  # imported when a worker starts: ~20 ms a short or --serial run never needs
    from concurrent.futures import Future, ProcessPoolExecutor

CHUNK = 1000  # events per task: long enough to amortise pickling, short enough to balance
MIN_EVENTS = 4000  # below this a worker's start-up (~50 ms) outweighs what it saves


def check_signatures(raws: list[bytes]) -> list[bool]:
    """Signature verdicts of events (runs in the worker)."""
    verdicts = []
    for raw in raws:
        try:
            verdicts.append(parse_event(raw).signature_valid())
        except EventError:
            verdicts.append(False)  # never asked: the caller rejects it as malformed first
    return verdicts


class SignaturePool:
    """A ``protocol.verify.SignatureVerdicts`` backed by one worker process; a context manager."""

    def __init__(self, *, chunk: int = CHUNK, min_events: int = MIN_EVENTS) -> None:
        self.chunk = chunk
        self.min_events = min_events
        self._executor: ProcessPoolExecutor | None = None
        self._pending: dict[int, Future[list[bool]]] = {}
        self._done: dict[int, list[bool]] = {}
        self.checked_by_worker = 0  # how many verdicts came from the worker (for the curious)

    def start(self, raws: list[bytes]) -> None:
        for future in self._pending.values():  # a previous log's leftovers
            future.cancel()
        self._pending, self._done = {}, {}
        if len(raws) < self.min_events:
            return
        if self._executor is None:  # one worker for every log of this pool
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # fork on Linux (quickest; the first fork happens before the executor's thread
            # starts), spawn elsewhere.
            method = "fork" if sys.platform == "linux" else "spawn"
            context = multiprocessing.get_context(method)
            self._executor = ProcessPoolExecutor(1, mp_context=context)
        # The caller checks chunk 0 itself; the worker starts from the last chunk.
        for number in reversed(range(1, (len(raws) + self.chunk - 1) // self.chunk)):
            part = raws[number * self.chunk : (number + 1) * self.chunk]
            self._pending[number] = self._executor.submit(check_signatures, part)

    def verdict(self, index: int) -> bool | None:
        number, offset = divmod(index, self.chunk)
        done = self._done.get(number)
        if done is None:
            future = self._pending.get(number)
            if future is None:
                return None
            if not future.done():
                if future.cancel():  # the worker has not reached it: ours from now on
                    del self._pending[number]
                return None
            del self._pending[number]
            try:
                done = self._done[number] = future.result()
            except Exception:  # a worker that died costs time, not verdicts: check them here
                return None
        self.checked_by_worker += 1
        return done[offset]

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def __enter__(self) -> SignaturePool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
