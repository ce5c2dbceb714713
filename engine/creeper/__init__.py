"""Creeper rules engine: the public import point.

Pure and deterministic (no I/O, clock or global randomness): every peer replaying a signed move
log reaches the same states. The implementation is split by concern: `board` (geometry as
data), `core` (bit-level rules), `notation`, `rules` (State and the game API), `render`, and the
bots: `bots` (random, greedy, the classic search) and `search` (iterative-deepening alpha-beta).

The rules as implemented: docs/rules-creeper.md; the log format: docs/PROTOCOL.md §5.2.
"""

from creepnet.engine.creeper.board import STANDARD, BoardSpec, Colour, Move, MoveKind
from creepnet.engine.creeper.notation import NotationError, format_move, parse_move
from creepnet.engine.creeper.render import render
from creepnet.engine.creeper.rules import (
    IllegalMove,
    Outcome,
    State,
    apply,
    distance,
    initial_state,
    legal_moves,
    outcome,
    perft,
    perft_divide,
    position,
    repetitions,
)

__all__ = [
    "STANDARD",
    "BoardSpec",
    "Colour",
    "IllegalMove",
    "Move",
    "MoveKind",
    "NotationError",
    "Outcome",
    "State",
    "apply",
    "distance",
    "format_move",
    "initial_state",
    "legal_moves",
    "outcome",
    "parse_move",
    "perft",
    "perft_divide",
    "position",
    "render",
    "repetitions",
]
