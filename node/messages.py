"""Wire messages after the handshake, and the shape checks every incoming one passes.

The node checks only shapes (types and sizes of fields); whether an event is valid is decided by
the session, which gets the raw bytes untouched.
"""

from __future__ import annotations

from typing import Any

from creepnet.node.framing import BATCH_BYTES
from creepnet.node.peer import ProtocolViolation
from creepnet.node.wan.invite import TICKET_SIZE
from creepnet.protocol.event import EVENT_ID_SIZE, GAME_ID_SIZE

MAX_BATCH = 1024  # events per `events` message
MAX_ADDRESS_ITEMS = 16  # entries of one `addresses` message (a game has at most a few seats)
MAX_ADDRESS = 64  # characters of one `host:port` (an IPv6 literal in brackets fits)
KEY_SIZE = 32  # an Ed25519 public key
MAX_INT = 2**63 - 1  # every integer field: a count, a seq, a seat or a port

# type -> {field: python type}; `type` itself is checked by the framing layer.
SHAPES: dict[str, dict[str, type | tuple[type, ...]]] = {
    "have": {"game": bytes, "length": int},
    "get": {"game": bytes, "from": int},
    "events": {"game": bytes, "from": int, "items": list, "length": int},
    "list": {},
    "games": {"items": list},
    "join": {"game": bytes, "request": bytes},
    "join-refused": {"game": bytes, "reason": str},
    "listen": {"port": int},  # the mesh (mesh.py): the TCP port the sender accepts on
    "addresses": {"game": bytes, "items": list},  # [{key, address}]: where it reaches seats
    # node/retirement.py: a vote to retire a stalled seat, a seat's signed leave notice, and
    # a seat's objection to a vote (it holds X's event there: `event`, its raw bytes)
    "retire-vote": {"game": bytes, "seq": int, "prev": bytes, "seat": int, "vote": list},
    "retire-objection": {
        "game": bytes,
        "seq": int,
        "prev": bytes,
        "seat": int,
        "objector": int,
        "event": bytes,
        "signature": bytes,
    },
    "leave": {"game": bytes, "seat": int, "signature": bytes},
}
# type -> {field: size in bytes}: byte-string fields that may be absent.
OPTIONAL: dict[str, dict[str, int]] = {
    # an invite's ticket (node/wan/invite.py): over the internet, a seat wants it
    "join": {"ticket": TICKET_SIZE},
}


def check(message: dict[str, Any]) -> dict[str, Any]:
    """The message with only the fields of its type, if it has them all, else raise.

    Extra fields are dropped, not kept: what we pass on (a vote, an objection, a leave notice)
    must be only what we checked, or one valid vote could carry 2 MiB of anything to each of
    our followers."""
    kind = message["type"]
    shape = SHAPES.get(kind)
    if shape is None:
        raise ProtocolViolation(f"unknown message type {kind!r}")
    for name, expected in shape.items():
        value = message.get(name)
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ProtocolViolation(f"`{kind}.{name}` is missing or of the wrong type")
        if isinstance(value, int) and value < 0:
            raise ProtocolViolation(f"`{kind}.{name}` must not be negative")
        if isinstance(value, int) and value > MAX_INT:
            # msgpack carries up to 2**64 - 1; what we sign frames integers in 8 signed bytes
            raise ProtocolViolation(f"`{kind}.{name}` must fit a signed 64-bit integer")
    if "game" in shape and len(message["game"]) != GAME_ID_SIZE:
        raise ProtocolViolation(f"`{kind}.game` must be {GAME_ID_SIZE} bytes")
    if "prev" in shape and len(message["prev"]) != EVENT_ID_SIZE:
        raise ProtocolViolation(f"`{kind}.prev` must be an event id ({EVENT_ID_SIZE} bytes)")
    if kind == "events":
        items = message["items"]
        if len(items) > MAX_BATCH or not all(isinstance(item, bytes) for item in items):
            raise ProtocolViolation(f"`events.items` must be at most {MAX_BATCH} byte strings")
    elif kind == "listen" and not 0 < message["port"] < 65536:
        raise ProtocolViolation("`listen.port` must be a TCP port (1-65535)")
    elif kind == "addresses":
        _check_addresses(message["items"])
    checked = {"type": kind, **{name: message[name] for name in shape}}
    for name, size in OPTIONAL.get(kind, {}).items():
        if name in message:
            value = message[name]
            if not isinstance(value, bytes) or len(value) != size:
                raise ProtocolViolation(f"`{kind}.{name}` must be {size} bytes")
            checked[name] = value
    return checked


def _check_addresses(items: list[Any]) -> None:
    if len(items) > MAX_ADDRESS_ITEMS:
        raise ProtocolViolation(f"`addresses.items` holds at most {MAX_ADDRESS_ITEMS} entries")
    for item in items:
        if not (
            isinstance(item, dict)
            and set(item) == {"key", "address"}
            and isinstance(item["key"], bytes)
            and len(item["key"]) == KEY_SIZE
            and isinstance(item["address"], str)
            and 0 < len(item["address"]) <= MAX_ADDRESS
        ):
            raise ProtocolViolation(
                "each of `addresses.items` must be exactly {key: 32 bytes, address: a string "
                f"of at most {MAX_ADDRESS} characters}}"
            )


def have(game: bytes, length: int) -> dict[str, Any]:
    return {"type": "have", "game": game, "length": length}


def get(game: bytes, start: int) -> dict[str, Any]:
    return {"type": "get", "game": game, "from": start}


def events(game: bytes, start: int, raws: list[bytes], length: int) -> dict[str, Any]:
    return {"type": "events", "game": game, "from": start, "items": raws, "length": length}


def listen(port: int) -> dict[str, Any]:
    return {"type": "listen", "port": port}


def addresses(game: bytes, items: list[tuple[bytes, str]]) -> dict[str, Any]:
    entries = [{"key": key, "address": address} for key, address in items]
    return {"type": "addresses", "game": game, "items": entries}


def batch(raws: list[bytes], start: int) -> list[bytes]:
    """The events from start that fit one frame (always at least one if any)."""
    out: list[bytes] = []
    size = 0
    for raw in raws[start:]:
        if out and (size + len(raw) > BATCH_BYTES or len(out) >= MAX_BATCH):
            break
        out.append(raw)
        size += len(raw)
    return out
