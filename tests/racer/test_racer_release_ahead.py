"""The Racer genesis option ``release_ahead`` (docs/spec-racer.md §8): a private draw's releasers
release, in one event each, every card the drawer is sure to draw in this Drawing stage.  Games
with it play to the end and verify, at 2-4 seats, with escrow and a retirement mid-draw; the
release must be exactly the stage's certain draws (one position fewer or one more is refused and
changes nothing); a table without it keeps one position per release."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from racer_retire_support import (  # noqa: E402
    OPTIONS,
    Forks,
    at_table,
    one_log,
    owed_in_play,
    play_until,
    players,
    retire_and_finish,
)

from creepnet.engine import racer  # noqa: E402
from creepnet.protocol.games.racer.adapter import RacerRules  # noqa: E402
from creepnet.protocol.games.racer.schedule import (  # noqa: E402
    DeckStep,
    RacerGame,
    ShowDrawn,
    next_step,
)
from creepnet.protocol.log import Rejection  # noqa: E402
from creepnet.protocol.rules import GameRuleError  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

AHEAD = {"turn_limit": 10, "release_ahead": 1}
memoized = pytest.mark.usefixtures("memoized_proofs")  # tests/proof_memo.py; not the refusals


def private_releases(t: SessionHarness) -> list[list[int]]:
    return [
        e.body["positions"]
        for e in t.spectator.log.events
        if e.type == "deck" and e.body.get("op") == "release" and e.body["to"] != -1
    ]


def draws(t: SessionHarness) -> int:
    return sum(
        e.type == "act" and e.body["action"].startswith(("keep-drawn", "place-creep"))
        for e in t.spectator.log.events
    )


# --- the engine's part -------------------------------------------------------------------------


def test_the_certain_draws_are_the_drawn_card_and_the_next_of_the_count_from_the_deck() -> None:
    state = racer.new_game(racer.Options(players=2))
    rng = __import__("random").Random(4)
    while not isinstance(state.stage, racer.state.Drawing) or state.stage.drawn is None:
        assert racer.certain_draws(state) == ()  # no draw under way
        state = racer.apply(state, racer.chance_action(state, rng))
    seat, count = state.stage.queue[0]
    assert count == 5  # the opening hand
    deck = state.players[seat].deck
    assert racer.certain_draws(state) == (state.stage.drawn, *deck[:4])


# --- whole games ---------------------------------------------------------------------------------


@memoized
def test_a_two_seat_game_with_the_option_finishes_verifies_and_releases_the_draws_together() -> (
    None
):
    t = SessionHarness(seats=2, kind="racer", options=AHEAD, seed=2)
    t.run(players(2))
    assert not t.rejections and t.spectator.finished
    verdict = verify_log_bytes(one_log(t, [0, 1]))
    assert verdict.valid and verdict.finished, verdict.error
    released = private_releases(t)
    assert [len(p) for p in released[:2]] == [5, 5]  # the opening hands, one event each
    assert max(len(p) for p in released[2:]) == 2  # a turn's two draws
    # every private draw's card was released, in fewer events than there were draws
    assert sum(len(p) for p in released) >= draws(t) > len(released)
    assert t.spectator.game_state.release_ahead


@memoized
def test_a_table_without_the_option_keeps_one_position_per_private_release() -> None:
    t = SessionHarness(seats=2, kind="racer", options={"turn_limit": 4}, seed=2)
    t.run(players(2))
    assert not t.rejections and t.spectator.finished
    assert {len(p) for p in private_releases(t)} == {1}
    assert not t.spectator.game_state.release_ahead


@pytest.mark.parametrize("value", [0, 2, True, "1", 1.0])
def test_the_option_is_one_or_absent(value: object) -> None:
    with pytest.raises(GameRuleError):
        RacerRules().check_options({"release_ahead": value}, 2)
    RacerRules().check_options({"release_ahead": 1}, 2)
    RacerRules().check_options({"release_ahead": 1, "escrow": 1}, 3)


# --- the release must be exactly the stage's certain draws --------------------------------------


def owes_two_at_a_turn(session: Session, seat: int) -> bool:
    """``seat`` owes a turn's private release of two positions, and the drawer's next card
    after them is in the same pool (so a release of one too many is a real card to refuse)."""
    if not session.started or session.game_state.state.turn is None:
        return False
    game: RacerGame = session.game_state
    step = next_step(game)
    if not (
        isinstance(step, DeckStep)
        and step.op == "release"
        and step.seat == seat
        and step.to != -1
        and len(step.positions) == 2
    ):
        return False
    beyond = game.state.players[step.to].deck[1:2]
    return bool(beyond) and game.where[beyond[0]][0] == step.pool


def test_a_release_of_one_position_fewer_or_one_more_is_refused_and_changes_nothing() -> None:
    t = SessionHarness(seats=2, kind="racer", options=AHEAD, seed=5)
    seat = play_until(t, players(2), owes_two_at_a_turn)
    assert seat is not None
    session = t.sessions[seat]
    game: RacerGame = session.game_state
    step = next_step(game)
    assert isinstance(step, DeckStep) and step.to is not None and step.pool is not None
    beyond = game.where[game.state.players[step.to].deck[1]][1]
    me = session.private._me(game)  # type: ignore[union-attr]
    before = session.state_digest()
    wrong = {
        "one fewer": [step.positions[0]],
        "one more": [*step.positions, beyond],
        "another order": list(reversed(step.positions)),
    }
    for what, positions in wrong.items():
        body = me.release(step.pool, positions, step.to)  # real keys: only the schedule refuses
        with pytest.raises(Rejection) as err:
            session.write("deck", body)
        assert err.value.kind == "illegal", what
        assert "expected the release of" in err.value.reason, what
        assert session.state_digest() == before, what
    event = session.write("deck", me.release(step.pool, list(step.positions), step.to))
    t.broadcast(seat, [event])
    t.pump()
    after = t.spectator.game_state
    # both cards are the drawer's now: the second draw needs no event
    slots = after.deck.pools[step.pool].slots
    assert all(slots[j].holder == step.to for j in step.positions)
    assert isinstance(next_step(after), ShowDrawn)
    # the drawer can decode the card still in its deck, but its hand is what it has drawn
    learner = t.sessions[step.to]
    mine, drawn = learner.game_state, learner.game_state.state.stage.drawn
    upcoming = mine.state.players[step.to].deck[0]
    assert learner.private.card(mine, upcoming) is not None  # type: ignore[union-attr]
    hand = learner.private.hand(mine)  # type: ignore[union-attr]
    assert drawn in hand and upcoming not in hand


def test_the_release_stops_at_the_first_card_of_another_pool() -> None:
    """A card past a reshuffle boundary (dealt to the bottom of the deck from discard:K) waits
    for its own draw: here the drawer's next card is mapped, in a copy, to another pool."""
    t = SessionHarness(seats=2, kind="racer", options=AHEAD, seed=5)
    seat = play_until(t, players(2), owes_two_at_a_turn)
    assert seat is not None
    game: RacerGame = t.spectator.game_state
    step = next_step(game)
    assert isinstance(step, DeckStep) and step.to is not None and len(step.positions) == 2
    elsewhere = game.fork()
    elsewhere.where[game.state.players[step.to].deck[0]] = ("discard:0", 0)
    cut = next_step(elsewhere)
    assert isinstance(cut, DeckStep) and cut.positions == step.positions[:1]


# --- escrow, 3-4 seats, a retirement mid-draw -----------------------------------------------------


def releaser_mid_batch(session: Session, seat: int) -> bool:
    """``seat`` owes a private release of several positions another seat has already released."""
    if not session.started or session.game_state.state.turn is None:
        return False
    game: RacerGame = session.game_state
    step = next_step(game)
    if not (isinstance(step, DeckStep) and step.op == "release" and step.seat == seat):
        return False
    if step.to == -1 or len(step.positions) < 2 or step.pool is None:
        return False
    slots = game.deck.pools[step.pool].slots
    return all(slots[j].released for j in step.positions)


def learner_mid_draw(session: Session, seat: int) -> bool:
    """``seat`` shows a card it drew while it already holds the next one of its deck, released
    ahead and not drawn yet."""
    if not session.started:
        return False
    game: RacerGame = session.game_state
    step = next_step(game)
    if not isinstance(step, ShowDrawn) or step.seat != seat:
        return False
    upcoming = racer.certain_draws(game.state)[1:]
    return any(
        game.deck.pools[game.where[s][0]].slots[game.where[s][1]].holder == seat for s in upcoming
    )


MID_DRAW = {"releaser mid-batch": releaser_mid_batch, "learner mid-draw": learner_mid_draw}


@pytest.fixture(scope="module")
def mid_draw_forks() -> dict[int, Forks[str]]:
    """Games at 3 and 4 seats with escrow and the option, copied where seat 1 first owes each
    step of MID_DRAW."""
    options = dict(OPTIONS, release_ahead=1)
    forks = {}
    for seats in (3, 4):
        t = SessionHarness(seats=seats, kind="racer", options=options, seed=seats)
        table_players = players(seats)
        forks[seats] = Forks(
            at_table(t, table_players, owed_in_play(t, table_players, 1, MID_DRAW))
        )
    return forks


@memoized
@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("stop", list(MID_DRAW))
def test_a_seat_retired_mid_draw_with_the_option_and_the_others_finish(
    mid_draw_forks: dict[int, Forks[str]], seats: int, stop: str
) -> None:
    t, table_players, gone = mid_draw_forks[seats].take(stop)
    game: RacerGame = t.spectator.game_state
    assert game.release_ahead and game.deck.escrow is not None and gone == 1
    step = next_step(game)
    if stop == "releaser mid-batch":  # the table makes the retired seat's release, the same one
        assert isinstance(step, DeckStep) and len(step.positions) >= 2
        owed = (step.pool, list(step.positions), step.to)
    retire_and_finish(t, table_players, gone)
    events = t.spectator.log.events
    after = events[next(i for i, e in enumerate(events) if e.type == "retire") :]
    if stop == "releaser mid-batch":
        table_made = [
            (e.body["pool"], e.body["positions"], e.body["to"])
            for e in after
            if e.type == "deck" and e.body.get("op") == "release"
        ]
        assert table_made[0] == owed
    else:  # the learner's draws left the queue with it: nobody releases its deck any more
        assert isinstance(step, ShowDrawn)
        pool = game.where[step.slot][0]
        assert not any(
            e.type == "deck" and e.body.get("op") == "release" and e.body.get("pool") == pool
            for e in after
        )
