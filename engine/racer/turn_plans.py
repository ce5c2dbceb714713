"""Turn plans for the Racer planner: a turn's first move weighed together with a second.

The planner plans each decision afresh when it comes, so its own second move is searched; but
at a turn's first move each candidate used to be judged with the heuristic's second move in
every playout. There a first round (``TURN_SHARE`` of the budget) ranks the single moves, and
the best ``turn_plans`` first moves (never a pass) are paired with each of the best
``TURN_SECONDS`` others and a pass (`TurnPlan`: that second move in every playout, the
heuristic's where it is no longer legal in a world); the pairs join the screen, and a winning
pair plays its first move. Paired on 200 fresh deals, 800-999 (`benchmarks/bots.py --only
racer2 --first 800 --games 100 --racer-turn-plans 3`, ``0`` for the planner without them, then
deals 900-949 and 950-999) it won 135 where the planner without them won 125 (more in each of
the three runs), at the same 0.21-0.24 s a decision: the default (``TURN_PLANS``), though
within the noise (docs/PERFORMANCE.md, Bots).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from creepnet.engine.racer.actions import Action, Pass
from creepnet.engine.racer.attack_plans import AttackPlan

Move: TypeAlias = Action | AttackPlan  # a whole attack is one move
TURN_SHARE = 0.2  # of the budget, for the first round on the single moves
TURN_SECONDS = 5  # the best this many single moves (and a pass) are tried as second moves
TURN_PLANS = 3  # the default: 135 of deals 800-999 where the planner without them won 125


@dataclass(frozen=True)
class TurnPlan:
    """A turn's first move and, after it, ``then`` as its second (the policy's choice where
    ``then`` is no longer legal): weighed as one candidate so that a first move is not judged
    by the policy's second alone; only ``first`` is played (the second move is planned
    afresh when it comes)."""

    first: Move
    then: Move


def pair_moves(ranked: Sequence[Move], count: int) -> list[TurnPlan]:
    """The best ``count`` of the ``ranked`` single moves (best first; not a pass), each
    followed by each of the best ``TURN_SECONDS`` others that do not play the same card, and
    by a pass (when one is among them)."""
    firsts = [move for move in ranked if not isinstance(move, Pass)]
    seconds = list(ranked[:TURN_SECONDS])
    if Pass() in ranked and Pass() not in seconds:
        seconds.append(Pass())
    return [
        TurnPlan(first, then)
        for first in firsts[:count]
        for then in seconds
        if then != first and not same_card(first, then)
    ]


def same_card(first: Move, then: Move) -> bool:
    """Whether two moves play the same hand card (it cannot be played twice)."""
    slot = getattr(first, "slot", None)
    return slot is not None and slot == getattr(then, "slot", None)
