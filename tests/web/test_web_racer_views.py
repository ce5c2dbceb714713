"""What a Racer page is told: the table from the public observation, the seat's hand and its
legal actions (exactly the engine's), nothing hidden for a spectator, typed lines resolved by
the terminal's grammar, hosting from the lobby, and a replay that shows every hand at the end."""

from __future__ import annotations

import pytest
import trio
from conftest import FAST
from web_support import card_ids

from creepnet.cli.web import racer_view
from creepnet.cli.web.face import WebError, WebFace
from creepnet.cli.web.racer_view import story, typed_actions
from creepnet.cli.web.replay_view import replay_view
from creepnet.cli.web.views import game_view
from creepnet.engine import racer
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games.racer import seat_view
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot


async def deciding(nodes: list[Node], game: bytes) -> Node:
    """The node whose seat decides first."""
    with trio.fail_after(120):
        while True:
            for node in nodes:
                if node.session(game).my_turn() is not None:
                    return node
            await nodes[0].wait_for(game, lambda rt: True)  # one change, then look again
            await trio.sleep(0)


async def test_a_seat_sees_its_hand_and_the_engines_legal_actions_a_spectator_no_hidden_card(
    tmp_path,
):
    async with (
        Node.open(tmp_path / "a", timeouts=FAST) as alice,
        Node.open(tmp_path / "b", timeouts=FAST) as bob,
        Node.open(tmp_path / "c", timeouts=FAST) as carol,
    ):
        face = WebFace(alice, "alice")
        with pytest.raises(WebError, match="2 to 4 players"):
            await face.host("racer", "too many", 5, None)
        game = await face.host("racer", "table", 2, 30)
        assert alice.session(game).seat_count == 2
        hosted = {"turn_limit": 30, "release_ahead": 1, "withdrawals_per_turn": 3}
        assert alice.session(game).options == hosted
        await bob.join(alice.address, game, player="bob")
        await carol.watch(alice.address, game)
        mover = await deciding([alice, bob], game)
        other = bob if mover is alice else alice
        session = mover.session(game)
        view = game_view(session, mover.games[game], story(session))
        board = view["board"]
        mine = seat_view(session)
        assert mine is not None
        assert sorted(a["action"] for a in board["actions"]) == sorted(
            racer.format_action(a) for a in mine.legal
        )
        assert [(c["slot"], c["card"]) for c in board["hand"]] == list(mine.observation.hand)
        assert board["prompt"].startswith("Your move")
        assert board["deciding"] == {"seat": session.local_seat, "topic": "move"}
        assert len(board["players"]) == 2 and all(p["line"] for p in board["players"])
        waiting = game_view(other.session(game), other.games[game])["board"]
        assert waiting["actions"] == [] and waiting["prompt"] == ""

        await carol.wait_for(game, lambda rt: len(rt.session.log) >= len(session.log))
        watching = game_view(carol.session(game), carol.games[game])["board"]
        assert "hand" not in watching and "actions" not in watching
        hidden = {
            card
            for node in (alice, bob)
            for _, card in seat_view(node.session(game)).observation.hand
        }
        shown = card_ids(watching)
        assert shown and not shown & hidden  # the lines are there; no card of any hand
        assert [p["hand_count"] for p in watching["players"]] == [
            p["hand_count"] for p in board["players"]
        ]

        # Typed lines: the terminal's words, resolved against the legal actions.
        assert list(typed_actions(session, "pass")) == ["pass"]
        with pytest.raises(racer.IllegalAction, match="not possible now"):
            list(typed_actions(session, "yes"))
        with pytest.raises(racer.IllegalAction, match="not a command"):
            list(typed_actions(session, "fly away"))
        with pytest.raises(racer.IllegalAction, match="not your turn"):
            list(typed_actions(other.session(game), "attack 0a"))
        clicked = board["actions"][0]["action"]
        assert list(typed_actions(session, clicked)) == [clicked]  # what clicks send
        attack = next((a for a in board["actions"] if a["group"] == "attack"), None)
        if attack is not None:  # a one-line attack: each step resolved when the game asks
            steps = typed_actions(session, attack["typed"] + " with a go")
            first = next(steps)
            assert first == attack["action"]
            await mover.play(game, first)
            first_creep = board["players"][session.local_seat]["line"][0]["slot"]
            assert next(steps) == f"add-attacker creep={first_creep}"


async def test_the_replay_of_a_finished_racer_log_shows_every_hand(tmp_path):
    with trio.fail_after(240):
        async with (
            Node.open(tmp_path / "a", timeouts=FAST) as alice,
            Node.open(tmp_path / "b", timeouts=FAST) as bob,
        ):
            game = await alice.host_game(
                "racer", "replay", player="alice", options={"turn_limit": 3}
            )
            await bob.join(alice.address, game, player="bob")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, "heuristic", 1)
                nursery.start_soon(run_bot, bob, game, "heuristic", 2)
            final = alice.session(game)
            assert final.finished
            data = final.log.to_bytes()
            replay = replay_view("race.log", data)
            assert replay["verdict"]["valid"] and replay["kind"] == "racer"
            assert len(replay["frames"]) == len(final.log)
            assert len(replay["boards"]) < len(replay["frames"])  # some deck work changes nothing
            last = replay["boards"][replay["frames"][-1]["board"]]
            state = final.game_state.state
            cards = final.game_state.cards
            for row, player in zip(last["players"], state.players, strict=True):
                assert [c["card"] for c in row["hand"]] == [cards[s] for s in player.hand]
                assert len(row["hand"]) == row["hand_count"]

            # An unfinished log (cut before the audit) shows no hand.
            cut = b"".join(event.raw for event in final.log.events[: len(final.log) // 2])
            partial = replay_view("cut.log", cut)
            assert all(
                "hand" not in row
                for board in partial["boards"]
                if board is not None
                for row in board["players"]
            )


def test_the_status_says_what_is_asked_a_defence_or_a_calamity_is_no_turn():
    """Issue 26 item 13: the page said "your turn" to a seat answering a Calamity or
    defending against an attack; the racer view words the status for what is asked."""
    from dataclasses import replace

    from creepnet.cli.web.racer_view import asked
    from creepnet.engine.racer.state import HostageAnswer
    from creepnet.engine.racer.view import AttackView, CreepView

    base = racer.observation(racer.new_game(), 1)
    creep = next(i for i, c in enumerate(base.catalogue.cards) if c.kind is racer.Kind.CREEP)
    name = base.catalogue[creep].name
    lines = [replace(p, line=(CreepView(10 + p.seat, creep, 3, ()),)) for p in base.players]
    obs = replace(base, players=tuple(lines))
    players = ["alice", "bob"]

    def status(topic: str, **changes) -> str:
        return asked(replace(obs, request=racer.Decide(1, topic), **changes), players)

    attack = AttackView(0, 1, (10,), 11, (3, 3), ((), ()), ())
    assert status("react", calamity_hit=11) == f"answer the Calamity on {name} (1a)"
    assert status("hero", attack=attack) == f"defend against alice's attack on {name} (1a)"
    assert status("hero", attack=replace(attack, attacker=1, defender=0)).startswith("your attack")
    assert status("move", moves_left=2) == "your turn: 2 moves left"
    answer = HostageAnswer(asker=0, target=1)
    hostage = asked(replace(obs, request=racer.Decide(1, "hostage")), players, answer)
    assert hostage == "answer alice's Hostage Exchange"
    assert all("your turn" not in status(t) for t in ("react", "hostage", "discard"))


def test_every_copy_of_a_card_the_engine_offers_once_can_be_clicked():
    """The engine lists identical cards in a hand once (the lowest slot); the page must not
    show the other copy as "cannot be played now" (two Flat Tires, one of them dead)."""
    table = SessionHarness(seats=2, kind="racer", options={"turn_limit": 4}, seed=5)
    players = [seat_bot("racer", "heuristic", seat) for seat in range(2)]
    copies = 0
    while not table.spectator.finished and table.step(players):
        for session in table.sessions:
            board = racer_view.view(session)
            if not board or not board["actions"]:
                continue
            groups = {a["group"] for a in board["actions"]}
            offered = {c["name"] for c in board["hand"] if f"card:{c['slot']}" in groups}
            for card in board["hand"]:
                assert (card["plays"] in groups) is (card["name"] in offered), card
                copies += f"card:{card['slot']}" not in groups and card["name"] in offered
    assert copies  # the game did hold two of a card at a decision
