"""The handshake over loopback: success, version mismatch and bad signatures, told to both ends."""

import pytest
import trio
from conftest import connection_pair

from creepnet.node.handshake import HandshakeError, handshake
from creepnet.node.transport import Timeouts
from creepnet.protocol.identity import Identity

ALICE = Identity.from_seed(b"\x01" * 32)
BOB = Identity.from_seed(b"\x02" * 32)


class LyingIdentity(Identity):
    """Claims a key but signs garbage: what an impostor without the private key can do."""

    def sign(self, message: bytes) -> bytes:
        return bytes(64)


async def both(a, b, a_kwargs=None, b_kwargs=None, a_id=ALICE, b_id=BOB):
    results = {}

    async def run(side, conn, identity, kwargs):
        try:
            results[side] = await handshake(conn, identity, **(kwargs or {}))
        except HandshakeError as exc:
            results[side] = exc

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run, "a", a, a_id, a_kwargs)
            nursery.start_soon(run, "b", b, b_id, b_kwargs)
    return results["a"], results["b"]


async def test_handshake_succeeds_and_names_the_peer():
    async with connection_pair() as (a, b):
        seen_by_a, seen_by_b = await both(a, b, {"name": "alice"}, {"name": "bob"})
    assert seen_by_a.key == BOB.public_key and seen_by_a.name == "bob"
    assert seen_by_b.key == ALICE.public_key and seen_by_b.fingerprint == ALICE.fingerprint


async def test_version_mismatch_is_reported_to_both_ends():
    async with connection_pair() as (a, b):
        at_a, at_b = await both(a, b, {"version": 1}, {"version": 2})
    assert isinstance(at_a, HandshakeError) and isinstance(at_b, HandshakeError)
    assert "unsupported protocol version 2" in str(at_a)
    assert "version" in str(at_b)


async def test_bad_signature_is_reported_to_both_ends():
    liar = LyingIdentity(BOB._private)
    async with connection_pair() as (a, b):
        at_a, at_b = await both(a, b, b_id=liar)
    assert isinstance(at_a, HandshakeError) and "bad handshake signature" in str(at_a)
    assert isinstance(at_b, HandshakeError)
    assert "peer refused the handshake: bad handshake signature" in str(at_b)


async def test_silent_peer_times_out():
    quick = Timeouts(handshake=0.3)
    async with connection_pair(quick) as (a, _silent):
        with trio.fail_after(5), pytest.raises(HandshakeError, match="not completed within"):
            await handshake(a, ALICE)


async def test_connecting_to_yourself_is_refused():
    async with connection_pair() as (a, b):
        at_a, at_b = await both(a, b, b_id=ALICE)
    assert "itself" in str(at_a) and "itself" in str(at_b)


class SmallOrderIdentity(Identity):
    """Claims the identity point as its key: under a cofactorless check it "signs" anything."""

    def __init__(self) -> None:
        super().__init__(BOB._private)
        self.public_key = b"\x01" + bytes(31)

    def sign(self, message: bytes) -> bytes:
        from nacl.bindings import crypto_scalarmult_ed25519_base_noclamp

        s = (7).to_bytes(32, "little")
        return crypto_scalarmult_ed25519_base_noclamp(s) + s


async def test_a_small_order_key_is_refused_at_the_hello():
    async with connection_pair() as (a, b):
        at_a, at_b = await both(a, b, b_id=SmallOrderIdentity())
    assert isinstance(at_a, HandshakeError) and "valid Ed25519 public key" in str(at_a)
    assert isinstance(at_b, HandshakeError)
    assert "peer refused the handshake" in str(at_b)
