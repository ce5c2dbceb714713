"""Zeroconf discovery, bound to 127.0.0.1 only: advertise, browse, update, withdraw."""

import os

import trio

from creepnet.node.discovery import Found, GameAd, Lost, open_discovery, service_type

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
                "v": "1",
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
