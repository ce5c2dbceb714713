"""Hostile bytes and hostile peers: bounded memory, clean rejection, the honest node goes on."""

import functools
import struct
from contextlib import asynccontextmanager

import pytest
import trio
from conftest import FAST, LOOPBACK, faults_reported, next_update, raw_peer

from creepnet.node import updates
from creepnet.node.bot import run_bot
from creepnet.node.framing import FrameError, FrameReader
from creepnet.node.handshake import HandshakeError, PeerHello
from creepnet.node.node import Node, NodeError
from creepnet.node.peer import SEND_QUEUE, Peer
from creepnet.node.sync import MAX_REJECTIONS
from creepnet.node.transport import Connection, Timeouts, connect
from creepnet.protocol import codec
from creepnet.protocol.event import sign_event
from creepnet.protocol.identity import Identity
from creepnet.protocol.testing.sessions import creeper_bot

MALLORY = Identity.from_seed(b"\x66" * 32)
OUTSIDER = Identity.from_seed(b"\x67" * 32)
QUICK = Timeouts(connect=2, handshake=0.5, ping=0.5, idle=3, send=2, retry=0.05)


@asynccontextmanager
async def two_players(tmp_path, plies: int):
    """alice hosts a Creeper game, bob is seated; yields them, alice's update stream and the id."""
    async with (
        Node.open(tmp_path / "alice", timeouts=FAST) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        alice.updates() as news,
    ):
        game = await alice.host_game("creeper", player="alice", options={"max_plies": plies})
        await bob.join(alice.address, player="bob")
        yield alice, bob, news, game


async def some_moves(alice: Node, bob: Node, game: bytes, events: int) -> None:
    """Random bots play until alice's log holds ``events`` events, then stop; bob has them all."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_bot, alice, game, "random", 1)
        nursery.start_soon(run_bot, bob, game, "random", 2)
        await alice.wait_for(game, lambda rt: len(rt.session.log) >= events)
        nursery.cancel_scope.cancel()
    await bob.wait_for(game, lambda rt: rt.stored == len(alice.session(game).log))


class LyingIdentity(Identity):
    def sign(self, message: bytes) -> bytes:
        return bytes(64)


async def read_until_closed(end, seconds=5):
    """Everything the other end sends until it closes; fails if it stays open.

    ``end`` is a raw stream (frames in the clear) or a handshaken Connection (sealed frames)."""
    read = end.receive if isinstance(end, Connection) else FrameReader(end).read
    frames = []
    with trio.fail_after(seconds):
        while True:
            try:
                frames.append(await read())
            except (FrameError, trio.BrokenResourceError, OSError):
                return frames


async def test_half_open_connection_times_out_and_the_node_stays_up(tmp_path):
    async with Node.open(tmp_path / "a", timeouts=QUICK) as node, node.updates() as news:
        silent = [await trio.open_tcp_stream(LOOPBACK, node.port) for _ in range(3)]
        # An honest peer is served while the silent ones hang in their handshake.
        honest = await raw_peer(node.address, Identity.generate(), QUICK)
        await honest.send({"type": "list"})
        with trio.fail_after(5):
            assert (await honest.receive()) == {"type": "games", "items": []}
        failed = await next_update(news, lambda u: u.kind == updates.HANDSHAKE_FAILED)
        assert "not completed within 0.5s" in failed.text
        frames = await read_until_closed(silent[0])
        assert frames and frames[-1]["type"] == "error"
        for stream in silent:
            await stream.aclose()
        await honest.aclose()


async def test_version_mismatch_between_nodes_is_reported_on_both_sides(tmp_path):
    async with (
        Node.open(tmp_path / "a", timeouts=QUICK) as old,
        Node.open(tmp_path / "b", timeouts=QUICK, version=3) as new,
        old.updates() as news,
    ):
        with pytest.raises(NodeError, match="unsupported protocol version"):
            await new.list_games(old.address)
        failed = await next_update(news, lambda u: u.kind == updates.HANDSHAKE_FAILED)
        assert "unsupported protocol version 3" in failed.text


async def test_bad_handshake_signature_is_refused_with_a_reason(tmp_path):
    async with Node.open(tmp_path / "a", timeouts=QUICK) as node, node.updates() as news:
        with pytest.raises(HandshakeError, match="peer refused the handshake: bad handshake sig"):
            await raw_peer(node.address, LyingIdentity(MALLORY._private), QUICK)
        failed = await next_update(news, lambda u: u.kind == updates.HANDSHAKE_FAILED)
        assert "bad handshake signature" in failed.text


async def test_oversized_frame_and_garbage_close_only_that_connection(tmp_path):
    async with Node.open(tmp_path / "a", timeouts=QUICK) as node, node.updates() as news:
        bad = await raw_peer(node.address, MALLORY, QUICK)
        await bad.stream.send_all(struct.pack(">I", 0xFFFFFFFF))  # 4 GiB declared, none sent
        frames = await read_until_closed(bad)
        assert frames[-1]["type"] == "error" and "exceeds the limit" in frames[-1]["reason"]
        gone = await next_update(news, lambda u: u.kind == updates.PEER_DISCONNECTED)
        assert "exceeds the limit" in gone.text

        garbage = await raw_peer(node.address, MALLORY, QUICK)
        await garbage.stream.send_all(struct.pack(">I", 3) + b"\xc1\xc1\xc1")
        frames = await read_until_closed(garbage)
        assert frames[-1]["type"] == "error" and "bad frame" in frames[-1]["reason"]

        odd = await raw_peer(node.address, MALLORY, QUICK)
        await odd.send({"type": "events", "game": b"x" * 16, "from": 0, "items": [1], "length": 1})
        frames = await read_until_closed(odd)
        assert "protocol violation" in frames[-1]["reason"]

        honest = await raw_peer(node.address, Identity.generate(), QUICK)
        await honest.send({"type": "list"})
        with trio.fail_after(5):
            assert (await honest.receive())["type"] == "games"


async def test_a_flood_of_frames_is_absorbed(tmp_path):
    async with Node.open(tmp_path / "a", timeouts=QUICK) as node:
        flood = await raw_peer(node.address, MALLORY, QUICK)
        have = {"type": "have", "game": b"z" * 16, "length": 5}
        burst = b"".join(flood.frame(have) for _ in range(20000))  # sealed, in order
        with trio.fail_after(20):
            await flood.stream.send_all(burst)
            await flood.send({"type": "list"})
            while (await flood.receive())["type"] != "games":
                pass
            await flood.send({})  # `{}`: not a message
            frames = await read_until_closed(flood)
        assert "type" in frames[-1]["reason"]


async def test_a_peer_that_does_not_read_is_dropped_not_buffered():
    listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
    port = listeners[0].socket.getsockname()[1]
    conn = await connect(f"{LOOPBACK}:{port}", FAST)
    other = await listeners[0].accept()  # never reads
    peer = Peer(conn, PeerHello(MALLORY.public_key, 1, "", "slow"))
    for n in range(SEND_QUEUE + 1):
        peer.send({"type": "ping", "n": n})
    assert "send queue full" in peer.close_reason
    await conn.aclose()
    await other.aclose()
    await listeners[0].aclose()


async def test_forged_events_are_rejected_while_the_game_goes_on(tmp_path):
    with trio.fail_after(40):
        async with two_players(tmp_path, 40) as (alice, bob, news, game):
            mallory = await raw_peer(alice.address, MALLORY)
            await mallory.send({"type": "have", "game": game, "length": 0})
            session = alice.session(game)
            bob_key = bob.identity.public_key
            await some_moves(alice, bob, game, 10)
            # Quiet now (both bots stopped), so the forgeries target exactly the next position.
            seq, head = len(session.log), session.log.head
            own = sign_event(
                MALLORY, game=game, seq=seq, prev=head, type="move", body={"move": "a1-b2"}
            )
            tampered = sign_event(MALLORY, game=game, seq=seq, prev=head, type="resign", body={})
            as_bob = codec.decode(tampered.raw)
            as_bob["author"] = bob_key  # claims to be bob, signed by mallory
            replay = sign_event(
                MALLORY, game=b"\x00" * 16, seq=seq, prev=head, type="move", body={"move": "a1-b2"}
            )
            items = [own.raw, codec.encode(as_bob), replay.raw, b"\xc1junk"]
            await mallory.send(
                {"type": "events", "game": game, "from": seq, "items": items, "length": seq + 1}
            )
            reasons = []
            while len(reasons) < 4:
                update = await next_update(news, lambda u: u.kind == updates.REJECTED)
                assert MALLORY.fingerprint in update.text
                reasons.append(update.data["kind"])
            assert sorted(reasons) == sorted(["entitlement", "signature", "game", "malformed"])
            assert len(session.log) == seq
            async with trio.open_nursery() as nursery:  # and the game goes on to its end
                nursery.start_soon(run_bot, alice, game, "random", 3)
                nursery.start_soon(run_bot, bob, game, "random", 4)
            assert session.finished
            assert alice.home.game(game).log_path.read_bytes() == bob.session(game).log.to_bytes()
            for _ in range(20):  # and a peer that keeps lying is cut off
                await mallory.send(
                    {"type": "events", "game": game, "from": 0, "items": [b"\xc1"], "length": 1}
                )
            gone = await next_update(news, lambda u: u.kind == updates.PEER_DISCONNECTED)
            assert MALLORY.fingerprint in gone.text and "were refused" in gone.text
            await read_until_closed(mallory)
            await mallory.aclose()


async def test_one_frame_of_junk_events_is_cut_off_at_the_refusal_limit(tmp_path):
    """A peer is cut off after 16 refused events, but only once its whole batch was checked:
    one frame of 1024 junk items (3 kB) published 1024 `rejected` updates at once, more than
    a subscriber's buffer holds, so a UI lost what came with them (the opponent's move, its
    turn): a stranger, reconnecting with fresh keys, could keep a player's screen from ever
    hearing of a move.  Now the batch stops at the event past the limit."""
    with trio.fail_after(30):
        async with Node.open(tmp_path / "alice", timeouts=FAST) as alice, alice.updates() as news:
            game = await alice.host_game("creeper", player="alice")
            mallory = await raw_peer(alice.address, MALLORY)
            junk = {"type": "events", "game": game, "from": 1, "items": [b"\xc1"] * 1024}
            await mallory.send({**junk, "length": 0})
            await read_until_closed(mallory)
            await mallory.aclose()
            gone = await next_update(news, lambda u: u.kind == updates.PEER_DISCONNECTED)
            assert "were refused" in gone.text
            seen = []
            while True:
                try:
                    seen.append(news.receive_nowait())
                except trio.WouldBlock:
                    break
            refused = [u for u in seen if u.kind == updates.REJECTED]
            assert len(refused) <= MAX_REJECTIONS + 1
            assert alice._broadcaster.dropped == 0  # nothing lost by the subscriber


async def test_a_silent_peer_is_dropped_after_the_idle_timeout(tmp_path):
    idle = Timeouts(connect=2, handshake=2, ping=0.2, idle=0.6, send=2, retry=0.05)
    async with Node.open(tmp_path / "a", timeouts=idle) as node, node.updates() as news:
        mute = await raw_peer(node.address, MALLORY, idle)  # answers nothing, not even pings
        gone = await next_update(news, lambda u: u.kind == updates.PEER_DISCONNECTED)
        assert "silent for 0.6s" in gone.text
        frames = await read_until_closed(mute)
        assert {f["type"] for f in frames} <= {"ping"}
        await mute.aclose()


async def test_equivocation_stops_the_game_names_the_author_and_spreads(tmp_path):
    with trio.fail_after(30):
        async with two_players(tmp_path, 40) as (alice, bob, news, game):
            await some_moves(alice, bob, game, 8)
            # bob's key signs a second, different event at a position bob already filled
            log = bob.session(game).log
            mine = next(e for e in reversed(log.events) if e.author == bob.identity.public_key)
            twin = sign_event(
                bob.identity, game=game, seq=mine.seq, prev=mine.prev, type="resign", body={}
            )
            relay = await raw_peer(alice.address, MALLORY)
            await relay.send(
                {
                    "type": "events",
                    "game": game,
                    "from": mine.seq,
                    "items": [twin.raw],
                    "length": mine.seq + 1,
                }
            )
            halted = await next_update(news, lambda u: u.kind == updates.HALTED)
            assert bob.identity.fingerprint in halted.text
            proof_file = alice.home.game(game).folder / "equivocation"
            from creepnet.protocol.log import EquivocationProof

            assert EquivocationProof.from_bytes(proof_file.read_bytes()).verify().author == (
                bob.identity.public_key
            )
            await bob.wait_for(game, lambda rt: rt.session.halted is not None)  # passed on
            with pytest.raises(Exception, match="not your turn|halted|stopped"):
                await alice.play(game, "resign")
            await relay.aclose()


async def test_an_outsider_cannot_halt_a_running_game(tmp_path):
    """Attack 1 of issue #13, as a script against running nodes: a fresh key, no seat, two
    different signed moves for a future position in one `events` frame."""
    with trio.fail_after(40):
        async with two_players(tmp_path, 30) as (alice, bob, news, game):
            await some_moves(alice, bob, game, 8)
            session = alice.session(game)
            outsider = await raw_peer(alice.address, OUTSIDER)
            ahead = len(session.log) + 3
            twins = [
                sign_event(
                    OUTSIDER, game=game, seq=ahead, prev=bytes(32), type="move", body=body
                ).raw
                for body in ({"move": "a1-b2"}, {"move": "a1-b3"})
            ]
            await outsider.send(
                {"type": "events", "game": game, "from": ahead, "items": twins, "length": ahead}
            )
            await outsider.send({"type": "list"})  # its reply proves the events were handled
            while (await outsider.receive())["type"] != "games":
                pass
            assert session.halted is None
            assert not (alice.home.game(game).folder / "equivocation").exists()
            async with trio.open_nursery() as nursery:  # and the game goes on to its end
                nursery.start_soon(run_bot, alice, game, "random", 3)
                nursery.start_soon(run_bot, bob, game, "random", 4)
            assert session.finished and bob.session(game).finished
            kinds = []
            while True:
                try:
                    kinds.append(news.receive_nowait().kind)
                except trio.WouldBlock:
                    break
            assert updates.GAME_OVER in kinds and updates.HALTED not in kinds
            await outsider.aclose()


@asynccontextmanager
async def impostor(listing):
    """Mallory's node, driven by hand: it answers `list` with ``listing(mallory_key)`` and
    keeps every message a peer sends it.  Yields (its address, the messages)."""
    received: list[dict] = []

    async def serve(stream: trio.SocketStream) -> None:
        from creepnet.node.handshake import handshake

        conn = Connection(stream, FAST)
        await handshake(conn, MALLORY)
        while True:
            try:
                message = await conn.receive()
            except FrameError:
                return
            received.append(message)
            if message["type"] == "list":
                await conn.send({"type": "games", "items": listing()})

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, serve, 0, host=LOOPBACK))
        port = listeners[0].socket.getsockname()[1]
        yield f"{LOOPBACK}:{port}", received
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("advert", ["names the host", "no advert"])
async def test_a_joiner_says_nothing_about_a_game_to_a_node_that_does_not_host_it(tmp_path, advert):
    """A forged advert: Mallory copies alice's advert (name, fingerprint, game id — and the
    genesis nonce, public to every spectator) at her own address.  Bob, who also follows
    another game, dials her: he lists her games, finds she cannot be the host, and refuses —
    no `have`, no join, nothing about either game reaches her, and no ghost game is left."""
    from creepnet.node.node import JoinRefused
    from creepnet.protocol.identity import fingerprint

    async with two_players(tmp_path, 50) as (alice, bob, _, other_game):
        game = await alice.host_game("creeper", "friday", player="alice")
        genesis = alice.session(game).log.events[0]
        copied = {**alice.games[game].describe(), "nonce": genesis.body["nonce"]}
        async with impostor(lambda: [copied]) as (address, received), bob.updates() as news:
            claimed = fingerprint(genesis.author) if advert == "names the host" else None
            with trio.fail_after(10):
                with pytest.raises(JoinRefused, match="not joining: the node at"):
                    await bob.join(address, game.hex()[:8], player="bob", host=claimed)
            refused = await next_update(news, lambda u: u.kind == updates.ADVERT_REFUSED)
            assert refused.data == {"address": address, "key": MALLORY.public_key}
        assert [m["type"] for m in received if m["type"] != "ping"] == ["list"]
        assert not any("game" in message for message in received)
        assert set(bob.games) == {other_game}  # no ghost of the game he did not join
        assert game.hex() not in {p.name for p in (bob.home.path / "games").iterdir()}


async def frames_until(conn: Connection, predicate, seconds: float = 10) -> list[dict]:
    """What a raw peer is sent, in order, up to the first frame satisfying predicate."""
    frames = []
    with trio.fail_after(seconds):
        while not frames or not predicate(frames[-1]):
            frames.append(await conn.receive())
    return frames


@asynccontextmanager
async def bobs_turn_watched(tmp_path):
    """alice hosts, bob is to move, and a raw peer follows the game from alice's position."""
    async with two_players(tmp_path, 40) as (alice, bob, news, game):
        await some_moves(alice, bob, game, 10)
        session = alice.session(game)
        if session.expected().seat != session.seat_keys.index(bob.identity.public_key):
            await alice.play(game, creeper_bot("random", 0)(session))
            await bob.wait_for(game, lambda rt: rt.stored == len(session.log))
        watcher = await raw_peer(alice.address, OUTSIDER)
        await watcher.send({"type": "have", "game": game, "length": len(session.log)})
        await frames_until(watcher, lambda f: f["type"] == "have")  # it follows the game
        yield alice, bob, news, game, watcher
        await watcher.aclose()


async def test_a_passed_on_event_is_not_sent_again_once_stored(tmp_path):
    """bob's move reaches a follower before alice has checked and stored it (its `length` says
    so), then alice's `have` acknowledges it, instead of the move a second time."""
    with trio.fail_after(40):
        async with bobs_turn_watched(tmp_path) as (alice, bob, news, game, watcher):
            seq = len(alice.session(game).log)
            await bob.play(game, creeper_bot("random", 1)(bob.session(game)))
            frames = await frames_until(
                watcher, lambda f: f["type"] == "have" and f["length"] == seq + 1
            )
            sent = [f for f in frames if f["type"] == "events"]
            assert len(sent) == 1 and sent[0]["length"] == seq
            assert sent[0]["items"] == [bob.session(game).log.events[seq].raw]
            assert alice.games[game].stored == seq + 1


async def test_the_owed_authors_event_is_passed_on_before_the_check_and_once(tmp_path):
    """The host sends the owed author's next event on as soon as its signature and place check,
    so the next author checks it while the host does (a LAN's guest-to-guest hop held two checks
    in series).  An illegal one so reaches the other followers unchecked, to be refused and
    blamed on its author by each of them; only once per position, so a cheater cannot use the
    host to flood them; and nothing unchecked is acknowledged."""
    with trio.fail_after(40):
        async with bobs_turn_watched(tmp_path) as (alice, bob, news, game, watcher):
            session = alice.session(game)
            seq, head = len(session.log), session.log.head
            forged = [
                sign_event(bob.identity, game=game, seq=seq, prev=head, type="move", body=body)
                for body in ({"move": "zz"}, {"move": "a1-a1"})
            ]
            relay = await raw_peer(alice.address, MALLORY)
            for event in forged:
                await relay.send(
                    {"type": "events", "game": game, "from": seq, "items": [event.raw], "length": 0}
                )
                refused = await next_update(news, lambda u: u.kind == updates.REJECTED)
                assert bob.identity.fingerprint in refused.text and "illegal move" in refused.text
                assert "passed on by peer" in refused.text  # the relay: not its fault
                assert MALLORY.fingerprint in refused.text
            await bob.play(game, creeper_bot("random", 1)(bob.session(game)))
            await alice.wait_for(game, lambda rt: rt.stored == seq + 1)
            played = session.log.events[seq].raw
            frames = await frames_until(
                watcher, lambda f: f["type"] == "events" and played in f["items"]
            )
            sent = [f for f in frames if f["type"] == "events"]
            assert sent[0]["items"] == [forged[0].raw] and sent[0]["length"] == seq
            assert len(sent) == 2 and sent[1]["length"] == seq + 1  # the forgery, then bob's move
            assert session.log.events[seq].author == bob.identity.public_key
            await relay.aclose()


async def test_refused_events_passed_on_do_not_keep_us_from_fetching_what_comes_there(tmp_path):
    """The owed author's chain is passed on before its check; while it is checked, a `have`
    reaching into it asks nobody (the events are on their way).  A chain refused at its first
    event kept that hold for good: every `have` up to the chain's end was ignored, so the real
    event there, withheld from us by its author, came only with the stall probes."""
    with trio.fail_after(40):
        async with bobs_turn_watched(tmp_path) as (alice, bob, news, game, watcher):
            session = alice.session(game)
            seq, head = len(session.log), session.log.head
            illegal = sign_event(
                bob.identity, game=game, seq=seq, prev=head, type="move", body={"move": "zz"}
            )
            after = sign_event(
                bob.identity, game=game, seq=seq + 1, prev=illegal.id, type="move", body={}
            )
            relay = await raw_peer(alice.address, MALLORY)
            chain = [illegal.raw, after.raw]
            await relay.send(
                {"type": "events", "game": game, "from": seq, "items": chain, "length": 0}
            )
            await next_update(news, lambda u: u.kind == updates.REJECTED)
            assert len(session.log) == seq
            await watcher.send({"type": "have", "game": game, "length": seq + 1})
            await watcher.send({"type": "list"})  # answered once the `have` is handled
            await frames_until(watcher, lambda f: f["type"] == "games")
            asked = alice.games[game].fetching
            assert asked is not None and asked.key == OUTSIDER.public_key and asked.start == seq
            await relay.aclose()


async def test_only_the_host_can_refuse_our_join(tmp_path, monkeypatch):
    """Any peer could send `join-refused` for a game we were joining, and our join gave up
    with "the host refused": a stranger who knew the (public) game id could keep anyone
    from taking a seat."""
    async with (
        Node.open(tmp_path / "alice", timeouts=FAST) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
    ):
        game = await alice.host_game("creeper", player="alice")
        arrived, release = trio.Event(), trio.Event()
        on_join = alice._sync._on_join

        async def held(runtime, peer, message):  # the host is slow to seat bob
            arrived.set()
            await release.wait()
            await on_join(runtime, peer, message)

        monkeypatch.setattr(alice._sync, "_on_join", held)
        mallory = await raw_peer(bob.address, MALLORY, FAST)
        seated = []

        async def join() -> None:
            seated.append(await bob.join(alice.address, player="bob"))

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(join)
                await arrived.wait()
                refusal = {"type": "join-refused", "game": game, "reason": "go away"}
                await mallory.send(refusal)
                await mallory.send({"type": "list"})  # answered after the refusal was read
                while (await mallory.receive())["type"] != "games":
                    pass
                assert bob.games[game].join_refused is None
                release.set()
        assert seated == [game]
        assert bob.session(game).local_seat == 1
        await mallory.aclose()


async def test_followers_that_come_and_go_leave_bounded_state_behind(tmp_path, monkeypatch):
    """Every key that ever followed a game stayed in its runtime for good (its
    acknowledgement, and as "departed"): fresh keys, one connection each, grew a host's
    memory for as long as the game was open."""
    from creepnet.node import sync

    monkeypatch.setattr(sync, "MAX_DEPARTED", 8, raising=False)
    async with (
        Node.open(tmp_path / "alice", timeouts=FAST) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
    ):
        game = await alice.host_game("creeper", player="alice")
        await bob.join(alice.address, player="bob")
        runtime = alice.games[game]
        with trio.fail_after(60):
            for _ in range(40):
                stranger = await raw_peer(alice.address, Identity.generate(), FAST)
                await stranger.send({"type": "have", "game": game, "length": 0})
                while (await stranger.receive())["type"] != "events":
                    pass  # it follows the game
                await stranger.aclose()
            while len(runtime.followers) > 1:  # only bob, once the strangers are forgotten
                await runtime.changed.wait()
        bob_key = bob.identity.public_key
        assert set(runtime.acked) == {bob_key}  # a seat's acknowledgement outlives its link
        assert len(runtime.departed) <= 8


@pytest.mark.parametrize(
    "field", ["seat", "seq", "objector", "length", "port"], ids=lambda field: field
)
async def test_integers_beyond_64_bit_signed_are_refused_by_shape_not_by_a_fault(tmp_path, field):
    """msgpack carries integers up to 2**64 - 1, and the shape check took any that were not
    negative: a vote for seat 2**63 reached the signing frame (8 signed bytes) and raised
    OverflowError — contained, but an internal fault that dropped the peer unexplained."""
    async with two_players(tmp_path, plies=40) as (alice, bob, news, game):
        await some_moves(alice, bob, game, 6)
        session = alice.session(game)
        fields = {
            "game": game,
            "seq": len(session.log) + 1,
            "prev": session.log.head,
            "seat": 1,
            "objector": 0,
            "event": session.log.events[-1].raw,
            "signature": bytes(64),
            "vote": [0, bytes(64)],
            "length": 0,
            "port": 4100,
        }
        fields[field] = 2**63
        kinds = {"seat": "retire-vote", "seq": "retire-objection", "objector": "retire-objection"}
        message = {"type": kinds.get(field, {"length": "have", "port": "listen"}.get(field))}
        message.update(fields)
        mallory = await raw_peer(alice.address, MALLORY, FAST)
        await mallory.send(message)
        frames = await read_until_closed(mallory)
        assert frames and frames[-1]["type"] == "error"
        assert "protocol violation" in frames[-1]["reason"] and "64-bit" in frames[-1]["reason"]
        assert not faults_reported(news)
