"""Attack 3 of issue #13: relaying a handshake gains nothing (the channel is bound to the keys)."""

from contextlib import asynccontextmanager

import pytest
import trio
from conftest import FAST, connection_pair, next_update
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from creepnet.node import updates
from creepnet.node.channel import derive_keys, transcript_hash
from creepnet.node.framing import HEADER, FrameError
from creepnet.node.handshake import DOMAIN, HandshakeError, handshake
from creepnet.node.node import Node
from creepnet.node.transport import Connection, connect
from creepnet.protocol import codec
from creepnet.protocol.identity import Identity

X = Identity.from_seed(b"\x58" * 32)
V = Identity.from_seed(b"\x56" * 32)


def plain(message: dict) -> bytes:
    body = codec.encode(message)
    return HEADER.pack(len(body)) + body


async def pump(source: Connection, sink: Connection, frames: int | None = None) -> None:
    """Copy whole frames, untouched, from source to sink (``frames`` of them, or until EOF)."""
    count = 0
    while frames is None or count < frames:
        try:
            raw = await source.reader.read_raw()
        except (FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
            return
        await sink.stream.send_all(HEADER.pack(len(raw)) + raw)
        count += 1


@asynccontextmanager
async def relayed(address: str):
    """X's connection, whose frames Mallory relays to a fresh connection of hers to address."""
    async with connection_pair() as (x_end, mallory_in):
        mallory_out = await connect(address, FAST)
        yield x_end, mallory_in, mallory_out
        await mallory_out.aclose()


async def test_a_relayed_handshake_gives_the_relay_no_voice(tmp_path):
    """Mallory passes X's handshake to V unchanged, then injects `have {length: 10^6}`: V
    authenticated X, not Mallory, and her frame fails its tag; V hangs up without acting on it."""
    async with Node.open(tmp_path / "v", timeouts=FAST) as victim, victim.updates() as news:
        game = await victim.host_game("creeper", player="v")
        async with relayed(victim.address) as (x_end, mallory_in, mallory_out):
            async with trio.open_nursery() as nursery:
                # hello, auth and ready each way
                nursery.start_soon(pump, mallory_in, mallory_out, 3)
                nursery.start_soon(pump, mallory_out, mallory_in, 3)
                with trio.fail_after(5):
                    peer = await handshake(x_end, X)
            assert peer.key == victim.identity.public_key  # X really talks to V, through her
            forged = {"type": "have", "game": game, "length": 10**6}
            await mallory_out.stream.send_all(plain(forged))  # she has no key to seal it with
            gone = await next_update(news, lambda u: u.kind == updates.PEER_DISCONNECTED)
            assert (
                X.fingerprint in gone.text and "not sealed by the authenticated peer" in gone.text
            )
            runtime = victim.games[game]
            assert runtime.acked.get(X.public_key, 0) < 10**6
            assert X.public_key not in runtime.followers


async def test_a_relay_that_swaps_the_ephemeral_keys_fails_the_signatures():
    """Mallory, in the middle, runs X25519 with each side so she could read and write: then the
    two sides hash different hellos and neither signature verifies."""
    async with connection_pair() as (x_end, m_for_x), connection_pair() as (m_for_v, v_end):

        async def mallory() -> None:
            x_hello, v_hello = await m_for_x.receive(), await m_for_v.receive()
            mine = [X25519PrivateKey.generate() for _ in range(2)]
            to_v = {**x_hello, "eph": mine[0].public_key().public_bytes_raw()}
            to_x = {**v_hello, "eph": mine[1].public_key().public_bytes_raw()}
            await m_for_v.send(to_v)
            await m_for_x.send(to_x)
            for conn, sent, got, eph in (
                (m_for_v, to_v, v_hello, mine[0]),
                (m_for_x, to_x, x_hello, mine[1]),
            ):
                shared = eph.exchange(X25519PublicKey.from_public_bytes(got["eph"]))
                transcript, first = transcript_hash(DOMAIN, codec.encode(sent), codec.encode(got))
                conn.secure(*derive_keys(shared, transcript, first))
            # Pass the auths across, re-sealed: all a full man in the middle can do.
            auth_x, auth_v = await m_for_x.receive(), await m_for_v.receive()
            await m_for_v.send(auth_x)
            await m_for_x.send(auth_v)

        results = {}

        async def side(name, conn, identity):
            try:
                results[name] = await handshake(conn, identity)
            except HandshakeError as exc:
                results[name] = exc

        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(mallory)
                nursery.start_soon(side, "x", x_end, X)
                nursery.start_soon(side, "v", v_end, V)
        assert isinstance(results["x"], HandshakeError)
        assert isinstance(results["v"], HandshakeError)
        assert "bad handshake signature" in str(results["v"])


async def test_frames_after_the_handshake_are_sealed_in_order():
    """Replaying, reordering or altering one sealed frame is refused."""
    async with connection_pair() as (a, b):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handshake, a, X)
            await handshake(b, V)
        assert a.sealed and b.sealed
        first = a.frame({"type": "ping", "n": 1})
        await a.stream.send_all(first)
        assert (await b.receive())["n"] == 1
        await a.stream.send_all(first)  # a replay of frame 1 where frame 2 is due
        with pytest.raises(FrameError, match="not sealed by the authenticated peer"):
            await b.receive()
