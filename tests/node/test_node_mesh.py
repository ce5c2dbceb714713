"""The mesh (issue #23): every seat connects to every other seat, so the host can neither
withhold one guest's events from another nor stop the table by going away."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
from conftest import FAST, LOOPBACK, Said

from creepnet.cli import play_loop
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.racer.grammar import spelling
from creepnet.engine import racer
from creepnet.node import messages, updates
from creepnet.node.bot import run_bot
from creepnet.node.mesh import (
    MAX_CHANGES,
    MAX_REPORTS,
    AddressBook,
    Mesh,
    Scope,
    address_refusal,
    dialable,
)
from creepnet.node.node import Node
from creepnet.node.peer import Peer, ProtocolViolation
from creepnet.node.sync import GameSync
from creepnet.node.transport import TransportError, connect
from creepnet.protocol.event import parse_event
from creepnet.protocol.verify import verify_log_bytes

OPTIONS = {"creeps_per_player": 3, "face_up_creeps": 1, "turn_limit": 4}  # a short game
ASK = 0.3  # seconds a waiting node gives the normal path before it asks every peer
FORCED = (racer.PlaceCreep, racer.KeepDrawn)  # steps the console plays by itself
TIMEOUT = 120  # generous: these machines are slow and shared
# The games here are honest and every node runs in this process, so each checks every proof of
# the others: with the proof memo (tests/proof_memo.py) a repeat of exactly the bytes another
# node passed returns that success.  Not for the tests of a refused address or message.
memoized = pytest.mark.usefixtures("memoized_proofs")


@asynccontextmanager
async def racer_table(tmp_path: Path, ask_after: float = ASK) -> AsyncIterator[tuple]:
    """A 3-seat Racer game over loopback: host, guest 1 and guest 2, seated (the host starts
    it once full).  Yields (host, g1, g2, game)."""
    async with (
        Node.open(tmp_path / "host", name="host", timeouts=FAST, ask_after=ask_after) as host,
        Node.open(tmp_path / "g1", name="g1", timeouts=FAST, ask_after=ask_after) as g1,
        Node.open(tmp_path / "g2", name="g2", timeouts=FAST, ask_after=ask_after) as g2,
    ):
        game = await host.host_game("racer", "mesh", seats=3, player="host", options=OPTIONS)
        await g1.join(host.address, game, player="g1")
        await g2.join(host.address, game, player="g2")
        yield host, g1, g2, game


def key(node: Node) -> bytes:
    return node.identity.public_key


async def linked(a: Node, b: Node, game: bytes) -> None:
    """Until a and b follow the game through each other (a direct connection)."""
    await a.wait_for(game, lambda rt: key(b) in rt.followers)
    await b.wait_for(game, lambda rt: key(a) in rt.followers)


async def play_out(game: bytes, *nodes: Node) -> None:
    """Random bots play every given node's seat to the end; returns once each node has
    stored the whole log (a bot may see the end while its node is still storing it)."""
    async with trio.open_nursery() as nursery:
        for seed, node in enumerate(nodes):
            nursery.start_soon(run_bot, node, game, "random", seed + 1)
    for node in nodes:
        await node.wait_for(game, lambda rt: rt.stored == len(rt.session.log))


def log_of(node: Node, game: bytes) -> bytes:
    return (node.home.path / "games" / game.hex() / "log").read_bytes()


def assert_same_finished_logs(game: bytes, *nodes: Node) -> None:
    logs = {log_of(node, game) for node in nodes}
    assert len(logs) == 1
    verdict = verify_log_bytes(logs.pop())
    assert verdict.valid and verdict.finished, verdict.error


def withhold(monkeypatch: pytest.MonkeyPatch, sender: Node, to: Node, author: Node) -> list[str]:
    """sender's connection to `to` drops every event signed by `author` (and what follows it
    in the same batch) and every `have` (which would tell how far sender is); returns what
    was dropped ("have", or "events" for each event), as it happens."""
    dropped: list[str] = []
    send = Peer.send

    def filtered(peer: Peer, message: dict) -> None:
        if sender.peers.get(key(to)) is peer:
            if message["type"] == "have":
                dropped.append("have")
                return
            items = message.get("items", []) if message["type"] == "events" else []
            for index, raw in enumerate(items):
                if parse_event(raw).author == key(author):
                    dropped.extend("events" for _ in items[index:])
                    if index == 0:
                        return
                    message = {**message, "items": items[:index]}
                    break
        send(peer, message)

    monkeypatch.setattr(Peer, "send", filtered)
    return dropped


class News:
    """Every update a node publishes from now on, and a wait for one of them."""

    def __init__(self) -> None:
        self.seen: list[updates.Update] = []
        self._changed = trio.Event()

    async def follow(self, node: Node, task_status=trio.TASK_STATUS_IGNORED) -> None:
        async with node.updates() as stream:
            task_status.started()
            async for update in stream:
                self.seen.append(update)
                self._changed.set()
                self._changed = trio.Event()

    def of(self, kind: str, since: int = 0) -> list[updates.Update]:
        return [update for update in self.seen[since:] if update.kind == kind]

    async def until(self, kind: str, since: int = 0) -> updates.Update:
        while not self.of(kind, since):
            await self._changed.wait()
        return self.of(kind, since)[0]


# ----- the mesh forms and plays ---------------------------------------------------------------


@memoized
async def test_the_seats_connect_to_each_other_and_a_spectator_follows_a_guest(tmp_path):
    """Once seated, guest 2 dials guest 1 (the higher seat dials the lower, so one connection
    per pair); a spectator that watches at guest 1 follows the whole game from there."""
    with trio.fail_after(TIMEOUT):
        async with racer_table(tmp_path) as (host, g1, g2, game):
            await linked(g1, g2, game)
            assert g2.peers[key(g1)].dialed == f"127.0.0.1:{g1.port}"
            assert g1.peers[key(g2)].dialed is None  # g1 dialled nobody: one connection
            async with Node.open(tmp_path / "watch", timeouts=FAST) as watcher:
                await watcher.watch(g1.address, game)
                assert set(watcher.peers) == {key(g1)}  # a guest, not the host
                await play_out(game, host, g1, g2)
                final = len(host.session(game).log)
                await watcher.wait_for(game, lambda rt: rt.stored == final)
                assert_same_finished_logs(game, host, g1, g2, watcher)
            assert set(watcher.peers) <= {key(g1)}


@memoized
async def test_a_spectator_whose_seat_is_gone_watches_at_another_seat(tmp_path):
    """Spectators may watch at any seat (issue #23): the seat a spectator watches at tells it
    where the other seats are; when that seat's node goes away (and comes back elsewhere, at a
    port the spectator never heard of), the spectator dials the seats it was told of, proves
    one's key, and follows the whole game there."""
    with trio.fail_after(TIMEOUT):
        async with (
            Node.open(tmp_path / "host", name="host", timeouts=FAST, ask_after=ASK) as host,
            Node.open(tmp_path / "g2", name="g2", timeouts=FAST, ask_after=ASK) as g2,
            Node.open(tmp_path / "watch", timeouts=FAST) as watcher,
        ):
            game = await host.host_game("racer", "mesh", seats=3, player="host", options=OPTIONS)
            async with Node.open(tmp_path / "g1", name="g1", timeouts=FAST) as g1:
                await g1.join(host.address, game, player="g1")
                await g2.join(host.address, game, player="g2")
                await watcher.watch(g1.address, game)
                old_port, g1_key = g1.port, key(g1)
                book = watcher._mesh.books  # what g1 told it: where the other seats are
                await watcher.wait_for(
                    game,
                    lambda rt: (
                        rt.game in book
                        and all(book[rt.game].candidates(key(n)) for n in (host, g2))
                    ),
                )
                assert set(watcher.peers) == {g1_key}  # watching at g1 alone, so far
            # g1's node is gone; it comes back at another port, which the watcher never hears
            async with Node.open(tmp_path / "g1", name="g1", timeouts=FAST) as g1:
                assert g1.port != old_port
                await watcher.wait_for(
                    game, lambda rt: any(k in rt.followers for k in (key(host), key(g2)))
                )
                await play_out(game, host, g1, g2)
                final = len(host.session(game).log)
                await watcher.wait_for(game, lambda rt: rt.stored == final)
                assert_same_finished_logs(game, host, g1, g2, watcher)
            assert watcher.peers.keys() & {key(host), key(g2)}


@memoized
async def test_four_seats_form_a_full_mesh_with_one_connection_per_pair(tmp_path):
    with trio.fail_after(TIMEOUT):
        async with (
            Node.open(tmp_path / "s0", timeouts=FAST) as s0,
            Node.open(tmp_path / "s1", timeouts=FAST) as s1,
            Node.open(tmp_path / "s2", timeouts=FAST) as s2,
            Node.open(tmp_path / "s3", timeouts=FAST) as s3,
        ):
            seats = [s0, s1, s2, s3]
            game = await s0.host_game("racer", "four", seats=4, player="s0", options=OPTIONS)
            for k, node in enumerate(seats[1:], start=1):
                await node.join(s0.address, game, player=f"s{k}")
            for low, high in [(i, j) for j in range(4) for i in range(j)]:
                await linked(seats[low], seats[high], game)
                # the higher seat dialled the lower (the host: to join), never both
                assert seats[high].peers[key(seats[low])].dialed == seats[low].address
                assert seats[low].peers[key(seats[high])].dialed is None


@memoized
async def test_a_restarted_guest_finds_the_other_guest_without_the_host(tmp_path):
    """Where a handshake proved a seat is stored with the game: guest 2, restarted while the
    host is gone, dials guest 1 there again."""
    with trio.fail_after(TIMEOUT):
        async with Node.open(tmp_path / "g1", timeouts=FAST) as g1:
            with trio.CancelScope() as host_life:
                async with Node.open(tmp_path / "host", timeouts=FAST) as host:
                    game = await host.host_game(
                        "racer", "back", seats=3, player="host", options=OPTIONS
                    )
                    await g1.join(host.address, game, player="g1")
                    async with Node.open(tmp_path / "g2", timeouts=FAST) as g2:
                        await g2.join(host.address, game, player="g2")
                        await linked(g1, g2, game)
                    host_life.cancel()
            async with Node.open(tmp_path / "g2", timeouts=FAST) as g2:
                await linked(g1, g2, game)
                assert g2.peers[key(g1)].dialed == g1.address


@memoized
async def test_a_seat_gets_each_event_once_in_a_mesh(tmp_path, monkeypatch):
    """Gossip does not multiply in a mesh: a seat is sent an event by its author, the other
    seats only tell it their length (have), so a guest decodes each event about once."""
    counts: dict[int, dict[bytes, int]] = {}  # by node (its GameSync), by event
    on_events = GameSync._on_events

    async def counting(self, runtime, peer, message):
        mine = counts.setdefault(id(self), {})
        for raw in message["items"]:
            mine[raw] = mine.get(raw, 0) + 1
        await on_events(self, runtime, peer, message)

    monkeypatch.setattr(GameSync, "_on_events", counting)
    with trio.fail_after(TIMEOUT):
        async with racer_table(tmp_path) as (host, g1, g2, game):
            await play_out(game, host, g1, g2)
            assert_same_finished_logs(game, host, g1, g2)
            received = counts[id(g2._sync)]
            theirs = [e.raw for e in g2.session(game).log.events if e.author != key(g2)]
            copies = sum(received.get(raw, 0) for raw in theirs)
            assert all(raw in received for raw in theirs)
            # Not N copies per event: a few crossings at start-up (before the mesh link) at most.
            assert copies <= len(theirs) * 1.2, (copies, len(theirs))


# ----- the host has no relay power left ---------------------------------------------------


@memoized
@pytest.mark.parametrize("lose_the_first_push", [False, True])
async def test_a_host_that_withholds_a_guests_events_blames_nobody(
    tmp_path, monkeypatch, lose_the_first_push
):
    """The host drops every event of guest 1 on its way to guest 2, and every `have` that
    would say how far it is.  Guest 2 has guest 1's events from guest 1 itself; when guest 1's
    own push is lost too (once), guest 2, waiting, asks every peer and guest 1 answers: the
    game ends, and nobody honest is called stalled or a cheat."""
    with trio.fail_after(TIMEOUT):
        # With a lost push, asking after 1 s ("stalled" after 3 s: no honest seat here takes
        # that long); else the default, as the mesh alone must deliver.
        ask_after = 1.0 if lose_the_first_push else 3.0
        async with racer_table(tmp_path, ask_after=ask_after) as (host, g1, g2, game):
            await linked(g1, g2, game)
            dropped = withhold(monkeypatch, host, g2, g1)
            if lose_the_first_push:
                lost = withhold_once(g1, g2)
            news = News()
            async with trio.open_nursery() as nursery:
                await nursery.start(news.follow, g2)
                await play_out(game, host, g1, g2)
                nursery.cancel_scope.cancel()
            assert dropped, "the host withheld nothing: the test proves nothing"
            if lose_the_first_push:
                assert lost
            assert_same_finished_logs(game, host, g1, g2)
            assert news.of(updates.STALLED) == news.of(updates.REJECTED) == []


def withhold_once(sender: Node, to: Node) -> list[int]:
    """sender's next `events` to `to` that carries sender's own event is lost; seqs lost."""
    lost: list[int] = []
    peer = sender.peers[key(to)]
    send = peer.send

    def lose(message: dict) -> None:
        own = message["type"] == "events" and any(
            parse_event(raw).author == key(sender) for raw in message["items"]
        )
        if own and not lost:
            lost.append(message["from"])
            return
        send(message)

    peer.send = lose  # type: ignore[method-assign]
    return lost


@memoized
async def test_when_the_host_dies_the_guests_still_deliver_each_others_events(tmp_path):
    """The host is killed while a guest is to decide: the guests (and a spectator watching at
    guest 1) go on exchanging their events directly, until the game needs the host's; then
    they say the host is the one stalled, after asking every peer."""
    with trio.fail_after(TIMEOUT):
        async with (
            Node.open(tmp_path / "g1", name="g1", timeouts=FAST, ask_after=ASK) as g1,
            Node.open(tmp_path / "g2", name="g2", timeouts=FAST, ask_after=ASK) as g2,
            Node.open(tmp_path / "watch", timeouts=FAST, ask_after=ASK) as watcher,
        ):
            news = News()
            async with trio.open_nursery() as nursery:
                await nursery.start(news.follow, g2)
                with trio.CancelScope() as host_life:
                    async with Node.open(tmp_path / "host", timeouts=FAST) as host:
                        game = await host.host_game(
                            "racer", "mesh", seats=3, player="host", options=OPTIONS
                        )
                        await g1.join(host.address, game, player="g1")
                        await g2.join(host.address, game, player="g2")
                        await watcher.watch(g1.address, game)
                        await linked(g1, g2, game)
                        host_key = host.identity.public_key
                        for node in (g1, g2):
                            nursery.start_soon(run_bot, node, game, "random", 7)
                        host_bot = trio.CancelScope()
                        nursery.start_soon(bot_within, host_bot, host, game)
                        # Killed once everything it holds has arrived and a guest is to act
                        # (checked again when the wait returns: the game may have moved on).
                        while not guests_turn(host.games[game], host_key):
                            await host.wait_for(game, lambda rt: guests_turn(rt, host_key))
                        host_bot.cancel()
                        killed_at, news_at = host.games[game].stored, len(news.seen)
                        host_life.cancel()
                # The guests go on until only the host can take the game further.
                await g1.wait_for(
                    game, lambda rt: needs(rt, host_key) and rt.stored == len(rt.session.log)
                )
                final = len(g1.session(game).log)
                for node in (g2, watcher):
                    await node.wait_for(game, lambda rt: rt.stored == final)
                assert needs(g2.games[game], host_key)
                after = g1.session(game).log.events[killed_at:]
                assert after and all(event.author != host_key for event in after)
                assert log_of(g1, game) == log_of(g2, game)
                assert log_of(watcher, game) == log_of(g1, game)
                await news.until(updates.STALLED, since=news_at)
                nursery.cancel_scope.cancel()
            # (before the kill a guest may be slow enough on this machine to be named too)
            stalled = news.of(updates.STALLED, since=news_at)
            assert {u.data["key"] for u in stalled} == {host_key}
            assert stalled[0].data["asked"] >= 1


def needs(runtime, host_key: bytes) -> bool:
    waiting = runtime.session.waiting_for()
    return waiting is not None and waiting.key == host_key


def guests_turn(runtime, host_key: bytes) -> bool:
    """Started, everything stored is acknowledged by every follower, and a guest is to act."""
    quiet = runtime.synced()
    return runtime.session.started and quiet and not needs(runtime, host_key)


async def bot_within(scope: trio.CancelScope, node: Node, game: bytes) -> None:
    with scope:
        await run_bot(node, game, "random", 3)


# ----- the "not delivered" alarm -----------------------------------------------------------


@memoized
async def test_a_guests_moves_are_delivered_in_a_three_seat_game(tmp_path, monkeypatch):
    """Guest 2 plays at the terminal: each move is acknowledged by both other seats (guest 1
    directly, through the mesh), so "not delivered yet" never shows.  Before the mesh every
    guest saw it after almost every move: it waited for an acknowledgement from a guest it
    had no connection to."""
    monkeypatch.setattr(play_loop, "DELIVERY_PATIENCE", 15.0)  # generous: a loaded machine
    said = Said()
    with trio.fail_after(TIMEOUT):
        async with racer_table(tmp_path) as (host, g1, g2, game):
            bot = racer.make_bot("random", 5)
            moves = []

            async def lines():
                """What a person types: a legal choice, as the console spells it."""
                while True:
                    runtime = await g2.wait_for(
                        game,
                        lambda rt: rt.session.finished or rt.session.my_turn() is not None,
                    )
                    session = runtime.session
                    if session.finished:
                        return
                    seen, view = len(session.log), session.local_view()
                    legal = view.legal
                    if not (len(legal) == 1 and isinstance(legal[0], FORCED)):  # console's own
                        moves.append(seen)
                        yield " ".join(
                            spelling(view.observation, bot.choose(view.observation, legal))
                        )
                    await g2.wait_for(game, lambda rt, n=seen: len(rt.session.log) > n)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(play_out, game, host, g1)
                await play_in_terminal(g2, game, lines=lines(), out=said.out)
            assert moves, "guest 2 never moved: the test proves nothing"
            mine = [e.seq for e in g2.session(game).log.events if e.author == key(g2)]
            await g2.wait_for(  # the last ones too, once the other seats have stored them
                game,
                lambda rt: all(rt.reached(key(o), seq) for o in (host, g1) for seq in mine),
            )
            assert not any("not delivered" in line for line in said.lines)


# ----- addresses: what a hostile peer can make us do ----------------------------------------


def test_the_address_policy_is_explicit():
    lan, loop = Scope.LAN, Scope.LOOPBACK
    assert address_refusal("192.168.1.5:4100", "192.168.1.9", lan) is None
    assert address_refusal("[fe80::1]:4100", "192.168.1.9", lan) is None
    assert address_refusal("127.0.0.1:4100", "127.0.0.1", lan) is None
    assert "not a LAN address" in address_refusal("8.8.8.8:53", "192.168.1.9", lan)
    assert address_refusal("8.8.8.8:53", "192.168.1.9", Scope.ANY) is None
    # A LAN peer cannot point us at our own machine's services.
    assert "not on this machine" in address_refusal("127.0.0.1:22", "192.168.1.9", lan)
    assert "not a loopback" in address_refusal("192.168.1.5:4100", "127.0.0.1", loop)
    assert "not an IP address" in address_refusal("example.com:80", "127.0.0.1", lan)
    assert "unicast" in address_refusal("0.0.0.0:4100", "127.0.0.1", lan)
    assert "unicast" in address_refusal("224.0.0.251:5353", "192.168.1.9", lan)
    assert Scope.for_listener("127.0.0.1") is loop and Scope.for_listener("0.0.0.0") is lan


async def test_an_ipv4_mapped_address_is_read_as_the_ipv4_address_it_reaches():
    """`[::ffff:127.0.0.1]:22` is 127.0.0.1:22 to the kernel (a dual-stack socket), but the
    policy read it as an IPv6 address: not loopback, yet private.  So a LAN peer could point
    our mesh dialer at our own machine's services, or at 0.0.0.0 or the broadcast address."""
    listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
    port = listeners[0].socket.getsockname()[1]
    try:
        reached = await connect(f"[::ffff:127.0.0.1]:{port}", FAST)  # what a dial would do
    except TransportError as exc:
        pytest.skip(f"no dual-stack IPv6 here: {exc}")
    await reached.aclose()
    for listener in listeners:
        await listener.aclose()
    lan = Scope.LAN
    told = address_refusal(f"[::ffff:127.0.0.1]:{port}", "192.168.1.9", lan)
    assert told is not None and "not on this machine" in told
    assert "unicast" in address_refusal("[::ffff:0.0.0.0]:4100", "192.168.1.9", lan)
    assert "unicast" in address_refusal("[::ffff:255.255.255.255]:4100", "192.168.1.9", lan)
    assert address_refusal("[::ffff:192.168.1.5]:4100", "192.168.1.9", lan) is None
    # a peer on this machine, seen through a dual-stack socket, is on this machine
    assert address_refusal("127.0.0.1:4100", "::ffff:127.0.0.1", lan) is None


RELAY = "/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWRelay"
PEER = "wan:12D3KooWPeerOfASeat"


def test_over_the_internet_a_peer_names_only_a_peer_id_never_a_relay_or_an_ip():
    ours, over_wan = (RELAY,), f"wan:12D3KooWHost@{RELAY}"
    lan = Scope.LAN
    assert address_refusal(PEER, over_wan, lan, ours) is None
    assert dialable(PEER, ours) == f"{PEER}@{RELAY}"  # dialled at our own relays
    assert address_refusal(f"{PEER}@{RELAY}", over_wan, lan, ours) is None
    other = "/ip4/198.51.100.9/tcp/4001/p2p/12D3KooWOther"
    assert "relay this node does not use" in address_refusal(f"{PEER}@{other}", over_wan, lan, ours)
    assert "not on the internet" in address_refusal(PEER, "192.168.1.9", lan, ())
    assert "not a peer id" in address_refusal("wan:no spaces", over_wan, lan, ours)
    # A peer met over the internet cannot point us at an IP (our LAN, our machine).
    for address in ("192.168.1.5:4100", "127.0.0.1:22", "8.8.8.8:53"):
        assert "met over the internet" in address_refusal(address, over_wan, Scope.ANY, ours)
    # Our own record (relays None): the relays we used are dialled again.
    assert address_refusal(f"{PEER}@{other}", "wan", lan, None) is None


def test_one_sender_cannot_flood_the_address_book():
    book, sender, seat = AddressBook(), b"s" * 32, b"k" * 32
    assert book.hear(sender, seat, "127.0.0.1:1")
    for port in range(2, 100):
        book.hear(sender, seat, f"127.0.0.1:{port}")
    assert book.candidates(seat) == [f"127.0.0.1:{MAX_CHANGES + 1}"]  # one, changed 8 times
    book.refuse(seat, f"127.0.0.1:{MAX_CHANGES + 1}")
    assert book.candidates(seat) == []
    assert not book.hear(b"t" * 32, seat, f"127.0.0.1:{MAX_CHANGES + 1}")  # refused for good


@pytest.mark.parametrize(
    "message",
    [
        {"type": "listen", "port": 0},
        {"type": "listen", "port": 70000},
        messages.addresses(b"g" * 16, [(b"k" * 32, "127.0.0.1:1")] * 17),
        {"type": "addresses", "game": b"g" * 16, "items": [{"key": b"k" * 31, "address": "a"}]},
        {"type": "addresses", "game": b"g" * 16, "items": [{"key": b"k" * 32, "address": ""}]},
        {"type": "addresses", "game": b"g" * 16, "items": [{"key": b"k" * 32}]},
        {"type": "addresses", "game": b"g" * 16, "items": ["127.0.0.1:1"]},
    ],
)
def test_malformed_mesh_messages_are_protocol_violations(message):
    with pytest.raises(ProtocolViolation):
        messages.check(message)


async def test_a_lying_host_makes_a_guest_dial_nothing_it_believes(tmp_path):
    """The host tells guest 2 that guest 1 is at another node's address, and gives the address
    of a key not seated in the game; then guest 2's link to guest 1 drops.  Guest 2 dials the
    lie once, finds another key there, hangs up and reports it; it never dials for the key
    that is not seated, and redials guest 1 where a handshake proved it before."""
    with trio.fail_after(TIMEOUT):
        async with (
            racer_table(tmp_path) as (host, g1, g2, game),
            Node.open(tmp_path / "x", timeouts=FAST) as x,
            Node.open(tmp_path / "y", timeouts=FAST) as y,
        ):
            await linked(g1, g2, game)
            news = News()
            async with trio.open_nursery() as nursery:
                await nursery.start(news.follow, g2)
                lie = [(key(y), y.address), (key(g1), x.address)]
                await tell(host, g2, messages.addresses(game, lie))
                assert x.address in g2._mesh.books[game].candidates(key(g1))
                g2.peers[key(g1)].close("test: the cable is pulled")
                await news.until(updates.ADDRESS_REFUSED)
                nursery.cancel_scope.cancel()
            refused = news.of(updates.ADDRESS_REFUSED)
            assert refused[0].data == {"address": x.address, "key": key(g1)}
            assert "proved key" in refused[0].text
            book = g2._mesh.books[game]
            assert book.candidates(key(y)) == []  # not seated: never a candidate
            assert x.address not in book.candidates(key(g1))
            assert key(y) not in g2.peers and key(g2) not in y.peers
            assert key(x) not in g2.games[game].followers and not x.games
            await linked(g1, g2, game)  # the true link stands


async def test_addresses_come_only_from_seats_and_a_port_once_per_connection(tmp_path):
    """Only a seat of the game is heard about where the other seats are, and a peer's port
    is taken once per connection (each change would be passed on to every other seat)."""
    with trio.fail_after(TIMEOUT):
        async with (
            racer_table(tmp_path) as (host, g1, g2, game),
            Node.open(tmp_path / "watch", timeouts=FAST) as watcher,
            Node.open(tmp_path / "x", timeouts=FAST) as x,
        ):
            await watcher.watch(g2.address, game)
            await tell(watcher, g2, messages.addresses(game, [(key(g1), x.address)]))
            assert x.address not in g2._mesh.books[game].candidates(key(g1))
            assert key(g2) not in x.peers
            await linked(g1, g2, game)  # g1 told g2 its port as it took g2 as a follower
            await tell(g1, g2, messages.listen(1))
            assert g2.peers[key(g1)].listen_port == g1.port


async def tell(sender: Node, to: Node, message: dict) -> None:
    """Send message on sender's connection to `to`, and return once `to` has handled it
    (it answers a `list` sent after it, in order)."""
    peer = sender.peers[key(to)]
    peer.send(message)
    await sender._sync.list_remote(peer)


async def test_a_flood_of_bad_addresses_is_reported_a_bounded_number_of_times(tmp_path):
    """A seat sending 160 addresses out of scope (not loopback, for a node on 127.0.0.1):
    none is dialled or kept, and the update stream hears of at most MAX_REPORTS."""
    with trio.fail_after(TIMEOUT):
        async with racer_table(tmp_path) as (host, g1, g2, game):
            news = News()
            async with trio.open_nursery() as nursery:
                await nursery.start(news.follow, g2)
                for batch in range(10):
                    items = [(key(g1), f"10.0.{batch}.{n}:4100") for n in range(16)]
                    await tell(host, g2, messages.addresses(game, items))
                nursery.cancel_scope.cancel()
            refused = news.of(updates.ADDRESS_REFUSED)
            assert 0 < len(refused) <= MAX_REPORTS
            assert "not a loopback address" in refused[0].text
            assert not [a for a in g2._mesh.books[game].candidates(key(g1)) if "10.0." in a]


async def test_addresses_heard_early_are_not_kept_for_peers_that_left(tmp_path):
    """Before the game starts a follower's `addresses` are kept until the log shows it seated;
    they were kept (with its whole Peer) after it left too, so fresh keys, one connection
    each, grew an open lobby's host without bound."""
    from conftest import raw_peer

    from creepnet.protocol.identity import Identity

    async with Node.open(tmp_path / "alice", timeouts=FAST) as alice:
        game = await alice.host_game("racer", "lobby", seats=3, player="alice")
        items = [{"key": bytes(32), "address": "127.0.0.1:4100"}]
        book = None
        with trio.fail_after(60):
            for _ in range(20):
                stranger = await raw_peer(alice.address, Identity.generate(), FAST)
                await stranger.send({"type": "have", "game": game, "length": 0})
                await stranger.send({"type": "addresses", "game": game, "items": items})
                await stranger.send({"type": "list"})  # answered once both were read
                while (await stranger.receive())["type"] != "games":
                    pass
                await stranger.aclose()
            last = await raw_peer(alice.address, Identity.generate(), FAST)
            while len(alice.peers) > 1:  # the strangers' connections are gone
                await trio.sleep(0.01)
            await last.send({"type": "have", "game": game, "length": 0})
            await last.send({"type": "addresses", "game": game, "items": items})
            await last.send({"type": "list"})
            while (await last.receive())["type"] != "games":
                pass
            book = alice._mesh.books[game]
        assert list(book.early) == [next(iter(alice.peers))]  # only the follower still here
        await last.aclose()


def test_a_seat_the_table_retired_is_not_dialled_any_more():
    """A retired seat plays no more: dialling it only failed, every 30 s for the rest of the
    game, with a 'cannot connect' line on every screen."""
    from types import SimpleNamespace

    keys = [bytes([seat]) * 32 for seat in range(4)]
    session = SimpleNamespace(local_seat=3, seat_keys=keys, retired=[])
    runtime = SimpleNamespace(session=session)
    assert Mesh._to_dial(runtime) == [keys[1], keys[2]]  # below ours, not the host
    session.retired = [1]
    assert Mesh._to_dial(runtime) == [keys[2]]
