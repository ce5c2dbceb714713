"""Turns: starting one (its draws), finishing a move, ending a turn, passing and discarding down
to the hand limit, and when the game is over.

Specified in docs/spec-racer.md §5.3 (turns, the dead position, discarding).
"""

from __future__ import annotations

from dataclasses import replace

from creepnet.engine.racer.actions import Discard, IllegalAction, Pass
from creepnet.engine.racer.state import (
    Discarding,
    Drawing,
    Handlers,
    Moves,
    Over,
    State,
    Turn,
    with_player,
)
from creepnet.engine.racer.table import everyone, from_hand, reveal, turn_seat, without


def start_turn(state: State, seat: int, number: int) -> State:
    limit = state.options.turn_limit
    if limit is not None and number > limit:
        return replace(state, stage=Over(None))
    if is_dead_position(state):
        return replace(state, stage=Over(dead_position_winner(state)))
    turn = Turn(seat, number, moves_left=state.options.moves_per_turn)
    queue = ((seat, state.options.draws_per_turn),)
    return replace(state, turn=turn, stage=Drawing(queue, "moves"))


def end_turn(state: State) -> State:
    turn = state.turn
    assert turn is not None
    chosen = turn.next_seat
    if chosen is not None and state.players[chosen].active:
        following = chosen
    else:
        following = state.next_active(turn.seat)
    return start_turn(state, following, turn.number + 1)


def is_dead_position(state: State) -> bool:
    """Nobody still in holds a card, nobody can draw one and the discard pile is empty: no
    move but a pass is left to anyone, ever (an attack needs a defender holding a card)."""
    players = [p for p in state.players if p.active]
    return not state.discard and not any(p.hand or p.deck for p in players)


def dead_position_winner(state: State) -> int | None:
    """The race is frozen: the player with the most Creeps in line wins, then the greatest
    total strength; a tie on both is a draw (None)."""
    scores = {
        p.seat: (len(p.line), sum(state.strength(c) for c in p.line))
        for p in state.players
        if p.active
    }
    best = max(scores.values())
    leaders = [seat for seat, score in scores.items() if score == best]
    return leaders[0] if len(leaders) == 1 else None


def finish_move(state: State) -> State:
    """A move is complete: check for the winner, then continue the mover's turn."""
    remaining = state.active_seats()
    if len(remaining) <= 1:
        return replace(state, stage=Over(remaining[0] if remaining else None))
    turn = state.turn
    assert turn is not None
    if not state.players[turn.seat].active:
        return end_turn(state)  # the mover was eliminated: their turn is over at once
    left = turn.moves_left - 1
    return replace(
        state, turn=replace(turn, moves_left=left), stage=Moves() if left > 0 else Discarding()
    )


def _on_pass(state: State, st: Moves, action: Pass) -> State:
    return replace(state, stage=Discarding())


def _on_discard(state: State, st: Discarding, action: Discard) -> State:
    seat = turn_seat(state)
    p = state.players[seat]
    if len(p.hand) <= state.options.hand_limit:
        raise IllegalAction("the hand is within the limit")
    from_hand(state, seat, action.slot, action.card, None)
    state = reveal(state, action.slot, action.card, everyone(state))
    state = with_player(state, replace(p, hand=without(p.hand, action.slot)))
    return replace(state, discard=state.discard + (action.slot,))


HANDLERS: Handlers = {
    (Moves, Pass): _on_pass,
    (Discarding, Discard): _on_discard,
}
