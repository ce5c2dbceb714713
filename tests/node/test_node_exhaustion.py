"""Attack 5 of issue #13: unauthenticated resource exhaustion, each shown failing."""

import contextlib
import secrets
import struct
import tracemalloc

import msgpack
import pytest
import trio
from conftest import FAST, LOOPBACK, next_update, raw_peer
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from creepnet.node import admission, updates
from creepnet.node.framing import HANDSHAKE_FRAME, FrameError, FrameReader, encode_frame
from creepnet.node.handshake import WIRE_VERSION
from creepnet.node.node import Node, NodeError
from creepnet.node.transport import Connection, Timeouts
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


async def test_idle_sockets_from_one_address_cannot_hold_every_handshake_slot(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(admission, "HELLO_GRACE", 3600.0)  # all young: none may be evicted
    async with Node.open(tmp_path / "a", timeouts=SLOW) as node:
        idle = [
            await trio.open_tcp_stream(LOOPBACK, node.port, local_address=OTHER_LOOPBACK)
            for _ in range(admission.MAX_HANDSHAKES)
        ]
        # The first PER_ADDRESS hold a slot until the (long) handshake timeout (or until they
        # are older than the grace and a newcomer needs room); the rest are refused at once.
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


async def test_a_stranger_past_its_hello_still_gets_the_handshakes_frame_limit(tmp_path):
    """The hello is checked, keys are agreed, and the stranger's key is still only a claim
    until its `auth` signature: a 2 MiB frame declared in place of it was waited for and read
    (the channel had the authenticated limits from the keys on), 2 MiB held per handshake slot
    by anyone.  Now the limits rise only once the handshake is done: refused from its header."""
    async with Node.open(tmp_path / "a", timeouts=SLOW) as node, node.updates() as news:
        stream = await trio.open_tcp_stream(LOOPBACK, node.port)
        hello = {
            "type": "hello",
            "version": WIRE_VERSION,
            "key": Identity.generate().public_key,
            "nonce": secrets.token_bytes(32),
            "eph": X25519PrivateKey.generate().public_key().public_bytes_raw(),
            "agent": "test",
            "name": "stranger",
        }
        await stream.send_all(encode_frame(hello) + struct.pack(">I", 2 << 20))  # never sent
        failed = await next_update(news, lambda u: u.kind == updates.HANDSHAKE_FAILED, 10)
        assert "exceeds the limit" in failed.text
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


FLOOD_ADDRESSES = [f"127.0.0.{host}" for host in range(2, 18)]  # 16 "hosts", all loopback


async def until(condition, seconds: float = 20) -> None:
    """Wait for a condition of the node's state (checked as its tasks run)."""
    with trio.fail_after(seconds):
        while not condition():
            await trio.sleep(0.01)


async def test_64_idle_sockets_from_16_addresses_lock_out_neither_a_seated_player_nor_a_spectator(
    tmp_path,
):
    """Issue 21.4: with the limits per address only, 16 idle sockets from 4 addresses held
    every handshake slot, renewable at each handshake timeout."""
    now = [0.0]  # alice's admission clock: the flood stays young until the test moves it on
    with trio.fail_after(90):
        async with (
            Node.open(tmp_path / "alice", timeouts=SLOW) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
            Node.open(tmp_path / "carol", timeouts=FAST) as carol,
        ):
            game = await alice.host_game("creeper", player="alice")
            await bob.join(alice.address, game, player="bob")
            gate = alice._connections._admission
            gate.clock = lambda: now[0]
            flood = [
                await trio.open_tcp_stream(LOOPBACK, alice.port, local_address=address)
                for address in FLOOD_ADDRESSES
                for _ in range(4)
            ]
            await until(lambda: gate.in_handshake + gate.evictions == len(flood))
            assert gate.in_handshake == admission.PER_BLOCK + admission.PROBATION

            # The seated player reconnects while the flood is young: a hello with its key
            # takes a slot on probation, pushing out the oldest idle socket there.
            key = bob.identity.public_key
            dropped = alice.peers[key]
            dropped.close("test: bob's connection drops")
            await until(lambda: alice.peers.get(key) not in (None, dropped))  # bob redialled
            assert gate.evictions > len(flood) - admission.PER_BLOCK - admission.PROBATION
            # A stranger's hello is refused from probation while every idle socket is young...
            with pytest.raises(NodeError, match="too many connections in handshake"):
                await carol.watch(alice.address, game)
            # ...and once they are older than the grace, the oldest gives way to the spectator.
            now[0] += admission.HELLO_GRACE
            await carol.watch(alice.address, game)
            assert carol.games[game].stored == alice.games[game].stored
            assert carol.identity.public_key in alice.peers and key in alice.peers
            for stream in flood:
                await stream.aclose()


async def test_handshake_slots_are_budgeted_by_block_and_the_oldest_of_the_fullest_gives_way():
    now = [0.0]
    gate = admission.Admission(clock=lambda: now[0])
    flood = [gate.enter(f"10.0.0.{host}") for host in range(1, 40)]
    held = [slot for slot in flood if isinstance(slot, admission.Slot) and not slot.probation]
    assert len(held) == admission.PER_BLOCK  # one /24 holds at most its block's share
    assert admission.address_block("10.0.0.7") == "10.0.0.0/24"
    assert admission.address_block("fe80::1:2:3:4") == "fe80::/64"
    assert admission.address_block("::ffff:10.0.0.9") == "10.0.0.0/24"
    # Another block still finds room without evicting anyone (v6: a /64 is one host).
    before = gate.evictions  # the rest of the flood went on probation, pushing itself out
    others = [gate.enter(f"fd00::{n:x}") for n in range(1, 6)]
    assert all(isinstance(s, admission.Slot) and not s.probation for s in others)
    assert gate.evictions == before
    filler = [gate.enter(f"172.16.{n}.1") for n in range(admission.MAX_HANDSHAKES - 13)]
    assert not any(slot.probation for slot in filler)  # now every slot is taken
    assert gate.enter("192.168.5.4").probation  # young: nobody gives way yet
    # Young connections are protected by the grace; once old, the fullest block's oldest goes.
    now[0] = admission.HELLO_GRACE
    newcomer = gate.enter("192.168.5.5")
    assert isinstance(newcomer, admission.Slot) and not newcomer.probation
    assert held[0].scope.cancel_called and held[0].evicted and not others[0].scope.cancel_called
    # A seated key is never the one to give way.
    assert gate.hello(held[1], b"seated", {b"seated"}) is None
    now[0] += admission.HELLO_GRACE
    gate.enter("10.0.0.200")
    assert not held[1].scope.cancel_called and held[2].scope.cancel_called


async def test_probation_admits_only_a_seated_key_and_idle_sockets_cannot_hold_it():
    gate = admission.Admission(clock=lambda: 0.0)  # every connection young: nothing evictable
    for host in range(admission.MAX_HANDSHAKES):
        assert not gate.enter(f"10.{host}.0.1").probation
    pool = [gate.enter(f"10.99.{n}.1") for n in range(admission.PROBATION)]
    assert all(slot.probation for slot in pool)
    seated = gate.enter("10.200.0.1")  # the pool is full: its oldest idle member goes at once
    assert seated.probation and pool[0].scope.cancel_called
    assert gate.hello(seated, b"bob", {b"bob"}) is None
    stranger = gate.enter("10.201.0.1")
    assert "too many connections" in gate.hello(stranger, b"eve", {b"bob"})
    for _ in range(3 * admission.PROBATION):  # a flood cannot push the seated one out
        gate.enter("10.202.0.1")
    assert not seated.scope.cancel_called


async def idle_after_hello(address: str, port: int, key: bytes) -> trio.SocketStream:
    """A socket that sends a hello claiming ``key`` (public: it is in the game's log), reads
    the node's hello and its sealed `auth` (so the claim was heard), and then says nothing."""
    stream = await trio.open_tcp_stream(LOOPBACK, port, local_address=address)
    hello = {
        "type": "hello",
        "version": WIRE_VERSION,
        "key": key,
        "nonce": secrets.token_bytes(32),
        "eph": secrets.token_bytes(32),
        "agent": "idle",
        "name": "",
    }
    await stream.send_all(encode_frame(hello))
    reader = FrameReader(stream, max_frame=HANDSHAKE_FRAME)
    with trio.fail_after(5):
        assert (await reader.read())["type"] == "hello"
        await reader.read_raw()  # the node's sealed auth: our hello passed
    return stream


async def test_hellos_claiming_a_seated_key_cannot_lock_that_player_out(tmp_path):
    """A hello's key is a claim until the signature after it: a flood of idle sockets whose
    hellos named bob's (public) key were all "seated", never evicted, and held every slot of
    the block and of probation until the handshake timeout; bob himself was refused."""
    now = [0.0]  # alice's admission clock: the flood stays young
    with trio.fail_after(60):
        async with (
            Node.open(tmp_path / "alice", timeouts=SLOW) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        ):
            game = await alice.host_game("creeper", player="alice")
            await bob.join(alice.address, game, player="bob")
            gate = alice._connections._admission
            gate.clock = lambda: now[0]
            key = bob.identity.public_key
            sources = [f"127.0.0.{host}" for host in range(2, 8)]
            flood = [
                await idle_after_hello(source, alice.port, key)
                for source in sources
                for _ in range(admission.PER_ADDRESS)
            ]
            assert gate.in_handshake == admission.PER_BLOCK + admission.PROBATION
            dropped = alice.peers[key]
            dropped.close("test: bob's connection drops")
            await until(lambda: alice.peers.get(key) not in (None, dropped), seconds=10)
            assert alice.session(game).seat_keys[1] == key
            for stream in flood:
                await stream.aclose()


async def test_internet_peers_are_not_one_address_in_the_handshake_slots(tmp_path):
    """Streams from the internet carrier are labelled `wan:<peer id>`, and the admission read
    the "IP" of that label as `wan`: every internet peer shared one address's 4 slots, so 4
    idle streams (through any relay) locked every internet newcomer out, seated or not —
    a full address has no probation.  Streams here are in-memory, as the carrier hands them."""
    from trio.testing import memory_stream_pair

    from creepnet.node.handshake import handshake
    from creepnet.node.transport import Connection

    with trio.fail_after(30):
        async with Node.open(tmp_path / "alice", timeouts=SLOW) as alice:
            gate = alice._connections._admission
            gate.clock = lambda: 0.0  # the idle streams stay young: none may be evicted
            async with trio.open_nursery() as nursery:
                idle = []
                for n in range(admission.PER_ADDRESS):
                    ours, theirs = memory_stream_pair()
                    idle.append(theirs)
                    label = f"wan:12D3KooWIdle{n}"
                    nursery.start_soon(alice.connections.accept_stream, ours, label)
                await until(lambda: gate.in_handshake == admission.PER_ADDRESS)
                ours, theirs = memory_stream_pair()
                nursery.start_soon(alice.connections.accept_stream, ours, "wan:12D3KooWHonest")
                honest = Connection(theirs, FAST, label="alice over the carrier")
                await handshake(honest, Identity.generate())
                await honest.send({"type": "list"})
                assert (await honest.receive())["type"] == "games"
                nursery.cancel_scope.cancel()


async def test_one_address_filling_every_peer_slot_cannot_keep_a_joiner_out(tmp_path, monkeypatch):
    """Authenticated throw-away keys from one machine held every peer slot (pinging to stay),
    and only a *seated* player could make room: a joiner, not seated yet, was refused ("this
    node already has 64 peers"), so one machine kept every newcomer out of a lobby."""
    from creepnet.node.handshake import handshake
    from creepnet.node.transport import Connection

    monkeypatch.setattr(admission, "MAX_PEERS", 3)
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        ):
            game = await alice.host_game("creeper", player="alice")
            squatters = []
            for _ in range(3):
                stream = await trio.open_tcp_stream(
                    LOOPBACK, alice.port, local_address=OTHER_LOOPBACK
                )
                squatters.append(Connection(stream, FAST, label="squatter"))
                await handshake(squatters[-1], Identity.generate())
            await until(lambda: len(alice.peers) == 3)
            await bob.join(alice.address, game, player="bob")  # from 127.0.0.1
            assert bob.session(game).local_seat == 1
            assert len(alice.peers) == 3  # one squatter gave way
            for squatter in squatters:
                await squatter.aclose()


async def test_hellos_claiming_a_seated_key_renewed_as_they_give_way_cannot_keep_the_player_out(
    tmp_path,
):
    """The flood above, renewed: every socket let go (evicted for a newcomer, or refused)
    comes straight back with a new hello naming bob's key, so each newcomer evicts another and
    the slots churn as fast as the node serves them (hundreds a second here) while bob's node
    redials.  Each new hello took the shield from the one before, bob's own included, and bob
    is a round trip of 250 ms away (a relayed internet peer): his auth came too late, every
    time, and he stayed out (5 ms away, for up to half a minute).  Now a claim from elsewhere
    never takes the shield of a claim from where bob's key last proved itself."""
    capacity = admission.PER_BLOCK + admission.PROBATION
    with trio.fail_after(120):
        async with (
            Node.open(tmp_path / "alice", timeouts=SLOW) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        ):
            game = await alice.host_game("creeper", player="alice")
            await bob.join(alice.address, game, player="bob")
            gate = alice._connections._admission
            key = bob.identity.public_key
            claims = [0]
            real_open = bob._connections._open

            async def far_away(address: str) -> Connection:
                conn = await real_open(address)
                conn.stream = Slow(conn.stream, 0.25)
                return conn

            bob._connections._open = far_away

            async def claim_for_ever(source: str) -> None:
                while True:
                    try:
                        stream = await idle_after_hello(source, alice.port, key)
                    except Exception:  # refused or evicted before its hello was heard: again
                        await trio.lowlevel.checkpoint()
                        continue
                    claims[0] += 1
                    with contextlib.suppress(Exception):
                        while await stream.receive_some():  # until the node lets it go
                            pass
                    await stream.aclose()

            async with trio.open_nursery() as flood:
                for host in range(2, 10):  # 8 addresses of one /24, 4 sockets each
                    for _ in range(admission.PER_ADDRESS):
                        flood.start_soon(claim_for_ever, f"127.0.0.{host}")
                await until(lambda: gate.in_handshake >= capacity and claims[0] > capacity)
                dropped = alice.peers[key]
                dropped.close("test: bob's connection drops")
                before = claims[0]
                await until(lambda: alice.peers.get(key) not in (None, dropped), seconds=30)
                assert claims[0] > before + capacity  # the flood renewed its claims meanwhile
                flood.cancel_scope.cancel()


async def test_a_claim_from_elsewhere_never_takes_the_shield_of_a_claim_from_the_keys_home():
    now = [10.0]
    gate = admission.Admission(clock=lambda: now[0])
    players = {b"bob"}
    gate.proven(b"eve", "10.0.0.66", players)  # not seated: no home is kept for it
    gate.proven(b"bob", "10.0.0.2", players)  # bob's last connection came from there
    assert gate._homes == {b"bob": "10.0.0.2"}
    home = gate.enter("10.0.0.2")
    assert gate.hello(home, b"bob", players) is None and home.seated and home.home
    claims = [gate.enter(f"10.0.0.{host}") for host in range(3, 3 + admission.PER_BLOCK - 1)]
    for claim in claims:
        assert gate.hello(claim, b"bob", players) is None
    assert home.seated  # however many claims came from elsewhere after it
    assert [c.seated for c in claims] == [False] * (len(claims) - 1) + [True]  # the newest
    now[0] += 1.0  # all past the grace: newcomers evict, never a shielded one
    for n in range(3 * admission.PER_BLOCK):
        gate.enter(f"10.0.0.{100 + n % 50}")
    assert not home.scope.cancel_called
    again = gate.enter("10.0.0.2")  # bob again, from home: the newest from home is shielded
    assert gate.hello(again, b"bob", players) is None and again.seated and not home.seated


class Slow(trio.abc.Stream):
    """A far peer's stream: its hello leaves with the connection (as it goes with TCP's last
    ACK), every later write ``delay`` seconds after it was written (a round trip)."""

    def __init__(self, inner, delay: float) -> None:
        self.inner, self.delay, self.writes = inner, delay, 0
        self.socket = inner.socket

    async def send_all(self, data) -> None:
        self.writes += 1
        if self.writes > 1:
            await trio.sleep(self.delay)  # the network's delay, not synchronisation
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes=None):
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()
