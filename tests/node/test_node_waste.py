"""What honest gossip costs a sender's allowance (protocol/pending.py) when a node is stuck."""

from __future__ import annotations

import trio
from conftest import FAST

from creepnet.node import stalls
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.node.sync import GameSync
from creepnet.protocol.event import parse_event

OPTIONS = {"creeps_per_player": 3, "face_up_creeps": 1, "turn_limit": 4}  # a short game
TIMEOUT = 180  # generous: these machines are slow and shared
ROUNDS = 3  # stall probes the stuck node makes once the seats have finished


async def test_a_node_stuck_at_one_position_does_not_pull_the_tail_again(tmp_path, monkeypatch):
    """A spectator keeps guest 2's first move aside (as a node keeps a late event after a
    retirement vote nobody else cast), so it stays at that position while the seats play the
    game out.  It asks its peer at every `have` and every stall probe; before the fix each
    answer was the whole tail after that position again, all of it charged to the honest
    sender, until the spectator refused it as a flooder.  Now the sender pays for about one
    copy of the tail (its pushes) and one answer, however long the spectator waits."""
    monkeypatch.setattr(stalls, "MAX_ASK", 0.6)  # probe rounds close together
    rounds: list[int] = []
    probed = [trio.Event()]
    ask_everyone = GameSync.ask_everyone

    def counting(self: GameSync, runtime) -> int:  # type: ignore[no-untyped-def]
        rounds.append(len(runtime.session.log))
        probed[0].set()
        probed[0] = trio.Event()
        return ask_everyone(self, runtime)

    monkeypatch.setattr(GameSync, "ask_everyone", counting)
    with trio.fail_after(TIMEOUT):
        async with (
            Node.open(tmp_path / "host", name="host", timeouts=FAST) as host,
            Node.open(tmp_path / "g1", name="g1", timeouts=FAST) as g1,
            Node.open(tmp_path / "g2", name="g2", timeouts=FAST) as g2,
            Node.open(tmp_path / "watch", timeouts=FAST, ask_after=0.3) as watcher,
        ):
            game = await host.host_game("racer", "waste", seats=3, player="host", options=OPTIONS)
            await g1.join(host.address, game, player="g1")
            await g2.join(host.address, game, player="g2")
            await watcher.watch(g1.address, game)
            blocked: list[int] = []
            g2_key = g2.identity.public_key

            def keep_aside(runtime, raw: bytes) -> bool:  # type: ignore[no-untyped-def]
                event = parse_event(raw)
                if not blocked and runtime.session.started and event.author == g2_key:
                    blocked.append(event.seq)
                return event.seq in blocked and event.author == g2_key

            retirements = watcher._sync.retirements
            assert retirements is not None
            retirements.keep_aside = keep_aside  # type: ignore[method-assign]
            async with trio.open_nursery() as nursery:
                for seed, node in enumerate((host, g1, g2)):
                    nursery.start_soon(run_bot, node, game, "random", seed + 1)
            for node in (host, g1, g2):
                await node.wait_for(game, lambda rt: rt.stored == len(rt.session.log))
            final = len(host.session(game).log)
            # The spectator has every event after the one it keeps aside (held), and waits.
            spectator = watcher.games[game]
            await watcher.wait_for(game, lambda rt: rt.session.held >= final - blocked[0] - 1)
            assert len(spectator.session.log) == blocked[0]
            start = len(rounds)
            while len(rounds) < start + ROUNDS:
                await probed[0].wait()
            tail = final - blocked[0]
            assert tail >= 10, tail  # enough events after it for copies to show
            for key in spectator.followers:
                wasted = spectator.session.wasted(key)
                assert wasted <= 2 * tail + 8, (wasted, tail)
            assert all(not peer.close_reason for peer in spectator.followers.values())
