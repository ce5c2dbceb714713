"""A seat's per-game deck secret and every scalar derived from it.

All of a seat's scalars and permutations come from one 32-byte secret through
HKDF with labels naming the game, the seat and the step.  That makes the audit
possible: revealing the secret lets everyone recompute every step exactly.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator, Sequence

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from creepnet.protocol.deck.group import (
    ONE,
    frame,
    is_zero_scalar,
    mul_base,
    scalar_from_wide,
    scalar_invert,
    scalar_mul,
)

SECRET_BYTES = 32
KDF_SALT = b"creepnet/deck/kdf/v1"
COMMIT_DOMAIN = b"creepnet/deck/secret-commit/v1"


def new_deck_secret() -> bytes:
    return secrets.token_bytes(SECRET_BYTES)


def commit_secret(game_id: bytes, seat_key: bytes, secret: bytes) -> bytes:
    """Published in the join message; opened at the audit."""
    return hashlib.sha256(frame(COMMIT_DOMAIN, game_id, seat_key, secret)).digest()


class DeckKeys:
    """Derivations for one seat in one game.  Pure functions of the secret."""

    def __init__(self, game_id: bytes, seat_key: bytes, secret: bytes) -> None:
        if len(secret) != SECRET_BYTES:
            raise ValueError("deck secret must be 32 bytes")
        self.game_id = game_id
        self.seat_key = seat_key
        self.secret = secret
        self._cache: dict[tuple[str | int, ...], bytes] = {}

    @property
    def commitment(self) -> bytes:
        return commit_secret(self.game_id, self.seat_key, self.secret)

    def _kdf(self, length: int, *label: str | int) -> bytes:
        info = frame(b"creepnet/deck/v1", self.game_id, self.seat_key, *label)
        return HKDF(hashes.SHA512(), length, KDF_SALT, info).derive(self.secret)

    def _scalar(self, *label: str | int) -> bytes:
        if label not in self._cache:
            for attempt in range(1000):  # zero has probability ~2^-252; retry anyway
                s = scalar_from_wide(self._kdf(64, *label, attempt))
                if not is_zero_scalar(s):
                    break
            self._cache[label] = s
        return self._cache[label]

    # -- scalars --------------------------------------------------------------------

    def layer(self, family: str, depth: int) -> bytes:
        """Cumulative global scalar c_{f,d}: the seat's layer on every point of
        family f once it has shuffled that family d times (c_{f,0} = 1)."""
        return ONE if depth == 0 else self._scalar("layer", family, depth)

    def layer_commit(self, family: str, depth: int) -> bytes:
        return mul_base(self.layer(family, depth))

    def layer_step(self, family: str, depth: int) -> bytes:
        """What a shuffle to `depth` multiplies by: c_{f,d} / c_{f,d-1}."""
        return scalar_mul(self.layer(family, depth), scalar_invert(self.layer(family, depth - 1)))

    def lock_key(self, pool: str, position: int) -> bytes:
        """Per-position scalar b_j that replaces the global layer at lock."""
        return self._scalar("lock", pool, position)

    def blind_key(self, pool: str, position: int, transfer: int) -> bytes:
        """Transfer blinding t for the `transfer`-th transfer of a position."""
        return self._scalar("blind", pool, position, transfer)

    def escrow_key(self, role: str) -> bytes:
        """The seat's escrow scalar as a dealer (`"deal"`, e) or recipient (`"receive"`, f):
        docs/ESCROW.md "Keys"."""
        return self._scalar("escrow-key", role)

    def escrow_shares(
        self, kind: str, name: str, index: int, epoch: int, recipients: Sequence[int]
    ) -> list[bytes]:
        """The first len(recipients) - 1 shares of one escrowed scalar, one per recipient in
        order, from one HKDF output of 64 bytes per share (docs/ESCROW.md)."""
        count = len(recipients) - 1
        for attempt in range(1000):  # a zero share has probability ~2^-252; retry anyway
            data = self._kdf(
                64 * count, "escrow-shares", kind, name, index, epoch, *recipients, attempt
            )
            shares = [scalar_from_wide(data[64 * i : 64 * (i + 1)]) for i in range(count)]
            if not any(is_zero_scalar(x) for x in shares):
                break
        return shares

    # -- permutations -------------------------------------------------------------

    def permutation(self, pool: str, shuffle_index: int, n: int) -> list[int]:
        """Fisher-Yates driven by HKDF output; out[i] = in[perm[i]]."""
        stream = self._stream("perm", pool, shuffle_index)
        perm = list(range(n))
        for i in range(n - 1, 0, -1):
            j = _uniform_below(stream, i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return perm

    def _stream(self, *label: str | int) -> Iterator[int]:
        """Unbounded stream of 32-bit words: HKDF blocks with a counter."""
        block = 0
        while True:
            data = self._kdf(4 * 255 * 8, *label, block)  # ~8 KiB per HKDF call
            for k in range(0, len(data), 4):
                yield int.from_bytes(data[k : k + 4], "big")
            block += 1


def _uniform_below(stream: Iterator[int], bound: int) -> int:
    """Rejection sampling: no modulo bias."""
    limit = (1 << 32) - ((1 << 32) % bound)
    while True:
        word = next(stream)
        if word < limit:
            return word % bound
