"""A bot thinks in a worker thread: its node keeps answering peers meanwhile, and cancelling
the bot does not wait for its thought."""

import threading

import trio
from conftest import FAST

from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games.creeper import CreeperSeatBot

OPTIONS = {"max_plies": 40}


class SlowBot:
    """A random Creeper bot that thinks until it is released."""

    def __init__(self) -> None:
        self.inner = CreeperSeatBot("random", 1)
        self.thinking = threading.Event()
        self.release = threading.Event()

    def choose(self, game, seat):
        self.thinking.set()
        self.release.wait(timeout=60)
        return self.inner.choose(game, seat)


async def test_the_node_answers_peers_while_its_bot_thinks(tmp_path):
    slow = SlowBot()
    with trio.fail_after(60):
        async with (
            Node.open(tmp_path / "alice", name="alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", name="bob", timeouts=FAST) as bob,
        ):
            game = await alice.host_game("creeper", "think", player="alice", options=OPTIONS)
            await bob.join(alice.address, player="bob")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, slow, 1)
                nursery.start_soon(run_bot, bob, game, "random", 2)
                assert await trio.to_thread.run_sync(slow.thinking.wait, 30)
                # Alice's bot is mid-thought: her node still serves a peer's request.
                listed = await bob.list_games(alice.address)
                assert [g["name"] for g in listed] == ["think"]
                assert not slow.release.is_set()
                slow.release.set()  # from now on it answers at once: the game plays out
            assert alice.session(game).finished


async def test_cancelling_a_thinking_bot_does_not_wait_for_it(tmp_path):
    slow = SlowBot()
    try:
        with trio.fail_after(60):
            async with (
                Node.open(tmp_path / "alice", name="alice", timeouts=FAST) as alice,
                Node.open(tmp_path / "bob", name="bob", timeouts=FAST) as bob,
            ):
                game = await alice.host_game("creeper", "stop", player="alice", options=OPTIONS)
                await bob.join(alice.address, player="bob")
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(run_bot, alice, game, slow, 1)
                    nursery.start_soon(run_bot, bob, game, "random", 2)
                    assert await trio.to_thread.run_sync(slow.thinking.wait, 30)
                    nursery.cancel_scope.cancel()
                assert not slow.release.is_set()  # cancelled while the thought went on
                assert not alice.session(game).finished
    finally:
        slow.release.set()
