"""A Creepy Racer bot that plans: determinized Monte Carlo search from one seat's view.

Information: the planner is given the seat's information state (``redact(state, seat)``, or a
protocol node's state with its own hand known) and nothing else. Every decision it

1. **samples a world** consistent with that view (`determinize`): the cards it has not seen
   (the catalogue minus every card known to it: its hand, public plays, cards it gave away)
   are dealt at random to the hidden slots, so that no hand hides a Creep and each draw deck
   holds exactly its public count of Creeps; what is left goes to the box;
2. **plays every live candidate action** in that world (equal cards on the same target are
   one candidate; attacks its policy could not finish are none), each followed by the fast
   default policy (the heuristic bot for every seat) for a few turns, with the same chance
   answers for every candidate (common random numbers: only the candidates' differences
   vary). The position is then scored: a finished game 1 or 0 (a draw shares), an unfinished
   one the win chance a small model fitted to heuristic games gives this seat (`value`);
3. after every few worlds, keeps only the best third of the candidates (a screen), always
   keeping the heuristic's own choice, until one challenger is left; the two then duel on
   fresh worlds (the screen's winner looks better than it is: it won a draw of noise).

The challenger is played only if it beats the heuristic's choice in the duel by more than the
noise (its mean paired difference above 1.5 standard errors); otherwise the heuristic's is.
A fresh world per iteration averages over the hidden cards instead of trusting one guess
(perfect-information Monte Carlo from sampled worlds). The RNG is seeded from the bot's seed
and the view, so the same view and seed give the same choice; no clock is read except the
injected one.

The planner decides the turn's moves, the Heroes of an exchange and Hostage answers; the
steps of a declared attack, Monster answers and discards it leaves to its heuristic, whose
rules for them are sound (and which finishes the attack the planner chose to declare).
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from creepnet.engine.racer.actions import (
    CHANCE,
    Action,
    Decide,
    DeclareAttack,
    GameOver,
)
from creepnet.engine.racer.bots import HeuristicBot, plan_attack
from creepnet.engine.racer.cards import Kind
from creepnet.engine.racer.driver import chance_action
from creepnet.engine.racer.rules import apply, legal_actions, pending
from creepnet.engine.racer.state import Drawing, State, locations
from creepnet.engine.racer.view import Observation, observation_of_view

PLANNED_TOPICS = frozenset({"move", "hero", "hostage"})
SCREEN_WORLDS = 3  # worlds between prunings of the candidates (the best third goes on)
CONFIDENCE = 1.5  # standard errors the challenger must beat the policy's choice by
STEP_LIMIT = 4_000  # a playout never runs longer than this many steps (a safety net)


@dataclass(frozen=True)
class PlanBudget:
    """Playouts per decision, and/or seconds on an injected ``clock``."""

    playouts: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] | None = None
    horizon: int = 4  # turns a playout plays before the position is scored

    def __post_init__(self) -> None:
        if self.playouts is None and self.seconds is None:
            raise ValueError("a plan budget needs playouts or seconds")
        if self.seconds is not None and self.clock is None:
            raise ValueError("a budget in seconds needs a clock")


# --- worlds consistent with a view --------------------------------------------------------------


def determinize(view: State, rng: random.Random) -> State | None:
    """A full-information state that agrees with everything ``view`` knows, its hidden cards
    dealt at random under the public constraints; None if no such deal fits (a view from a
    crafted position that breaks them)."""
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
    must_other: list[int] = []
    for player in view.players:
        if not player.active:
            continue
        must_other.extend(s for s in player.hand if s not in known and s != drawn)
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
    if len(must_creep) > len(creeps) or len(must_other) > len(others):
        return None
    deal = dict(zip(must_creep, creeps, strict=False))
    deal.update(zip(must_other, others, strict=False))
    rest = creeps[len(must_creep) :] + others[len(must_other) :]
    rng.shuffle(rest)
    free = [slot for slot in hidden if slot not in deal]
    if len(free) != len(rest):
        return None
    deal.update(zip(free, rest, strict=True))
    return replace(view, known=MappingProxyType({**known, **deal}))


# --- scoring ------------------------------------------------------------------------------------


# Per-seat weights of a conditional-logit model of who wins, fitted to 7,500 positions of 600
# heuristic-bot games (2 and 4 players, every third turn): a Creep still in the deck is worth
# more than one in the line (safe from attacks and Calamities), a Hero in hand nearly as much.
WEIGHTS = {"strength": 0.1, "line": -0.1, "deck_creeps": 0.6, "hand": 0.0, "heroes": 0.45}


def strength_score(state: State, seat: int) -> float:
    """The model's score of ``seat`` in a full-information ``state`` (its log-odds share)."""
    player = state.players[seat]
    line = sum(max(0, state.strength(creep)) for creep in player.line)
    catalogue, known = state.catalogue, state.known
    heroes = sum(1 for s in player.hand if s in known and catalogue[known[s]].kind is Kind.HERO)
    return (
        WEIGHTS["strength"] * line
        + WEIGHTS["line"] * len(player.line)
        + WEIGHTS["deck_creeps"] * player.deck_creeps
        + WEIGHTS["hand"] * len(player.hand)
        + WEIGHTS["heroes"] * heroes
    )


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

    def __init__(self, seed: int, budget: PlanBudget | None = None) -> None:
        self.seed = seed
        self.budget = budget or PlanBudget(playouts=200)
        self.policy = HeuristicBot(seed)  # its own steps (declaring, Monsters, discards)
        self.last_playouts = 0

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        """Without the view (an ``Observation`` only) it plays as its heuristic."""
        return self.policy.choose(obs, legal)

    def plan(self, view: State, seat: int, legal: Sequence[Action]) -> Action:
        """The action to take at ``view`` (the seat's information state), among ``legal``."""
        obs = observation_of_view(view, seat)
        request = pending(view)
        self.last_playouts = 0
        if not isinstance(request, Decide) or request.topic not in PLANNED_TOPICS:
            return self.policy.choose(obs, legal)
        candidates = self._candidates(obs, legal)
        if len(candidates) == 1:
            return candidates[0]
        fork = copy.deepcopy(self.policy)  # asked without touching the policy's memory
        baseline = _effect(obs, fork.choose(obs, legal))
        base = next((i for i, c in enumerate(candidates) if _effect(obs, c) == baseline), 0)
        scores = self._compare(view, seat, candidates, base)
        alive = [i for i in range(len(candidates)) if scores[i]]
        if not alive:
            return self.policy.choose(obs, legal)
        best = max(alive, key=lambda i: _mean(scores[i]))
        if best != base and not _clearly_better(scores[best], scores[base]):
            best = base
        if best == base:
            self.policy = fork  # it remembers what it just chose (an ask, a withdrawal)
        return candidates[best]

    def _compare(
        self, view: State, seat: int, candidates: list[Action], base: int
    ) -> list[list[float]]:
        """Every live candidate played out in the same sampled worlds with the same chance
        answers (common random numbers: the differences are what counts); after every few
        worlds all but the best third are dropped, the policy's own choice kept to compare
        against, until one challenger is left to duel it."""
        rng = random.Random(f"{self.seed}:{_view_digest(view, seat)}")
        budget = self.budget
        clock = budget.clock
        deadline = clock() + budget.seconds if budget.seconds is not None and clock else None
        scores: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        done = worlds = 0
        while True:
            world = determinize(view, rng)
            if world is None:
                break
            chance_seed = rng.randrange(1 << 30)
            results = []
            for index in alive:
                if budget.playouts is not None and done >= budget.playouts:
                    break
                if deadline is not None and clock is not None and clock() >= deadline:
                    break
                results.append(self._playout(world, seat, candidates[index], chance_seed))
                done += 1
            if len(results) < len(alive):
                break  # out of budget mid-world: that world is not counted for anyone
            for index, result in zip(alive, results, strict=True):
                scores[index].append(result)
            worlds += 1
            if worlds % SCREEN_WORLDS == 0 and len(alive) > 2:
                ranked = sorted(alive, key=lambda i: -_mean(scores[i]))
                keep = ranked[: max(1, len(ranked) // 3)]
                alive = sorted(set(keep) | {base})
                if len(alive) <= 2:
                    # The duel: the winner of a screen looks better than it is (it won a
                    # draw of noise), so the last two are compared on fresh worlds only.
                    for index in alive:
                        scores[index] = []
        self.last_playouts = done
        for index in range(len(candidates)):
            if index not in alive:
                scores[index] = []
        return scores

    def _candidates(self, obs: Observation, legal: Sequence[Action]) -> list[Action]:
        """The legal actions, one per distinct effect, without attacks the policy could not
        finish (it declares the attackers of an attack the planner chose)."""
        seen: dict[tuple[object, ...], Action] = {}
        for action in legal:
            if isinstance(action, DeclareAttack) and (
                plan_attack(obs, action.target) is None or self.policy.gave_up(obs, action.target)
            ):
                continue
            seen.setdefault(_effect(obs, action), action)
        return list(seen.values()) or list(legal)

    def _playout(self, world: State, seat: int, first: Action, chance_seed: int) -> float:
        rng = random.Random(chance_seed)
        state = apply(world, first)
        policies = [HeuristicBot(rng.randrange(1 << 30)) for _ in range(state.n)]
        start = state.turn.number if state.turn else 0
        horizon = self.budget.horizon
        for _ in range(STEP_LIMIT):
            request = pending(state)
            if isinstance(request, GameOver):
                break
            if state.turn is not None and state.turn.number - start >= horizon:
                break
            actor = request.actor
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


def _effect(obs: Observation, action: Action) -> tuple[object, ...]:
    """What tells actions apart: copies of one card on one target do the same."""
    fields = dict(vars(action))
    fields.pop("slot", None)
    card = fields.pop("card", None)
    name = obs.catalogue[card].name if isinstance(card, int) else None
    return (type(action).__name__, name, tuple(sorted(fields.items())))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else -1.0


def _clearly_better(challenger: list[float], base: list[float]) -> bool:
    """Whether ``challenger`` beats ``base`` on the worlds both played by more than noise:
    the mean paired difference above ``CONFIDENCE`` standard errors."""
    diffs = [a - b for a, b in zip(challenger, base, strict=False)]
    if len(diffs) < 2:
        return False
    mean = sum(diffs) / len(diffs)
    spread = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean > CONFIDENCE * math.sqrt(spread / len(diffs)) and mean > 0


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
