"""The Hostage Exchange: ask (accept or refuse) or force, then two blind picks from the hands
as they were, each card learned by its taker only.

Specified in docs/spec-racer.md §5.7.
"""

from __future__ import annotations

from dataclasses import replace

from creepnet.engine.racer.actions import (
    AcceptHostage,
    AskHostage,
    ForceHostage,
    IllegalAction,
    Learn,
    Pick,
    RefuseHostage,
)
from creepnet.engine.racer.state import (
    Handlers,
    HostageAnswer,
    HostageSwap,
    Moves,
    State,
    with_player,
)
from creepnet.engine.racer.table import reveal, turn_seat, without
from creepnet.engine.racer.turns import finish_move


def _check_hostage(state: State, target: int) -> int:
    seat = turn_seat(state)
    if not 0 <= target < state.n or target == seat or not state.players[target].active:
        raise IllegalAction("ask another player still in the game")
    if not state.players[seat].hand or not state.players[target].hand:
        raise IllegalAction("both players must hold at least one card")
    return seat


def _on_ask_hostage(state: State, st: Moves, action: AskHostage) -> State:
    seat = _check_hostage(state, action.seat)
    return replace(state, stage=HostageAnswer(seat, action.seat))


def _on_force_hostage(state: State, st: Moves, action: ForceHostage) -> State:
    seat = _check_hostage(state, action.seat)
    player = state.players[seat]
    if player.forced_hostage:
        raise IllegalAction("the forced Hostage Exchange is already used")
    state = with_player(state, replace(player, forced_hostage=True))
    return replace(state, stage=HostageSwap(seat, action.seat))


def _on_accept_hostage(state: State, st: HostageAnswer, action: AcceptHostage) -> State:
    return replace(state, stage=HostageSwap(st.asker, st.target))


def _on_refuse_hostage(state: State, st: HostageAnswer, action: RefuseHostage) -> State:
    return finish_move(replace(state, stage=Moves()))  # the refused ask used the move


def _on_hostage_pick(state: State, st: HostageSwap, action: Pick) -> State:
    if len(st.picked) == 2:
        raise IllegalAction("both cards are already picked")
    giver = st.target if not st.picked else st.asker
    hand = state.players[giver].hand
    if not 0 <= action.index < len(hand):
        raise IllegalAction("pick a position in the hand")
    picked = st.picked + (hand[action.index],)
    if len(picked) == 1:
        return replace(state, stage=replace(st, picked=picked))
    to_asker, to_target = picked
    asker, target = state.players[st.asker], state.players[st.target]
    state = with_player(state, replace(asker, hand=without(asker.hand, to_target) + (to_asker,)))
    state = with_player(state, replace(target, hand=without(target.hand, to_asker) + (to_target,)))
    learn = ((to_asker, st.asker), (to_target, st.target))
    return replace(state, stage=replace(st, picked=picked, to_learn=learn))


def _on_hostage_learn(state: State, st: HostageSwap, action: Learn) -> State:
    if not st.to_learn or action.slot != st.to_learn[0][0]:
        raise IllegalAction("that is not the card being taken")
    if action.card is not None:
        state = reveal(state, action.slot, action.card, frozenset({st.to_learn[0][1]}))
    rest = st.to_learn[1:]
    if rest:
        return replace(state, stage=replace(st, to_learn=rest))
    return finish_move(replace(state, stage=Moves()))


HANDLERS: Handlers = {
    (Moves, AskHostage): _on_ask_hostage,
    (Moves, ForceHostage): _on_force_hostage,
    (HostageAnswer, AcceptHostage): _on_accept_hostage,
    (HostageAnswer, RefuseHostage): _on_refuse_hostage,
    (HostageSwap, Pick): _on_hostage_pick,
    (HostageSwap, Learn): _on_hostage_learn,
}
