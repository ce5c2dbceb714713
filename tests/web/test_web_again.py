"""The page's "play again?" (issue 26 item 11), endpoint by endpoint over two real loopback
nodes: both pages ask at the end; the host's yes opens the rematch and the guest's page is told;
the guest's yes joins it and both pages move on.  A no reaches the other page; a game against
bots opens the next one asking nobody."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
from conftest import FAST, until_guest_decides
from web_support import call, view_until, web_node

from creepnet.cli.web.again import DECLINED
from creepnet.node.node import Node


@asynccontextmanager
async def two_pages(tmp_path) -> AsyncIterator[tuple]:
    """Alice's and bob's nodes on loopback, each with its page's face running: (nodes, faces,
    apps)."""
    with trio.fail_after(120):
        async with (
            web_node(tmp_path / "a", "alice", host="127.0.0.1", timeouts=FAST) as a,
            web_node(tmp_path / "b", "bob", host="127.0.0.1", timeouts=FAST) as b,
        ):
            yield (a[0], b[0]), (a[1], b[1]), (a[2], b[2])


async def _finished_game(alice: Node, bob: Node, host_app) -> bytes:
    """A Creeper game hosted on alice's page, joined by bob, ended by a resignation."""
    _, hosted = await call(host_app, "POST", "/api/host", {"kind": "creeper", "name": "series"})
    game = bytes.fromhex(hosted["game"])
    await bob.join(alice.address, game, player="bob")
    await alice.wait_for(game, lambda rt: rt.session.started, timeout=30)
    await until_guest_decides(alice, game)  # the host's moves, if it opens: then bob's turn
    await bob.wait_for(game, lambda rt: rt.session.my_turn() is not None, timeout=30)
    await bob.play(game, "resign")
    for node in (alice, bob):
        await node.wait_for(game, lambda rt: rt.session.finished, timeout=30)
    return game


async def test_both_pages_ask_the_host_opens_the_guest_is_told_and_both_move_on(tmp_path):
    async with two_pages(tmp_path) as ((alice, bob), (host_face, guest_face), apps):
        host_app, guest_app = apps
        status, view = await call(host_app, "POST", "/api/host", {"kind": "creeper"})
        assert (await call(host_app, "GET", f"/api/game/{view['game']}"))[1]["again"] is None
        game = await _finished_game(alice, bob, host_app)
        path = f"/api/game/{game.hex()}"
        for app in (host_app, guest_app):
            status, view = await call(app, "GET", path)
            assert view["again"]["ask"] and view["again"]["next"] is None
        status, answer = await call(host_app, "POST", path + "/again", {"answer": "maybe"})
        assert status == 400 and "yes or no" in answer["error"]

        status, said = await call(host_app, "POST", path + "/again", {"answer": "yes"})
        assert status == 200, said
        assert said["said"] == "you opened the rematch; waiting for bob to join"
        assert not said["again"]["ask"]
        status, answer = await call(host_app, "POST", path + "/again", {"answer": "no"})
        assert status == 400 and "you said yes already" in answer["error"]

        told = await view_until(guest_face, guest_app, path, lambda v: v["again"]["news"])
        assert told["again"]["news"] == ["alice opened a rematch: play again?"]
        assert told["again"]["ask"]
        status, said = await call(guest_app, "POST", path + "/again", {"answer": "yes"})
        assert status == 200 and said["said"] == "you joined the rematch", said

        views = [
            await view_until(face, app, path, lambda v: v["again"]["next"])
            for face, app in ((host_face, host_app), (guest_face, guest_app))
        ]
        new = views[0]["again"]["next"]
        assert views[1]["again"]["next"] == new != game.hex()
        rematch = alice.session(bytes.fromhex(new))
        assert rematch.started and rematch.name == "series"
        assert {s.player for s in rematch.seats} == {"alice", "bob"}


async def test_a_guests_yes_first_waits_and_joins_once_the_host_opens(tmp_path):
    async with two_pages(tmp_path) as ((alice, bob), (host_face, guest_face), apps):
        host_app, guest_app = apps
        game = await _finished_game(alice, bob, host_app)
        path = f"/api/game/{game.hex()}"
        status, said = await call(guest_app, "POST", path + "/again", {"answer": "yes"})
        assert status == 200, said
        assert said["said"] == "you said yes; you join the rematch as soon as alice opens it"
        assert said["again"]["next"] is None and not said["again"]["ask"]
        status, said = await call(host_app, "POST", path + "/again", {"answer": "yes"})
        assert status == 200, said
        views = [
            await view_until(face, app, path, lambda v: v["again"]["next"])
            for face, app in ((host_face, host_app), (guest_face, guest_app))
        ]
        assert views[0]["again"]["next"] == views[1]["again"]["next"]
        assert bob.session(bytes.fromhex(views[1]["again"]["next"])).local_seat == 1


async def test_a_no_on_one_page_is_told_on_the_other(tmp_path):
    async with two_pages(tmp_path) as ((alice, bob), (host_face, guest_face), apps):
        host_app, guest_app = apps
        game = await _finished_game(alice, bob, host_app)
        path = f"/api/game/{game.hex()}"
        await call(host_app, "GET", path)  # the host's page shows the end: it asks
        status, said = await call(guest_app, "POST", path + "/again", {"answer": "no"})
        assert status == 200 and said["said"] == "you said no to a rematch"
        assert not said["again"]["ask"]
        view = await view_until(host_face, host_app, path, lambda v: not v["again"]["ask"])
        assert view["again"]["news"] == [f"bob {DECLINED}"]
        status, answer = await call(host_app, "POST", path + "/again", {"answer": "yes"})
        assert status == 400 and "no rematch any more" in answer["error"]


async def test_against_bots_play_again_opens_the_next_game_asking_nobody(tmp_path):
    with trio.fail_after(120):
        async with web_node(tmp_path / "a", "alice", host="127.0.0.1", timeouts=FAST) as (
            alice,
            face,
            app,
        ):
            body = {"kind": "creeper", "vs": "easy", "limit": 2}
            status, hosted = await call(app, "POST", "/api/host", body)
            assert status == 200, hosted
            game = bytes.fromhex(hosted["game"])
            path = f"/api/game/{game.hex()}"
            await alice.wait_for(game, lambda rt: rt.session.started, timeout=30)
            while not alice.session(game).finished:  # our moves, the first legal one each
                turn = alice.session(game).my_turn()
                if turn is not None:
                    _, view = await call(app, "GET", path)
                    origin, targets = next(iter(view["board"]["legal"].items()))
                    await call(app, "POST", path + "/act", {"action": targets[0][1]})
                await alice.wait_changed(game)
            _, view = await call(app, "GET", path)
            assert view["again"]["ask"] and view["again"]["bots"]
            status, said = await call(app, "POST", path + "/again", {"answer": "yes"})
            assert status == 200 and said["again"]["next"] not in (None, game.hex()), said
            new = bytes.fromhex(said["again"]["next"])
            assert alice.session(new).started and len(alice.session(new).seats) == 2
