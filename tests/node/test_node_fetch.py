"""Catch-up asks one peer at a time (sync.py, `_fetch`): whoever claims to be ahead must not be
able to make a node wait on it instead of on the seats that are."""

from __future__ import annotations

from types import SimpleNamespace

from creepnet.node.game import GameRuntime
from creepnet.node.reporter import Reporter
from creepnet.node.storage import Home
from creepnet.node.sync import GameSync
from creepnet.node.updates import Broadcaster
from creepnet.protocol.identity import Identity
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot


def fake_peer(key: bytes) -> SimpleNamespace:
    said: list[dict] = []
    return SimpleNamespace(key=key, label="peer", send=said.append, said=said, sent={})


async def test_a_strangers_lie_about_its_length_does_not_hold_back_asking_a_seat(tmp_path):
    """A stranger's `have {length: 10**6}` (or an empty `events` batch "from" far ahead) made
    the node ask it, and for the next second ignore the seat that really was ahead: repeated
    every second, a seat's catch-up waited for the stall probes (3 s, then longer)."""
    harness = SessionHarness(seats=2, kind="creeper", options={"max_plies": 40})
    harness.run([creeper_bot("random", 1), creeper_bot("random", 2)], max_rounds=3)
    bob = harness.sessions[1]
    runtime = GameRuntime(session=bob, store=Home(tmp_path).game(bob.game), stored=len(bob.log))
    sync = GameSync({bob.game: runtime}, None, Reporter(Broadcaster()), 5.0)
    alice = fake_peer(harness.identities[0].public_key)
    mallory = fake_peer(Identity.generate().public_key)
    runtime.followers = {alice.key: alice, mallory.key: mallory}
    ahead = len(bob.log) + 3

    await sync._on_have(runtime, mallory, {"type": "have", "game": bob.game, "length": 10**6})
    assert [m["type"] for m in mallory.said] == ["get"]  # it may be ahead: asked once
    await sync._on_have(runtime, alice, {"type": "have", "game": bob.game, "length": ahead})
    assert [m["type"] for m in alice.said] == ["get"]  # a seat is asked all the same

    alice.said.clear()
    runtime.fetching = None
    empty = {"type": "events", "game": bob.game, "from": 10**6, "items": [], "length": 10**6}
    sync._catch_up(runtime, mallory, empty, len(bob.log), len(bob.log))
    mallory_asks = [m for m in mallory.said if m["type"] == "get"]
    assert len(mallory_asks) == 1  # an empty batch shows no gap: not asked again
