"""A connected, authenticated peer: one reader, one writer fed by a bounded queue, keep-alive.

The queue is what keeps a slow peer from costing us memory: ``send`` never blocks, and a peer
whose queue is full is dropped (it can catch up with ``have``/``get`` when it comes back).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from creepnet.node.framing import ConnectionClosed, FrameError
from creepnet.node.handshake import PeerHello
from creepnet.node.transport import Connection, TransportError

SEND_QUEUE = 256  # messages; a gossip round is one message per game, so this is generous


class ProtocolViolation(Exception):
    """The peer sent a message that is not part of the protocol; we hang up on it."""


Handler = Callable[["Peer", dict[str, Any]], Awaitable[None]]


class Peer:
    def __init__(self, conn: Connection, hello: PeerHello, *, dialed: str | None = None) -> None:
        self.conn = conn
        self.hello = hello
        self.key = hello.key
        self.fingerprint = hello.fingerprint
        self.dialed = dialed  # the address we dialled, or None for an incoming connection
        self._send, self._queue = trio.open_memory_channel[dict[str, Any]](SEND_QUEUE)
        self.closed = trio.Event()
        self.close_reason = ""
        self._cancel = trio.CancelScope()
        self._tell = ""  # the reason to send the peer in an `error` frame before closing
        self.rejections = 0  # its events that the session refused: hostile peers get cut off
        # Per game, the log length the events we queued to it reach: TCP delivers them or the
        # connection ends, so a `have` below this is one that crossed them in flight.
        self.sent: dict[bytes, int] = {}
        # The mesh (mesh.py): the port it says it accepts connections on, and the addresses
        # of seats we told it, (game, key, address), so each is told once per connection.
        self.listen_port: int | None = None
        self.told_port = False
        self.told: set[tuple[bytes, bytes, str]] = set()
        self._replies_in, self._replies = trio.open_memory_channel[dict[str, Any]](4)
        self.queued = 0  # messages queued so far, and written to the connection so far
        self.written = 0
        self._wrote = trio.Event()
        # An unexpected exception while serving it (a bug of ours its frame ran into): it ends
        # this connection only, and the node reports it (Connections._serve) and goes on.
        self.fault: Exception | None = None

    @property
    def label(self) -> str:
        name = f"{self.hello.name} " if self.hello.name else ""
        return f"{name}({self.fingerprint}) at {self.conn.label}"

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message; a peer that cannot keep up is dropped rather than buffered."""
        if self.closed.is_set():
            return
        try:
            self._send.send_nowait(message)
            self.queued += 1
        except trio.WouldBlock:
            self._tell = f"send queue full ({SEND_QUEUE} messages): peer too slow"
            self.close(self._tell)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    def queued_events(self, game: bytes, end: int) -> None:
        """Events of `game` up to seq `end` (exclusive) were just queued to this peer."""
        self.sent[game] = max(self.sent.get(game, 0), end)

    def deliver_reply(self, message: dict[str, Any]) -> None:
        """A reply to a request of ours (e.g. `games`); unasked-for replies beyond 4 are dropped."""
        with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):
            self._replies_in.send_nowait(message)

    async def next_reply(self) -> dict[str, Any]:
        if self.closed.is_set():
            raise TransportError(f"{self.label}: connection closed ({self.close_reason})")
        try:
            return await self._replies.receive()
        except trio.EndOfChannel:
            raise TransportError(f"{self.label}: connection closed ({self.close_reason})") from None

    def close(self, reason: str, *, tell: bool = False) -> None:
        """Hang up (with ``tell``, sending the peer the reason in an `error` frame first)."""
        if not self.close_reason:
            self.close_reason = reason
            if tell:
                self._tell = reason
        self._cancel.cancel()

    async def run(self, handler: Handler) -> None:
        """Serve the connection until it closes; returns (never raises) with close_reason set."""
        with self._cancel:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._guard, self._writer, nursery)
                nursery.start_soon(self._guard, self._pinger, nursery)
                await self._guard(lambda: self._reader(handler), nursery)
        if self._tell:
            await self.conn.send_error(self._tell)
        self.close_reason = self.close_reason or "closed"
        self._send.close()
        self._replies_in.close()
        self.closed.set()
        await self.conn.aclose()

    async def _guard(self, task: Callable[[], Awaitable[None]], nursery: trio.Nursery) -> None:
        """Run one of the peer's tasks; whichever ends first ends them all, with its reason.
        Nothing but cancellation leaves it: an exception in a child task would cancel the
        node's whole nursery, every game with it."""
        try:
            await task()
        except ProtocolViolation as exc:
            self._fail(f"protocol violation: {exc}", tell=True)
        except ConnectionClosed as exc:
            self._fail(str(exc))
        except FrameError as exc:
            self._fail(str(exc), tell=True)  # oversized or garbage frame: say why we hang up
        except TransportError as exc:
            self._fail(str(exc))
        except Exception as exc:  # a bug must not become a remote kill switch: drop this peer
            self.fault = self.fault or exc
            self._fail(f"internal error while serving this peer ({type(exc).__name__})", tell=True)
        finally:
            nursery.cancel_scope.cancel()

    def _fail(self, reason: str, tell: bool = False) -> None:
        if not self.close_reason:
            self.close_reason = reason
            if tell:
                self._tell = reason

    async def _reader(self, handler: Handler) -> None:
        idle = self.conn.timeouts.idle
        while True:
            # Hung up on (close): no further frame is handled, not even one already buffered.
            await trio.lowlevel.checkpoint_if_cancelled()
            with trio.move_on_after(idle) as scope:
                message = await self.conn.receive()
            if scope.cancelled_caught:
                self.close_reason = f"silent for {idle}s (no frame, not even a ping)"
                return
            kind = message["type"]
            if kind == "ping":
                self.send({"type": "pong"})
            elif kind == "pong":
                pass
            elif kind == "error":
                reason = message.get("reason")
                self.close_reason = f"peer hung up: {reason if isinstance(reason, str) else '?'}"
                return
            else:
                await handler(self, message)

    async def _writer(self) -> None:
        async for message in self._queue:
            await self.conn.send(message)
            self.written += 1
            self._wrote.set()
            self._wrote = trio.Event()

    async def wait_written(self, count: int) -> None:
        """Until the first `count` messages queued are written (or the connection ends)."""
        while self.written < count and not self.closed.is_set():
            await self._wrote.wait()

    async def _pinger(self) -> None:
        while True:
            await trio.sleep(self.conn.timeouts.ping)
            self.send({"type": "ping"})
