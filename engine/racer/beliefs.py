"""What the other seats' choices say about their hidden hands: sampled worlds resampled by how
well a model of those seats (the heuristic bot) explains the choices this seat saw them make.

`PlannerBot` samples worlds from the cards its seat has not seen (`planner.determinize`). A
seat that stopped an exchange it was losing held no Hero that helps (the heuristic plays one
whenever it can), one that let a Calamity stand held no Monster of its family, one that did not
heal held no matching Good Fortune. ``Beliefs`` remembers the last ``memory`` such choices
(their public facts: this seat's view, or the public state, just before; who chose; what) and,
at each decision, replays them in each of a pool of sampled worlds: the chooser's hand *then*
is read from the world (a card keeps its slot as it moves, so the world that deals today's
hidden slots also says what each hand held then). A world weighs ``MISFIT ** k`` for ``k``
choices the model would not have made, and the planner's worlds take the other seats' hands
from the pool by weight (sampling-importance-resampling, a particle filter's step; Rubin 1988):
soft, so a person the model does not describe only blurs the weights, never rules a hand out.

Told the opponent's hand, the planner would win about 11 points more of 2-player games; with
beliefs its worlds' Heroes are off by 29% less, and it won 132 of 200 fresh deals where it had
won 128 (docs/PERFORMANCE.md, Bots): level within the noise, at 6% more time a decision.

It sees only what the seat sees: the views it is given and actions every seat sees.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TypeAlias

from creepnet.engine.racer.actions import Action, Decide, PlayHero
from creepnet.engine.racer.bots import HeuristicBot
from creepnet.engine.racer.cards import Catalogue
from creepnet.engine.racer.rules import legal_actions, pending
from creepnet.engine.racer.state import State
from creepnet.engine.racer.view import Observation, observation_of_view

MEMORY = 8  # the last choices replayed (each costs a model's choice per sampled world)
POOL = 48  # worlds weighed at each decision; its hands are reused, the rest dealt afresh
MISFIT = 0.1  # a world's weight is this to the power of the choices it does not explain
# The model's move is random in one place (an attack or a Calamity, when it holds no Hero):
# a move fits if any of these seeds of the model makes a move of the same kind.
MOVE_SEEDS = (1, 2, 3)
TOPICS = frozenset({"move", "hero", "react", "hostage"})
ChoiceKind: TypeAlias = tuple[str, str | None]  # an action's type, and a Hero's name


@dataclass(frozen=True)
class Choice:
    """A choice another seat made, as this seat saw it: ``view`` is this seat's view just
    before it (``public`` that chooser's observation there as this seat can make it, its hand
    unknown)."""

    view: State
    actor: int
    action: Action
    public: Observation
    kind: ChoiceKind  # what the model's choice is compared with
    fits: dict[tuple[tuple[int, int], ...], bool] = field(default_factory=dict, compare=False)

    @classmethod
    def seen(cls, view: State, actor: int, action: Action) -> Choice:
        kind = _kind(action, view.catalogue)
        return cls(view, actor, action, observation_of_view(view, actor), kind)


Sampler = Callable[[State, random.Random], State | None]  # a view's worlds (`determinize`)
WorldSource = Callable[[random.Random], State | None]


class Beliefs:
    def __init__(self, seat: int, memory: int = MEMORY) -> None:
        self.seat = seat
        self.choices: deque[Choice] = deque(maxlen=memory)

    def observe(self, view: State, actor: int, action: Action) -> None:
        """Remember ``actor``'s ``action`` taken at ``view`` (this seat's view) if it may say
        something about a hidden hand."""
        request = pending(view)
        if (
            actor != self.seat
            and isinstance(request, Decide)
            and request.seat == actor
            and request.topic in TOPICS
            and self.choices.maxlen
        ):
            self.choices.append(Choice.seen(view, actor, action))

    def misfits(self, world: State) -> int:
        """How many remembered choices the model would not have made in ``world``."""
        return sum(not _fits(choice, world) for choice in self.choices)

    def sampler(self, view: State, rng: random.Random, sample: Sampler) -> WorldSource:
        """Worlds for one decision at ``view``: ``POOL`` worlds from ``sample`` are weighted
        by the remembered choices (``MISFIT`` to the power of those each does not explain);
        each world asked for then takes the other seats' hidden hands of one of them, drawn
        by weight, and ``sample`` deals the rest afresh. Without choices, ``sample`` alone."""
        if not self.choices:
            return lambda r: sample(view, r)
        pool = [w for _ in range(POOL) if (w := sample(view, rng)) is not None]
        if not pool:
            return lambda r: None
        hidden = [
            slot
            for player in view.players
            if player.seat != self.seat
            for slot in player.hand
            if slot not in view.known
        ]
        hands = [
            MappingProxyType({**view.known, **{slot: w.known[slot] for slot in hidden}})
            for w in pool
        ]
        weights = [MISFIT ** self.misfits(w) for w in pool]
        return lambda r: sample(replace(view, known=r.choices(hands, weights)[0]), r)


def _fits(choice: Choice, world: State) -> bool:
    """Whether the model, holding what ``world`` says the chooser held then, makes a choice
    like ``choice.action`` (the same kind of move; the same Hero; the same kind of answer)."""
    then, actor = choice.view, choice.actor
    slots = then.players[actor].hand
    if any(slot not in world.known for slot in slots):
        return True  # a world of another shape says nothing here
    hand = tuple((slot, world.known[slot]) for slot in slots)
    if (known := choice.fits.get(hand)) is not None:
        return known
    choice.fits[hand] = fits = _model_fits(choice, hand)
    return fits


def _model_fits(choice: Choice, hand: tuple[tuple[int, int], ...]) -> bool:
    then, actor, kind = choice.view, choice.actor, choice.kind
    # Its legal choices and its observation differ from world to world by its hand only.
    legal = legal_actions(replace(then, known=MappingProxyType({**then.known, **dict(hand)})))
    if len(legal) == 1:  # forced (a hand without a Hero can only stop)
        return _kind(legal[0], then.catalogue) == kind
    obs = replace(choice.public, hand=hand)
    seeds = MOVE_SEEDS if obs.request == Decide(actor, "move") else MOVE_SEEDS[:1]
    return any(
        _kind(HeuristicBot(seed).choose(obs, legal), then.catalogue) == kind for seed in seeds
    )


def _kind(action: Action, catalogue: Catalogue) -> ChoiceKind:
    """What the model's choice is compared by: its type, and for a Hero its name."""
    name = catalogue[action.card].name if isinstance(action, PlayHero) else None
    return type(action).__name__, name
