"""The yardstick both log benchmarks compare against: a bare loop of Ed25519 verifies."""

from __future__ import annotations

import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def bare_verify_seconds(triples: list[tuple[bytes, bytes, bytes]]) -> float:
    """Seconds to verify (author, message, signature) triples with `cryptography` alone."""
    start = time.perf_counter()
    keys: dict[bytes, Ed25519PublicKey] = {}
    for author, message, sig in triples:
        key = keys.get(author) or keys.setdefault(
            author, Ed25519PublicKey.from_public_bytes(author)
        )
        key.verify(sig, message)
    return time.perf_counter() - start
