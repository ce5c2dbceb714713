"""Zeroconf discovery, bound to 127.0.0.1 only: advertise, browse, update, withdraw."""

import os
from contextlib import asynccontextmanager

import pytest
import trio

from creepnet.node.discovery import (
    QUERY_ROUNDS,
    QUIET,
    Found,
    GameAd,
    Lost,
    browse_until_stable,
    open_discovery,
    service_type,
)
from creepnet.node.handshake import WIRE_VERSION

LOOPBACK_ONLY = ["127.0.0.1"]  # network safety: never multicast on other interfaces


async def next_matching(channel, predicate, seconds=15):
    with trio.fail_after(seconds):
        async for item in channel:
            if predicate(item):
                return item


async def test_advertise_browse_update_withdraw():
    game = os.urandom(16)  # unique, so other runs on the loopback cannot confuse the test
    ad = GameAd(
        game=game,
        name="friday night",
        kind="creeper",
        fingerprint="abcd-efgh",
        port=4242,
        seats_taken=1,
        seats_total=2,
        state="lobby",
    )
    async with open_discovery(LOOPBACK_ONLY) as host, open_discovery(LOOPBACK_ONLY) as guest:
        assert host.interfaces == LOOPBACK_ONLY
        async with guest.browse() as channel:
            await host.advertise(ad)
            found = await next_matching(
                channel, lambda i: isinstance(i, Found) and i.game == game.hex()[:8]
            )
            assert found.title == f"friday night abcd-efgh {game.hex()[:8]}"
            assert found.instance.endswith(service_type())
            assert found.txt == {
                "v": str(WIRE_VERSION),
                "kind": "creeper",
                "game": game.hex()[:8],
                "seats": "1/2",
                "state": "lobby",
            }
            assert (found.seats_taken, found.seats_total, found.state) == (1, 2, "lobby")
            assert found.address == "127.0.0.1:4242"

            await host.advertise(GameAd(**{**ad.__dict__, "seats_taken": 2, "state": "playing"}))
            updated = await next_matching(
                channel,
                lambda i: (
                    isinstance(i, Found) and i.game == game.hex()[:8] and i.state == "playing"
                ),
            )
            assert updated.seats_taken == 2 and updated.instance == found.instance

            await host.withdraw(game)
            lost = await next_matching(
                channel, lambda i: isinstance(i, Lost) and i.instance == found.instance
            )
            assert lost is not None


async def test_nodes_advertise_their_games_and_join_by_discovery(tmp_path):
    from conftest import FAST

    from creepnet.node.bot import run_bot
    from creepnet.node.node import Node

    with trio.fail_after(40):
        async with (
            Node.open(
                tmp_path / "alice", timeouts=FAST, discovery=True, iface=LOOPBACK_ONLY
            ) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST, discovery=True, iface=LOOPBACK_ONLY) as bob,
            bob.discovery.browse() as channel,
        ):
            game = await alice.host_game(
                "creeper", name="by zeroconf", player="alice", options={"max_plies": 30}
            )
            short = game.hex()[:8]
            found = await next_matching(channel, lambda i: isinstance(i, Found) and i.game == short)
            assert (found.kind, found.seats_taken, found.seats_total, found.state) == (
                "creeper",
                1,
                2,
                "lobby",
            )
            assert found.title == f"by zeroconf {alice.fingerprint} {short}"
            assert found.address == alice.address
            assert await bob.join(found.address, found.game, player="bob") == game
            playing = await next_matching(
                channel, lambda i: isinstance(i, Found) and i.game == short and i.state == "playing"
            )
            assert playing.seats_taken == 2
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, "random", 1)
                nursery.start_soon(run_bot, bob, game, "random", 2)
            await next_matching(
                channel, lambda i: isinstance(i, Lost) and i.instance == found.instance
            )


def found(name: str) -> Found:
    return Found(
        f"{name}.{service_type()}", ["127.0.0.1"], 4242, "1", "creeper", name, 1, 2, "lobby"
    )


class ScriptedLan:
    """A discovery whose browse delivers items at given (virtual) times."""

    def __init__(self, script: list[tuple[float, Found | Lost]]) -> None:
        self.script = script

    @asynccontextmanager
    async def browse(self):
        send, receive = trio.open_memory_channel(64)

        async def play() -> None:
            start = trio.current_time()
            for at, item in self.script:
                await trio.sleep_until(start + at)
                await send.send(item)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            yield receive
            nursery.cancel_scope.cancel()


async def test_browse_until_stable_waits_out_the_query_rounds_then_a_quiet_spell(autojump_clock):
    # News near the end of the query rounds extends the listening by a quiet spell each time.
    lost = QUERY_ROUNDS - QUIET / 2
    late = lost + QUIET * 0.9
    script = [(0.1, found("a")), (0.2, found("b")), (lost, Lost(f"b.{service_type()}"))]
    lan = ScriptedLan([*script, (late, found("c")), (late + QUIET * 1.1, found("too-late"))])
    start = trio.current_time()
    games = await browse_until_stable(lan, wait=60)
    assert sorted(f.game for f in games) == ["a", "c"]
    assert trio.current_time() - start == pytest.approx(late + QUIET)


async def test_browse_until_stable_answers_an_empty_lan_after_the_query_rounds(autojump_clock):
    start = trio.current_time()
    assert await browse_until_stable(ScriptedLan([]), wait=60) == []
    assert trio.current_time() - start == pytest.approx(QUERY_ROUNDS)


async def test_browse_until_stable_gives_up_churn_after_wait(autojump_clock):
    churn = [(0.1 * i, found(f"g{i}")) for i in range(1, 200)]
    start = trio.current_time()
    games = await browse_until_stable(ScriptedLan(churn), wait=5)
    assert trio.current_time() - start == pytest.approx(5) and len(games) == 49


async def test_a_real_browse_returns_once_stable_with_a_game_advertised_on_loopback():
    game = os.urandom(16)
    ad = GameAd(game, "stable", "creeper", "abcd-efgh", 4242, 1, 2, "lobby")
    async with open_discovery(LOOPBACK_ONLY) as host, open_discovery(LOOPBACK_ONLY) as guest:
        await host.advertise(ad)
        with trio.fail_after(30):  # far below `wait`: it returned because the answer was stable
            games = await browse_until_stable(guest, wait=120)
    assert game.hex()[:8] in {f.game for f in games}
