"""Positions where a retirement was refused or left the table unable to go on, so that one seat
that stalls froze the whole table (PROTOCOL.md §5.5): a seat out of the game (its last Creep
gone, yet it still owes releases and shuffles) or owing its end-of-game `reveal`; the start seat
retired in the opening draw (it kept the first turn); a seat retired between two draw-pool
shuffles of the set-up (a layer it had shown was not recovered); and a seat retired with its
draw deck drawn out after an odd Deck Shift (its keys of another seat's deck were left out).
Each test plays to that position, retires the seat and checks the others finish a valid log."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import (  # noqa: E402
    OPTIONS,
    finish_without,
    one_log,
    play_until,
    players,
)

from creepnet.engine.racer.retire import SET_UP  # noqa: E402
from creepnet.engine.racer.state import Drawing  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, ShowDrawn, next_step  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

memoized = pytest.mark.usefixtures("memoized_proofs")


def _owes(session: Session, seat: int, op: str | None, out: bool) -> bool:
    if not session.started or session.finished:
        return False
    step = next_step(session.game_state)
    return (
        isinstance(step, DeckStep)
        and step.seat == seat
        and (op is None or step.op == op)
        and (out is not session.game_state.state.players[seat].active)
    )


def _retired_and_finished(t: SessionHarness, players: list, gone: int) -> None:
    run_without(t, players, {gone})
    assert t.spectator.waiting_for().seat == gone  # type: ignore[union-attr]
    retire(t, gone)
    assert not t.rejections, t.rejections
    assert t.spectator.retired == [gone]
    finish_without(t, players, {gone})
    verdict = verify_log_bytes(one_log(t, [s for s in range(t.seats) if s != gone]))
    assert verdict.valid and verdict.finished, verdict.error
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]


@memoized
def test_a_seat_out_of_the_game_that_stalls_a_deck_step_is_retired() -> None:
    t = SessionHarness(seats=3, kind="racer", options={**OPTIONS, "turn_limit": 40}, seed=0)
    table = players(3)
    stop = play_until(t, table, lambda s, seat: seat == 0 and _owes(s, 0, None, out=True))
    assert stop == 0 and not t.spectator.game_state.state.players[0].active
    _retired_and_finished(t, table, 0)


@memoized
def test_a_seat_that_withholds_its_end_of_game_reveal_is_retired() -> None:
    t = SessionHarness(seats=3, kind="racer", options=OPTIONS, seed=3)
    table = players(3)
    stop = play_until(t, table, lambda s, seat: seat == 1 and _owes(s, 1, "reveal", out=False))
    assert stop == 1
    _retired_and_finished(t, table, 1)
    # the game was decided before the reveals: the retirement changes no winner
    assert t.spectator.game_state.state.players[1].active


def _opening_draw_of_the_start_seat(session: Session, seat: int) -> bool:
    if not session.started or session.finished:
        return False
    state = session.game_state.state
    stage = state.stage
    return (
        isinstance(next_step(session.game_state), ShowDrawn)
        and isinstance(stage, Drawing)
        and stage.then == "opening"
        and state.start_seat == seat
        and stage.queue[0][0] == seat
    )


@memoized
def test_the_start_seat_retired_during_the_opening_draw_does_not_get_the_first_turn() -> None:
    # It won the roll to start; retired while drawing its opening hand, it left the game, yet
    # the first turn went to it: the table waited for ever on a decision of a retired seat.
    t = SessionHarness(seats=3, kind="racer", options={**OPTIONS, "turn_limit": 20}, seed=0)
    table = players(3)
    gone = play_until(t, table, _opening_draw_of_the_start_seat)
    assert gone is not None
    _retired_and_finished(t, table, gone)
    first = t.spectator.game_state.state
    assert first.start_seat != gone


def _owes_second_draw_pool_shuffle(session: Session, seat: int) -> bool:
    # it shuffled (and locked) deck:0 at depth 2 already: the shuffle of the next draw pool
    # re-publishes that very layer P_{cards,2}, so the table needs the scalar itself
    if not _owes(session, seat, "shuffle", out=False):
        return False
    step = next_step(session.game_state)
    assert isinstance(step, DeckStep) and step.pool is not None
    return step.pool.endswith(":1") and (seat, "cards", 2) in session.game_state.deck.layer_commits


@memoized
def test_a_seat_retired_between_two_draw_pool_shuffles_of_the_set_up() -> None:
    # Its layer of depth 2 was no longer on any pool it had not locked, so it was not recovered,
    # and the table's shuffle for it (a public scalar instead) failed its commitment: frozen.
    t = SessionHarness(seats=3, kind="racer", options=OPTIONS, seed=7)
    table = players(3)
    gone = play_until(t, table, _owes_second_draw_pool_shuffle)
    assert gone == 0
    _retired_and_finished(t, table, gone)


def _drawn_out_after_an_odd_deck_shift(session: Session, seat: int) -> bool:
    # its own draw deck is empty, and the pool named for it (deck:S) is another seat's deck
    if not session.started or session.finished:
        return False
    game = session.game_state
    state = game.state
    turn = session.expected()
    if turn is None or turn.seat != seat or isinstance(state.stage, SET_UP):
        return False
    named = game.draw_pools.get(seat)
    return not state.players[seat].deck and any(
        p.seat != seat and p.active and p.deck and game.where[p.deck[0]][0] == named
        for p in state.players
    )


@memoized
def test_a_seat_retired_with_its_draw_deck_drawn_out_after_an_odd_deck_shift() -> None:
    # The recovery took the pool named for the seat (deck:S) for its own draw deck and left out
    # its lock keys there, but after an odd Deck Shift that pool is another seat's draw deck:
    # the table's release of the seat's key for that seat's next draw failed: frozen.
    t = SessionHarness(seats=3, kind="racer", options={**OPTIONS, "turn_limit": 60}, seed=6)
    table = players(3)
    gone = play_until(t, table, _drawn_out_after_an_odd_deck_shift)
    assert gone == 0
    _retired_and_finished(t, table, gone)
