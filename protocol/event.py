"""The signed event envelope: one canonical msgpack map per event.

Fields: ``v`` protocol version, ``game`` game id, ``seq`` position in the chain, ``prev`` id of the
previous event (32 zero bytes for the genesis), ``author`` Ed25519 public key, ``type``, ``body``,
``sig``.  The signature covers ``SIGNING_DOMAIN`` followed by the canonical encoding of the map
without ``sig``; the event id is SHA-256 of the full canonical bytes, signature included.
"""

from __future__ import annotations

from dataclasses import dataclass
from hashlib import sha256
from typing import Any

from creepnet.protocol import codec
from creepnet.protocol.identity import (
    PUBLIC_KEY_SIZE,
    SIGNATURE_SIZE,
    Identity,
    fingerprint,
    verify_signature,
)

PROTOCOL_VERSION = 1
SIGNING_DOMAIN = b"creepnet/event/v1\x00"
GAME_ID_SIZE = 16
EVENT_ID_SIZE = 32
GENESIS_PREV = bytes(EVENT_ID_SIZE)
MAX_TYPE_LENGTH = 32
FIELDS = frozenset({"v", "game", "seq", "prev", "author", "type", "body", "sig"})
_FIELD_ORDER = tuple(sorted(FIELDS))  # canonical map order (UTF-8 byte order of the keys)
_BYTES_FIELDS = (
    ("game", GAME_ID_SIZE),
    ("prev", EVENT_ID_SIZE),
    ("author", PUBLIC_KEY_SIZE),
    ("sig", SIGNATURE_SIZE),
)
_SIG_ENTRY = b"\xa3sig\xc4\x40"  # fixstr "sig", then a bin8 header of 64 bytes


class EventError(ValueError):
    """Bytes that are not a well-formed event envelope; the message says why."""


@dataclass(frozen=True)
class Event:
    """A decoded, well-formed event.  ``raw`` is its canonical bytes; ``id`` their SHA-256."""

    game: bytes
    seq: int
    prev: bytes
    author: bytes
    type: str
    body: dict[str, Any]
    sig: bytes
    raw: bytes
    id: bytes
    signed: bytes  # what the signature covers: SIGNING_DOMAIN + canonical map without sig
    version: int = PROTOCOL_VERSION

    @property
    def author_fingerprint(self) -> str:
        return fingerprint(self.author)

    def signed_bytes(self) -> bytes:
        return self.signed

    def signature_valid(self) -> bool:
        """The strict check of identity.py, made once per Event (it is immutable)."""
        known = self.__dict__.get("_signature_valid")
        if known is None:
            known = verify_signature(self.author, self.signed, self.sig)
            object.__setattr__(self, "_signature_valid", known)
        return known

    def vouch_signature(self, valid: bool) -> None:
        """Record the verdict ``signature_valid`` gave on these very bytes elsewhere.

        For a verifier that checks a long log's signatures in a worker process: the worker
        parsed the same bytes and ran the same check, so asking again here would only repeat it.
        """
        object.__setattr__(self, "_signature_valid", bool(valid))

    def to_json(self) -> dict[str, Any]:
        """A JSON-friendly view: bytes as hex."""
        return {
            "seq": self.seq,
            "id": self.id.hex(),
            "prev": self.prev.hex(),
            "game": self.game.hex(),
            "author": self.author.hex(),
            "author_fingerprint": self.author_fingerprint,
            "type": self.type,
            "body": _jsonable(self.body),
            "sig": self.sig.hex(),
            "v": self.version,
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    return value


def sign_event(
    identity: Identity, *, game: bytes, seq: int, prev: bytes, type: str, body: dict[str, Any]
) -> Event:
    """Build and sign an event; the result is exactly what ``parse_event`` returns for its bytes."""
    unsigned = {
        "v": PROTOCOL_VERSION,
        "game": game,
        "seq": seq,
        "prev": prev,
        "author": identity.public_key,
        "type": type,
        "body": body,
    }
    sig = identity.sign(SIGNING_DOMAIN + codec.encode(unsigned))
    return parse_event(codec.encode({**unsigned, "sig": sig}))


def parse_event(raw: bytes) -> Event:
    """Strictly decode and shape-check one event; the signature is NOT checked here."""
    try:
        value = codec.unpack(raw)
        fields = _plain_envelope(value)
        if fields is not None:  # the envelope's own level passes every check: judge the body's
            codec.check_shape(fields[1], depth=2)
        else:
            codec.check_shape(value)
        codec.check_canonical(value, raw)
    except codec.CodecError as exc:
        raise EventError(f"undecodable event: {exc}") from None
    if fields is None:
        _check_envelope(value)  # raises EventError naming what is wrong
        fields = tuple(value.values())  # exactly FIELDS, and check_shape found them sorted
    author, body, game, prev, seq, sig, kind, version = fields
    return _new_event(
        game,
        seq,
        prev,
        author,
        kind,
        body,
        sig,
        raw,
        sha256(raw).digest(),
        _unsigned_bytes(raw, sig),
        version,
    )


def _plain_envelope(value: Any) -> tuple[Any, ...] | None:
    """The common case of ``_check_envelope`` in one expression: a map with exactly FIELDS in
    canonical order, each of its type and size; its values in that order, else None.  Then
    codec.check_shape of the map itself could only visit ``body``, and ``_check_envelope``
    would pass: both are skipped."""
    if type(value) is not dict or tuple(value) != _FIELD_ORDER:
        return None
    fields = author, body, game, prev, seq, sig, kind, version = tuple(value.values())
    if (
        type(version) is int
        and version == PROTOCOL_VERSION
        and type(game) is bytes
        and len(game) == GAME_ID_SIZE
        and type(prev) is bytes
        and len(prev) == EVENT_ID_SIZE
        and type(author) is bytes
        and len(author) == PUBLIC_KEY_SIZE
        and type(sig) is bytes
        and len(sig) == SIGNATURE_SIZE
        and type(seq) is int
        and seq >= 0
        and type(kind) is str
        and 0 < len(kind) <= MAX_TYPE_LENGTH
        and type(body) is dict
    ):
        return fields
    return None


def _check_envelope(value: Any) -> None:
    """Every rule of the envelope, one by one, so the error names the first one broken."""
    if type(value) is not dict:
        raise EventError("an event must be a map")
    if value.keys() != FIELDS:
        missing = sorted(FIELDS - set(value))
        extra = sorted(set(value) - FIELDS)
        raise EventError(f"wrong fields (missing {missing}, unexpected {extra})")
    version, seq, kind, body = value["v"], value["seq"], value["type"], value["body"]
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise EventError(f"unsupported protocol version {version!r}")
    for field, size in _BYTES_FIELDS:
        if type(value[field]) is not bytes or len(value[field]) != size:
            raise EventError(f"{field} must be {size} bytes")
    if type(seq) is not int or seq < 0:
        raise EventError("seq must be a non-negative integer")
    if type(kind) is not str or not 0 < len(kind) <= MAX_TYPE_LENGTH:
        raise EventError(f"type must be a short non-empty string, not {kind!r}")
    if type(body) is not dict:
        raise EventError("body must be a map")


def _new_event(
    game: bytes,
    seq: int,
    prev: bytes,
    author: bytes,
    type: str,
    body: dict[str, Any],
    sig: bytes,
    raw: bytes,
    id: bytes,
    signed: bytes,
    version: int,
) -> Event:
    """An Event from fields parse_event has just checked.

    Fills the frozen dataclass's __dict__ at once instead of one object.__setattr__ per field
    (11 of them, a tenth of parse_event's own time); nothing here validates, so nothing is lost.
    A test checks that these are exactly the dataclass's fields.
    """
    event = object.__new__(Event)
    event.__dict__.update(
        game=game,
        seq=seq,
        prev=prev,
        author=author,
        type=type,
        body=body,
        sig=sig,
        raw=raw,
        id=id,
        signed=signed,
        version=version,
    )
    return event


def _unsigned_bytes(raw: bytes, sig: bytes) -> bytes:
    """What the signature covers, cut from the canonical bytes without encoding them again.

    The map is canonical with exactly FIELDS, so it starts with fixmap(8) and holds ``sig`` as
    fixstr "sig" + bin8(64); only ``type`` and ``v`` follow it, too short to contain that
    entry, so its last occurrence is the field.  Dropping it leaves fixmap(7) + the rest.
    """
    entry = _SIG_ENTRY + sig
    at = raw.rfind(entry)
    return SIGNING_DOMAIN + b"\x87" + raw[1:at] + raw[at + len(entry) :]
