"""The yardsticks the log benchmarks compare against: bare loops of Ed25519 verifies.

``bare_verify_seconds`` uses the library creepnet verifies with (libsodium's strict check via
PyNaCl, see protocol/identity.py); ``openssl_verify_seconds`` the `cryptography` (OpenSSL)
check creepnet used before, for comparison.
"""

from __future__ import annotations

import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_sign_open


def bare_verify_seconds(triples: list[tuple[bytes, bytes, bytes]]) -> float:
    """Seconds to verify (author, message, signature) triples with libsodium alone."""
    start = time.perf_counter()
    for author, message, sig in triples:
        crypto_sign_open(sig + message, author)
    return time.perf_counter() - start


def openssl_verify_seconds(triples: list[tuple[bytes, bytes, bytes]]) -> float:
    """Seconds to verify the same triples with `cryptography` (OpenSSL), keys parsed once."""
    start = time.perf_counter()
    keys: dict[bytes, Ed25519PublicKey] = {}
    for author, message, sig in triples:
        key = keys.get(author) or keys.setdefault(
            author, Ed25519PublicKey.from_public_bytes(author)
        )
        key.verify(sig, message)
    return time.perf_counter() - start
