"""A `get` is answered with one batch from where it asks, and nothing for a place the log does
not have: a start at or past its end costs no copy of the log (node/sync.py).  (A negative
start is a protocol violation, refused by node/messages.py.)"""

from __future__ import annotations

import pytest
import trio
from conftest import FAST, raw_peer

from creepnet.node.node import Node
from creepnet.protocol.identity import Identity


@pytest.mark.parametrize("beyond", [0, 10_000], ids=["at-the-end", "past-the-end"])
async def test_a_get_from_nowhere_sends_nothing_and_the_next_get_is_served(tmp_path, beyond):
    with trio.fail_after(30):
        async with Node.open(tmp_path / "alice", timeouts=FAST) as alice:
            game = await alice.host_game("creeper", player="alice", options={"max_plies": 40})
            stored = [event.raw for event in alice.session(game).log.events]
            stranger = await raw_peer(alice.address, Identity.generate())
            nowhere = len(stored) + beyond
            await stranger.send({"type": "get", "game": game, "from": nowhere})
            await stranger.send({"type": "get", "game": game, "from": 0})
            while (message := await stranger.receive())["type"] != "events":
                pass  # its `have`s come first
            # In order on one connection: an answer to the first would have come first.
            assert message["from"] == 0 and message["items"] == stored
