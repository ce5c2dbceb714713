"""Invites on the page (issue 27): with the node's internet carrier, a game hosted here shows
its invite line while seats are open and the lobby joins by a pasted one; without a carrier,
neither.  The carrier here is a stand-in with the real carrier's surface (its peer id and
relays; a dial for ``wan:`` addresses that carries the bytes over loopback TCP), so the test
needs neither libp2p nor a relay: what the page does with an invite is the subject."""

from __future__ import annotations

from dataclasses import dataclass

import trio
from conftest import FAST
from web_support import call, paste_invite

from creepnet.cli.web.app import build_app
from creepnet.cli.web.face import WebFace
from creepnet.node.connections import connect
from creepnet.node.node import Node
from creepnet.node.wan.invite import WAN_PREFIX, Invite

PEER = "12D3KooWQ7V4yK236DU2EKShVJ79bpcCFzmWX1W7RwQTSV95hduT"
RELAY = "/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWFy8BjPcNCDW5uEPyzrqWqjycHgv1FWC7Kx8jQ1Jbunp5"


@dataclass
class StandInCarrier:
    peer_id: str = PEER
    relay_addresses: tuple[str, ...] = (RELAY,)


def carry_to(node: Node, host: Node) -> None:
    """``node`` reaches ``wan:`` addresses as the real carrier would, here over loopback."""

    async def dial(address: str, timeouts):
        assert address == f"{WAN_PREFIX}{PEER}@{RELAY}", address  # the invite's own address
        return await connect(host.address, timeouts)

    node.connections.carriers[WAN_PREFIX] = dial


async def test_without_a_carrier_there_is_no_invite_and_no_paste(tmp_path) -> None:
    async with Node.open(tmp_path / "a") as alice:
        app = build_app(WebFace(alice, "alice"))
        _, lobby = await call(app, "GET", "/api/lobby")
        assert lobby["internet"] is False
        _, hosted = await call(app, "POST", "/api/host", {"kind": "creeper"})
        _, view = await call(app, "GET", f"/api/game/{hosted['game']}")
        assert view["invite"] is None
        line = str(Invite(bytes.fromhex(hosted["game"]), alice.fingerprint, PEER, (RELAY,)))
        status, answer = await call(app, "POST", "/api/join-invite", {"invite": line})
        assert status == 400 and "not on the internet" in answer["error"]


async def test_the_hosts_invite_pasted_into_a_lobby_joins_the_game(tmp_path) -> None:
    with trio.fail_after(60):
        async with (
            Node.open(tmp_path / "a", host="127.0.0.1", timeouts=FAST) as alice,
            Node.open(tmp_path / "b", host="127.0.0.1", timeouts=FAST) as bob,
            Node.open(tmp_path / "c", host="127.0.0.1", timeouts=FAST) as carol,
        ):
            host_app = build_app(WebFace(alice, "alice", carrier=StandInCarrier()))
            guest_app = build_app(WebFace(bob, "bob", carrier=StandInCarrier()))
            _, lobby = await call(guest_app, "GET", "/api/lobby")
            assert lobby["internet"] is True
            _, hosted = await call(host_app, "POST", "/api/host", {"kind": "creeper"})
            path = f"/api/game/{hosted['game']}"
            _, view = await call(host_app, "GET", path)
            invite = Invite.parse(view["invite"])
            assert invite.game.hex() == hosted["game"] and invite.host == alice.fingerprint
            assert (invite.peer, invite.relays) == (PEER, (RELAY,))

            for text, why in [("hello", "an invite starts with"), ("creepnet:zz", "four fields")]:
                status, answer = await call(guest_app, "POST", "/api/join-invite", {"invite": text})
                assert status == 400 and why in answer["error"], answer
            carry_to(bob, alice)
            carry_to(carol, alice)
            # an invite naming another host key is refused: the node checks who answers
            forged = str(Invite(invite.game, bob.fingerprint, PEER, (RELAY,)))
            carol_app = build_app(WebFace(carol, "carol", carrier=StandInCarrier()))
            status, answer = await call(carol_app, "POST", "/api/join-invite", {"invite": forged})
            assert status == 400 and answer["error"].startswith("could not join"), answer
            assert alice.session(invite.game).seats[1:] == []

            await paste_invite(guest_app, alice, view["invite"], hosted["game"], "bob")
            _, view = await call(host_app, "GET", path)
            assert view["invite"] is None  # the seats are taken: nothing left to invite to
