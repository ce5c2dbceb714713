"""The connection handshake: agree on a version, prove your key, and bind the channel to it.

A SIGMA-style authenticated key exchange (Krawczyk, CRYPTO 2003; the pattern of TLS 1.3 and of
Noise XX with signatures), symmetric so simultaneous dials need no roles:

1. each side sends, in the clear, ``{type: "hello", version, key, nonce, eph, agent, name}``:
   ``key`` its Ed25519 identity, ``nonce`` 32 random bytes, ``eph`` a fresh X25519 public key;
2. on the peer's hello (version, key under the signature rule, sizes, not our own key), both
   compute ``T = SHA-256(DOMAIN ‖ the two hellos' SHA-256 in byte order)`` and the X25519 secret
   of the two ephemerals, and derive one ChaCha20-Poly1305 key per direction with HKDF-SHA256
   (salt ``T``).  From here on every frame is sealed (node/channel.py);
3. each side sends (sealed) ``{type: "auth", sig}``, ``sig`` = Ed25519 over ``AUTH ‖ T ‖ own key``,
   and checks the peer's over ``AUTH ‖ T ‖ peer key``;
4. each sends (sealed) ``{type: "ready"}``; the handshake is done when the peer's arrives (so a
   side whose signature was refused learns it from an ``error`` frame instead).

Why a relay fails: the signature covers both ephemerals and both identity keys, so it is valid
only on a channel keyed by the signer's own ephemeral secret.  Mallory can forward the hellos
unchanged — then she only passes frames she can neither read nor forge, and any frame of hers
fails its tag — or change one, and the signature no longer matches ``T``.  Including the
signer's key in what it signs stops a signature being reflected; the random nonces make ``T``
fresh even if a buggy peer reused an ephemeral.  Cost: one X25519, one HKDF, one signature and
one verification per side (~0.2 ms of CPU); 1.6 ms for a whole loopback handshake.

Any failure sends ``{type: "error", reason}`` (in the clear before keys exist, sealed after) and
closes the connection.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from creepnet.node.channel import derive_keys, transcript_hash
from creepnet.node.framing import FrameError
from creepnet.node.transport import Connection, TransportError
from creepnet.protocol import codec
from creepnet.protocol.identity import Identity, fingerprint, valid_public_key, verify_signature

WIRE_VERSION = 2
DOMAIN = b"creepnet/handshake/v2\x00"
AUTH_DOMAIN = b"creepnet/handshake-auth/v2\x00"
NONCE_SIZE = 32
EPHEMERAL_SIZE = 32
MAX_NAME = 64
AGENT = "creepnet/0.1"


class HandshakeError(Exception):
    """The handshake failed; the message says why and, if known, with whom."""


@dataclass(frozen=True)
class PeerHello:
    key: bytes
    version: int
    agent: str
    name: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


async def handshake(
    conn: Connection,
    identity: Identity,
    *,
    name: str = "",
    version: int = WIRE_VERSION,
    timeout: float | None = None,
    on_hello: Callable[[PeerHello], str | None] | None = None,
) -> PeerHello:
    """Run the handshake on conn; on failure the peer is told why, conn is closed, and
    HandshakeError is raised.  ``on_hello`` sees the peer's checked hello (its key) before
    anything else is done for it, and may refuse it with a reason (admission.py)."""
    limit = conn.timeouts.handshake if timeout is None else timeout
    try:
        with trio.fail_after(limit):
            hello = await _handshake(conn, identity, name, version, on_hello)
    except trio.TooSlowError:
        reason = f"handshake not completed within {limit}s"
        await conn.send_error(reason)
        await conn.aclose()
        raise HandshakeError(f"{conn.label}: {reason}") from None
    except _Refuse as refusal:
        await conn.send_error(refusal.reason)
        await conn.aclose()
        raise HandshakeError(f"{conn.label}: {refusal.reason}") from None
    except (FrameError, TransportError) as exc:
        await conn.aclose()
        raise HandshakeError(f"{conn.label}: handshake failed: {exc}") from None
    conn.authenticated()
    return hello


class _Refuse(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def _expect(conn: Connection, kind: str) -> dict[str, Any]:
    message = await conn.receive()
    if message["type"] == "error":
        reason = message.get("reason")
        reason = reason if isinstance(reason, str) else "no reason given"
        # Not _Refuse: the peer already hung up, there is nobody left to tell.
        raise TransportError(f"the peer refused the handshake: {reason}")
    if message["type"] != kind:
        raise _Refuse(f"expected `{kind}` in the handshake, got `{message['type']}`")
    return message


def _check_hello(hello: dict[str, Any], identity: Identity, version: int) -> PeerHello:
    peer_version = hello.get("version")
    if type(peer_version) is not int or peer_version != version:
        raise _Refuse(f"unsupported protocol version {peer_version!r}; this node speaks {version}")
    key = hello.get("key")
    if not isinstance(key, bytes) or not valid_public_key(key):
        raise _Refuse("hello.key must be a valid Ed25519 public key (a prime-order point)")
    if not isinstance(hello.get("nonce"), bytes) or len(hello["nonce"]) != NONCE_SIZE:
        raise _Refuse(f"hello.nonce must be {NONCE_SIZE} bytes")
    if not isinstance(hello.get("eph"), bytes) or len(hello["eph"]) != EPHEMERAL_SIZE:
        raise _Refuse(f"hello.eph must be a {EPHEMERAL_SIZE}-byte X25519 public key")
    if key == identity.public_key:
        raise _Refuse("connected to itself (same key on both ends)")
    agent, name = hello.get("agent"), hello.get("name")
    return PeerHello(
        key=key,
        version=peer_version,
        agent=agent[:MAX_NAME] if isinstance(agent, str) else "",
        name=name[:MAX_NAME] if isinstance(name, str) else "",
    )


async def _handshake(
    conn: Connection,
    identity: Identity,
    name: str,
    version: int,
    on_hello: Callable[[PeerHello], str | None] | None,
) -> PeerHello:
    ephemeral = X25519PrivateKey.generate()
    mine = {
        "type": "hello",
        "version": version,
        "key": identity.public_key,
        "nonce": secrets.token_bytes(NONCE_SIZE),
        "eph": ephemeral.public_key().public_bytes_raw(),
        "agent": AGENT,
        "name": name[:MAX_NAME],
    }
    await conn.send(mine)
    theirs = await _expect(conn, "hello")
    peer = _check_hello(theirs, identity, version)
    refusal = on_hello(peer) if on_hello is not None else None
    if refusal is not None:
        raise _Refuse(refusal)
    try:
        shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(theirs["eph"]))
    except ValueError:
        raise _Refuse("hello.eph is a low-order X25519 point (no shared secret)") from None
    # The decoder proved the peer's hello canonical, so encoding it again gives its exact bytes.
    transcript, mine_first = transcript_hash(DOMAIN, codec.encode(mine), codec.encode(theirs))
    conn.secure(*derive_keys(shared, transcript, mine_first))

    signed = AUTH_DOMAIN + transcript + identity.public_key
    await conn.send({"type": "auth", "sig": identity.sign(signed)})
    auth = await _expect(conn, "auth")
    sig = auth.get("sig")
    if not isinstance(sig, bytes) or not verify_signature(
        peer.key, AUTH_DOMAIN + transcript + peer.key, sig
    ):
        raise _Refuse(f"bad handshake signature for key {fingerprint(peer.key)}")
    await conn.send({"type": "ready"})
    await _expect(conn, "ready")
    return peer
