"""Player identities: Ed25519 keys, fingerprints, the key file, and the one signature rule.

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
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from nacl.bindings import crypto_core_ed25519_is_valid_point, crypto_sign_open
from nacl.exceptions import BadSignatureError

if TYPE_CHECKING:  # imported where keys are made: a verifier only checks signatures
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64
KEY_FILE = "identity.key"
_KEY_FILE_MAGIC = b"creepnet-ed25519-seed-v1\n"


class IdentityError(Exception):
    """The key file is missing, unreadable, malformed or unsafely shared."""


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


def write_private_file(path: Path, data: bytes) -> None:
    """Write data readable by the owner only, atomically: a crash leaves old or new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # O_CREAT's mode does not apply to a leftover temp file
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def load_identity(home: Path) -> Identity:
    path = home / KEY_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise IdentityError(f"no identity at {path}; run `creepnet id` to create one") from None
    except OSError as exc:
        raise IdentityError(f"cannot read {path}: {exc.strerror}") from None
    if os.name == "posix" and path.stat().st_mode & 0o077:
        raise IdentityError(f"{path} is readable by others; run `chmod 600 {path}`")
    seed = data[len(_KEY_FILE_MAGIC) :]
    if not data.startswith(_KEY_FILE_MAGIC) or len(seed) != 32:
        raise IdentityError(f"{path} is not a creepnet identity file")
    return Identity.from_seed(seed)


def load_or_create_identity(home: Path) -> tuple[Identity, bool]:
    """The identity stored in home, creating it on first use; the flag says it was created."""
    if (home / KEY_FILE).exists():
        return load_identity(home), False
    identity = Identity.generate()
    write_private_file(home / KEY_FILE, _KEY_FILE_MAGIC + identity.seed())
    return identity, True
