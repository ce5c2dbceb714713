"""Fault isolation: a bug that one peer's frame runs into drops that peer, never the node or
its other games (issue 21.1).  Before, any exception other than the framing and protocol errors
left the peer's task, cancelled the node's nursery and took every game of the node down with
it: a remote kill switch."""

from __future__ import annotations

import pytest
import trio
from conftest import FAST, next_update, raw_peer

from creepnet.node import updates
from creepnet.node.bot import run_bot
from creepnet.node.framing import FrameError
from creepnet.node.ledger import Ledger
from creepnet.node.node import Node
from creepnet.node.sync import GameSync
from creepnet.protocol.identity import Identity
from creepnet.protocol.session import Session

MALLORY = Identity.from_seed(b"\x70" * 32)
OPTIONS = {"max_plies": 40}


class Bug(RuntimeError):
    """What the patched code raises: a stand-in for any bug a frame can run into."""


def break_for_mallory(monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """Make one code path raise, only while it handles one of Mallory's frames."""
    if where == "session":
        receive = Session.receive

        def receive_or_fail(self, raw, sender=None):
            if sender == MALLORY.public_key:
                raise Bug("the session failed on this event")
            return receive(self, raw, sender=sender)

        monkeypatch.setattr(Session, "receive", receive_or_fail)
    elif where == "dispatch":
        on_have = GameSync._on_have

        async def on_have_or_fail(self, runtime, peer, message):
            if peer.key == MALLORY.public_key:
                raise Bug("the sync failed on this have")
            await on_have(self, runtime, peer, message)

        monkeypatch.setattr(GameSync, "_on_have", on_have_or_fail)
    else:
        settle = Ledger.settle

        async def settle_or_fail(self, runtime, source=None, received=None):
            if source is not None and source.key == MALLORY.public_key:
                raise Bug("the ledger failed after this batch")
            return await settle(self, runtime, source, received)

        monkeypatch.setattr(Ledger, "settle", settle_or_fail)


@pytest.mark.parametrize("where", ["session", "dispatch", "ledger"])
async def test_a_fault_on_one_peers_frame_drops_that_peer_and_nothing_else(
    tmp_path, monkeypatch, where
):
    with trio.fail_after(60):
        async with (
            Node.open(tmp_path / "alice", name="alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", name="bob", timeouts=FAST) as bob,
            Node.open(tmp_path / "carol", name="carol", timeouts=FAST) as carol,
            alice.updates() as news,
        ):
            first = await alice.host_game("creeper", "one", player="alice", options=OPTIONS)
            second = await alice.host_game("creeper", "two", player="alice", options=OPTIONS)
            await bob.join(alice.address, first, player="bob")
            await carol.join(alice.address, second, player="carol")
            break_for_mallory(monkeypatch, where)

            mallory = await raw_peer(alice.address, MALLORY)
            stored = alice.games[first].stored
            await mallory.send({"type": "have", "game": first, "length": stored})
            await mallory.send(
                {"type": "events", "game": first, "from": stored, "items": [b"\x80"], "length": 9}
            )
            fault = await next_update(news, lambda u: u.kind == updates.ERROR and "fault" in u.data)
            assert fault.data["key"] == MALLORY.public_key and fault.peer == MALLORY.fingerprint
            assert fault.data["fault"] == "Bug" and "dropped that peer" in fault.text
            # Mallory is hung up on, told why; nobody else is.
            said = []
            with pytest.raises(FrameError):
                while True:
                    said.append(await mallory.receive())
            assert any("internal error" in m.get("reason", "") for m in said)
            assert MALLORY.public_key not in alice.peers
            assert {bob.identity.public_key, carol.identity.public_key} <= set(alice.peers)

            # The node listens still (a spectator comes in) and both games play to the end.
            async with Node.open(tmp_path / "dave", timeouts=FAST) as dave:
                await dave.watch(alice.address, first)
                async with trio.open_nursery() as nursery:
                    for node, game, seed in [
                        (alice, first, 1),
                        (bob, first, 2),
                        (alice, second, 3),
                        (carol, second, 4),
                    ]:
                        nursery.start_soon(run_bot, node, game, "random", seed)
                final = alice.session(first)
                await dave.wait_for(first, lambda rt: rt.stored == len(final.log))
            assert final.finished and alice.session(second).finished
            assert carol.session(second).finished and bob.session(first).finished
