"""The sealed channel after the handshake: one AEAD key and one counter per direction.

Every frame body after the handshake is ``ChaCha20-Poly1305(key, nonce, canonical msgpack)``
(RFC 8439, from `cryptography`), the nonce being 4 zero bytes and the direction's frame counter
as 8 bytes big-endian.  The keys come from the handshake (``derive_keys``): HKDF-SHA256 (RFC 5869)
of the ephemeral X25519 secret, salted with the hash of both hellos, so they belong to exactly
this connection and these two identity keys.  A frame that was dropped, replayed, reordered,
altered or injected fails the tag and ends the connection: a relay can only pass frames on.
"""

from __future__ import annotations

import hashlib
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from creepnet.node.framing import FrameError

KEY_SIZE = 32
TAG_SIZE = 16
CHANNEL_INFO = b"creepnet/channel/v2\x00"
_NONCE = struct.Struct(">4xQ")


class ChannelError(FrameError):
    """A sealed frame that does not open: not from the peer we authenticated, or tampered."""


def transcript_hash(domain: bytes, mine: bytes, theirs: bytes) -> tuple[bytes, bool]:
    """SHA-256 over the domain and both hellos' hashes in byte order, and whether ours is first.

    Byte order, not who dialled, so the two symmetric sides agree without roles."""
    a, b = hashlib.sha256(mine).digest(), hashlib.sha256(theirs).digest()
    first = a < b
    low, high = (a, b) if first else (b, a)
    return hashlib.sha256(domain + low + high).digest(), first


def derive_keys(shared: bytes, transcript: bytes, mine_first: bool) -> tuple[bytes, bytes]:
    """(send key, receive key) for this side."""
    okm = HKDF(
        algorithm=hashes.SHA256(), length=2 * KEY_SIZE, salt=transcript, info=CHANNEL_INFO
    ).derive(shared)
    first_to_second, second_to_first = okm[:KEY_SIZE], okm[KEY_SIZE:]
    if mine_first:
        return first_to_second, second_to_first
    return second_to_first, first_to_second


class Sealer:
    """One direction of the channel: its counter makes each nonce unique and the frames ordered."""

    def __init__(self, key: bytes) -> None:
        self._aead = ChaCha20Poly1305(key)
        self._counter = 0

    def seal(self, plaintext: bytes) -> bytes:
        nonce = _NONCE.pack(self._counter)
        self._counter += 1
        return self._aead.encrypt(nonce, plaintext, None)

    def open(self, sealed: bytes) -> bytes:
        nonce = _NONCE.pack(self._counter)
        try:
            plaintext = self._aead.decrypt(nonce, sealed, None)
        except InvalidTag:
            raise ChannelError(
                "bad frame: not sealed by the authenticated peer for this position "
                "(tampered, replayed or injected)"
            ) from None
        self._counter += 1
        return plaintext
