"""The engine's retirement (engine/racer/retire.py): whatever the stage, a retired seat is out,
never acts again, and the game still ends; what it was part of is cancelled."""

from __future__ import annotations

import random

import pytest

from creepnet.engine import racer
from creepnet.engine.racer.driver import chance_action
from creepnet.engine.racer.retire import SET_UP
from creepnet.engine.racer.state import HostageAnswer, HostageSwap, Moves, Over, StartRoll

OPTIONS = racer.Options(players=4, creeps_per_player=3, face_up_creeps=1, turn_limit=20)


def _step(state: racer.State, rng: random.Random, bots: list) -> racer.State:
    request = racer.pending(state)
    if request.actor == racer.CHANCE:
        return racer.apply(state, chance_action(state, rng))
    view = racer.redact(state, request.actor)
    legal = racer.legal_actions(view)
    action = bots[request.actor].choose(racer.observation_of_view(view, request.actor), legal)
    return racer.apply(state, action)


def _finish(state: racer.State, rng: random.Random, bots: list, gone: set[int]) -> racer.State:
    for _ in range(20_000):
        request = racer.pending(state)
        if isinstance(request, racer.GameOver):
            return state
        assert request.actor not in gone, (request, state.stage)
        state = _step(state, rng, bots)
    raise AssertionError("the game did not end")


def test_a_seat_retired_at_any_stage_is_out_and_the_game_ends() -> None:
    stages: set[str] = set()
    for seed in range(60):
        rng = random.Random(seed)
        bots = [racer.RandomBot(seed + s) for s in range(4)]
        state = racer.new_game(OPTIONS)
        for _ in range(rng.randrange(40, 900)):
            if isinstance(racer.pending(state), racer.GameOver):
                break
            state = _step(state, rng, bots)
        gone = rng.randrange(4)
        if racer.can_retire(state, gone) is not None:
            continue
        stages.add(type(state.stage).__name__)
        state = racer.retire(state, gone)
        player = state.players[gone]
        assert not player.active and not player.line
        assert state.turn is None or state.turn.seat != gone or isinstance(state.stage, Over)
        state = _finish(state, rng, bots, {gone})
        assert racer.pending(state).winner != gone  # type: ignore[union-attr]
    assert {"Moves", "Drawing"} <= stages, stages


def test_two_retirements_leave_the_last_two_to_finish_and_three_end_the_game() -> None:
    rng = random.Random(7)
    bots = [racer.RandomBot(s) for s in range(4)]
    state = racer.new_game(OPTIONS)
    while not isinstance(state.stage, Moves):
        state = _step(state, rng, bots)
    state = racer.retire(racer.retire(state, 3), 1)
    assert state.active_seats() == (0, 2)
    state = racer.retire(state, 2)
    assert isinstance(state.stage, Over) and state.stage.winner == 0


def test_set_up_and_an_unknown_seat_are_refused() -> None:
    state = racer.new_game(OPTIONS)
    assert isinstance(state.stage, SET_UP)
    assert "set-up" in (racer.can_retire(state, 1) or "")
    with pytest.raises(racer.IllegalAction):
        racer.retire(state, 1)
    assert racer.can_retire(state, 9) is not None


def test_a_hostage_ask_to_the_retired_seat_is_cancelled_and_the_roll_to_start_forgets_it() -> None:
    rng = random.Random(3)
    bots = [racer.RandomBot(s) for s in range(4)]
    state = racer.new_game(OPTIONS)
    while not isinstance(state.stage, StartRoll):
        state = _step(state, rng, bots)
    state = racer.retire(state, 2)
    assert isinstance(state.stage, StartRoll) and 2 not in state.stage.contenders
    asked = racer.AskHostage(1)
    for _ in range(20_000):
        mover = state.turn.seat if state.turn else None
        if isinstance(state.stage, Moves) and asked in racer.legal_actions(state) and mover != 1:
            break
        state = _step(state, rng, bots)
    else:
        raise AssertionError("nobody ever asked seat 1 for a hostage")
    state = racer.apply(state, asked)
    assert isinstance(state.stage, HostageAnswer) and state.stage.target == 1
    state = racer.retire(state, 1)
    assert isinstance(state.stage, Moves) and state.turn.seat == mover  # type: ignore[union-attr]


def _hand_over(seed: int, learned: int) -> racer.State | None:
    """A 4-seat game at the hand-over of a Hostage Exchange, ``learned`` cards already taken."""
    rng = random.Random(seed)
    bots = [racer.RandomBot(seed + s) for s in range(4)]
    state = racer.new_game(OPTIONS)
    for _ in range(5_000):
        st = state.stage
        if isinstance(st, HostageSwap) and len(st.picked) == 2 and len(st.to_learn) == 2 - learned:
            return state
        if isinstance(racer.pending(state), racer.GameOver):
            return None
        state = _step(state, rng, bots)
    return None


@pytest.mark.parametrize("learned", [0, 1])
@pytest.mark.parametrize("role", ["asker", "target"])
def test_a_retirement_during_the_hostage_hand_over_cancels_what_is_not_handed_over(
    learned: int, role: str
) -> None:
    state = next(s for seed in range(200) if (s := _hand_over(seed, learned)) is not None)
    st = state.stage
    assert isinstance(st, HostageSwap)
    gone = st.asker if role == "asker" else st.target
    other = st.target if role == "asker" else st.asker
    assert racer.can_retire(state, gone) is None
    (taken_by_asker, taken_by_target), mover = st.picked, st.asker
    moves, number = state.turn.moves_left, state.turn.number  # type: ignore[union-attr]
    after = racer.retire(state, gone)
    hand = after.players[other].hand
    # Not yet handed over: back with its giver.  Handed over (the first, the asker's take): stays.
    if role == "asker":  # other is the target: it gave taken_by_asker, was to get taken_by_target
        assert taken_by_target not in hand
        assert (taken_by_asker in hand) == (learned == 0)
        assert after.turn.seat != gone  # type: ignore[union-attr]
    else:  # other is the asker: it took taken_by_asker first, was to give taken_by_target
        assert taken_by_target in hand and (taken_by_asker in hand) == (learned == 1)
        # the move is spent only if a card did change hands (the last move: the turn passes)
        turn = after.turn
        assert turn is not None
        if learned == 0:
            assert (turn.seat, turn.moves_left) == (mover, moves)
        else:
            assert (turn.seat, turn.moves_left) == (mover, moves - 1) or turn.number > number
    assert len(set(hand)) == len(hand)
    assert not isinstance(after.stage, HostageSwap) and not after.players[gone].active
    _finish(after, random.Random(1), [racer.RandomBot(s) for s in range(4)], {gone})


def test_the_last_seat_in_wins_even_where_the_turn_passes_past_the_limit() -> None:
    """docs/spec-racer.md §5.9: X's turn passing starts a turn past ``turn_limit`` (a draw), but
    one seat is left active, and it wins, as after a kill (vector
    racer-retire-last-rival-at-turn-limit)."""
    from dataclasses import replace

    opts = racer.Options(players=3, creeps_per_player=1, face_up_creeps=1, turn_limit=30)
    for seed in range(50):
        rng = random.Random(seed)
        bots = [racer.RandomBot(seed + s) for s in range(3)]
        state = racer.new_game(opts)
        while not isinstance(racer.pending(state), racer.GameOver):
            if isinstance(state.stage, Moves) and len(state.active_seats()) == 2:
                break
            state = _step(state, rng, bots)
        else:
            continue
        assert state.turn is not None
        seat = state.turn.seat
        (rival,) = [s for s in state.active_seats() if s != seat]
        last = replace(state, options=replace(state.options, turn_limit=state.turn.number))
        after = racer.retire(last, seat)
        assert isinstance(after.stage, Over) and after.stage.winner == rival
        return
    raise AssertionError("no game with two seats left at a move")
