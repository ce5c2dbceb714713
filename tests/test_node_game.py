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
            await carol.wait_for(game, lambda rt: rt.stored == len(final.log))
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
            first = await alice.host_game(name="one", player="alice", options=OPTIONS)
            second = await alice.host_game(name="two", player="alice", options=OPTIONS)
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
