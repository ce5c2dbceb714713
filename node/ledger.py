"""The one path of every accepted event: author what we owe, store it, then gossip and report it.

Every event, ours or a peer's, takes this path (``Ledger.settle``): the session has accepted
it, the ledger appends it to the game's log file (fsync), and only then sends it to the game's
followers and announces it in ``have``.  So nothing of ours leaves the node before it is on
disk, and a crash can never make the node contradict what it told someone.  (A relay may pass a
peer's signed event on before its check and store, sync.py ``_pass_on``: no promise of ours.)
A full disk holds the new events back (nothing is sent meanwhile, so nothing is lost) and a
task retries with back-off.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import trio

from creepnet.node import messages, updates
from creepnet.node.game import GameRuntime
from creepnet.node.peer import Peer
from creepnet.node.reporter import Reporter
from creepnet.node.storage import StorageError
from creepnet.node.trace import EventTrace
from creepnet.protocol.event import Event
from creepnet.protocol.onion import OnionExhausted

MAX_RETRY = 30.0  # seconds: the longest pause between two tries of a held-back append
SLOW_APPEND = 0.005  # seconds: one append slower than this moves appends to a worker thread


class Ledger:
    def __init__(self, reporter: Reporter, retry: float, on_settled: Callable[[], None]) -> None:
        self.reporter = reporter
        self.retry = retry  # the first pause before retrying a refused append
        self.on_settled = on_settled  # e.g. refresh the adverts (seats, state)
        self.nursery: trio.Nursery | None = None  # where retry tasks run; set by the node
        self.trace: EventTrace | None = None  # `--trace`: when each event was stored
        self.inline_appends = True  # until one append is slow (see _append)
        self.clock: Callable[[], float] = time.perf_counter  # times appends (tests: a fake disk)

    async def settle(
        self, runtime: GameRuntime, source: Peer | None = None, received: set[bytes] | None = None
    ) -> bool:
        """Author what we owe, store every new event durably, then gossip it and report.

        ``source`` sent ``received``: those are not echoed back to it.  True when ``source`` was
        sent events (their ``length`` acknowledges what we stored, as a ``have`` would).
        Caller holds runtime.lock."""
        session = runtime.session
        told_source = False
        if session.halted is None:
            try:
                session.owed()
            except OnionExhausted as exc:
                self.reporter.note(runtime, "exhausted", str(exc), updates.ERROR)
        new = session.log.events[runtime.stored :]
        if new:
            # Applied events are news at once, so a UI redraws while the disk write runs.
            # Waiters (bots, wait_for) wake only after it: what they see is stored, and
            # nothing of ours leaves this node before it is stored.
            self.reporter.announce(runtime, wake=False)
            raws = [event.raw for event in new]
            try:
                await self._append(runtime, raws)
            except StorageError as exc:
                runtime.storage_error = str(exc)
                self.reporter.publish(
                    updates.STORAGE_ERROR,
                    f"{exc}; not sending or acknowledging the new events until they are "
                    "stored (retrying)",
                    runtime.game,
                )
                self._retry_later(runtime)
                runtime.notify()
                return False
            start, runtime.stored, runtime.storage_error = runtime.stored, len(session.log), None
            if self.trace is not None:
                self.trace.stored(runtime.game, start, len(raws))
            told_source = self._gossip(runtime, start, new, source, received)
        self.reporter.announce(runtime)
        self.on_settled()
        return told_source

    async def _append(self, runtime: GameRuntime, raws: list[bytes]) -> None:
        """Append + fsync, in this thread while the disk is quick, else in a worker thread.

        A hand-off to a thread and back costs ~0.2-0.6 ms here, more than the ~0.2 ms fsync
        of an SSD, twice per event hop (the author's and the receiver's store).  So appends
        run inline until one takes longer than SLOW_APPEND (a slow or busy disk); from then on
        they run in a thread, shielded (a cancelled append would leave the file and `stored`
        disagreeing), so a slow disk never holds up the node's other connections."""
        if self.inline_appends:
            start = self.clock()
            try:
                runtime.store.append(raws)
            finally:
                if self.clock() - start > SLOW_APPEND:
                    self.inline_appends = False
            return
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(runtime.store.append, raws)

    def _gossip(
        self,
        runtime: GameRuntime,
        start: int,
        new: list[Event],
        source: Peer | None,
        received: set[bytes] | None,
    ) -> bool:
        """Send the newly stored events on; True when ``source`` got some.

        In a mesh every seat has every other seat's events from their author, so a seat gets
        from us only the events we signed; of the others it is told our length (``have``) and
        fetches what it still lacks from whoever told it first (sync.py ``_fetch``).  Spectators
        get everything.  The source gets nothing it sent us (a shuffle is ~20 kB to decode and
        discard), and a follower nothing we passed on to it before our check (sync.py)."""
        raws = [event.raw for event in new]
        known = 0
        while received and known < len(raws) and raws[known] in received:
            known += 1
        session = runtime.session
        ours = session.identity.public_key if session.identity is not None else None
        mine = [event.author == ours for event in new]
        told_source = False
        for peer in list(runtime.followers.values()):
            skip = known if peer is source else runtime.passed_on.already(peer.key, start, raws)
            wanted = [
                i >= skip and (mine[i] or peer.key not in session.seat_keys)
                for i in range(len(raws))
            ]
            sent = self._send_runs(runtime, peer, start, raws, wanted)
            told_source = told_source or (peer is source and sent)
            if all(wanted[skip:]):
                peer.queued_events(runtime.game, start + len(raws))
            if not sent and peer is not source:
                peer.send(messages.have(runtime.game, runtime.stored))
        return told_source

    @staticmethod
    def _send_runs(
        runtime: GameRuntime, peer: Peer, start: int, raws: list[bytes], wanted: list[bool]
    ) -> bool:
        """Send each run of wanted raws in as few frames as fit; whether any was sent."""
        sent, offset = False, 0
        while offset < len(raws):
            if not wanted[offset]:
                offset += 1
                continue
            end = offset
            while end < len(raws) and wanted[end]:
                end += 1
            run = raws[:end]
            while offset < end:  # frames are limited in bytes too: go by what each took
                chunk = messages.batch(run, offset)
                peer.send(messages.events(runtime.game, start + offset, chunk, runtime.stored))
                offset += len(chunk)
            sent = True
        return sent

    def _retry_later(self, runtime: GameRuntime) -> None:
        if not runtime.retrying_storage and self.nursery is not None:
            runtime.retrying_storage = True
            self.nursery.start_soon(self._retry, runtime)

    async def _retry(self, runtime: GameRuntime) -> None:
        """A full disk often clears (a download ends, files are deleted): keep trying, backing
        off, so the game resumes by itself."""
        delay = self.retry
        try:
            while runtime.storage_error is not None:
                await trio.sleep(delay)  # a back-off timer, not synchronisation
                delay = min(delay * 2, MAX_RETRY)
                try:
                    async with runtime.lock:
                        if runtime.storage_error is not None:
                            await self.settle(runtime)
                except Exception as exc:  # a bug: this game keeps retrying, the node goes on
                    self.reporter.fault("retrying a held-back append", exc, game=runtime.game)
        finally:
            runtime.retrying_storage = False
        self.reporter.publish(
            updates.STORAGE_OK, "the disk took the held-back events", runtime.game
        )
