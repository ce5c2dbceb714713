"""The one path of every accepted event: relay peers' events, author what we owe, store, gossip.

Every event, ours or a peer's, takes this path (``Ledger.settle``) once the session has accepted
it.  Events we author are appended to the game's log file (fsync) before they are sent to the
game's followers or announced in ``have``, so a crash can never make the node contradict what it
told someone.  Peers' events the session has just checked are relayed at once, before we author
our answer and before the disk write: they are their authors' signed words, not ours, so a crash
that loses them from our file loses nothing we said (we acknowledge only stored events, and fetch
them again from the peers who have them), and the relay does not wait on our proofs or our disk.
Our own events, and everything after them, leave only once stored: the file is always a prefix
of the log, so an event of ours on disk has every event before it on disk too.

One append (one fsync) takes every event a settle adds: the received batch and our answers.
A full disk holds the new events back (nothing of ours is sent meanwhile, so nothing is lost)
and a task retries with back-off.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from creepnet.node import messages, updates
from creepnet.node.game import GameRuntime
from creepnet.node.peer import Peer
from creepnet.node.reporter import Reporter
from creepnet.node.storage import StorageError
from creepnet.protocol.onion import OnionExhausted

MAX_RETRY = 30.0  # seconds: the longest pause between two tries of a held-back append


class Ledger:
    def __init__(self, reporter: Reporter, retry: float, on_settled: Callable[[], None]) -> None:
        self.reporter = reporter
        self.retry = retry  # the first pause before retrying a refused append
        self.on_settled = on_settled  # e.g. refresh the adverts (seats, state)
        self.nursery: trio.Nursery | None = None  # where retry tasks run; set by the node

    async def settle(
        self, runtime: GameRuntime, source: Peer | None = None, received: set[bytes] | None = None
    ) -> None:
        """Relay peers' new events, author what we owe, store every new event durably, then
        gossip what is left and report.

        ``source`` sent ``received``: events all of which came from it are not echoed back.
        Caller holds runtime.lock."""
        session = runtime.session
        self._relay(runtime, source, received)
        if session.halted is None:
            try:
                session.owed()
            except OnionExhausted as exc:
                self.reporter.note(runtime, "exhausted", str(exc), updates.ERROR)
        new = session.log.events[runtime.stored :]
        if new:
            # Applied events are news at once, so a UI redraws while the disk write runs.
            # Waiters (bots, wait_for) wake only after it: what they see is stored, and
            # nothing leaves this node before it is stored.
            self.reporter.announce(runtime, wake=False)
            raws = [event.raw for event in new]
            try:
                # Shielded: a cancelled append would leave the file and `stored` disagreeing.
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(runtime.store.append, raws)
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
                return
            runtime.stored, runtime.storage_error = len(session.log), None
            if runtime.sent < runtime.stored:  # ours (and what follows): their `length` says it
                self._gossip(runtime, runtime.stored, source, received)
            else:  # all relayed ahead of the disk: say they are stored now (the source hears
                # it from sync, which acknowledges what it sent)
                stored = messages.have(runtime.game, runtime.stored)
                for peer in list(runtime.followers.values()):
                    if peer is not source:
                        peer.send(stored)
        self.reporter.announce(runtime)
        self.on_settled()

    def _relay(
        self, runtime: GameRuntime, source: Peer | None, received: set[bytes] | None
    ) -> None:
        """Send on, unstored, the accepted events that follow what we sent, up to our own first.

        They are peers' events the session has checked (never unchecked bytes); ours wait for
        the disk, and so does everything after them, to keep each follower's stream in order."""
        events = runtime.session.log.events
        identity = runtime.session.identity
        ours = identity.public_key if identity is not None else None
        end = runtime.sent
        while end < len(events) and events[end].author != ours:
            end += 1
        self._gossip(runtime, end, source, received)

    @staticmethod
    def _gossip(
        runtime: GameRuntime, end: int, source: Peer | None, received: set[bytes] | None
    ) -> None:
        """Send the log's events from ``runtime.sent`` to ``end`` to every follower, in frames.

        ``length`` says what we have stored (what the receiver may count as acknowledged),
        which may be less than the events sent when they are relayed ahead of the disk."""
        start = runtime.sent
        if end <= start:
            return
        raws = [event.raw for event in runtime.session.log.events[start:end]]
        echo = received is None or not all(raw in received for raw in raws)
        offset = 0
        while offset < len(raws):
            chunk = messages.batch(raws, offset)
            message = messages.events(runtime.game, start + offset, chunk, runtime.stored)
            for peer in list(runtime.followers.values()):
                if peer is not source or echo:
                    peer.send(message)
            offset += len(chunk)
        runtime.sent = end

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
                async with runtime.lock:
                    if runtime.storage_error is not None:
                        await self.settle(runtime)
        finally:
            runtime.retrying_storage = False
        self.reporter.publish(
            updates.STORAGE_OK, "the disk took the held-back events", runtime.game
        )
