"""Move notation: holes named like chess squares (file a.., rank 1 at the bottom).

``e7-d6`` is a step or a diagonal jump, ``c3xc5`` a capture. Parsing checks the board geometry
only; whether the move is legal in a position is `apply`'s business.
"""

from __future__ import annotations

import re
from functools import lru_cache

from creepnet.engine.creeper.board import STANDARD, BoardSpec, Move, MoveKind, tables

_SHAPE = re.compile(r"([A-Za-z])(\d{1,2})([-x])([A-Za-z])(\d{1,2})")


class NotationError(ValueError):
    """Text that does not name a move on the board; the message says why."""


def parse_move(text: str, spec: BoardSpec = STANDARD) -> Move:
    return _parse_move(text, spec)


# Replaying a log parses the same few hundred move texts over and over; Moves are immutable.
@lru_cache(maxsize=4096)
def _parse_move(text: str, spec: BoardSpec) -> Move:
    match = _SHAPE.fullmatch(text.strip())
    if not match:
        raise NotationError(
            f"bad syntax {text!r}: write a move as origin, '-' or 'x', target, e.g. e7-d6 or c3xc5"
        )
    file_a, rank_a, separator, file_b, rank_b = match.groups()
    origin = _hole(file_a, rank_a, spec)
    target = _hole(file_b, rank_b, spec)
    if origin == target:
        raise NotationError(f"{text!r} starts and ends on the same hole {origin}")
    entry = tables(spec).entries.get((origin, target))
    if entry is None:
        raise NotationError(
            f"{origin} to {target} is no move: a pin steps or captures along a line, "
            "or jumps to the diagonally neighbouring hole"
        )
    move = entry[4]
    if move.kind is MoveKind.CAPTURE and separator != "x":
        raise NotationError(f"wrong separator: {origin} to {target} is a capture, write {move}")
    if move.kind is not MoveKind.CAPTURE and separator != "-":
        raise NotationError(
            f"wrong separator: {origin} to {target} is a {move.kind.value}, write {move}"
        )
    return move


def format_move(move: Move) -> str:
    return str(move)


def _hole(file: str, rank: str, spec: BoardSpec) -> str:
    name = f"{file}{rank}"
    if file.isupper():
        raise NotationError(f"{name}: holes are written in lowercase (capitals name octagons)")
    last_file = chr(ord("a") + spec.lattice - 1)
    if not ("a" <= file <= last_file and 1 <= int(rank) <= spec.lattice) or rank.startswith("0"):
        raise NotationError(f"no such hole {name}: files run a-{last_file}, ranks 1-{spec.lattice}")
    if name not in tables(spec).hole_index:
        raise NotationError(f"no such hole {name}: that lattice point has no hole (missing corner)")
    return name
