"""Hash-onion commit–reveal randomness (DESIGN §4).

A seat commits to the anchor ``h^K(s)`` of a hash chain over its secret ``s``.  Draw number d
consumes preimage ``h^(K-1-d)(s)`` from every seat, revealed in seat order; each reveal is checked
by one hash against the previous one.  The drawn value hashes the game id, the draw counter and all
reveals, and becomes a uniform integer by rejection sampling.  Nobody can pick a value adaptively:
every preimage was fixed by the anchor before the game started.  The last revealer can only stall.
"""

from __future__ import annotations

import hashlib

ONION_DOMAIN = b"creepnet/onion/v1\x00"
DRAW_DOMAIN = b"creepnet/draw/v1\x00"
SECRET_SIZE = 32
DEFAULT_LENGTH = 256
MAX_LENGTH = 1 << 16


class OnionExhausted(ValueError):
    """All preimages of a chain have been revealed: the game asked for more draws than committed."""


def step(game: bytes, value: bytes) -> bytes:
    """One layer of the onion; binding the game id keeps chains from being reused across games."""
    return hashlib.sha256(ONION_DOMAIN + game + value).digest()


def layer(game: bytes, secret: bytes, depth: int) -> bytes:
    """``h^depth(secret)``."""
    value = secret
    for _ in range(depth):
        value = step(game, value)
    return value


def anchor(game: bytes, secret: bytes, length: int) -> bytes:
    return layer(game, secret, length)


def preimage(game: bytes, secret: bytes, length: int, draw: int) -> bytes:
    """What a seat reveals for draw number ``draw`` (0-based)."""
    if not 0 <= draw < length:
        raise OnionExhausted(f"draw {draw} needs more than the {length} committed preimages")
    return layer(game, secret, length - 1 - draw)


def check_reveal(game: bytes, previous: bytes, revealed: bytes) -> bool:
    """True when revealed is the preimage of previous (the anchor, or the last reveal)."""
    return len(revealed) == SECRET_SIZE and step(game, revealed) == previous


def draw_entropy(game: bytes, draw: int, reveals: list[bytes]) -> bytes:
    """The public randomness of one draw: all seats' preimages, in seat order, bound to the draw."""
    return hashlib.sha256(DRAW_DOMAIN + game + draw.to_bytes(8, "big") + b"".join(reveals)).digest()


def uniform(entropy: bytes, bound: int) -> int:
    """A uniform integer in [0, bound) from 32 bytes of entropy, by rejection sampling.

    ``x % bound`` on a 64-bit x is biased unless bound divides 2**64; values in the incomplete
    top bucket are rejected and a fresh 64-bit block is derived from a counter instead.
    """
    if bound < 1:
        raise ValueError("bound must be positive")
    limit = (1 << 64) - (1 << 64) % bound
    counter = 0
    while True:
        block = hashlib.sha256(entropy + counter.to_bytes(4, "big")).digest()
        for offset in range(0, 32, 8):
            value = int.from_bytes(block[offset : offset + 8], "big")
            if value < limit:
                return value % bound
        counter += 1
