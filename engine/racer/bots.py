"""Creepy Racer bots. They see only an ``Observation`` (public facts and their own hand) and
the legal actions; each owns a seeded RNG, so a bot is deterministic given its seed."""

from __future__ import annotations

import random
from collections.abc import Sequence

from creepnet.engine.racer.actions import (
    AcceptHostage,
    Action,
    AddAttacker,
    DeclareAttack,
    DeclineMonster,
    Discard,
    ForceHostage,
    Launch,
    Pass,
    PlayCalamity,
    PlayGoodFortune,
    PlayHero,
    PlayMonster,
    RefuseHostage,
    Slot,
    StopHeroes,
    Withdraw,
)
from creepnet.engine.racer.cards import Card, Hero, Kind
from creepnet.engine.racer.driver import Bot
from creepnet.engine.racer.view import CreepView, Observation


class RandomBot:
    """Uniformly random among the legal actions."""

    def __init__(self, seed: int) -> None:
        self.name = "random"
        self._rng = random.Random(seed)

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        return self._rng.choice(list(legal))


_KEEP_VALUE = {Hero.ERASER: 10, Hero.TRIPLE: 8, Hero.REVERSAL: 7, Hero.DOUBLE: 6, Hero.MODIFIER: 5}


class HeuristicBot:
    """Plays sensible, greedy Creepy Racer: heal, finish off weak Creeps, attack when the odds
    are good, keep Heroes for the exchanges, react with every Monster it holds."""

    def __init__(self, seed: int) -> None:
        self.name = "heuristic"
        self._rng = random.Random(seed)
        self._withdrawn: set[tuple[int, Slot]] = set()  # never re-declare a dropped attack

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        topic = getattr(obs.request, "topic", "")
        chooser = {
            "move": self._move,
            "attack": self._declare,
            "hero": self._hero,
            "react": self._react,
            "hostage": self._hostage,
            "discard": self._discard,
        }.get(topic)
        choice = chooser(obs, legal) if chooser else None
        return choice if choice is not None else self._rng.choice(list(legal))

    # --- moves -------------------------------------------------------------------------------

    def _move(self, obs: Observation, legal: Sequence[Action]) -> Action:
        creeps = _creeps_by_slot(obs)
        heals = [a for a in legal if isinstance(a, PlayGoodFortune)]
        if heals:
            return min(heals, key=lambda a: creeps[a.target][1].strength)
        calamities = [a for a in legal if isinstance(a, PlayCalamity)]
        kills = [a for a in calamities if creeps[a.target][1].strength == 1]
        if kills:
            return min(kills, key=lambda a: _line_size(obs, creeps[a.target][0]))
        attacks = [
            a
            for a in legal
            if isinstance(a, DeclareAttack) and (obs.turn_number, a.target) not in self._withdrawn
        ]
        holds_hero = any(obs.catalogue[c].kind is Kind.HERO for _, c in obs.hand)
        planned = [(a, _plan_attack(obs, a.target)) for a in attacks]
        good = [
            (a, plan)
            for a, plan in planned
            if plan is not None and (plan[1] is None or holds_hero or len(plan[0]) == 1)
        ]
        if good and (holds_hero or self._rng.random() < 0.5):
            best, _ = max(
                good, key=lambda item: (creeps[item[0].target][1].strength, -len(item[1][0]))
            )
            return best
        if calamities:
            leader = _leader(obs)
            return min(
                calamities,
                key=lambda a: (creeps[a.target][0] != leader, creeps[a.target][1].strength),
            )
        forces = [a for a in legal if isinstance(a, ForceHostage)]
        if forces and len(obs.hand) <= 2:
            richest = max(forces, key=lambda a: obs.players[a.seat].hand_count)
            if obs.players[richest.seat].hand_count >= 8:
                return richest
        return Pass()

    def _declare(self, obs: Observation, legal: Sequence[Action]) -> Action:
        assert obs.attack is not None
        plan = _plan_attack(obs, obs.attack.target)
        if plan is None:
            self._withdrawn.add((obs.turn_number, obs.attack.target))
            return Withdraw()
        attackers, opener = plan
        for slot in attackers:
            if slot not in obs.attack.attackers:
                return AddAttacker(slot)
        for action in legal:
            if isinstance(action, Launch) and (
                action.card is None
                if opener is None
                else action.card is not None and obs.catalogue[action.card].hero is opener[1].hero
            ):
                return action
        self._withdrawn.add((obs.turn_number, obs.attack.target))
        return Withdraw()

    # --- attack exchange ---------------------------------------------------------------------

    def _hero(self, obs: Observation, legal: Sequence[Action]) -> Action:
        attack = obs.attack
        assert attack is not None and attack.values is not None
        side = 0 if obs.seat == attack.attacker else 1
        if _winning(attack.values, side):
            return StopHeroes()
        options = [(a, obs.catalogue[a.card]) for a in legal if isinstance(a, PlayHero)]
        for hero in (Hero.DOUBLE, Hero.TRIPLE, Hero.REVERSAL, Hero.MODIFIER, Hero.ERASER):
            for action, card in options:
                if card.hero is hero and _hero_helps(attack.values, attack.stacks, side, hero):
                    return action
        return StopHeroes()

    # --- reactions, hostages, discards -------------------------------------------------------

    def _react(self, obs: Observation, legal: Sequence[Action]) -> Action:
        monsters = [a for a in legal if isinstance(a, PlayMonster)]
        return monsters[0] if monsters else DeclineMonster()

    def _hostage(self, obs: Observation, legal: Sequence[Action]) -> Action:
        return AcceptHostage() if len(obs.hand) <= 2 else RefuseHostage()

    def _discard(self, obs: Observation, legal: Sequence[Action]) -> Action:
        options = [a for a in legal if isinstance(a, Discard)]
        return min(options, key=lambda a: _keep_value(obs, obs.catalogue[a.card]))


# --- pure helpers -------------------------------------------------------------------------------


def _creeps_by_slot(obs: Observation) -> dict[Slot, tuple[int, CreepView]]:
    return {c.slot: (p.seat, c) for p in obs.players for c in p.line}


def _line_size(obs: Observation, seat: int) -> int:
    return len(obs.players[seat].line)


def _leader(obs: Observation) -> int:
    others = [p for p in obs.players if p.active and p.seat != obs.seat]
    return max(others, key=lambda p: sum(c.strength for c in p.line)).seat


def _plan_attack(
    obs: Observation, target: Slot
) -> tuple[tuple[Slot, ...], tuple[Slot, Card] | None] | None:
    """The fewest, weakest own Creeps that beat ``target``, with an opener if one is needed."""
    creeps = _creeps_by_slot(obs)
    if target not in creeps:
        return None
    goal = creeps[target][1].strength
    mine = sorted(obs.players[obs.seat].line, key=lambda c: c.strength)
    for single in mine:  # the weakest single Creep strong enough
        if single.strength > goal:
            return (single.slot,), None
    chosen: list[CreepView] = []
    for creep in reversed(mine):  # strongest first, until the sum is enough
        chosen.append(creep)
        if sum(c.strength for c in chosen) > goal:
            return tuple(c.slot for c in chosen), None
    openers = {
        obs.catalogue[c].hero: (s, obs.catalogue[c])
        for s, c in obs.hand
        if obs.catalogue[c].kind is Kind.HERO
    }
    strongest = mine[-1] if mine else None
    if strongest is None:
        return None
    for hero, factor in ((Hero.DOUBLE, 2), (Hero.TRIPLE, 3)):
        if hero in openers and strongest.strength * factor > goal:
            return (strongest.slot,), openers[hero]
    if Hero.REVERSAL in openers and mine[0].strength < goal:
        return (mine[0].slot,), openers[Hero.REVERSAL]
    return None


def _winning(values: tuple[int, int], side: int) -> bool:
    attacker_ahead = values[0] > values[1]
    return attacker_ahead if side == 0 else not attacker_ahead


def _hero_helps(
    values: tuple[int, int], stacks: tuple[tuple[int, ...], tuple[int, ...]], side: int, hero: Hero
) -> bool:
    if hero is Hero.ERASER:
        return True
    mine, theirs = values[side], values[1 - side]
    if hero is Hero.DOUBLE:
        mine *= 2
    elif hero is Hero.TRIPLE:
        mine *= 3
    elif hero is Hero.MODIFIER:
        mine = mine * 7 // 2  # the average die
    elif stacks[1 - side]:
        factor = stacks[1 - side][-1]
        mine, theirs = mine * factor, theirs // factor
    else:
        mine, theirs = theirs, mine
    after = (mine, theirs) if side == 0 else (theirs, mine)
    return _winning(after, side)


def _keep_value(obs: Observation, card: Card) -> int:
    if card.kind is Kind.HERO:
        assert card.hero is not None
        return _KEEP_VALUE[card.hero]
    if card.kind is Kind.MONSTER:
        return 9
    if card.kind is Kind.GOOD_FORTUNE:
        hurt = any(
            obs.catalogue[a].family == card.family
            for c in obs.players[obs.seat].line
            for a in c.attached
        )
        return 6 if hurt else 2
    return 4  # Calamity


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str, seed: int) -> Bot:
    """A bot by name ("random" or "heuristic"), deterministic given ``seed``."""
    try:
        return BOTS[name](seed)  # type: ignore[no-any-return]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {sorted(BOTS)}") from None
