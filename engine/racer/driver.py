"""Full-information driver: plays whole games locally through the public engine API.

A seeded ``random.Random`` answers every chance request exactly as the protocol layer will
(shuffles as permutations, dice, blind picks, and the identity of each drawn slot); seats are
asked through their own information state only (``redact`` / ``observation``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from creepnet.engine.racer.actions import (
    CHANCE,
    Action,
    ChanceAction,
    Die,
    GameOver,
    Learn,
    NeedCard,
    NeedDie,
    NeedPick,
    NeedShuffle,
    Pick,
    Shuffle,
)
from creepnet.engine.racer.cards import STANDARD_CATALOGUE, Catalogue
from creepnet.engine.racer.rules import apply, legal_actions, pending
from creepnet.engine.racer.state import Options, State, new_game, redact
from creepnet.engine.racer.view import Observation, observation_of_view


class Bot(Protocol):
    name: str

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action: ...


Observer = Callable[[State, int, Action, State], None]  # (before, actor, action, after)


def chance_action(state: State, rng: random.Random) -> ChanceAction:
    """Sample the answer to the pending chance request (the state must know every slot)."""
    request = pending(state)
    if isinstance(request, NeedShuffle):
        order = list(range(request.size))
        rng.shuffle(order)
        return Shuffle(tuple(order))
    if isinstance(request, NeedDie):
        return Die(rng.randint(1, 6))
    if isinstance(request, NeedPick):
        return Pick(rng.randrange(request.size))
    if isinstance(request, NeedCard):
        return Learn(request.slot, state.known[request.slot])
    raise ValueError(f"not a chance request: {request!r}")


@dataclass(frozen=True)
class GameResult:
    final: State
    winner: int | None  # None: draw by turn limit
    turns: int
    steps: int


def play_game(
    bots: Sequence[Bot],
    seed: int,
    options: Options | None = None,
    catalogue: Catalogue = STANDARD_CATALOGUE,
    observer: Observer | None = None,
    state: State | None = None,
) -> GameResult:
    """Play to the end from a new game (or from ``state``); one bot per seat."""
    options = options or Options(players=len(bots))
    if len(bots) != options.players:
        raise ValueError("one bot per seat")
    rng = random.Random(seed)
    state = state if state is not None else new_game(options, catalogue)
    steps = 0
    while not isinstance(request := pending(state), GameOver):
        actor = request.actor
        if actor == CHANCE:
            action: Action = chance_action(state, rng)
        else:
            view = redact(state, actor)  # the seat decides on what it may know, only
            legal = legal_actions(view)
            if not legal:
                raise AssertionError(f"seat {actor} has no option at {request!r}")
            action = (
                legal[0]
                if len(legal) == 1
                else bots[actor].choose(observation_of_view(view, actor), legal)
            )
        following = apply(state, action)
        if observer is not None:
            observer(state, actor, action, following)
        state = following
        steps += 1
    return GameResult(state, request.winner, state.turn.number if state.turn else 0, steps)
