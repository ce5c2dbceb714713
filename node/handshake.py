"""The connection handshake: prove possession of the key you claim, agree on a version.

Both sides, symmetrically (no client/server roles, so simultaneous dials need no tie-break):

1. send ``{type: "hello", version, key, nonce, agent, name}``
2. on the peer's hello: check the version and key, then send ``{type: "auth", sig}`` where
   ``sig`` signs ``DOMAIN + peer_nonce + my_nonce + peer_key + my_key`` (both nonces bind it to
   this connection; the order of the fields binds it to the signer's side, so it cannot be
   reflected back)
3. on the peer's auth: verify it, then send ``{type: "ready"}``
4. the handshake is done when the peer's ``ready`` arrives.  Step 4 exists so that a side whose
   signature the other refused learns it (it gets an ``error`` frame instead of ``ready``).

Any failure sends ``{type: "error", reason}`` to the other end and closes the connection.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import trio

from creepnet.node.framing import FrameError
from creepnet.node.transport import Connection, TransportError
from creepnet.protocol.identity import (
    PUBLIC_KEY_SIZE,
    Identity,
    fingerprint,
    verify_signature,
)

WIRE_VERSION = 1
DOMAIN = b"creepnet/handshake/v1\x00"
NONCE_SIZE = 32
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


def transcript(
    signer_nonce: bytes, other_nonce: bytes, signer_key: bytes, other_key: bytes
) -> bytes:
    return DOMAIN + other_nonce + signer_nonce + other_key + signer_key


async def handshake(
    conn: Connection,
    identity: Identity,
    *,
    name: str = "",
    version: int = WIRE_VERSION,
    timeout: float | None = None,
) -> PeerHello:
    """Run the handshake on conn; on failure the peer is told why, conn is closed, and
    HandshakeError is raised."""
    limit = conn.timeouts.handshake if timeout is None else timeout
    try:
        with trio.fail_after(limit):
            return await _handshake(conn, identity, name, version)
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


async def _handshake(conn: Connection, identity: Identity, name: str, version: int) -> PeerHello:
    nonce = secrets.token_bytes(NONCE_SIZE)
    await conn.send(
        {
            "type": "hello",
            "version": version,
            "key": identity.public_key,
            "nonce": nonce,
            "agent": AGENT,
            "name": name[:64],
        }
    )
    hello = await _expect(conn, "hello")
    peer_version = hello.get("version")
    if peer_version != version:
        raise _Refuse(f"unsupported protocol version {peer_version!r}; this node speaks {version}")
    key, peer_nonce = hello.get("key"), hello.get("nonce")
    if not isinstance(key, bytes) or len(key) != PUBLIC_KEY_SIZE:
        raise _Refuse("hello.key must be a 32-byte Ed25519 public key")
    if not isinstance(peer_nonce, bytes) or len(peer_nonce) != NONCE_SIZE:
        raise _Refuse(f"hello.nonce must be {NONCE_SIZE} bytes")
    if key == identity.public_key:
        raise _Refuse("connected to itself (same key on both ends)")
    agent, peer_name = hello.get("agent"), hello.get("name")
    agent = agent if isinstance(agent, str) else ""
    peer_name = peer_name if isinstance(peer_name, str) else ""

    my_transcript = transcript(nonce, peer_nonce, identity.public_key, key)
    await conn.send({"type": "auth", "sig": identity.sign(my_transcript)})
    auth = await _expect(conn, "auth")
    sig = auth.get("sig")
    their_transcript = transcript(peer_nonce, nonce, key, identity.public_key)
    if not isinstance(sig, bytes) or not verify_signature(key, their_transcript, sig):
        raise _Refuse(f"bad handshake signature for key {fingerprint(key)}")
    await conn.send({"type": "ready"})
    await _expect(conn, "ready")
    return PeerHello(key=key, version=peer_version, agent=agent[:64], name=peer_name[:64])
