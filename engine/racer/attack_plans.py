"""Whole attacks as one candidate for the Racer planner: a target, the Creeps that attack it
and the opening Hero, if any.

The heuristic bot declares the fewest, weakest Creeps that beat the target (`plan_attack`);
that attack stays the plain ``DeclareAttack`` candidate, which the heuristic finishes. These
plans are the attacks it never makes, for the search to weigh: **margin** (enough Creeps that
the defender's 2X does not turn the attack: more than twice the target), and **openers** (the
strongest Creep opened with a 2X or 3X, the weakest with a Reversal) when the heuristic's own
attack needs none. Each is the declaring steps (``steps``) and a launch (``launch``), worked
out from the seat's observation only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from creepnet.engine.racer.actions import Action, AddAttacker, DeclareAttack, Launch, Slot
from creepnet.engine.racer.attacks import opener_ok
from creepnet.engine.racer.bots import plan_attack
from creepnet.engine.racer.cards import Catalogue, Hero, Kind
from creepnet.engine.racer.view import CreepView, Observation


@dataclass(frozen=True)
class AttackPlan:
    """Attack ``target`` with ``attackers``, launched with the Hero named ``opener`` (or
    none)."""

    target: Slot
    attackers: tuple[Slot, ...]
    opener: str | None = None

    def steps(self) -> list[Action]:
        """The declaring steps before the launch."""
        return [DeclareAttack(self.target), *map(AddAttacker, self.attackers)]

    def launch(self, legal: Sequence[Action], catalogue: Catalogue) -> Action | None:
        """The launch among ``legal`` (once the attackers are in), None if it is not there."""
        for action in legal:
            if isinstance(action, Launch):
                name = None if action.card is None else catalogue[action.card].name
                if name == self.opener:
                    return action
        return None


def attack_plans(obs: Observation, legal: Sequence[Action]) -> list[AttackPlan]:
    """The margin and opener attacks on every target ``legal`` lets this seat declare, where
    they differ from the heuristic's own attack on it."""
    plans: list[AttackPlan] = []
    mine = sorted(obs.players[obs.seat].line, key=lambda c: c.strength)
    if not mine:
        return plans
    strengths = {c.slot: c.strength for p in obs.players for c in p.line}
    heroes = {
        obs.catalogue[card].hero: obs.catalogue[card].name
        for _, card in obs.hand
        if obs.catalogue[card].kind is Kind.HERO
    }
    for action in legal:
        if not isinstance(action, DeclareAttack):
            continue
        target = action.target
        goal = strengths[target]
        own = plan_attack(obs, target)
        own_plan = AttackPlan(target, own[0], own[1][1].name if own[1] else None) if own else None
        found = []
        margin = _fewest_over(mine, 2 * goal)
        if margin is not None:
            found.append(AttackPlan(target, margin))
        strongest, weakest = mine[-1], mine[0]
        for hero in (Hero.DOUBLE, Hero.TRIPLE):
            if hero in heroes and opener_ok(hero, strongest.strength, goal):
                found.append(AttackPlan(target, (strongest.slot,), heroes[hero]))
        if Hero.REVERSAL in heroes and opener_ok(Hero.REVERSAL, weakest.strength, goal):
            found.append(AttackPlan(target, (weakest.slot,), heroes[Hero.REVERSAL]))
        plans.extend(plan for plan in dict.fromkeys(found) if plan != own_plan)
    return plans


def _fewest_over(mine: list[CreepView], goal: int) -> tuple[Slot, ...] | None:
    """The fewest Creeps, then the weakest of those, whose strengths sum above ``goal``."""
    for size in range(1, len(mine) + 1):
        enough = [
            g for g in itertools.combinations(mine, size) if sum(c.strength for c in g) > goal
        ]
        if enough:
            group = min(enough, key=lambda g: sum(c.strength for c in g))
            return tuple(c.slot for c in group)
    return None
