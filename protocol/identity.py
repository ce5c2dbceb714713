"""Player identities: Ed25519 keys (via `cryptography`), fingerprints and the key file."""

from __future__ import annotations

import base64
import hashlib
import os
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

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


@lru_cache(maxsize=1024)
def _public_key(public_key: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(public_key)


def verify_signature(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True when signature is a valid Ed25519 signature of message by public_key."""
    if len(public_key) != PUBLIC_KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        _public_key(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


class Identity:
    """A private signing key and its public key."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private = private_key
        self.public_key: bytes = private_key.public_key().public_bytes_raw()

    @classmethod
    def generate(cls) -> Identity:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The identity of a 32-byte RFC 8032 secret key (deterministic: tests and bots)."""
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
