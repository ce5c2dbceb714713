"""Attacks: declaring, enlisting attackers, launching (with an optional opening Hero), the
Hero exchange (2X, 3X, Modifier, Reversal, Creep Eraser) and its outcome.

Specified in docs/spec-racer.md §5.5 (declaring, launching, Hero effects, resolving).
"""

from __future__ import annotations

from dataclasses import replace

from creepnet.engine.racer.actions import (
    AddAttacker,
    DeclareAttack,
    Die,
    IllegalAction,
    Launch,
    PlayHero,
    StopHeroes,
    Withdraw,
)
from creepnet.engine.racer.cards import OPENING_HEROES, Hero, Kind
from creepnet.engine.racer.state import Declaring, Exchange, Handlers, Moves, State
from creepnet.engine.racer.table import (
    from_hand,
    kill,
    play_from_hand,
    require_die,
    side_seat,
    turn_seat,
)
from creepnet.engine.racer.turns import finish_move

_FACTORS = {Hero.DOUBLE: 2, Hero.TRIPLE: 3}


def may_declare(state: State) -> bool:
    """Whether the turn has a declaration left: its withdrawals are not all spent."""
    limit, turn = state.options.withdrawals_per_turn, state.turn
    return limit is None or turn is None or turn.withdrawn < limit


def _on_declare_attack(state: State, st: Moves, action: DeclareAttack) -> State:
    seat = turn_seat(state)
    if not may_declare(state):
        raise IllegalAction("this turn's withdrawals are spent: no more declarations")
    found = state.find_creep(action.target)
    if found is None or found[0] == seat:
        raise IllegalAction("attack a Creep of an opponent")
    if not state.players[found[0]].hand:
        raise IllegalAction("players with no cards in hand may not be attacked")
    if not state.players[seat].line:
        raise IllegalAction("you have no Creep to attack with")
    return replace(state, stage=Declaring(action.target))


def _on_add_attacker(state: State, st: Declaring, action: AddAttacker) -> State:
    found = state.find_creep(action.creep)
    if found is None or found[0] != turn_seat(state) or action.creep in st.attackers:
        raise IllegalAction("enlist one of your own Creeps, once")
    return replace(state, stage=replace(st, attackers=st.attackers + (action.creep,)))


def _on_withdraw(state: State, st: Declaring, action: Withdraw) -> State:
    assert state.turn is not None  # a declaration is made on a turn
    turn = replace(state.turn, withdrawn=state.turn.withdrawn + 1)
    return replace(state, turn=turn, stage=Moves())


def _on_launch(state: State, st: Declaring, action: Launch) -> State:
    if not st.attackers:
        raise IllegalAction("no Creep is attacking")
    seat = turn_seat(state)
    total, target = attack_values(state, st)
    defender = state.find_creep(st.target)
    assert defender is not None
    ex = Exchange(defender[0], st.attackers, st.target, (total, target))
    if action.slot is None:
        if total <= target:
            raise IllegalAction("without a Hero the attackers must be stronger than the target")
        return replace(state, stage=ex)
    if action.card is None:
        raise IllegalAction("name the opening Hero")
    hero = from_hand(state, seat, action.slot, action.card, Kind.HERO).hero
    if hero not in OPENING_HEROES or not opener_ok(hero, total, target):
        raise IllegalAction(f"{hero} cannot open this attack")
    state = play_from_hand(state, seat, action.slot, action.card)
    ex = replace(ex, heroes=(action.slot,))
    if hero is Hero.MODIFIER:
        ex = replace(ex, rolling=0, opening_roll=True)
    else:
        ex = _hero_effect(ex, 0, hero)
    return replace(state, stage=replace(ex, to_play=1))


def _on_play_hero(state: State, st: Exchange, action: PlayHero) -> State:
    _require_no_roll(st)
    side = st.to_play
    seat = side_seat(state, st, side)
    hero = from_hand(state, seat, action.slot, action.card, Kind.HERO).hero
    assert hero is not None
    state = play_from_hand(state, seat, action.slot, action.card)
    ex = replace(st, heroes=st.heroes + (action.slot,), to_play=1 - side)
    if hero is Hero.ERASER:
        return resolve_attack(state, replace(ex, eraser=side))
    if hero is Hero.MODIFIER:
        return replace(state, stage=replace(ex, rolling=side))
    return replace(state, stage=_hero_effect(ex, side, hero))


def _hero_effect(ex: Exchange, side: int, hero: Hero) -> Exchange:
    values, stacks = list(ex.values), list(ex.stacks)
    other = 1 - side
    if hero in _FACTORS:
        factor = _FACTORS[hero]
        values[side] *= factor
        stacks[side] += (factor,)
    elif hero is Hero.REVERSAL:
        if stacks[other]:  # take the opponent's last effect for yourself
            factor = stacks[other][-1]
            stacks[other] = stacks[other][:-1]
            values[other] //= factor
            values[side] *= factor
            stacks[side] += (factor,)
        else:  # nothing to take (e.g. as an opener): the two values swap
            values.reverse()
            stacks.reverse()
    return replace(ex, values=(values[0], values[1]), stacks=(stacks[0], stacks[1]))


def _on_modifier_die(state: State, st: Exchange, action: Die) -> State:
    require_die(action)
    side = st.rolling
    if side is None:
        raise IllegalAction("no Modifier waits for a die")
    values, stacks = list(st.values), list(st.stacks)
    values[side] *= action.value
    stacks[side] += (action.value,)
    ex = replace(st, values=(values[0], values[1]), stacks=(stacks[0], stacks[1]), rolling=None)
    if st.opening_roll:
        ex = replace(ex, opening_roll=False)
        if ex.values[0] <= ex.values[1]:
            return resolve_attack(state, ex)  # an opening Modifier that falls short loses
    return replace(state, stage=ex)


def _on_stop_heroes(state: State, st: Exchange, action: StopHeroes) -> State:
    _require_no_roll(st)
    return resolve_attack(state, st)


def _require_no_roll(st: Exchange) -> None:
    if st.rolling is not None:
        raise IllegalAction("a Modifier waits for its die")


def resolve_attack(state: State, ex: Exchange) -> State:
    attacker_wins = ex.eraser == 0 if ex.eraser is not None else ex.values[0] > ex.values[1]
    state = replace(state, discard=state.discard + ex.heroes, stage=Moves())
    losers = (ex.target,) if attacker_wins else ex.attackers
    for slot in losers:
        state = kill(state, slot)
    return finish_move(state)


def opener_ok(hero: Hero | None, total: int, target: int) -> bool:
    if hero in _FACTORS:
        return total * _FACTORS[hero] > target
    if hero is Hero.REVERSAL:
        return target > total  # after the swap the attacker must be ahead
    return hero is Hero.MODIFIER  # a gamble: losing is settled by the die


def attack_values(state: State, st: Declaring) -> tuple[int, int]:
    total = 0
    for slot in st.attackers:
        found = state.find_creep(slot)
        assert found is not None
        total += state.strength(found[1])
    target = state.find_creep(st.target)
    assert target is not None
    return total, state.strength(target[1])


HANDLERS: Handlers = {
    (Moves, DeclareAttack): _on_declare_attack,
    (Declaring, AddAttacker): _on_add_attacker,
    (Declaring, Withdraw): _on_withdraw,
    (Declaring, Launch): _on_launch,
    (Exchange, PlayHero): _on_play_hero,
    (Exchange, StopHeroes): _on_stop_heroes,
    (Exchange, Die): _on_modifier_die,
}
