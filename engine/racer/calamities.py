"""Calamity moves, the Monster Good Fortune reaction they open, and Good Fortune moves.

Specified in docs/spec-racer.md §5.4 (Calamity, Good Fortune) and §5.6 (the Monster).
"""

from __future__ import annotations

from dataclasses import replace

from creepnet.engine.racer.actions import (
    DeclineMonster,
    IllegalAction,
    PlayCalamity,
    PlayGoodFortune,
    PlayMonster,
    Slot,
)
from creepnet.engine.racer.cards import Kind
from creepnet.engine.racer.state import Discarding, Handlers, Moves, React, State, with_player
from creepnet.engine.racer.table import (
    from_hand,
    kill,
    matching_calamity,
    play_from_hand,
    replace_creep,
    turn_seat,
    without,
)
from creepnet.engine.racer.turns import finish_move


def _on_calamity(state: State, st: Moves, action: PlayCalamity) -> State:
    seat = turn_seat(state)
    card = from_hand(state, seat, action.slot, action.card, Kind.CALAMITY)
    found = state.find_creep(action.target)
    if found is None or found[0] == seat:
        raise IllegalAction("a Calamity goes on an opponent's Creep")
    owner, creep = found
    assert card.family is not None
    if state.shows_monster(owner, card.family):
        raise IllegalAction("that line shows this family's Monster")
    state = play_from_hand(state, seat, action.slot, action.card)
    state = replace_creep(state, owner, replace(creep, attached=creep.attached + (action.slot,)))
    # The target is always asked, so the question itself reveals nothing about its hand.
    return replace(state, stage=React(seat, owner, action.target, card.family))


def _on_decline_monster(state: State, st: React, action: DeclineMonster) -> State:
    found = state.find_creep(st.creep)
    assert found is not None
    if state.strength(found[1]) <= 0:
        state = kill(state, st.creep)
    return finish_move(replace(state, stage=Moves()))


def _on_monster(state: State, st: React, action: PlayMonster) -> State:
    card = from_hand(state, st.seat, action.slot, action.card, Kind.MONSTER)
    if card.family != st.family:
        raise IllegalAction("this Monster does not match the Calamity")
    state = play_from_hand(state, st.seat, action.slot, action.card)
    # The Monster lands before death is checked, so it saves a Creep the Calamity brought to 0.
    line = []
    cleared: list[Slot] = []
    for creep in state.players[st.seat].line:
        keep = []
        for slot in creep.attached:
            attached = state.public_card(slot)
            if attached.kind is Kind.CALAMITY and attached.family == st.family:
                cleared.append(slot)
            else:
                keep.append(slot)
        if creep.slot == st.creep:
            keep.append(action.slot)
        line.append(replace(creep, attached=tuple(keep)))
    player = state.players[st.seat]
    state = with_player(state, replace(player, line=tuple(line)))
    turn = state.turn
    assert turn is not None
    # The Calamity player's turn ends (after discarding); the reacting player goes next.
    return replace(
        state,
        discard=state.discard + tuple(cleared),
        turn=replace(turn, next_seat=st.seat, moves_left=0),
        stage=Discarding(),
    )


def _on_good_fortune(state: State, st: Moves, action: PlayGoodFortune) -> State:
    seat = turn_seat(state)
    card = from_hand(state, seat, action.slot, action.card, Kind.GOOD_FORTUNE)
    found = state.find_creep(action.target)
    if found is None or found[0] != seat:
        raise IllegalAction("a Good Fortune goes on one of your own Creeps")
    creep = found[1]
    calamity = matching_calamity(state, creep, card.family)
    if calamity is None:
        raise IllegalAction("that Creep carries no matching Calamity")
    state = play_from_hand(state, seat, action.slot, action.card)
    state = replace_creep(state, seat, replace(creep, attached=without(creep.attached, calamity)))
    state = replace(state, discard=state.discard + (calamity, action.slot))
    return finish_move(state)


HANDLERS: Handlers = {
    (Moves, PlayCalamity): _on_calamity,
    (Moves, PlayGoodFortune): _on_good_fortune,
    (React, PlayMonster): _on_monster,
    (React, DeclineMonster): _on_decline_monster,
}
