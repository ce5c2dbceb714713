"""Frames on a byte stream: a 4-byte big-endian length, then one canonical msgpack value.

The length is checked against a hard maximum *before* any body byte is read, so a hostile
declared length costs nothing: the connection is closed and no buffer is allocated for it.
The body is decoded with the strict canonical decoder and explicit limits.  Before the handshake
the limits are tiny (``HANDSHAKE_FRAME``, ``HANDSHAKE_LIMITS``): a stranger that has proved
nothing can make us read and decode at most 2 KiB per frame; the connection raises them once the
peer is authenticated (node/transport.py).
"""

from __future__ import annotations

import struct
from typing import Any

import trio

from creepnet.protocol import codec

HEADER = struct.Struct(">I")
# One frame carries at most one message; the biggest are `events` batches, which the sender
# cuts to BATCH_BYTES, so every single event (at most 1 MiB by the codec) fits in one frame.
MAX_FRAME = 2 << 20
BATCH_BYTES = 512 << 10
FRAME_LIMITS = codec.Limits(max_size=MAX_FRAME, max_bin=1 << 20, max_array=4096, max_map=64)
# A hello is ~400 bytes (three 32-byte fields, an agent and a name of at most 64 characters).
HANDSHAKE_FRAME = 2 << 10
HANDSHAKE_LIMITS = codec.Limits(
    max_size=HANDSHAKE_FRAME, max_str=512, max_bin=64, max_array=4, max_map=16, max_depth=2
)
_RECEIVE_CHUNK = 64 << 10


class FrameError(Exception):
    """The peer broke the framing or sent bytes that are not one canonical message."""


class ConnectionClosed(FrameError):
    """The peer closed the stream (cleanly at a frame boundary or in the middle of one)."""


def encode_body(message: dict[str, Any], max_frame: int = MAX_FRAME) -> bytes:
    """One message's canonical bytes, refused before sending when no peer would take them."""
    body = codec.encode(message)
    if len(body) > max_frame:
        raise FrameError(f"message of {len(body)} bytes exceeds the frame limit {max_frame}")
    return body


def with_header(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body


def encode_frame(message: dict[str, Any], max_frame: int = MAX_FRAME) -> bytes:
    """A whole plain frame (before the handshake keys a connection)."""
    return with_header(encode_body(message, max_frame))


class FrameReader:
    """Reads whole frames from a trio stream; keeps the few bytes read past a frame boundary."""

    def __init__(
        self,
        stream: trio.abc.ReceiveStream,
        max_frame: int = MAX_FRAME,
        limits: codec.Limits = FRAME_LIMITS,
    ) -> None:
        self._stream = stream
        self._buffer = bytearray()
        self.max_frame = max_frame
        self.limits = limits

    async def _fill(self, count: int) -> None:
        """Read until the buffer holds count bytes; count is always bounded by max_frame."""
        while len(self._buffer) < count:
            chunk = await self._stream.receive_some(min(_RECEIVE_CHUNK, count - len(self._buffer)))
            if not chunk:
                where = "between frames" if not self._buffer else "in the middle of a frame"
                raise ConnectionClosed(f"connection closed {where}")
            self._buffer += chunk

    async def read_raw(self) -> bytes:
        await self._fill(HEADER.size)
        (length,) = HEADER.unpack_from(self._buffer)
        if length == 0:
            raise FrameError("empty frame")
        if length > self.max_frame:
            raise FrameError(f"declared frame length {length} exceeds the limit {self.max_frame}")
        del self._buffer[: HEADER.size]
        await self._fill(length)
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        return body

    async def read(self) -> dict[str, Any]:
        """The next message: a canonical map with a str ``type``."""
        return decode_message(await self.read_raw(), self.limits)


def decode_message(body: bytes, limits: codec.Limits) -> dict[str, Any]:
    """A frame body as a message: a canonical map with a str ``type``, within limits."""
    try:
        message = codec.decode(body, limits)
    except codec.CodecError as exc:
        raise FrameError(f"bad frame: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise FrameError("a message must be a map with a string `type`")
    return message
