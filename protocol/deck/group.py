"""Prime-order Ed25519 group operations (libsodium via nacl.bindings) and the card table.

Everything here works on 32-byte encodings; scalars are little-endian and
canonical (< L).  No curve arithmetic is written here, only thin wrappers that
turn library failures into DeckError with the seat at fault.

`combine` spreads a long sum over threads (protocol/deck/threads.py).
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from collections.abc import Iterable, Sequence

import nacl.bindings as nb
from nacl.exceptions import RuntimeError as NaclRuntimeError

from creepnet.protocol.deck import threads
from creepnet.protocol.deck.errors import DeckError

L = 2**252 + 27742317777372353535851937790883648493  # order of the prime subgroup
POINT_BYTES = 32
SCALAR_BYTES = 32
CARD_DOMAIN = b"creepnet/deck/card/v1"

ONE = (1).to_bytes(SCALAR_BYTES, "little")
BASE = nb.crypto_scalarmult_ed25519_base_noclamp(ONE)  # the generator G


# --- scalars --------------------------------------------------------------------


def scalar_from_wide(data: bytes) -> bytes:
    """64 uniform bytes -> scalar mod L (bias-free reduction)."""
    return nb.crypto_core_ed25519_scalar_reduce(data)


def is_zero_scalar(s: bytes) -> bool:
    return s == bytes(SCALAR_BYTES)


def scalar_mul(x: bytes, y: bytes) -> bytes:
    return nb.crypto_core_ed25519_scalar_mul(x, y)


def scalar_add(x: bytes, y: bytes) -> bytes:
    return nb.crypto_core_ed25519_scalar_add(x, y)


def scalar_invert(x: bytes) -> bytes:
    return nb.crypto_core_ed25519_scalar_invert(x)


def scalar_product(scalars: Iterable[bytes]) -> bytes:
    acc = ONE
    for s in scalars:
        acc = scalar_mul(acc, s)
    return acc


def check_scalar(
    value: object, seat: int | None, operation: str, position: int | None = None
) -> bytes:
    """A received scalar: 32 bytes, canonical (< L) and non-zero."""
    if not isinstance(value, bytes) or len(value) != SCALAR_BYTES:
        raise DeckError(seat, operation, "scalar is not 32 bytes", position)
    n = int.from_bytes(value, "little")
    if n >= L:
        raise DeckError(seat, operation, "scalar is not canonical (>= L)", position)
    if n == 0:
        raise DeckError(seat, operation, "scalar is zero", position)
    return value


# --- points ---------------------------------------------------------------------


def check_point(
    value: object, seat: int | None, operation: str, position: int | None = None
) -> bytes:
    """A received point: canonical, on the curve, in the prime-order subgroup,
    not the identity nor of small order (libsodium's is_valid_point)."""
    if not isinstance(value, bytes) or len(value) != POINT_BYTES:
        raise DeckError(seat, operation, "point is not 32 bytes", position)
    if not nb.crypto_core_ed25519_is_valid_point(value):
        raise DeckError(
            seat,
            operation,
            "invalid point (identity, small order, off-curve or not canonical)",
            position,
        )
    return value


def check_points(value: object, count: int | None, seat: int | None, operation: str) -> list[bytes]:
    """A received list of points: right length, each valid, all distinct."""
    if not isinstance(value, list):
        raise DeckError(seat, operation, "points must be a list")
    if count is not None and len(value) != count:
        raise DeckError(seat, operation, f"expected {count} points, got {len(value)}")
    points = [check_point(p, seat, operation, i) for i, p in enumerate(value)]
    check_distinct(points, seat, operation)
    return points


def check_encodings(value: object, count: int, seat: int | None, operation: str) -> list[bytes]:
    """A received list of `count` distinct 32-byte strings, not yet validated as points:
    for lists whose every point a proof check multiplies anyway (libsodium's
    multiplication validates its input), which saves a separate validation each."""
    if not isinstance(value, list) or len(value) != count:
        raise DeckError(seat, operation, f"expected a list of {count} points")
    for i, p in enumerate(value):
        if type(p) is not bytes or len(p) != POINT_BYTES:
            raise DeckError(seat, operation, "point is not 32 bytes", i)
    check_distinct(value, seat, operation)
    return value


def check_distinct(points: Sequence[bytes], seat: int | None, operation: str) -> None:
    if len(set(points)) != len(points):
        seen: dict[bytes, int] = {}
        for i, p in enumerate(points):
            if p in seen:
                raise DeckError(seat, operation, f"point repeated (also at {seen[p]})", i)
            seen[p] = i


def mul(k: bytes, p: bytes) -> bytes:
    """k·P for a validated P and a non-zero scalar k."""
    try:
        return nb.crypto_scalarmult_ed25519_noclamp(k, p)
    except NaclRuntimeError as exc:  # only on a zero scalar or invalid point: a bug here
        raise ValueError("scalar multiplication failed") from exc


def mul_base(k: bytes) -> bytes:
    """k·G, about 5x cheaper than a variable-base multiplication."""
    return nb.crypto_scalarmult_ed25519_base_noclamp(k)


def sub(p: bytes, q: bytes) -> bytes:
    return nb.crypto_core_ed25519_sub(p, q)


def add(p: bytes, q: bytes) -> bytes:
    return nb.crypto_core_ed25519_add(p, q)


IDENTITY = ONE  # the neutral element encodes as y = 1, the same bytes as the scalar 1


def as_scalar(n: int) -> bytes:
    """A Python integer, reduced mod L, as a 32-byte scalar."""
    return (n % L).to_bytes(SCALAR_BYTES, "little")


def scalar_int(value: object) -> int | None:
    """A received 32-byte scalar as an integer, or None unless canonical and non-zero."""
    if not isinstance(value, bytes) or len(value) != SCALAR_BYTES:
        return None
    n = int.from_bytes(value, "little")
    return n if 0 < n < L else None


def hash_scalar(*parts: bytes | str | int) -> int:
    """A Fiat-Shamir challenge: SHA-512 of the framed parts, reduced mod L."""
    return int.from_bytes(hashlib.sha512(frame(*parts)).digest(), "little") % L


def hedged_scalar(seed: bytes) -> int:
    """A non-zero nonce: fresh randomness hashed with `seed` (the witness and statement), so a
    weak RNG alone does not leak the witness."""
    while True:
        n = int.from_bytes(hashlib.sha512(seed + secrets.token_bytes(32)).digest(), "little") % L
        if n:
            return n


class BadPoint(Exception):
    """A point handed to `combine` was rejected by libsodium; `index` says which term."""

    def __init__(self, index: int) -> None:
        super().__init__(f"invalid point in term {index}")
        self.index = index


def combine(terms: Iterable[tuple[int, bytes]]) -> bytes:
    """Σ k·P over (k, P) terms, k a Python integer.

    libsodium's multiplication rejects any point that is not canonical, of small
    order or outside the prime-order subgroup, so every point with a non-zero
    coefficient is validated on the way; a zero coefficient skips its term, so
    the caller must validate such a point itself.  Raises BadPoint on a rejection
    (the first bad term in order, however the sum was spread over threads)."""
    terms = list(terms)
    size = -(-len(terms) // threads.workers()) if len(terms) >= threads.MINIMUM else len(terms)
    chunks = [(start, terms[start : start + size]) for start in range(0, len(terms), size or 1)]
    acc: bytes | None = None
    for part in threads.spread(_partial_sum, chunks, minimum=2):
        if part is not None:
            acc = part if acc is None else add(acc, part)
    return IDENTITY if acc is None else acc


def _partial_sum(chunk: tuple[int, list[tuple[int, bytes]]]) -> bytes | None:
    offset, terms = chunk
    acc: bytes | None = None
    for index, (k, point) in enumerate(terms, offset):
        k %= L
        if k == 0:
            continue
        try:
            term = nb.crypto_scalarmult_ed25519_noclamp(as_scalar(k), point)
        except (NaclRuntimeError, TypeError, ValueError) as exc:
            raise BadPoint(index) from exc
        acc = term if acc is None else add(acc, term)
    return acc


def combine_base(k: int) -> bytes:
    """k·G for any integer k (the identity for k = 0 mod L)."""
    k %= L
    return IDENTITY if k == 0 else mul_base(as_scalar(k))


def generators(label: str, count: int) -> list[bytes]:
    """`count` independent generators with a domain label, by hash-to-group: nobody
    knows a discrete log between any two of them or to G (no trusted set-up)."""
    cached = _GENERATORS.get(label, [])
    if len(cached) < count:  # build, then publish whole: a racing thread only repeats work
        cached = cached + [_generator(label, i) for i in range(len(cached), count)]
        _GENERATORS[label] = cached
    return cached[:count]


def _generator(label: str, index: int) -> bytes:
    digest = hashlib.sha512(frame(GENERATOR_DOMAIN, label, index)).digest()
    return nb.crypto_core_ed25519_from_uniform(digest[:32])


GENERATOR_DOMAIN = b"creepnet/deck/generator/v1"
_GENERATORS: dict[str, list[bytes]] = {}  # pure function of (label, index): safe to memoise


# --- cards ----------------------------------------------------------------------


def card_point(card_id: str) -> bytes:
    """Hash-to-group of a card id: nobody knows its discrete log (unlike i·G),
    so encrypted cards cannot be related to each other algebraically."""
    digest = hashlib.sha256(CARD_DOMAIN + b"\x00" + card_id.encode("utf-8")).digest()
    return nb.crypto_core_ed25519_from_uniform(digest)


class CardTable:
    """Card id <-> point, for decoding a fully unlayered point."""

    def __init__(self, card_ids: Iterable[str]) -> None:
        self.point_of: dict[str, bytes] = {}
        self.card_of: dict[bytes, str] = {}
        for card in card_ids:
            if not isinstance(card, str) or card in self.point_of:
                raise ValueError(f"card ids must be distinct strings: {card!r}")
            point = card_point(card)
            if point in self.card_of:  # astronomically unlikely, but decoding must be exact
                raise ValueError(f"cards {card!r} and {self.card_of[point]!r} collide")
            self.point_of[card] = point
            self.card_of[point] = card

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.point_of

    def __len__(self) -> int:
        return len(self.point_of)

    def decode(self, point: bytes) -> str | None:
        return self.card_of.get(point)


# --- unambiguous framing for hash inputs -------------------------------------------


def frame(*parts: bytes | str | int) -> bytes:
    """Length-prefixed concatenation, so distinct field tuples never hash alike: per part a tag
    (b bytes, s UTF-8 text, i 8-byte signed big-endian integer), a 4-byte big-endian length and
    the data.  Exact types are tested first: this runs for every hash input of every proof."""
    out: list[bytes] = []
    append = out.append
    for part in parts:
        if type(part) is bytes:
            append(_HEAD(b"b", len(part)))
            append(part)
        elif isinstance(part, str):
            data = part.encode("utf-8")
            append(_HEAD(b"s", len(data)))
            append(data)
        elif isinstance(part, int):
            append(_INT_HEAD)
            append(part.to_bytes(8, "big", signed=True))
        else:
            data = bytes(part)
            append(_HEAD(b"b", len(data)))
            append(data)
    return b"".join(out)


_HEAD = struct.Struct(">cI").pack  # tag byte, 4-byte big-endian length
_INT_HEAD = _HEAD(b"i", 8)
