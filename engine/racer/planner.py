"""A Creepy Racer bot that plans: determinized Monte Carlo search from one seat's view.

Information: the planner is given the seat's information state (``redact(state, seat)``, or a
protocol node's state with its own hand known) and nothing else. Every decision it

1. **samples a world** consistent with that view (`determinize`): the cards it has not seen
   (the catalogue minus every card known to it: its hand, public plays, cards it gave away)
   are dealt at random to the hidden slots, so that no hand hides a Creep and each draw deck
   holds exactly its public count of Creeps (the hands' cards weighted by kind as heuristic
   hands hold them); what is left goes to the box. Told the other seats' choices
   (``observe``, ``memory`` of them), it weighs the hands of its worlds by how well they explain
   those choices (`engine/racer/beliefs.py`);
2. **plays every live candidate action** in that world (equal cards on the same target are
   one candidate; attacks its policy could not finish are none), each followed by fast
   default policies for two turns (`PlanBudget.horizon`): its own seat plays its policy, the
   sharp bot, and the other seats the heuristic bot they are measured against,
   with the same chance answers for every candidate (common random numbers: only the
   candidates' differences vary). The position is then scored: a finished game 1 or 0 (a
   draw shares), an unfinished one the win chance a model fitted to heuristic games gives
   this seat (`value`: Creeps by strength, deck Creeps, Heroes by kind, and for 2 players
   the logs of Creeps and strength left, Heroes times line length, Monsters in hand);
3. screens the candidates by **sequential halving**: each round plays the survivors on equal
   fresh worlds and keeps the better half of the challengers (the heuristic's own choice is
   always kept), with 60% of the budget over about log2(candidates) rounds; the last
   challenger then duels the heuristic's choice on fresh worlds with the rest (the screen's
   winner looks better than it is: it won a draw of noise).

**Its policy** is the sharp bot (`engine/racer/bots.py`, the heuristic tuned by self-play):
"the heuristic" below, where it means the planner's own choices, is that policy;
`PlannerBot(policy=HeuristicBot)` is the planner as before (docs/PERFORMANCE.md, Bots).

The challenger is played only if it beats the heuristic's choice in the duel by more than the
noise (its mean paired difference above 1.5 standard errors); otherwise the heuristic's is.
A fresh world per iteration averages over the hidden cards instead of trusting one guess
(perfect-information Monte Carlo from sampled worlds). The RNG is seeded from the bot's seed
and the view, so the same view and seed give the same choice; no clock is read except the
injected one.

The planner decides the turn's moves, the Heroes of an exchange, Hostage answers (asks, forced
ones and answers are candidates like any move), Monster answers and discards. Besides the
heuristic's own attack on each target (a plain ``DeclareAttack`` it finishes), whole attacks the
heuristic never makes are candidates (`attack_plans`: a margin beyond the defender's 2X, a Hero
opener); a chosen one is declared step by step. Monster answers and discards were left to its
heuristic at first (its rules for them measured best among rules: random answers or discards
lose, other keep values did no better); searched like any decision (``topics``,
`benchmarks/bots.py --racer-plan`) they won 68 of deals 600-699 where the planner that left them
won 64, and 63 of deals 700-799 where it won 60 (the heuristic in its seat 54 and 44): 131 of
200 against 124, at the same 0.27 s a decision, so the default searches them.

**Turn plans** (`engine/racer/turn_plans.py`): at a turn's first move, its best first moves are
also weighed paired with a second move.

Asks for a Hostage Exchange are candidates only where the heuristic itself asks. Checked
against playouts to the end of the game (200 worlds each) at the 56 decisions where the
planner overruled the heuristic in 4 games, its 19 asks the heuristic would not make lost
0.007 ± 0.005 (one standard error) of win chance on average, though the 2-turn score had put
each 0.01-0.08 ahead (the win model misjudges a blind swap of cards); its other overrulings
gained 0.014 ± 0.005.

Measured and not adopted (2 players, 300 playouts, the first 40 deals of `benchmarks/bots.py`,
on which this planner won 26 and its version that asked freely 25). On the version that asked
freely: a duel played to the end of the game (unbiased, 80 playouts after a 150-playout
screen, 0.6 s) won 19, too few worlds to let the real gains through; told the opponent's hand
(an oracle) it won 25, so inferring that hand from its public choices would gain little. On
this one: leaving the Heroes of an exchange to the heuristic won 25 (its 11 overrulings there
above averaged -0.008 ± 0.008); a duel threshold of 1 standard error won 27 (and 66 of the
first 100 deals, where this one won 67).

Leaving more to the heuristic (``follow``; `benchmarks/bots.py --only replay` replays each
differing choice to the end of the game in 100 worlds): over 30 games (deals 200-229) this
planner's 336 overrulings gained 0.011 ± 0.003 of win chance each (0.125 a game), and four
kinds looked negative: a Hostage Exchange forced (-0.015 ± 0.010), an exchange's Heroes stopped
(-0.014 ± 0.015), another Calamity (-0.003 ± 0.003), a Hostage ask refused (-0.008 ± 0.011).
Following the heuristic in the first three, checked on 20 fresh deals (230-249), changed 153
choices by -0.003 ± 0.004 each (-0.02 a game; its Heroes played where this planner stopped,
-0.04 ± 0.03): those kinds had only looked negative by chance, so the default follows asks
only. A playout horizon of 3 turns (0.31 s a decision) won 59 of 100 fresh deals (100-199)
where this planner won 63; screened by replaying to the end, 1,000 playouts of 3 turns (1 s)
gained 0.08 ± 0.04 a game over this planner (14 deals); in a league it won 35 of 60 fresh
deals (300-359).

The 2-player win model with five bending features (`FEATURES_2P`; held-out log-loss 0.395
against 0.420 for the 13 features alone as fitted before) won 67 of deals 0-99 at 300
playouts, as the 13-feature model had, and at 1,000 playouts of 2 turns (0.67 s a decision)
66 of 100 fresh deals (400-499), where the heuristic in its seat won 41, and at 300 playouts
64 of deals 500-599 (the heuristic 55): a better-calibrated leaf does not win more. It is
kept: it predicts better and measured level.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TypeAlias

from creepnet.engine.racer.actions import (
    CHANCE,
    Action,
    AddAttacker,
    AskHostage,
    Decide,
    DeclareAttack,
    ForceHostage,
    GameOver,
    PlayCalamity,
    StopHeroes,
    Withdraw,
)
from creepnet.engine.racer.attack_plans import AttackPlan, attack_plans
from creepnet.engine.racer.beliefs import MEMORY, Beliefs, WorldSource
from creepnet.engine.racer.bots import HeuristicBot, SharpBot, plan_attack
from creepnet.engine.racer.cards import Hero, Kind
from creepnet.engine.racer.driver import chance_action
from creepnet.engine.racer.rules import apply, legal_actions, pending
from creepnet.engine.racer.state import Drawing, State, locations
from creepnet.engine.racer.turn_plans import (
    TURN_PLANS,
    TURN_SHARE,
    Move,
    TurnPlan,
    pair_moves,
)
from creepnet.engine.racer.view import Observation, observation_of_view

Candidate: TypeAlias = Move | TurnPlan
# Decisions the planner may search (``PlannerBot.topics``; the rest, an attack's steps, it
# takes from the attack plan or its heuristic); by default it searches all of them (Monster
# answers and discards too won 131 of 200 paired deals where leaving them to the heuristic
# won 124).
PLANNABLE_TOPICS = frozenset({"move", "hero", "hostage", "react", "discard"})
DUEL_SHARE = 0.4  # of the budget, for the duel of the screen's winner and the policy's choice
# Standard errors the challenger must beat the policy's choice by; 0.5 measured level with it
# on 400 paired deals (docs/PERFORMANCE.md, Bots).
CONFIDENCE = 1.5
STEP_LIMIT = 4_000  # a playout never runs longer than this many steps (a safety net)
# Choices the planner leaves to its policy (``PlannerBot.follow``): "ask" and "force" (a
# Hostage Exchange asked or forced only where the policy does), "stop" (an exchange's Heroes
# stopped only where the policy stops), "calamity" (where the policy plays a Calamity, no
# other Calamity: another card or target).
FOLLOWS = frozenset({"ask", "force", "stop", "calamity"})
FOLLOW = frozenset({"ask"})
_FOLLOWED = {"ask": AskHostage, "force": ForceHostage, "stop": StopHeroes}


@dataclass(frozen=True)
class PlanBudget:
    """Playouts per decision, and/or seconds on an injected ``clock``."""

    playouts: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] | None = None
    # Turns a playout plays before the position is scored: 2 (this turn and the opponent's
    # next) did best in 40-game 2-player trials at 120 playouts (62% against 52% for 1 turn;
    # 4 turns had given 52-62%), though within the noise (benchmarks/bots.py --racer-horizon);
    # at 300 playouts, 3 turns won 59 of 100 fresh deals where 2 won 63.
    horizon: int = 2

    def __post_init__(self) -> None:
        if self.playouts is None and self.seconds is None:
            raise ValueError("a plan budget needs playouts or seconds")
        if self.seconds is not None and self.clock is None:
            raise ValueError("a budget in seconds needs a clock")


class _Meter:
    """Counts the playouts of one decision against its budget; reads the clock (if any) once
    at the start and once before each playout, and estimates how many more fit."""

    def __init__(self, budget: PlanBudget) -> None:
        self.budget = budget
        self.done = 0
        clock = budget.clock
        self.start = self.now = clock() if clock is not None else 0.0

    def more(self) -> bool:
        """Whether one more playout fits (counted as done if so)."""
        budget = self.budget
        if budget.playouts is not None and self.done >= budget.playouts:
            return False
        if budget.seconds is not None and budget.clock is not None:
            self.now = budget.clock()
            if self.now - self.start >= budget.seconds:
                return False
        self.done += 1
        return True

    def capacity(self) -> float:
        """The playouts still to come: counted, or estimated from the pace so far (a
        guess of 400 a second before the first playout)."""
        budget = self.budget
        left = float("inf")
        if budget.playouts is not None:
            left = budget.playouts - self.done
        if budget.seconds is not None:
            elapsed = self.now - self.start
            pace = self.done / elapsed if self.done and elapsed > 0 else 400.0
            left = min(left, (budget.seconds - elapsed) * pace)
        return max(0.0, left)


# --- worlds consistent with a view --------------------------------------------------------------


# How much likelier a card of each kind is in a hidden hand than its share of the cards the seat
# has not seen: measured in 150 heuristic 2-player games (a hand plays its Calamities soon,
# and keeps its Monsters and the Good Fortunes it may need). Heroes match their share.
HAND_KIND_WEIGHTS = MappingProxyType(
    {Kind.CALAMITY: 0.68, Kind.GOOD_FORTUNE: 1.21, Kind.MONSTER: 1.68, Kind.HERO: 0.97}
)


def determinize(view: State, rng: random.Random) -> State | None:
    """A full-information state that agrees with everything ``view`` knows, its hidden cards
    dealt at random under the public constraints (the hidden hands' cards weighted by kind,
    ``HAND_KIND_WEIGHTS``); None if no such deal fits (a view from a crafted position that
    breaks them)."""
    known = view.known
    slots = [slot for _, slot in locations(view)]
    hidden = [slot for slot in slots if slot not in known]
    if not hidden:
        return view
    seen = {known[slot] for slot in slots if slot in known}
    catalogue = view.catalogue
    unseen = [card for card in range(len(catalogue)) if card not in seen]
    creeps = [card for card in unseen if catalogue[card].kind is Kind.CREEP]
    others = [card for card in unseen if catalogue[card].kind is not Kind.CREEP]
    rng.shuffle(creeps)
    rng.shuffle(others)
    drawn = view.stage.drawn if isinstance(view.stage, Drawing) else None
    must_creep: list[int] = []
    in_hands: list[int] = []
    must_other: list[int] = []  # in decks
    for player in view.players:
        if not player.active:
            continue
        in_hands.extend(s for s in player.hand if s not in known and s != drawn)
        deck_hidden = [s for s in player.deck if s not in known]
        known_creeps = sum(
            catalogue[known[s]].kind is Kind.CREEP for s in player.deck if s in known
        )
        wanted = player.deck_creeps - known_creeps
        if not 0 <= wanted <= len(deck_hidden):
            return None
        rng.shuffle(deck_hidden)
        must_creep.extend(deck_hidden[:wanted])
        must_other.extend(deck_hidden[wanted:])
    if len(must_creep) > len(creeps) or len(in_hands) + len(must_other) > len(others):
        return None
    # The hands first, by weighted sampling without replacement (Efraimidis-Spirakis keys).
    weights = [HAND_KIND_WEIGHTS.get(catalogue[card].kind, 1.0) for card in others]
    keys = [rng.random() ** (1.0 / w) for w in weights]
    order = sorted(range(len(others)), key=keys.__getitem__, reverse=True)
    held = [others[i] for i in order[: len(in_hands)]]
    others = [others[i] for i in order[len(in_hands) :]]
    rng.shuffle(others)
    deal = dict(zip(must_creep, creeps, strict=False))
    deal.update(zip(in_hands, held, strict=True))
    deal.update(zip(must_other, others, strict=False))
    rest = creeps[len(must_creep) :] + others[len(must_other) :]
    rng.shuffle(rest)
    free = [slot for slot in hidden if slot not in deal]
    if len(free) != len(rest):
        return None
    deal.update(zip(free, rest, strict=True))
    return replace(view, known=MappingProxyType({**known, **deal}))


# --- scoring ------------------------------------------------------------------------------------


# Per-seat weights of a conditional-logit model of who wins (Newton's method, ridge 1), for more
# than 2 players fitted to 7,500 positions of 400 4-player heuristic games (every other turn):
# log-loss 1.155 on fresh games against 1.172 for a first model that knew only line strength,
# line size, deck Creeps, hand size and Heroes. A Creep still in the deck is safe; a Hero is
# worth a Creep or more (attacks are won by Heroes), an Eraser most.
# Order: line Creeps at strength 1, 2, 3, 4, 5+; deck Creeps; Erasers, 3X, Reversals, 2X,
# Modifiers in hand; hand size; whether the seat's turn is next (or now).
FEATURES = (
    *("s1", "s2", "s3", "s4", "s5", "deck"),
    *("eraser", "3x", "reversal", "2x", "modifier", "hand", "to_move"),
)
WEIGHTS_MANY = (0.0, 0.03, 0.11, 0.17, 0.13, 0.46, 0.32, 0.15, 0.16, 0.20, 0.14, 0.02, -0.08)
# For 2 players the same features and five that bend them: log(1 + Creeps in line and deck),
# log(1 + their strength, a deck Creep counted 4), log(1 + line Creeps) * log(1 + Heroes in
# hand), whether the line is empty, and Monsters in hand. A Creep is worth less the more of
# them a seat has (the log), and Heroes are worth more to a longer line (they win its attacks).
# Fitted to every turn's start of 4,000 heuristic 2-player games (156,000 positions): on 1,500
# fresh games (58,000 positions) log-loss 0.395 against 0.420 for the 13 features above as
# fitted before and 0.409 refitted (`benchmarks/bots.py --only fit` refits and compares).
FEATURES_2P = (*FEATURES, "log_creeps", "log_strength", "line_x_heroes", "line_empty", "monsters")
WEIGHTS_2P = (
    *(-0.284, -0.164, -0.064, -0.011, 0.074, 0.062, 0.765, 0.353, 0.410, 0.278, 0.278, 0.015),
    *(0.077, 1.950, 0.617, 0.198, 0.224, 0.074),
)
_HERO_ORDER = (Hero.ERASER, Hero.TRIPLE, Hero.REVERSAL, Hero.DOUBLE, Hero.MODIFIER)


def features(state: State, seat: int) -> tuple[float, ...]:
    """What the model reads of ``seat`` in a full-information ``state``: its line Creeps by
    strength (1, 2, 3, 4, 5+), its deck Creeps, its Heroes by kind, its hand size and whether its
    turn is next (or now): ``FEATURES``."""
    return _features(state, seat)[: len(FEATURES)]


def features_2p(state: State, seat: int) -> tuple[float, ...]:
    """``features`` and the five of ``FEATURES_2P`` that bend them."""
    return _features(state, seat)


def _features(state: State, seat: int) -> tuple[float, ...]:
    player = state.players[seat]
    line = [0, 0, 0, 0, 0]
    total = 0
    for creep in player.line:
        strength = state.strength(creep)
        if strength > 0:
            line[min(strength, 5) - 1] += 1
            total += strength
    catalogue, known = state.catalogue, state.known
    heroes = dict.fromkeys(_HERO_ORDER, 0)
    monsters = 0
    for slot in player.hand:
        card = known.get(slot)
        if card is None:
            continue
        if (hero := catalogue[card].hero) is not None:
            heroes[hero] += 1
        elif catalogue[card].kind is Kind.MONSTER:
            monsters += 1
    turn = state.turn
    in_line = sum(line)
    return (
        *line,
        player.deck_creeps,
        *heroes.values(),
        len(player.hand),
        1.0 if turn is not None and turn.seat == seat else 0.0,
        math.log1p(in_line + player.deck_creeps),
        math.log1p(total + 4 * player.deck_creeps),
        math.log1p(in_line) * math.log1p(sum(heroes.values())),
        0.0 if in_line else 1.0,
        monsters,
    )


def strength_score(state: State, seat: int) -> float:
    """The model's score of ``seat`` in a full-information ``state`` (its log-odds share)."""
    if state.n == 2:
        return sum(w * x for w, x in zip(WEIGHTS_2P, features_2p(state, seat), strict=True))
    return sum(w * x for w, x in zip(WEIGHTS_MANY, features(state, seat), strict=True))


def value(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in [0, 1]: the win chance the model gives it."""
    request = pending(state)
    if isinstance(request, GameOver):
        if request.winner is None:
            return 1.0 / max(1, len(state.active_seats()))
        return 1.0 if request.winner == seat else 0.0
    if not state.players[seat].active:
        return 0.0
    scores = {s: strength_score(state, s) for s in state.active_seats()}
    top = max(scores.values())
    total = sum(math.exp(score - top) for score in scores.values())
    return math.exp(scores[seat] - top) / total


# --- the bot ------------------------------------------------------------------------------------


class PlannerBot:
    """Determinized Monte Carlo planning for one seat (see the module's docstring)."""

    name = "planner"

    def __init__(
        self,
        seed: int,
        budget: PlanBudget | None = None,
        follow: frozenset[str] = FOLLOW,
        topics: frozenset[str] = PLANNABLE_TOPICS,
        turn_plans: int = TURN_PLANS,
        confidence: float = CONFIDENCE,
        memory: int = MEMORY,
        policy: type[HeuristicBot] = SharpBot,
    ) -> None:
        if turn_plans < 0:
            raise ValueError("turn_plans must be 0 or more")
        self.turn_plans = turn_plans
        self.confidence = confidence
        if not follow <= FOLLOWS:
            raise ValueError(f"unknown choices to follow: {sorted(follow - FOLLOWS)}")
        if not topics <= PLANNABLE_TOPICS:
            raise ValueError(f"unknown decisions to plan: {sorted(topics - PLANNABLE_TOPICS)}")
        self.topics = topics
        self.seed = seed
        self.budget = budget or PlanBudget(playouts=200)
        self.follow = follow
        self.policy = policy(seed)  # its steps (declaring, Monsters) and playouts
        self.last_playouts = 0
        # (its choice, the policy's) at its last planned decision, for measuring
        self.last_choice: tuple[Candidate, Candidate] | None = None
        self._attack: AttackPlan | None = None  # the attack plan it is declaring
        self._memory = memory
        self.beliefs: Beliefs | None = None  # made when it is first told of a choice

    def observe(self, view: State, seat: int, actor: int, action: Action) -> None:
        """``actor``'s ``action``, taken at ``view`` (``seat``'s view just before; ``seat`` is
        this bot's): the other seats' choices make its sampled worlds fit what they did."""
        if self.beliefs is None or self.beliefs.seat != seat:
            self.beliefs = Beliefs(seat, self._memory)
        self.beliefs.observe(view, actor, action)

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        """Without the view (an ``Observation`` only) it plays as its heuristic."""
        return self.policy.choose(obs, legal)

    def plan(self, view: State, seat: int, legal: Sequence[Action]) -> Action:
        """The action to take at ``view`` (the seat's information state), among ``legal``."""
        obs = observation_of_view(view, seat)
        request = pending(view)
        self.last_playouts = 0
        self.last_choice = None
        if isinstance(request, Decide) and request.topic == "attack" and self._attack:
            step = self._next_attack_step(obs, legal)
            if step is not None:
                return step
        self._attack = None
        if not isinstance(request, Decide) or request.topic not in self.topics:
            return self.policy.choose(obs, legal)
        fork = copy.deepcopy(self.policy)  # asked without touching the policy's memory
        baseline = _effect(obs, fork.choose(obs, legal))
        candidates = self._candidates(obs, legal, baseline)
        lone = candidates[0]
        if len(candidates) == 1 and not isinstance(lone, AttackPlan | TurnPlan):
            return lone
        base = next((i for i, c in enumerate(candidates) if _effect(obs, c) == baseline), 0)
        turn = view.turn
        pairs = (
            self.turn_plans > 0
            and request.topic == "move"
            and turn is not None
            and turn.moves_left >= 2
        )
        scores = self._compare(view, seat, candidates, base, pairs)
        alive = [i for i in range(len(candidates)) if scores[i]]
        if not alive:
            return self.policy.choose(obs, legal)
        best = max(alive, key=lambda i: _mean(scores[i]))
        if best != base and not _clearly_better(scores[best], scores[base], self.confidence):
            best = base
        if best == base:
            self.policy = fork  # it remembers what it just chose (an ask, a withdrawal)
        self.last_choice = (candidates[best], candidates[base])
        chosen = candidates[best]
        if isinstance(chosen, TurnPlan):
            chosen = chosen.first
        if isinstance(chosen, AttackPlan):
            self._attack = chosen
            return chosen.steps()[0]
        return chosen

    def _next_attack_step(self, obs: Observation, legal: Sequence[Action]) -> Action | None:
        """The next step of the attack plan being declared (None if it no longer fits)."""
        plan = self._attack
        assert plan is not None and obs.attack is not None
        if obs.attack.target != plan.target:
            return None
        for slot in plan.attackers:
            if slot not in obs.attack.attackers:
                step = AddAttacker(slot)
                return step if step in legal else None
        return plan.launch(legal, obs.catalogue)

    def _compare(
        self,
        view: State,
        seat: int,
        candidates: list[Candidate],
        base: int,
        pairs: bool = False,
    ) -> list[list[float]]:
        """Every live candidate played out in the same sampled worlds with the same chance
        answers (common random numbers: the differences are what counts). A screen by
        sequential halving (each round gives the survivors equal worlds, then keeps the better
        half of the challengers; the policy's own choice is always kept) spends
        ``1 - DUEL_SHARE`` of the budget; the last challenger then duels the policy's choice
        on fresh worlds with the rest (the screen's winner looks better than it is: it won a
        draw of noise). With ``pairs`` (a turn's first move), a first round of
        ``TURN_SHARE`` of the budget ranks the single moves, and turn plans made of the best
        (``_turn_plans``) join the screen; ``candidates`` grows by them."""
        rng = random.Random(f"{self.seed}:{_view_digest(view, seat)}")
        meter = _Meter(self.budget)  # a time budget counts the weighing of worlds too
        beliefs = self.beliefs
        source: WorldSource = (
            beliefs.sampler(view, rng, determinize) if beliefs else lambda r: determinize(view, r)
        )
        scores: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        if pairs and len(candidates) > 1:
            worlds = max(1, int(meter.capacity() * TURN_SHARE / len(alive)))
            if self._play_worlds(source, seat, candidates, alive, scores, worlds, rng, meter):
                added = self._turn_plans(candidates, scores)
                candidates.extend(added)
                scores.extend([] for _ in added)
                alive.extend(range(len(candidates) - len(added), len(candidates)))
        while len(alive) > 2:
            challengers = [i for i in alive if i != base]
            rounds = max(1, math.ceil(math.log2(len(challengers))))
            screen = (meter.done + meter.capacity()) * (1 - DUEL_SHARE) - meter.done
            worlds = max(1, int(screen / rounds / len(alive)))
            if not self._play_worlds(source, seat, candidates, alive, scores, worlds, rng, meter):
                break
            ranked = sorted(challengers, key=lambda i: -_mean(scores[i]))
            alive = sorted(set(ranked[: max(1, len(ranked) // 2)]) | {base})
        if len(alive) <= 2:
            for index in alive:  # the duel, on fresh worlds only
                scores[index] = []
            self._play_worlds(source, seat, candidates, alive, scores, None, rng, meter)
        self.last_playouts = meter.done
        for index in range(len(candidates)):
            if index not in alive:
                scores[index] = []
        return scores

    def _play_worlds(
        self,
        source: WorldSource,
        seat: int,
        candidates: list[Candidate],
        alive: list[int],
        scores: list[list[float]],
        worlds: int | None,
        rng: random.Random,
        meter: _Meter,
    ) -> bool:
        """Plays ``alive`` out in ``worlds`` fresh worlds (None: until the budget is spent);
        False when the budget ran out first (a world not every candidate played is dropped)."""
        played = 0
        while worlds is None or played < worlds:
            world = source(rng)
            if world is None:
                return False
            chance_seed = rng.randrange(1 << 30)
            results = []
            for index in alive:
                if not meter.more():
                    return False
                results.append(self._playout(world, seat, candidates[index], chance_seed))
            for index, result in zip(alive, results, strict=True):
                scores[index].append(result)
            played += 1
        return True

    def _turn_plans(self, singles: list[Candidate], scores: list[list[float]]) -> list[TurnPlan]:
        """``turn_plans.pair_moves`` of the single moves, best first by their scores."""
        ranked = sorted(range(len(singles)), key=lambda i: -_mean(scores[i]))
        moves = [move for i in ranked if not isinstance(move := singles[i], TurnPlan)]
        return pair_moves(moves, self.turn_plans)

    def _candidates(
        self, obs: Observation, legal: Sequence[Action], baseline: tuple[object, ...]
    ) -> list[Candidate]:
        """The legal actions, one per distinct effect, without attacks the policy could not
        finish (it declares the attackers of a plain ``DeclareAttack`` the planner chose)
        and without the choices it leaves to the policy (``follow``: asks for a Hostage
        Exchange by default) where they differ from the policy's (``baseline`` is the effect
        of its choice), and the attacks the policy would not make (`attack_plans`)."""
        seen: dict[tuple[object, ...], Candidate] = {}
        followed = tuple(_FOLLOWED[name] for name in self.follow if name in _FOLLOWED)
        calamity_as_policy = "calamity" in self.follow and baseline[0] == "PlayCalamity"
        for action in legal:
            if isinstance(action, DeclareAttack) and (
                plan_attack(obs, action.target) is None or self.policy.gave_up(obs, action.target)
            ):
                continue
            effect = _effect(obs, action)
            if effect != baseline and (
                isinstance(action, followed)
                or (calamity_as_policy and isinstance(action, PlayCalamity))
            ):
                continue
            seen.setdefault(effect, action)
        plans = attack_plans(obs, legal) if obs.request == Decide(obs.seat, "move") else []
        return [*seen.values(), *plans] or list(legal)

    def _playout(self, world: State, seat: int, first: Candidate, chance_seed: int) -> float:
        rng = random.Random(chance_seed)
        then: Move | None = None
        if isinstance(first, TurnPlan):
            state = _play(world, first.first)
            then = first.then
        else:
            state = _play(world, first)
        policies = [
            (type(self.policy) if s == seat else HeuristicBot)(rng.randrange(1 << 30))
            for s in range(state.n)
        ]
        start = state.turn.number if state.turn else 0
        horizon = self.budget.horizon
        for _ in range(STEP_LIMIT):
            request = pending(state)
            if isinstance(request, GameOver):
                break
            if state.turn is not None and state.turn.number - start >= horizon:
                break
            actor = request.actor
            if then is not None and (state.turn is None or state.turn.number != start):
                then = None  # the turn ended before its second move (a Monster answer)
            if then is not None and request == Decide(seat, "move"):
                second, then = then, None
                if _playable(state, second):
                    state = _play(state, second)
                    continue
            if actor == CHANCE:
                action: Action = chance_action(state, rng)
            else:
                legal = legal_actions(state)
                action = (
                    legal[0]
                    if len(legal) == 1
                    else policies[actor].choose(observation_of_view(state, actor), legal)
                )
            state = apply(state, action)
        return value(state, seat)


def _play(state: State, move: Move) -> State:
    """``move`` applied to ``state``: a whole attack plan is declared and launched (withdrawn
    if its launch is not there)."""
    if not isinstance(move, AttackPlan):
        return apply(state, move)
    for step in move.steps():
        state = apply(state, step)
    launch = move.launch(legal_actions(state), state.catalogue)
    return apply(state, launch if launch is not None else Withdraw())


def _playable(state: State, move: Move) -> bool:
    """Whether ``move`` can be played now (an attack plan: its target can be declared and each
    attacker is still in the line)."""
    legal = legal_actions(state)
    if not isinstance(move, AttackPlan):
        return move in legal
    if DeclareAttack(move.target) not in legal:
        return False
    seat = pending(state).actor
    line = set(state.players[seat].line)
    return all(slot in line for slot in move.attackers)


def _effect(obs: Observation, action: Candidate) -> tuple[object, ...]:
    """What tells actions apart: copies of one card on one target do the same."""
    if isinstance(action, TurnPlan):
        return ("TurnPlan", _effect(obs, action.first), _effect(obs, action.then))
    if isinstance(action, AttackPlan):
        return ("AttackPlan", action.target, action.attackers, action.opener)
    fields = dict(vars(action))
    fields.pop("slot", None)
    card = fields.pop("card", None)
    name = obs.catalogue[card].name if isinstance(card, int) else None
    return (type(action).__name__, name, tuple(sorted(fields.items())))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else -1.0


def _clearly_better(challenger: list[float], base: list[float], confidence: float) -> bool:
    """Whether ``challenger`` beats ``base`` on the worlds both played by more than noise:
    the mean paired difference above ``confidence`` standard errors."""
    diffs = [a - b for a, b in zip(challenger, base, strict=False)]
    if len(diffs) < 2:
        return False
    mean = sum(diffs) / len(diffs)
    spread = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean > confidence * math.sqrt(spread / len(diffs)) and mean > 0


def _view_digest(view: State, seat: int) -> str:
    """A few public numbers that change from decision to decision: the RNG's seed material,
    taken from the view only."""
    turn = view.turn
    return ":".join(
        str(x)
        for x in (
            seat,
            view.next_slot,
            turn.number if turn else 0,
            turn.moves_left if turn else 0,
            len(view.discard),
            type(view.stage).__name__,
            sum(len(p.hand) for p in view.players),
        )
    )
