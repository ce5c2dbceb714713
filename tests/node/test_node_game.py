"""Whole games over real loopback sockets: players, spectators, byte-identical logs."""

import trio
from conftest import FAST

from creepnet.node.bot import run_bot
from creepnet.node.node import Node

OPTIONS = {"max_plies": 60}  # bounded games keep the suite fast


async def test_two_players_and_a_spectator_play_a_full_bot_game(tmp_path):
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", name="alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", name="bob", timeouts=FAST) as bob,
            Node.open(tmp_path / "carol", name="carol", timeouts=FAST) as carol,
        ):
            game = await alice.host_game("creeper", "friday", player="alice", options=OPTIONS)
            assert await bob.join(alice.address, player="bob") == game
            assert await carol.watch(alice.address, game.hex()[:8]) == game
            outcomes = {}
            async with trio.open_nursery() as nursery:

                async def play(name, node, seed):
                    outcomes[name] = await run_bot(node, game, "random", seed)

                nursery.start_soon(play, "alice", alice, 1)
                nursery.start_soon(play, "bob", bob, 2)
            final = alice.session(game)
            # A bot sees the game finished once its session took the last event; under load the
            # append runs in a worker thread and may still be under way (node/ledger.py).
            for node in (alice, bob, carol):
                await node.wait_for(game, lambda rt: rt.stored == len(final.log))
            assert final.finished and outcomes["alice"] == outcomes["bob"] == final.outcome_text
            logs = [n.home.game(game).log_path.read_bytes() for n in (alice, bob, carol)]
            assert logs[0] == logs[1] == logs[2] == final.log.to_bytes()
            assert carol.session(game).local_seat is None


async def test_one_node_holds_several_games(tmp_path):
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        ):
            first = await alice.host_game("creeper", name="one", player="alice", options=OPTIONS)
            second = await alice.host_game("creeper", name="two", player="alice", options=OPTIONS)
            listed = {g["name"]: g for g in await bob.list_games(alice.address)}
            assert listed["one"]["state"] == "lobby" and listed["two"]["taken"] == 1
            await bob.join(alice.address, first, player="bob")
            await bob.join(alice.address, second.hex()[:10], player="bob")
            async with trio.open_nursery() as nursery:
                for seed, (node, game) in enumerate(
                    [(alice, first), (bob, first), (alice, second), (bob, second)]
                ):
                    nursery.start_soon(run_bot, node, game, "random", seed)
            for game in (first, second):
                assert alice.session(game).finished
                assert (
                    alice.home.game(game).log_path.read_bytes()
                    == bob.home.game(game).log_path.read_bytes()
                )
            assert {g["state"] for g in alice.describe_games()} == {"finished"}


async def test_wait_synced_counts_what_a_peer_sent_as_acknowledged(tmp_path):
    """A node whose last event came from a connected peer is in sync without waiting."""
    from creepnet.node import Node

    async with (
        Node.open(tmp_path / "a", host="127.0.0.1") as a,
        Node.open(tmp_path / "b", host="127.0.0.1") as b,
    ):
        game = await a.host_game("creeper", "sync", player="a")
        await b.join(a.address, game, player="b")
        with trio.fail_after(60):
            runtime = await b.wait_for(
                game,
                lambda rt: (
                    rt.session.my_turn() is not None
                    or (
                        rt.session.game_state is not None
                        and rt.session.game_state.light_seat is not None
                    )
                ),
            )
            mover = a if runtime.session.my_turn() is None else b
            other = b if mover is a else a
            session = mover.session(game)
            await mover.wait_for(game, lambda rt: rt.session.my_turn() is not None)
            from creepnet.engine import creeper

            event = await mover.play(
                game, creeper.format_move(creeper.legal_moves(session.engine_state)[0])
            )
            await other.wait_for(game, lambda rt: rt.stored > event.seq)
            await other.wait_synced(game)  # the mover sent it: nothing more to wait for
            await mover.wait_synced(game)  # the other acknowledged it


async def test_trace_records_when_every_stored_event_was_stored(tmp_path):
    """`--trace`: one line per stored event, game and seq, in the order the node stored them."""
    from creepnet.node.trace import read_trace

    traces = {name: tmp_path / f"{name}.trace" for name in ("alice", "bob")}
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST, trace=traces["alice"]) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST, trace=traces["bob"]) as bob,
        ):
            game = await alice.host_game("creeper", "traced", player="alice", options=OPTIONS)
            await bob.join(alice.address, game, player="bob")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, "random", 1)
                nursery.start_soon(run_bot, bob, game, "random", 2)
            length = len(alice.session(game).log)
            await bob.wait_for(game, lambda rt: rt.stored == length)
    for path in traces.values():
        lines = path.read_text().splitlines()
        assert [int(line.split()[2]) for line in lines] == list(range(length))
        times = read_trace(path)[game]
        assert sorted(times) == list(range(length))
        stamps = [times[seq] for seq in range(length)]
        assert stamps == sorted(stamps)
    alice_times, bob_times = read_trace(traces["alice"])[game], read_trace(traces["bob"])[game]
    assert bob_times[1] >= alice_times[0]  # bob joined (seq 1) after alice's genesis was stored


async def test_appends_run_inline_until_one_is_slow_then_in_a_worker_thread(tmp_path, monkeypatch):
    """A quick disk is written from the node's own thread (a thread hand-off costs more than
    its fsync); one slow append moves that node's appends to a worker thread for good.

    The disk's speed is what the ledger measures, so the test gives both nodes a clock of its
    own: every append takes no time on it except alice's second, which takes 20 ms.  (Timing
    real fsyncs against 5 ms failed on a loaded machine: any append may be slow there.)"""
    import threading

    from creepnet.node.ledger import SLOW_APPEND
    from creepnet.node.storage import GameStore

    calls: list[tuple[str, int]] = []  # (whose home, which thread)
    disk_time = [0.0]  # seconds, as the ledgers' clock reads them
    append = GameStore.append

    def watched(self, raws):
        owner = self.folder.parent.parent.name
        calls.append((owner, threading.get_ident()))
        if owner == "alice" and sum(1 for who, _ in calls if who == "alice") == 2:
            disk_time[0] += 4 * SLOW_APPEND  # alice's disk stalls once
        return append(self, raws)

    monkeypatch.setattr(GameStore, "append", watched)
    here = threading.get_ident()
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        ):
            for node in (alice, bob):
                node._ledger.clock = lambda: disk_time[0]
            game = await alice.host_game("creeper", "disk", player="alice", options=OPTIONS)
            await bob.join(alice.address, game, player="bob")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, "random", 1)
                nursery.start_soon(run_bot, bob, game, "random", 2)
            assert alice.session(game).finished
    alices = [thread for who, thread in calls if who == "alice"]
    bobs = [thread for who, thread in calls if who == "bob"]
    assert len(alices) > 5 and len(bobs) > 5
    assert alices[:2] == [here, here] and here not in alices[2:]
    assert set(bobs) == {here}
    assert not alice._ledger.inline_appends and bob._ledger.inline_appends


async def test_a_long_batch_lets_the_nodes_other_tasks_run(tmp_path, monkeypatch):
    """Checking a big catch-up batch (seconds of proofs in Racer) does not starve the node's
    other tasks: pings, other peers, the page all get turns while the batch is checked."""
    import time

    from creepnet.protocol.session import Session

    async with (
        Node.open(tmp_path / "alice", timeouts=FAST) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
    ):
        game = await alice.host_game("creeper", "slow", player="alice", options=OPTIONS)
        await bob.join(alice.address, game, player="bob")
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, "random", 1)
                nursery.start_soon(run_bot, bob, game, "random", 2)
        length = len(alice.session(game).log)
        receive = Session.receive
        checked: list[float] = []  # when each event was checked
        ticks: list[float] = []  # when another task of the node's loop ran

        def slow(self, raw, sender=None):  # every event costs 20 ms of CPU, as a proof does
            checked.append(time.monotonic())
            time.sleep(0.02)
            return receive(self, raw, sender=sender)

        monkeypatch.setattr(Session, "receive", slow)
        async with Node.open(tmp_path / "carol", timeouts=FAST) as carol:

            async def ticker() -> None:
                while True:
                    ticks.append(time.monotonic())
                    await trio.sleep(0)

            with trio.fail_after(60):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(ticker)
                    await carol.watch(alice.address, game)
                    await carol.wait_for(game, lambda rt: rt.stored == length)
                    nursery.cancel_scope.cancel()
    assert length > 20 and len(checked) >= length  # ~0.4 s or more of checking
    inside = [t for t in ticks if checked[0] < t < checked[-1]]
    assert len(inside) >= (checked[-1] - checked[0]) / 0.05 / 2  # a turn every ~50 ms at least


def test_an_event_taken_but_not_yet_stored_is_not_in_sync():
    """Nothing leaves before it is stored, so while the ledger still writes an event the
    session took, no follower can have it: a node that went away on 'synced' then would keep
    it from the others for good (a Racer seat's last audit reveal did)."""
    from types import SimpleNamespace

    from creepnet.node.game import GameRuntime

    session = SimpleNamespace(log=[b"event"] * 3)
    runtime = GameRuntime(session=session, store=None, stored=2)  # type: ignore[arg-type]
    assert not runtime.synced()  # no follower to wait for, but one event still to store
    runtime.stored = 3
    assert runtime.synced()
