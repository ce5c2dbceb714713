"""Player identities: Ed25519 keys, fingerprints, and the one signature rule (the key file is
the node's: node/storage.py).

Keys are made and used for signing with `cryptography`.  Every signature creepnet checks (events,
join requests, handshakes) goes through ``verify_signature``, which states one precise rule:

* the public key is a canonical encoding of a point of the prime-order subgroup other than the
  identity (libsodium's ``crypto_core_ed25519_is_valid_point``): small-order and mixed-order keys,
  which let ``[s]B ‖ s`` "verify" for any message under a cofactorless check, are refused;
* the signature passes libsodium's strict ``crypto_sign_open`` (the detached check it wraps):
  ``S < L`` (canonical), ``R`` canonical and not of small order, and the cofactorless equation
  ``[S]B = R + [SHA-512(R ‖ A ‖ M)]A`` compared on encodings.

Honestly generated keys and RFC 8032 signatures always pass; the rule only removes the malleable
and degenerate cases on which Ed25519 libraries disagree.  libsodium is also about twice as fast
here as OpenSSL's check (benchmarks/verify.py measures both).
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING

from nacl.bindings import crypto_core_ed25519_is_valid_point, crypto_sign_open
from nacl.exceptions import BadSignatureError

if TYPE_CHECKING:  # imported where keys are made: a verifier only checks signatures
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64


def fingerprint(public_key: bytes) -> str:
    """A short, human-checkable name for a public key, e.g. ``k3xq-7mfa``."""
    digest = hashlib.sha256(b"creepnet/fingerprint\x00" + public_key).digest()
    text = base64.b32encode(digest[:5]).decode("ascii").lower()
    return f"{text[:4]}-{text[4:8]}"


@lru_cache(maxsize=4096)
def valid_public_key(public_key: bytes) -> bool:
    """True for a canonical prime-order point other than the identity (the module's rule)."""
    return len(public_key) == PUBLIC_KEY_SIZE and crypto_core_ed25519_is_valid_point(public_key)


def verify_signature(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True when signature is valid for message and public_key under the module's strict rule."""
    if type(signature) is not bytes or len(signature) != SIGNATURE_SIZE:
        return False
    if type(public_key) is not bytes or not valid_public_key(public_key):
        return False
    try:
        crypto_sign_open(signature + message, public_key)
    except BadSignatureError:
        return False
    return True


class Identity:
    """A private signing key and its public key."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private = private_key
        self.public_key: bytes = private_key.public_key().public_bytes_raw()

    @classmethod
    def generate(cls) -> Identity:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The identity of a 32-byte RFC 8032 secret key (deterministic: tests and bots)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)

    def seed(self) -> bytes:
        return self._private.private_bytes_raw()

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"
