"""TCP connections carrying frames: connect with a timeout, send under a lock, close politely.

A connection starts in the clear with the small handshake limits; ``secure`` (called by the
handshake once keys are agreed) seals every later frame in both directions (node/channel.py),
and ``authenticated`` (once the peer's signature proved its key) raises the limits to those of
an authenticated peer: until then a stranger can make us read at most 2 KiB per frame.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import trio

from creepnet.node.channel import TAG_SIZE, ChannelError, Sealer
from creepnet.node.framing import (
    FRAME_LIMITS,
    HANDSHAKE_FRAME,
    HANDSHAKE_LIMITS,
    MAX_FRAME,
    FrameError,
    FrameReader,
    decode_message,
    encode_body,
    with_header,
)
from creepnet.node.wan.invite import WAN_PREFIX


@dataclass(frozen=True)
class Timeouts:
    """Seconds.  Idle must exceed ping so a quiet but live peer is never dropped."""

    connect: float = 5.0
    handshake: float = 10.0
    ping: float = 10.0
    idle: float = 30.0
    send: float = 10.0  # one frame write; a peer that does not read for this long is dropped
    retry: float = 1.0  # first delay before redialling a lost peer (doubles up to 30 s)


class TransportError(Exception):
    """Connecting or sending failed; the message says to whom and why."""


def is_port(text: str) -> bool:
    """A TCP port written in ASCII digits (``"²".isdigit()`` is true and ``int`` refuses it;
    ``int`` takes full-width digits, which no address is written in)."""
    return text.isascii() and text.isdigit() and 0 < int(text) < 65536


def address_host(address: str) -> str:
    """Where an address (or a connection's label) is, as the node's policies read it — the
    admission's slots, the mesh's and the host finder's scope: the IP of ``host:port`` or
    ``[v6]:port``; over the internet carrier, ``wan:<peer id>`` whether the relays follow
    (``wan:<peer id>@<relays>``, a dialled address) or not (an accepted stream's label), so
    one peer is one address however it was reached (a relay's multiaddr may hold colons:
    ``/ip6/::1/…``).  A label that is neither is its own host."""
    if address.startswith(WAN_PREFIX):
        return WAN_PREFIX + address[len(WAN_PREFIX) :].partition("@")[0]
    return address.rpartition(":")[0].strip("[]") or address


def parse_address(text: str) -> tuple[str, int]:
    """``host:port`` (or ``[v6]:port``) → (host, port), with a clear error."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not is_port(port):
        raise ValueError(f"not a HOST:PORT address: {text!r}")
    return host.strip("[]"), int(port)


class Connection:
    """One framed TCP stream.  Sends are serialised by a lock; reading is one task's job."""

    def __init__(
        self, stream: trio.SocketStream | trio.abc.Stream, timeouts: Timeouts, *, label: str = ""
    ) -> None:
        self.stream = stream
        self.timeouts = timeouts
        self.reader = FrameReader(stream, HANDSHAKE_FRAME, HANDSHAKE_LIMITS)
        self._sealer: Sealer | None = None
        self._opener: Sealer | None = None
        # While the handshake runs, a refusal may still come in the clear (the peer refused our
        # hello before it had keys); afterwards every frame must open.
        self.clear_errors = True
        self._send_lock = trio.Lock()
        self.closed = False
        self.torn = False  # a frame was cut off mid-write: the stream can carry no more
        self.label = label or _peer_label(stream)
        # Where the peer slots see it come from (node/admission.py): the address's host, or for
        # a stream the internet carrier accepted, the IP its connection comes from (the peer's
        # own, or the relay's): peer ids cost nothing, an IP address does.
        self.origin: str = getattr(stream, "origin", None) or address_host(self.label)

    @property
    def sealed(self) -> bool:
        return self._sealer is not None

    def secure(self, send_key: bytes, receive_key: bytes) -> None:
        """Seal every frame from now on, both ways.  The sizes stay the handshake's: keys
        agreed with a stranger prove nothing until its signature (``authenticated``)."""
        self._sealer, self._opener = Sealer(send_key), Sealer(receive_key)
        self.reader.max_frame = HANDSHAKE_FRAME + TAG_SIZE

    def authenticated(self) -> None:
        """The handshake is done: allow an authenticated peer's sizes, and no clear frame."""
        self.clear_errors = False
        self.reader.max_frame = MAX_FRAME + TAG_SIZE
        self.reader.limits = FRAME_LIMITS

    def frame(self, message: dict[str, Any]) -> bytes:
        """The bytes of one frame; sealing advances the send counter, so it is sent at once."""
        body = encode_body(message)
        if self._sealer is not None:
            body = self._sealer.seal(body)
        return with_header(body)

    async def send(self, message: dict[str, Any]) -> None:
        async with self._send_lock:
            if self.torn:
                raise TransportError(f"{self.label}: a frame was cut short; nothing more to say")
            # A cancellation must not fall between sealing (which advances the counter) and
            # the first byte on the wire, or every later frame would fail the peer's tag: so
            # it is taken here, and nothing yields from here to the socket's first send.
            await trio.lowlevel.checkpoint_if_cancelled()
            frame = self.frame(message)
            if self.closed:
                raise TransportError(f"{self.label}: connection closed")
            with trio.move_on_after(self.timeouts.send) as scope:
                try:
                    await self.stream.send_all(frame)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    raise TransportError(f"{self.label}: send failed: {exc}") from None
                except BaseException:  # cancelled in the middle of the frame
                    self.torn = True
                    raise
            if scope.cancelled_caught:
                self.torn = True
                raise TransportError(f"{self.label}: peer did not read for {self.timeouts.send}s")

    async def receive(self) -> dict[str, Any]:
        try:
            body = await self.reader.read_raw()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise FrameError(f"{self.label}: connection lost: {exc}") from None
        if self._opener is None:
            return decode_message(body, self.reader.limits)
        try:
            return decode_message(self._opener.open(body), self.reader.limits)
        except ChannelError:
            if self.clear_errors and len(body) <= HANDSHAKE_FRAME:
                with contextlib.suppress(FrameError):
                    message = decode_message(body, HANDSHAKE_LIMITS)
                    if message["type"] == "error":
                        return message
            raise

    async def send_error(self, reason: str) -> None:
        """Tell the other end why we hang up; best effort, bounded in time."""
        with trio.move_on_after(1.0):
            with contextlib.suppress(TransportError, FrameError):
                await self.send({"type": "error", "reason": reason[:500]})

    async def aclose(self) -> None:
        self.closed = True
        with trio.CancelScope(shield=True):
            await trio.aclose_forcefully(self.stream)


def _peer_label(stream: Any) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
        return f"{host}:{port}"
    except (AttributeError, OSError):
        return "peer"


async def connect(address: str, timeouts: Timeouts) -> Connection:
    try:
        host, port = parse_address(address)
    except ValueError as exc:  # e.g. an internet address while the internet carrier is off
        raise TransportError(f"cannot dial {address}: {exc}") from None
    with trio.move_on_after(timeouts.connect) as scope:
        try:
            stream = await trio.open_tcp_stream(host, port)
        except OSError as exc:
            raise TransportError(f"cannot connect to {address}: {exc.strerror or exc}") from None
    if scope.cancelled_caught:
        raise TransportError(f"cannot connect to {address}: no answer in {timeouts.connect}s")
    return Connection(stream, timeouts, label=address)
