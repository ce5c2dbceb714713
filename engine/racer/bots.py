"""Creepy Racer bots. They see only an ``Observation`` (public facts and their own hand) and
the legal actions; each owns a seeded RNG, so a bot is deterministic given its seed.

Legal actions are listed in seat order, so a bot that takes the first of equally good options
prefers low seats as victims; ties are broken with the bot's own RNG instead."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from typing import TypeAlias, TypeVar

from creepnet.engine.racer.actions import (
    AcceptHostage,
    Action,
    AddAttacker,
    AskHostage,
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
# A plain attack (no Hero in hand to answer the defender's) is made only when the defender's
# hand holds no Hero with at least this chance, counted from the cards not yet seen.
_SAFE_ATTACK = 0.5
# A Modifier opens an attack when at least this many die faces win it.
_MODIFIER_FACES = 4

T = TypeVar("T")
# An attack: the attacking Creeps and the Hero that opens it (its slot and card), if any.
Plan: TypeAlias = tuple[tuple[Slot, ...], tuple[Slot, Card] | None]
Creeps: TypeAlias = dict[Slot, tuple[int, CreepView]]  # each Creep in line: its seat and view


def _best(rng: random.Random, items: Sequence[T], key: Callable[[T], object]) -> T:
    """The item with the greatest key; among equals, one chosen by ``rng``."""
    keys = [key(item) for item in items]
    top = max(keys)  # type: ignore[type-var]
    return rng.choice([item for item, k in zip(items, keys, strict=True) if k == top])


def _least(rng: random.Random, items: Sequence[T], key: Callable[[T], object]) -> T:
    """The item with the smallest key; among equals, one chosen by ``rng``."""
    keys = [key(item) for item in items]
    bottom = min(keys)  # type: ignore[type-var]
    return rng.choice([item for item, k in zip(items, keys, strict=True) if k == bottom])


class HeuristicBot:
    """Plays sensible, greedy Creepy Racer: heal, finish off weak Creeps, attack when the odds
    are good (opening with any Hero that makes it so, a Modifier when most faces win), keep
    Heroes for the exchanges, react with every Monster it holds, and swap a weak hand away by
    asking for (or forcing) a Hostage Exchange."""

    def __init__(self, seed: int) -> None:
        self.name = "heuristic"
        self._rng = random.Random(seed)
        self._withdrawn: set[tuple[int, Slot]] = set()  # never re-declare a dropped attack
        # (turn, seat) asked for a Hostage Exchange: refused, it would refuse again this turn
        # (the hands did not change); accepted, its hand was just drawn from.
        self._asked: set[tuple[int, int]] = set()

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

    def gave_up(self, obs: Observation, target: Slot) -> bool:
        """Whether this bot withdrew an attack on ``target`` this turn (it would again)."""
        return (obs.turn_number, target) in self._withdrawn

    # --- moves -------------------------------------------------------------------------------

    def _move(self, obs: Observation, legal: Sequence[Action]) -> Action:
        rng = self._rng
        creeps = _creeps_by_slot(obs)
        heals = [a for a in legal if isinstance(a, PlayGoodFortune)]
        if heals:
            return _least(rng, heals, lambda a: creeps[a.target][1].strength)
        calamities = [a for a in legal if isinstance(a, PlayCalamity)]

        def monster_risk(a: PlayCalamity) -> float:
            return _monster_risk(obs, obs.catalogue[a.card].family, creeps[a.target][0])

        kills = [a for a in calamities if creeps[a.target][1].strength == 1]
        if kills:
            return _least(
                rng, kills, lambda a: (monster_risk(a), _line_size(obs, creeps[a.target][0]))
            )
        attacks = [
            a
            for a in legal
            if isinstance(a, DeclareAttack) and (obs.turn_number, a.target) not in self._withdrawn
        ]
        holds_hero = any(obs.catalogue[c].kind is Kind.HERO for _, c in obs.hand)
        planned = [(a, plan_attack(obs, a.target)) for a in attacks]
        good = [
            (a, plan)
            for a, plan in planned
            if plan is not None
            and (plan[1] is None or holds_hero or len(plan[0]) == 1)
            # With no Hero to answer one, attack only a hand that likely holds none.
            and (holds_hero or _chance_of_no_hero(obs, creeps[a.target][0]) >= _SAFE_ATTACK)
        ]
        if good and (holds_hero or rng.random() < 0.5):
            best, _ = _best(rng, good, lambda item: self._attack_rank(creeps, *item))
            return best
        if calamities:
            leader = _leader(obs, rng)
            return _least(
                rng,
                calamities,
                lambda a: (
                    monster_risk(a),
                    creeps[a.target][0] != leader,
                    creeps[a.target][1].strength,
                ),
            )
        return self._swap_hand(obs, legal) or Pass()

    def _attack_rank(self, creeps: Creeps, attack: DeclareAttack, plan: Plan) -> tuple[int, ...]:
        """Which good attack to make (the greatest rank): the strongest target, then the
        fewest attackers."""
        return creeps[attack.target][1].strength, -len(plan[0])

    # A Hostage Exchange is sought (asked, forced, accepted) when this hand is worth less than
    # a card taken blind plus this margin (negative: by at least as much).
    swap_margin = 0.0

    def _hand_is_weak(self, obs: Observation) -> bool:
        return _hand_worth(obs) < _blind_card_worth(obs) + self.swap_margin

    def _swap_hand(self, obs: Observation, legal: Sequence[Action]) -> Action | None:
        """A Hostage Exchange when this hand is worse than a card taken blind: forced on a
        rich hand (once a game), else asked of the richest hand not asked yet this turn (a
        refusal costs the move, which would otherwise be a pass)."""
        if not self._hand_is_weak(obs):
            return None
        forces = [a for a in legal if isinstance(a, ForceHostage)]
        if forces:
            richest = _best(self._rng, forces, lambda a: obs.players[a.seat].hand_count)
            if obs.players[richest.seat].hand_count >= 6:
                return richest
        asks = [
            a
            for a in legal
            if isinstance(a, AskHostage) and (obs.turn_number, a.seat) not in self._asked
        ]
        if asks:
            ask = _best(self._rng, asks, lambda a: obs.players[a.seat].hand_count)
            self._asked.add((obs.turn_number, ask.seat))
            return ask
        return None

    def _declare(self, obs: Observation, legal: Sequence[Action]) -> Action:
        assert obs.attack is not None
        plan = plan_attack(obs, obs.attack.target)
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
        return AcceptHostage() if self._hand_is_weak(obs) else RefuseHostage()

    def _discard(self, obs: Observation, legal: Sequence[Action]) -> Action:
        options = [a for a in legal if isinstance(a, Discard)]
        return _least(self._rng, options, lambda a: _keep_value(obs, obs.catalogue[a.card]))


class SharpBot(HeuristicBot):
    """The heuristic bot with two choices tuned by self-play against it (1,000 deals, each
    played with seats swapped); on fresh deals it wins 54% of 2-player games and 31% as one
    seat of 4 against heuristic bots (``benchmarks/bots.py --only sharp``;
    docs/PERFORMANCE.md, Bots):

    * among the good attacks it makes the one that risks least: the fewest attackers, then
      one that needs no Hero opener, then the strongest target (the heuristic takes the
      strongest target first and so often sends two Creeps where another attack needs one);
    * it seeks (asks, forces, accepts) a Hostage Exchange only while its hand is worth at
      least 2 less than a card taken blind (the keep values run 2 to 10): the blind card's
      worth is an average over the unseen cards, and an ask costs the move.

    It is the planner's own policy; the heuristic bot stays the benchmarks' reference."""

    swap_margin = -2.0

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.name = "sharp"

    def _attack_rank(self, creeps: Creeps, attack: DeclareAttack, plan: Plan) -> tuple[int, ...]:
        attackers, opener = plan
        return -len(attackers), opener is None, creeps[attack.target][1].strength


# --- pure helpers -------------------------------------------------------------------------------


def _creeps_by_slot(obs: Observation) -> Creeps:
    return {c.slot: (p.seat, c) for p in obs.players for c in p.line}


def _line_size(obs: Observation, seat: int) -> int:
    return len(obs.players[seat].line)


def _leader(obs: Observation, rng: random.Random) -> int:
    others = [p for p in obs.players if p.active and p.seat != obs.seat]
    return _best(rng, others, lambda p: sum(c.strength for c in p.line)).seat


def _hand_worth(obs: Observation) -> float:
    """The mean keep value of the cards in hand."""
    if not obs.hand:
        return 0.0
    return sum(_keep_value(obs, obs.catalogue[c]) for _, c in obs.hand) / len(obs.hand)


_last_unseen: tuple[Observation | None, list[Card]] = (None, [])


def _unseen(obs: Observation) -> list[Card]:
    """Every card of the catalogue this seat has not seen in play: card counting. Hidden
    hands (which hold no Creeps) and decks are drawn from these."""
    global _last_unseen
    cached_obs, cached = _last_unseen  # one decision asks several times: count once
    if cached_obs is obs:
        return cached
    seen = {card for _, card in obs.hand}
    seen.update(obs.discard)
    seen.update(obs.dead)
    for player in obs.players:
        for creep in player.line:
            seen.add(creep.card)
            seen.update(creep.attached)
    if obs.attack is not None:
        seen.update(obs.attack.heroes)
    unseen = [card for card in obs.catalogue.cards if card.id not in seen]
    _last_unseen = (obs, unseen)
    return unseen


def _unseen_in_hands(obs: Observation) -> list[Card]:
    return [card for card in _unseen(obs) if card.kind is not Kind.CREEP]


def _chance_of_no_hero(obs: Observation, seat: int) -> float:
    """The chance that ``seat``'s hand holds no Hero, its cards drawn blind from the unseen."""
    pool = _unseen_in_hands(obs)
    heroes = sum(card.kind is Kind.HERO for card in pool)
    chance = 1.0
    for k in range(obs.players[seat].hand_count):
        if len(pool) - k <= 0:
            break
        chance *= max(0, len(pool) - heroes - k) / (len(pool) - k)
    return chance


def _monster_risk(obs: Observation, family: str | None, seat: int) -> float:
    """The chance that ``seat`` answers a Calamity of ``family`` with its Monster: 0 when the
    Monster has been seen (in this hand, in play, discarded), else its share of the unseen."""
    pool = _unseen_in_hands(obs)
    if not any(card.kind is Kind.MONSTER and card.family == family for card in pool):
        return 0.0
    return min(1.0, obs.players[seat].hand_count / max(1, len(pool)))


def _blind_card_worth(obs: Observation) -> float:
    """The mean keep value of a card taken blind from another hand, by card counting: what a
    Hostage Exchange is worth against the card it costs (the mean of this hand)."""
    pool = _unseen_in_hands(obs)
    if not pool:
        return 0.0
    return sum(_keep_value(obs, card) for card in pool) / len(pool)


def plan_attack(obs: Observation, target: Slot) -> Plan | None:
    """The fewest, weakest own Creeps that beat ``target``, with an opener if one is needed."""
    creeps = _creeps_by_slot(obs)
    if target not in creeps:
        return None
    goal = creeps[target][1].strength
    mine = sorted(obs.players[obs.seat].line, key=lambda c: c.strength)
    for single in mine:  # the weakest single Creep strong enough
        if single.strength > goal:
            return (single.slot,), None
    # Every attacker dies if the attack fails: risk the fewest Creeps, then the weakest ones
    # (a line 3, 4, 4 attacks a 5 with 3 + 4, keeping the other 4).
    for size in range(2, len(mine) + 1 if sum(c.strength for c in mine) > goal else 2):
        enough = [
            group
            for group in itertools.combinations(mine, size)
            if sum(c.strength for c in group) > goal
        ]
        if enough:
            group = min(enough, key=lambda g: sum(c.strength for c in g))
            return tuple(c.slot for c in group), None
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
    if Hero.MODIFIER in openers:
        winning_faces = sum(strongest.strength * face > goal for face in range(1, 7))
        if winning_faces >= _MODIFIER_FACES:
            return (strongest.slot,), openers[Hero.MODIFIER]
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


BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "sharp": SharpBot,
}


def make_bot(name: str, seed: int) -> Bot:
    """A bot by name ("random", "heuristic" or "sharp"), deterministic given ``seed``."""
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {sorted(BOTS)}") from None
