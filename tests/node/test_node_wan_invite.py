"""Invites and the internet carrier on loopback (no namespaces, no root): what an invite holds,
what a bad one is told, what a forged one gets, and LAN play without the extra."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from typing import Any

import pytest
import trio

from creepnet.cli.main import main
from creepnet.node.errors import JoinRefused, NodeError
from creepnet.node.node import Node
from creepnet.node.wan.invite import Invite, InviteError, parse_wan_address, wan_address
from creepnet.protocol.lobby import derive_game_id

GAME = bytes(range(16))
NONCE = bytes(range(100, 116))
TICKET = bytes(range(200, 216))
RELAY = "/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWFy8BjPcNCDW5uEPyzrqWqjycHgv1FWC7Kx8jQ1Jbunp5"
PEER = "12D3KooWQ7V4yK236DU2EKShVJ79bpcCFzmWX1W7RwQTSV95hduT"


def test_an_invite_is_one_line_that_reads_back_the_same():
    invite = Invite(GAME, "k3xq-7mfa", PEER, (RELAY, RELAY.replace("203.0.113.7", "[::1]")))
    text = str(invite)
    assert "\n" not in text and " " not in text and text.startswith("creepnet:")
    assert Invite.parse(text) == invite
    assert parse_wan_address(invite.address) == (PEER, invite.relays)
    with_nonce = dataclasses.replace(invite, nonce=NONCE)
    assert str(with_nonce).startswith(f"creepnet:{GAME.hex()}.{NONCE.hex()}:k3xq-7mfa:")
    assert Invite.parse(str(with_nonce)) == with_nonce
    with_ticket = dataclasses.replace(with_nonce, ticket=TICKET)
    assert str(with_ticket).startswith(f"creepnet:{GAME.hex()}.{NONCE.hex()}.{TICKET.hex()}:")
    assert Invite.parse(str(with_ticket)) == with_ticket


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("3fa9c2d1", "starts with"),
        (f"creepnet:{GAME.hex()[:8]}:k3xq-7mfa:{PEER}:{RELAY}", "32 hex digits"),
        (f"creepnet:{GAME.hex()}:k3xq-7mfa:{PEER}:", "no relay"),
        (f"creepnet:{GAME.hex()}:k3xq-7mfa:{PEER}", "four fields"),
        (f"creepnet:{GAME.hex()}:k3xq-7mfa:{PEER}:203.0.113.7:4001", "multiaddr"),
        (f"creepnet:{GAME.hex()}:k3\x1b[2J:{PEER}:{RELAY}", "fingerprint"),
        (f"creepnet:{GAME.hex()}:k3xq-7mfa:{PEER}:" + ",".join([RELAY] * 5), "at most 4"),
        (f"creepnet:{GAME.hex()}.{NONCE.hex()[:30]}:k3xq-7mfa:{PEER}:{RELAY}", "genesis nonce"),
        (f"creepnet:{GAME.hex()}.:k3xq-7mfa:{PEER}:{RELAY}", "genesis nonce"),
        ("creepnet:" + "0" * 5000, "one line"),
        (f"creepnet:{GAME.hex()}.{NONCE.hex()}.{TICKET.hex()[:30]}:k:{PEER}:{RELAY}", "ticket"),
        (f"creepnet:{GAME.hex()}.{NONCE.hex()}.:k3xq-7mfa:{PEER}:{RELAY}", "ticket"),
        (f"creepnet:{GAME.hex()}.{NONCE.hex()}.{TICKET.hex()}.00:k:{PEER}:{RELAY}", "first field"),
    ],
)
def test_a_bad_invite_is_refused_with_what_is_wrong(text, says):
    with pytest.raises(InviteError, match=says):
        Invite.parse(text)


def test_without_the_extra_internet_play_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "libp2p", None)  # import libp2p now raises ImportError
    code = main(["host", "creeper", "--internet", "--home", str(tmp_path), "--player", "a"])
    assert code != 0
    assert "pip install 'creepnet[wan]'" in capsys.readouterr().err
    invite = str(Invite(GAME, "k3xq-7mfa", PEER, (RELAY,)))
    code = main(["join", invite, "--home", str(tmp_path), "--player", "b"])
    assert code != 0
    assert "pip install 'creepnet[wan]'" in capsys.readouterr().err


def test_a_wan_address_without_the_carrier_is_a_transport_error_not_a_crash():
    from creepnet.node.transport import Timeouts, TransportError, connect

    with pytest.raises(TransportError, match="cannot dial"):
        trio.run(connect, wan_address(PEER, [RELAY]), Timeouts())


# ----- the carrier itself, on 127.0.0.1 -----------------------------------------------------------


async def start_relay(nursery: trio.Nursery, tmp_path, **limits: int) -> str:
    """A relay on loopback with these ``Limits`` (4 reservations, 4 circuits unless given);
    its address to reserve at."""
    return (await start_relay_carrier(nursery, tmp_path, **limits))[0]


async def start_relay_carrier(nursery: trio.Nursery, tmp_path, **limits: int) -> tuple[str, Any]:
    """start_relay's address and the relay's Carrier."""
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    from creepnet.node.wan.attach import carrier_seed
    from creepnet.node.wan.carrier import Carrier, Limits

    relay = Carrier(
        carrier_seed(tmp_path / "relay"),
        listen=["/ip4/127.0.0.1/tcp/0"],
        relay_limits=Limits(**{"reservations": 4, "circuits": 4, **limits}),
    )
    await nursery.start(relay.run)
    return f"{relay.listen_addresses()[0].split('/p2p/')[0]}/p2p/{relay.peer_id}", relay


async def start_carrier(nursery: trio.Nursery, relays: list[str] | None = None) -> Any:
    """A carrier on loopback with a fresh key (reserving at ``relays``), running."""
    import secrets

    from creepnet.node.wan.carrier import Carrier

    carrier = Carrier(secrets.token_bytes(32), listen=["/ip4/127.0.0.1/tcp/0"], relays=relays or [])
    await nursery.start(carrier.run)
    return carrier


def hear(node: Node) -> list[str]:
    """The types of the messages node is sent from now on (on connections made from now)."""
    heard: list[str] = []
    serve = node.connections.handler
    assert serve is not None

    async def counting(peer, message):
        heard.append(message.get("type"))
        await serve(peer, message)

    node.connections.handler = counting
    return heard


async def test_a_joiner_with_an_invite_joins_and_a_forged_invite_is_refused(tmp_path, fast):
    """Mallory copies Alice's invite but puts her own peer id in it, and hosts a game of the
    same name: the joiner reaches Mallory and finds no game with the invited id there, so it
    asks for no seat.  (A listing that claims the id anyway fails ``check_host``: the id
    commits to the host's key; tests/node/test_node_hostile.py shows that refusal.)"""
    from creepnet.node.wan.attach import internet, invite

    # A first dial through the relay's circuit took over FAST's 5 s on the loaded machine with
    # the suite in three workers: the dial's own limits are generous too.
    fast = dataclasses.replace(fast, connect=20.0, handshake=20.0)
    with trio.fail_after(180):  # generous: a loaded 2-core machine
        async with trio.open_nursery() as nursery:
            relay = await start_relay(nursery, tmp_path)
            listen = "/ip4/127.0.0.1/tcp/0"
            async with (
                Node.open(tmp_path / "alice", timeouts=fast) as alice,
                Node.open(tmp_path / "mallory", timeouts=fast) as mallory,
                Node.open(tmp_path / "bob", timeouts=fast) as bob,
                internet(alice, relays=[relay], listen=listen) as alice_carrier,
                internet(mallory, relays=[relay], listen=listen) as mallory_carrier,
                internet(bob, relays=[relay], listen=listen),
            ):
                game = await alice.host_game("creeper", "friday", player="alice")
                await mallory.host_game("creeper", "friday", player="mallory")
                assert await alice_carrier.wait_reserved(60)
                assert await mallory_carrier.wait_reserved(60)
                real = invite(alice, alice_carrier, game)
                assert (
                    real.nonce is not None
                    and derive_game_id(alice.identity.public_key, real.nonce) == game
                )
                forged = Invite(real.game, real.host, mallory_carrier.peer_id, real.relays)
                mallory_heard = hear(mallory)
                with pytest.raises(NodeError, match="no matching game"):
                    await bob.join(
                        forged.address, forged.game.hex(), player="bob", host=forged.host
                    )
                # With the genesis nonce no listing is asked, and still nothing said to Mallory:
                # her key does not rebuild the game id with it.
                with pytest.raises(JoinRefused, match="does not prove it hosts it"):
                    await bob.join(
                        forged.address, forged.game, player="bob", host=None, nonce=real.nonce
                    )
                assert mallory_heard == ["list"]  # the first try's; no `have`, no `join`
                assert game not in mallory.games or mallory.games[game].session.seats == []
                alice_heard = hear(alice)
                joined = await bob.join(
                    real.address,
                    real.game,
                    player="bob",
                    host=real.host,
                    nonce=real.nonce,
                    ticket=real.ticket,
                )
                assert joined == game
                assert bob.session(game).local_seat == 1
                assert "list" not in alice_heard and "join" in alice_heard  # a round trip less
                # the peer slots see bob come from an IP address, not from his free peer id
                assert alice.connections.peers[bob.identity.public_key].conn.origin == "127.0.0.1"
            nursery.cancel_scope.cancel()


async def test_over_the_internet_only_the_invites_holder_takes_the_seat(tmp_path, fast):
    """Eve knows where Alice is (her peer id and relay: what every relay she uses learns) but
    has no invite: she lists Alice's games and asks for the seat, and is refused, with or
    without a made-up ticket; an invite without a ticket (as hosts wrote them before) is told
    to paste the whole invite.  Bob, with the invite, then takes the seat Eve wanted.  On the
    LAN nothing changed: Carol joins another of Alice's games over TCP with no ticket."""
    from creepnet.node.wan.attach import internet, invite

    fast = dataclasses.replace(fast, connect=20.0, handshake=20.0)
    with trio.fail_after(180):  # generous: a loaded 2-core machine
        async with trio.open_nursery() as nursery:
            relay = await start_relay(nursery, tmp_path, circuits=8)
            listen = "/ip4/127.0.0.1/tcp/0"
            async with (
                Node.open(tmp_path / "alice", timeouts=fast) as alice,
                Node.open(tmp_path / "eve", timeouts=fast) as eve,
                Node.open(tmp_path / "bob", timeouts=fast) as bob,
                Node.open(tmp_path / "carol", timeouts=fast) as carol,
                internet(alice, relays=[relay], listen=listen) as alice_carrier,
                internet(eve, relays=[relay], listen=listen),
                internet(bob, relays=[relay], listen=listen),
            ):
                game = await alice.host_game("creeper", "friday", player="alice")
                assert await alice_carrier.wait_reserved(60)
                real = invite(alice, alice_carrier, game)
                assert real.ticket is not None and Invite.parse(str(real)) == real
                where = wan_address(alice_carrier.peer_id, [relay])
                with pytest.raises(JoinRefused, match="only players with its invite"):
                    await eve.join(where, None, player="eve")
                with pytest.raises(JoinRefused, match="only players with its invite"):
                    await eve.join(where, game, player="eve", nonce=real.nonce, ticket=bytes(16))
                old = dataclasses.replace(real, ticket=None)
                with pytest.raises(JoinRefused, match="paste the host's whole invite"):
                    await eve.join(old.address, old.game, player="eve", nonce=old.nonce)
                assert alice.session(game).seats[1:] == []
                joined = await bob.join(
                    real.address, real.game, player="bob", nonce=real.nonce, ticket=real.ticket
                )
                assert joined == game and bob.session(game).local_seat == 1
                lan_game = await alice.host_game("creeper", "saturday", player="alice")
                assert await carol.join(alice.address, lan_game, player="carol") == lan_game
                assert carol.session(lan_game).local_seat == 1
            nursery.cancel_scope.cancel()


def test_a_ticket_is_the_games_own_and_the_host_keys():
    from creepnet.node.wan.invite import TICKET_SIZE, ticket_for

    key, other_key = bytes(32), bytes([1]) * 32
    ticket = ticket_for(key, GAME)
    assert len(ticket) == TICKET_SIZE and ticket == ticket_for(key, GAME)
    assert ticket != ticket_for(key, bytes(16)) and ticket != ticket_for(other_key, GAME)


def test_a_join_with_a_ticket_of_the_wrong_size_is_a_protocol_violation():
    from creepnet.node import messages
    from creepnet.node.peer import ProtocolViolation

    join = {"type": "join", "game": GAME, "request": b"r"}
    assert "ticket" not in messages.check(join)
    assert messages.check({**join, "ticket": bytes(16)})["ticket"] == bytes(16)
    for bad in (bytes(15), bytes(17), "0" * 16, 7):
        with pytest.raises(ProtocolViolation, match="ticket"):
            messages.check({**join, "ticket": bad})


async def test_an_invite_pasted_in_the_page_starts_the_game_over_real_libp2p(tmp_path):
    """The page's join-invite endpoint with the real carrier: a relay, a host and a guest, each
    a libp2p host on loopback; the invite the host's page shows, pasted in the guest's page,
    seats the guest and the game starts (the endpoint's own checks: tests/web/)."""
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    import secrets
    from pathlib import Path

    from creepnet.cli.web.app import build_app
    from creepnet.cli.web.face import WebFace
    from creepnet.node.wan.attach import internet
    from creepnet.node.wan.carrier import Carrier, Limits

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))
    from web_support import call, paste_invite

    loopback = "/ip4/127.0.0.1/tcp/0"
    relay = Carrier(secrets.token_bytes(32), listen=[loopback], relay_limits=Limits())
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            await nursery.start(relay.run)
            relays = [f"{relay.listen_addresses()[0]}/p2p/{relay.peer_id}"]
            async with (
                Node.open(tmp_path / "a", host="127.0.0.1") as alice,
                Node.open(tmp_path / "b", host="127.0.0.1") as bob,
                internet(alice, relays=relays, listen=loopback) as alice_carrier,
                internet(bob, relays=relays, listen=loopback) as bob_carrier,
            ):
                assert await alice_carrier.wait_reserved(30), "the host got no reservation"
                host_app = build_app(WebFace(alice, "alice", carrier=alice_carrier))
                guest_app = build_app(WebFace(bob, "bob", carrier=bob_carrier))
                _, hosted = await call(host_app, "POST", "/api/host", {"kind": "creeper"})
                _, view = await call(host_app, "GET", f"/api/game/{hosted['game']}")
                invite = Invite.parse(view["invite"])
                assert invite.peer == alice_carrier.peer_id and list(invite.relays) == relays
                await paste_invite(guest_app, alice, view["invite"], hosted["game"], "bob")
                (peer,) = [p for p in bob.peers.values() if p.key == alice.identity.public_key]
                assert peer.dialed == invite.address  # over the carrier, not TCP
            nursery.cancel_scope.cancel()


def test_a_dial_waits_for_a_hole_punch_in_proportion_to_its_relay_circuit_within_the_limit():
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    from creepnet.node.wan.carrier import HOLE_PUNCH_WAIT, PUNCH_FLOOR, punch_wait

    # A busy machine or a slow path makes the circuit slow, and then the punch too: a longer
    # wait; never past the limit, never under the floor a punch needs here under load.
    assert PUNCH_FLOOR <= punch_wait(0.0) < punch_wait(0.4) < punch_wait(0.9) <= HOLE_PUNCH_WAIT
    assert punch_wait(60.0) == HOLE_PUNCH_WAIT
    assert punch_wait(0.9, limit=1.0) == 1.0  # a caller's own bound wins


# ----- fewer round trips on the way to a seat ----------------------------------------------------


class Wire:
    """A multistream-select listener's side, scripted: what the dialer wrote and read, in order."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.said: list[str] = []

    async def write(self, message: str) -> None:
        self.said.append(f"write {message}")

    async def read(self) -> str:
        self.said.append("read")
        return self.answers.pop(0)


def test_multistream_select_sends_the_header_and_the_first_proposal_before_reading():
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    from creepnet.node.wan.carrier import PipelinedSelect

    header = "/multistream/1.0.0"
    wire = Wire(header, "/creepnet/stream/2")
    chosen = trio.run(PipelinedSelect().select_one_of, ["/creepnet/stream/2"], wire)
    assert chosen == "/creepnet/stream/2"
    # One flight out, then both answers: one round trip, where py-libp2p's own takes two.
    assert wire.said == [f"write {header}", "write /creepnet/stream/2", "read", "read"]


def test_multistream_select_falls_back_to_the_other_proposals_and_refuses_garbage():
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    from libp2p.protocol_muxer.exceptions import MultiselectClientError

    from creepnet.node.wan.carrier import PipelinedSelect

    header = "/multistream/1.0.0"
    wire = Wire(header, "na", "/mplex/6.7.0")
    chosen = trio.run(PipelinedSelect().select_one_of, ["/yamux/1.0.0", "/mplex/6.7.0"], wire)
    assert chosen == "/mplex/6.7.0"
    assert wire.said[-2:] == ["write /mplex/6.7.0", "read"]
    for answers, says in [
        (("/other/1.0.0", "/yamux/1.0.0"), "not multistream-select"),
        ((header, "/yamux/9"), "unexpected answer"),
        ((header, "na"), "none of"),
    ]:
        with pytest.raises(MultiselectClientError, match=says):
            trio.run(PipelinedSelect().select_one_of, ["/yamux/1.0.0"], Wire(*answers))


def test_every_negotiation_of_a_carrier_is_pipelined():
    """The streams' client is py-libp2p's public attribute; the connection upgrades' is not
    published: should a release move it, this says so (the upgrades would just be slower)."""
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    import secrets

    from creepnet.node.wan.carrier import Carrier, pipeline_negotiations

    carrier = Carrier(secrets.token_bytes(32), listen=["/ip4/127.0.0.1/tcp/0"])
    stages = ["streams", "security_multistream", "muxer_multistream"]
    assert pipeline_negotiations(carrier.host) == stages


async def test_a_join_given_another_nodes_listing_proves_the_host_on_its_own_connection(
    tmp_path, fast
):
    """node.join(listed=…) spares a second listing; the proof that the node joined hosts the
    game is still made against that node's key, so a listing from elsewhere seats nobody."""
    async with (
        Node.open(tmp_path / "alice", timeouts=fast) as alice,
        Node.open(tmp_path / "mallory", timeouts=fast) as mallory,
        Node.open(tmp_path / "bob", timeouts=fast) as bob,
    ):
        game = await alice.host_game("creeper", "friday", player="alice")
        await mallory.host_game("creeper", "friday", player="mallory")
        asked = hear(alice)
        listed = await bob.list_games(alice.address)
        assert asked == ["list"]
        with pytest.raises(JoinRefused, match="does not prove it hosts it"):
            await bob.join(mallory.address, game.hex(), player="bob", listed=listed)
        assert all(rt.session.seats[1:] == [] for rt in mallory.games.values())
        assert await bob.join(alice.address, game.hex(), player="bob", listed=listed) == game
        assert bob.session(game).local_seat == 1
        assert asked.count("list") == 1 and "join" in asked  # the listing was not asked again


async def test_a_watch_given_the_listing_it_chose_from_does_not_list_again(tmp_path, fast):
    """`creepnet watch NAME` lists the host's games to choose one, and node.watch takes that
    listing: one round trip less over the internet, and the game is followed all the same."""
    async with (
        Node.open(tmp_path / "alice", timeouts=fast) as alice,
        Node.open(tmp_path / "carol", timeouts=fast) as carol,
    ):
        game = await alice.host_game("creeper", "friday", player="alice")
        asked = hear(alice)
        listed = await carol.list_games(alice.address)
        assert await carol.watch(alice.address, game.hex(), listed=listed) == game
        assert carol.session(game).log.events == alice.session(game).log.events
        assert asked.count("list") == 1  # carol's own listing, not asked again by watch


async def test_a_reservation_at_the_relay_is_only_ever_for_the_peer_that_asks(tmp_path):
    """py-libp2p's relay reserved for whatever peer id a RESERVE message named: one
    connection filled every reservation of a `creepnet relay` with made-up ids (no key
    needed, each held for an hour), and no host could reserve there any more."""
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    from libp2p.crypto.ed25519 import create_new_key_pair
    from libp2p.peer.id import ID
    from libp2p.relay.circuit_v2.pb.circuit_pb2 import HopMessage
    from libp2p.relay.circuit_v2.pb.circuit_pb2 import PeerId as CircuitPeer
    from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID
    from libp2p.relay.circuit_v2.utils import read_delimited_msg, write_delimited_msg

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            relay = await start_relay(nursery, tmp_path)  # 4 reservations
            mallory, relay_id = await _connected_to(nursery, relay)
            for _ in range(8):  # each on a stream of its own: py-libp2p ends one on an error
                stream = await mallory.host.new_stream(relay_id, [PROTOCOL_ID])
                made_up = ID.from_pubkey(create_new_key_pair().public_key)
                ask = HopMessage(type=HopMessage.RESERVE, peer=CircuitPeer(id=made_up.to_bytes()))
                await write_delimited_msg(stream, ask)
                with trio.move_on_after(5):
                    await read_delimited_msg(stream, HopMessage)  # whatever it answers
                await stream.reset()
            host = await start_carrier(nursery, [relay])
            assert await host.wait_reserved(30), "the relay's reservations were all taken"
            nursery.cancel_scope.cancel()


async def test_one_ip_address_holds_a_few_of_a_relays_reservations_not_all(tmp_path):
    """Peer ids cost nothing: one machine with fresh ids took every reservation of a
    `creepnet relay`.  On loopback every carrier comes from 127.0.0.1, so the third is the
    one over the (test's) limit of two per address."""
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            address = await start_relay(nursery, tmp_path, reservations=8, circuits=4, per_ip=2)
            held = []
            for _ in range(3):
                host = await start_carrier(nursery, [address])
                held.append(await host.wait_reserved(10))
            assert held == [True, True, False]
            nursery.cancel_scope.cancel()


async def test_a_relay_carries_at_most_its_circuits_in_all(tmp_path):
    """`--max-circuits` says relayed connections at once, but py-libp2p counts its limit per
    reserved destination: 64 reservations could carry 32 circuits each, 2,048 at once."""
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            address = await start_relay(nursery, tmp_path, reservations=4, circuits=2)
            hosts = []
            for _ in range(2):
                host = await start_carrier(nursery, [address])
                assert await host.wait_reserved(30)
                hosts.append(host)
            mallory, relay = await _connected_to(nursery, address)
            answers = []
            for host in hosts:
                for _ in range(2):  # each destination within its own limit
                    answers.append(await _hop_connect(mallory, relay, host.peer_id))
            assert answers.count(100) == 2  # OK twice: the circuits held open, in all
            nursery.cancel_scope.cancel()


async def test_one_ip_address_holds_a_few_of_a_relays_circuits_not_all(tmp_path):
    """A machine holding one reservation could open every circuit of a relay to itself and
    keep them for hours; one IP address now opens at most `per_ip` of them."""
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            address = await start_relay(nursery, tmp_path, reservations=4, circuits=8, per_ip=2)
            host = await start_carrier(nursery, [address])
            assert await host.wait_reserved(30)
            mallory, relay = await _connected_to(nursery, address)
            answers = []
            for _ in range(3):
                answers.append(await _hop_connect(mallory, relay, host.peer_id))
            assert answers[:2] == [100, 100] and answers[2] != 100
            nursery.cancel_scope.cancel()


async def _connected_to(nursery: trio.Nursery, address: str) -> tuple[Any, Any]:
    """A fresh carrier connected to the relay at ``address`` (reserving nothing), and the
    relay's peer id, for raw circuit-relay messages."""
    from libp2p.peer.peerinfo import info_from_p2p_addr
    from multiaddr import Multiaddr

    client = await start_carrier(nursery)
    info = info_from_p2p_addr(Multiaddr(address))
    await client.host.connect(info)
    return client, info.peer_id


async def _hop_connect(client: Any, relay: Any, target: str) -> int:
    """The status a relay answers a raw circuit-relay v2 CONNECT to ``target`` with (100: OK),
    sent by ``client`` (a Carrier connected to the relay) on a hop stream of its own."""
    from libp2p.peer.id import ID
    from libp2p.relay.circuit_v2.pb.circuit_pb2 import HopMessage
    from libp2p.relay.circuit_v2.pb.circuit_pb2 import PeerId as CircuitPeer
    from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID
    from libp2p.relay.circuit_v2.utils import read_delimited_msg, write_delimited_msg

    stream = await client.host.new_stream(relay, [PROTOCOL_ID])
    peer = CircuitPeer(id=ID.from_base58(target).to_bytes())
    ask = HopMessage(type=HopMessage.CONNECT, peer=peer)
    await write_delimited_msg(stream, ask)
    return int((await read_delimited_msg(stream, HopMessage)).status)


async def test_a_circuit_that_ends_leaves_the_other_circuits_to_its_peer_open(tmp_path):
    """py-libp2p's relay kept one entry per peer id for all its circuits: when a circuit to
    the host ended (a guest that hole-punched closing its relayed connection), the relay
    closed the host's newest circuit, another guest's.  The four-seat game across three
    homes lost its symmetric-NAT seat's only path to the host that way."""
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            relay, relaying = await start_relay_carrier(nursery, tmp_path)
            host = await start_carrier(nursery, [relay])
            assert await host.wait_reserved(30)

            async def echo() -> None:
                async for stream in host.incoming:
                    nursery.start_soon(_echo, stream)

            nursery.start_soon(echo)
            first, second = await start_carrier(nursery), await start_carrier(nursery)
            first_stream = await first.open_stream(host.peer_id, [relay], punch=0)
            second_stream = await second.open_stream(host.peer_id, [relay], punch=0)
            for stream in (first_stream, second_stream):
                assert stream.relayed
                await stream.send_all(b"ping")
                assert await stream.receive_some() == b"ping"

            assert relaying.carrying == 2
            host_id = first_stream._stream.muxed_conn.peer_id
            for conn in first._connections(host_id):
                await conn.close()  # as a carrier does once a hole punch holds
            with trio.fail_after(30):
                while relaying.carrying == 2:  # until the relay has ended that circuit
                    await trio.sleep(0.05)
            await second_stream.send_all(b"still there?")
            assert await second_stream.receive_some() == b"still there?"
            nursery.cancel_scope.cancel()


async def test_a_relayed_connection_comes_from_its_relays_ip(tmp_path):
    """A circuit's own address names no IP; the peer slots file a relayed peer under the
    relay's IP, on both ends, not in the shared "?" bucket every relayed peer would fill."""
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            relay, _ = await start_relay_carrier(nursery, tmp_path)
            host = await start_carrier(nursery, [relay])
            assert await host.wait_reserved(30)
            guest = await start_carrier(nursery)
            outgoing = await guest.open_stream(host.peer_id, [relay], punch=0)
            await outgoing.send_all(b"hello")
            incoming = await host.incoming.receive()
            for stream in (outgoing, incoming):
                assert stream.relayed
                assert "p2p-circuit" in stream.remote
                assert stream.origin == "127.0.0.1"
            nursery.cancel_scope.cancel()


async def _echo(stream: Any) -> None:
    with contextlib.suppress(trio.BrokenResourceError):
        while data := await stream.receive_some():
            await stream.send_all(data)
