"""The page warns its own player before the table acts on her silence (cli/patience.py, as the
terminal's status line): over real loopback nodes in this trio run, the silent player's page
view says how long she has left to move and what happens then, counts down, and drops the
warning once she moves."""

from __future__ import annotations

import re

import pytest
import trio
from conftest import FAST
from web_support import SHORT_RACER, call, view_until, web_node

from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.entitlement import is_decision
from creepnet.protocol.games import get_game
from creepnet.protocol.rules import Turn

PATIENCE = 10  # seconds: a loaded machine's bots still meet it between two moves
COUNTDOWN = re.compile(r"move within (\d+) s before (.+)")


async def a_decision(node: Node, game: bytes) -> Turn:
    """Once the game waits on a person (not on a step a node takes by itself, nor the host's
    start), that turn."""
    session = node.session(game)
    while not is_decision(turn := session.expected(), turn.seat if turn else None):
        await node.wait_changed(game)
    assert turn is not None
    return turn


async def send_a_move(node: Node, app, game: bytes) -> dict:
    """The page sends one of the moves its player may make now; the view it answers with."""
    session = node.session(game)
    move = get_game(session.kind).make_bot("random", 0).choose(session.local_view(), 0)
    status, view = await call(app, "POST", f"/api/game/{game.hex()}/act", {"action": move})
    assert status == 200, view
    return view


@pytest.mark.usefixtures("memoized_proofs")  # honest nodes in one process (tests/README.md)
async def test_at_three_seats_the_silent_players_page_counts_down_to_her_retirement(tmp_path):
    """Ann's page shows nothing while she thinks; once half the table's patience is gone it
    says how many seconds she has before the others retire her seat, one second less each
    second; her move ends it."""
    with trio.fail_after(240):
        async with (
            web_node(tmp_path / "ann", "ann", host="127.0.0.1", timeouts=FAST) as page,
            Node.open(tmp_path / "bob", host="127.0.0.1", timeouts=FAST) as bob,
            Node.open(tmp_path / "cat", host="127.0.0.1", timeouts=FAST) as cat,
            trio.open_nursery() as bots,
        ):
            ann, face, app = page
            options = {**SHORT_RACER, "retire_after": PATIENCE}
            game = await ann.host_game("racer", "slow", seats=3, player="ann", options=options)
            path = f"/api/game/{game.hex()}"
            for seed, (node, name) in enumerate(((bob, "bob"), (cat, "cat")), start=1):
                await node.join(ann.address, game, player=name)
                bots.start_soon(run_bot, node, game, "random", seed)
            await ann.wait_for(game, lambda rt: rt.session.my_turn() is not None)
            assert (await call(app, "GET", path))[1]["own_silence"] is None  # she is thinking

            view = await view_until(face, app, path, lambda v: v["own_silence"])
            said = COUNTDOWN.fullmatch(view["own_silence"])
            assert said and said[2] == "the others retire your seat", view["own_silence"]
            assert 1 <= int(said[1]) <= PATIENCE // 2
            # the view is sent again as time passes, one second less each time
            view = await view_until(face, app, path, lambda v: v["own_silence"] != said[0])
            later = COUNTDOWN.fullmatch(view["own_silence"] or "")
            assert later and int(later[1]) < int(said[1]), view["own_silence"]

            moved = await send_a_move(ann, app, game)
            assert moved["own_silence"] is None
            assert ann.session(game).local_seat not in ann.session(game).retired
            bots.cancel_scope.cancel()


async def test_at_two_seats_the_player_to_move_is_told_her_opponent_may_claim_the_game(tmp_path):
    """At two seats nobody retires her: once the table's patience is up her opponent may claim
    the game abandoned, and her page says so, then that it may happen at any moment."""
    with trio.fail_after(120):
        async with (
            web_node(tmp_path / "ann", "ann", host="127.0.0.1", timeouts=FAST) as ann_page,
            web_node(tmp_path / "bob", "bob", host="127.0.0.1", timeouts=FAST) as bob_page,
        ):
            ann = ann_page[0]
            game = await ann.host_game("creeper", "slow", player="ann", options={"retire_after": 4})
            await bob_page[0].join(ann.address, game, player="bob")
            turn = await a_decision(ann, game)
            node, face, app = ann_page if turn.seat == 0 else bob_page
            path = f"/api/game/{game.hex()}"

            view = await view_until(face, app, path, lambda v: v["own_silence"])
            said = COUNTDOWN.fullmatch(view["own_silence"])
            assert said and said[2] == "your opponent may claim the game", view["own_silence"]
            up = "silent for the table's 4 s: your opponent may claim the game at any moment"
            await view_until(face, app, path, lambda v: v["own_silence"] == up)

            moved = await send_a_move(node, app, game)
            assert moved["own_silence"] is None
