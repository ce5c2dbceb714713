"""Chaum-Pedersen proofs of discrete-log equality, made non-interactive with
Fiat-Shamir over SHA-512.

Statement: h1 = x·g1 and h2 = x·g2 for one secret x.  The challenge binds the
whole statement and a context naming the game, the event sequence number, the
author's public key, the operation and the position, so a proof cannot be
replayed in another game, event, position or by another seat.

Encoding: c || s, 64 bytes, both canonical scalars, non-zero.
"""

from __future__ import annotations

import hashlib
import secrets

from creepnet.protocol.deck.group import (
    BASE,
    SCALAR_BYTES,
    L,
    frame,
    is_zero_scalar,
    mul,
    mul_base,
    scalar_add,
    scalar_from_wide,
    scalar_mul,
    sub,
)

PROOF_BYTES = 2 * SCALAR_BYTES
CHALLENGE_DOMAIN = b"creepnet/deck/dleq/v1"
NONCE_DOMAIN = b"creepnet/deck/dleq-nonce/v1"


def proof_context(
    game_id: bytes, seq: int, author_key: bytes, operation: str, pool: str, position: int
) -> bytes:
    return frame(game_id, seq, author_key, operation, pool, position)


def _challenge(
    context: bytes, g1: bytes, h1: bytes, g2: bytes, h2: bytes, r1: bytes, r2: bytes
) -> bytes:
    digest = hashlib.sha512(frame(CHALLENGE_DOMAIN, context, g1, h1, g2, h2, r1, r2)).digest()
    return scalar_from_wide(digest)


def _times(k: bytes, g: bytes, g_log: bytes | None) -> bytes:
    """k·g, through the fast fixed-base path when log_G(g) is known to the caller."""
    if g == BASE:
        return mul_base(k)
    if g_log is not None:
        return mul_base(scalar_mul(k, g_log))
    return mul(k, g)


def prove(
    x: bytes,
    g1: bytes,
    h1: bytes,
    g2: bytes,
    h2: bytes,
    context: bytes,
    g2_log: bytes | None = None,
) -> bytes:
    """Prove h1 = x·g1 and h2 = x·g2.  `g2_log`, if the prover knows
    log_G(g2) (its own commitment), saves one variable-base multiplication."""
    while True:
        # hedged nonce: fresh randomness, plus the witness and statement in case the RNG is weak
        seed = frame(NONCE_DOMAIN, x, context, g1, h1, g2, h2, secrets.token_bytes(32))
        r = scalar_from_wide(hashlib.sha512(seed).digest())
        if is_zero_scalar(r):
            continue
        r1 = _times(r, g1, None)
        r2 = _times(r, g2, g2_log)
        c = _challenge(context, g1, h1, g2, h2, r1, r2)
        s = scalar_add(r, scalar_mul(c, x))
        if not is_zero_scalar(c) and not is_zero_scalar(s):
            return c + s


def verify(proof: object, g1: bytes, h1: bytes, g2: bytes, h2: bytes, context: bytes) -> bool:
    """All points must already be validated by the caller (check_point)."""
    if not isinstance(proof, bytes) or len(proof) != PROOF_BYTES:
        return False
    c, s = proof[:SCALAR_BYTES], proof[SCALAR_BYTES:]
    for k in (c, s):
        n = int.from_bytes(k, "little")
        if n == 0 or n >= L:
            return False
    r1 = sub(_times(s, g1, None), mul(c, h1))
    r2 = sub(_times(s, g2, None), mul(c, h2))
    return _challenge(context, g1, h1, g2, h2, r1, r2) == c
