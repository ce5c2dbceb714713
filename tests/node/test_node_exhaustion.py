"""Attack 5 of issue #13: unauthenticated resource exhaustion, each shown failing."""

import struct
import tracemalloc

import msgpack
import pytest
import trio
from conftest import FAST, LOOPBACK, next_update, raw_peer

from creepnet.node import admission, updates
from creepnet.node.framing import HANDSHAKE_FRAME, FrameError, FrameReader
from creepnet.node.node import Node
from creepnet.node.transport import Timeouts
from creepnet.protocol import codec
from creepnet.protocol.identity import Identity

SLOW = Timeouts(connect=2, handshake=30, ping=0.5, idle=30, send=2, retry=0.05)
OTHER_LOOPBACK = "127.0.0.2"  # still loopback: a second "host" on the same machine


async def first_frames(stream: trio.SocketStream, seconds: float = 5) -> list[dict]:
    reader, frames = FrameReader(stream), []
    with trio.fail_after(seconds):
        while True:
            try:
                frames.append(await reader.read())
            except (FrameError, trio.BrokenResourceError, OSError):
                return frames


async def test_idle_sockets_from_one_address_cannot_hold_every_handshake_slot(tmp_path):
    async with Node.open(tmp_path / "a", timeouts=SLOW) as node:
        idle = [
            await trio.open_tcp_stream(LOOPBACK, node.port, local_address=OTHER_LOOPBACK)
            for _ in range(admission.MAX_HANDSHAKES)
        ]
        # The first PER_ADDRESS hold a slot until the (long) handshake timeout; the rest are
        # refused at once with a reason.
        refused = await first_frames(idle[admission.PER_ADDRESS])
        assert "too many connections in handshake from 127.0.0.2" in refused[-1]["reason"]
        honest = await raw_peer(node.address, Identity.generate(), FAST)
        await honest.send({"type": "list"})
        with trio.fail_after(5):
            assert (await honest.receive())["type"] == "games"
        for stream in idle:
            await stream.aclose()
        await honest.aclose()


async def test_a_big_hello_is_refused_from_its_header(tmp_path):
    async with Node.open(tmp_path / "a", timeouts=SLOW) as node, node.updates() as news:
        stream = await trio.open_tcp_stream(LOOPBACK, node.port)
        await stream.send_all(struct.pack(">I", 2 << 20))  # a 2 MiB hello, never sent
        frames = await first_frames(stream)
        assert frames[-1]["type"] == "hello"  # the node's own hello came first
        failed = await next_update(news, lambda u: u.kind == updates.HANDSHAKE_FAILED)
        assert f"exceeds the limit {HANDSHAKE_FRAME}" in failed.text
        await stream.aclose()


def test_a_frame_of_empty_maps_is_cut_off_by_the_item_cap():
    """2 MB of `{}` decoded into ~150 MB of dicts in 1-1.6 s; now it stops at the cap."""
    bomb = msgpack.packb([[{}] * 4000] * 500)
    limits = codec.Limits(max_size=len(bomb), max_array=4096)
    tracemalloc.start()
    try:
        with pytest.raises(codec.CodecError, match="items in one value"):
            codec.decode(bomb, limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20  # bytes; uncapped, this input peaks near 150 MB


async def test_a_seated_player_gets_in_when_anonymous_peers_fill_every_slot(tmp_path, monkeypatch):
    monkeypatch.setattr(admission, "MAX_PEERS", 3)
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
            alice.updates() as news,
        ):
            game = await alice.host_game("creeper", player="alice")
            await bob.join(alice.address, player="bob")
            await bob.wait_for(game, lambda rt: rt.session.local_seat is not None)
            bob_peer = alice.peers[bob.identity.public_key]
            bob_peer.close("test: bob drops")
            await bob_peer.closed.wait()
            squatters = [await raw_peer(alice.address, Identity.generate()) for _ in range(3)]
            assert len(alice.peers) == 3
            extra = await raw_peer(alice.address, Identity.generate())  # refused: full
            with trio.fail_after(5):
                while (await extra.receive())["type"] != "error":
                    pass
            await bob.connect(alice.address)  # a seated player: an anonymous peer makes room
            await next_update(
                news, lambda u: u.kind == updates.PEER_DISCONNECTED and "seated player" in u.text
            )
            assert bob.identity.public_key in alice.peers
            for squatter in squatters:
                await squatter.aclose()
            await extra.aclose()
