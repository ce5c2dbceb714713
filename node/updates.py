"""What the node tells a UI: a stream of small, human-readable updates.

Each subscriber gets its own bounded channel; a subscriber that does not keep up loses updates
(counted in ``dropped``) instead of slowing the node down — the session itself is always the
truth, the stream is only news about it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import trio

log = logging.getLogger("creepnet.node")

# Kinds, for UIs to switch on:
LISTENING = "listening"
PEER_CONNECTED = "peer-connected"
PEER_DISCONNECTED = "peer-disconnected"
# A peer started following one game (data["back"]: it had followed before and left), or a
# follower's connection ended; both name the game, so a face tells its players who is there.
FOLLOWER_ARRIVED = "follower-arrived"
FOLLOWER_LEFT = "follower-left"
HANDSHAKE_FAILED = "handshake-failed"
EVENT = "event"  # an event was applied (ours or a peer's); storing it follows at once
WAITING = "waiting"  # whom the game waits for changed
YOUR_TURN = "your-turn"
REJECTED = "rejected"  # an event from a peer was refused, with the reason
HALTED = "halted"  # equivocation: the game is stopped, the proof is stored
GAME_OVER = "game-over"
SEATED = "seated"  # the local player got a seat
JOIN_REFUSED = "join-refused"
STORAGE_ERROR = "storage-error"
STORAGE_OK = "storage-ok"  # held-back events were stored after all, and sent
HOST_MOVED = "host-moved"  # a followed game's host was found again at a new address
ADVERT_REFUSED = "advert-refused"  # an advert of a followed game led to a node without its key
# The mesh (mesh.py): an address a peer gave for a seat that we will not dial (out of scope,
# or the node there proved another key); data has `address` and `key`.
ADDRESS_REFUSED = "address-refused"
# No event from the seat the game waits for, although every peer was asked for it (stalls.py);
# data has `seat`, `key`, `seconds` and `asked` (how many peers).
STALLED = "stalled"
ERROR = "error"


WARNINGS = (REJECTED, HALTED, STORAGE_ERROR, ERROR, ADVERT_REFUSED, ADDRESS_REFUSED)


@dataclass(frozen=True)
class Update:
    kind: str
    text: str
    game: bytes | None = None
    peer: str | None = None  # fingerprint
    data: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        where = f"[{self.game.hex()[:8]}] " if self.game else ""
        return f"{where}{self.kind}: {self.text}"


class Broadcaster:
    def __init__(self, label: str = "") -> None:
        self.label = label  # which node, in log lines (several nodes share a process in tests)
        self._subscribers: list[trio.MemorySendChannel[Update]] = []
        self.dropped = 0

    def publish(self, update: Update) -> None:
        level = (
            logging.WARNING
            if update.kind
            in (REJECTED, HALTED, STORAGE_ERROR, ERROR, ADVERT_REFUSED, ADDRESS_REFUSED)
            else logging.INFO
        )
        log.log(level, "%s %s", self.label, update)
        for channel in list(self._subscribers):
            try:
                channel.send_nowait(update)
            except trio.WouldBlock:
                self.dropped += 1
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                self._subscribers.remove(channel)

    @asynccontextmanager
    async def subscribe(
        self, buffer: int = 1024
    ) -> AsyncIterator[trio.MemoryReceiveChannel[Update]]:
        send, receive = trio.open_memory_channel[Update](buffer)
        self._subscribers.append(send)
        try:
            yield receive
        finally:
            if send in self._subscribers:
                self._subscribers.remove(send)
            send.close()
