"""Creeper for the page: the board's geometry from the engine's BoardSpec, the position, the
legal moves grouped by the pin that makes them, and the draw offer.

The page draws exactly what this returns; it never knows the board's size or the rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from creepnet.engine import creeper
from creepnet.engine.creeper.board import BoardSpec, Point, hole_name, octagon_name
from creepnet.protocol.rules import GameRuleError
from creepnet.protocol.session import Session


@cache
def geometry(spec: BoardSpec = creeper.STANDARD) -> dict[str, Any]:
    """Holes on the lattice, octagons between them, and which octagons are home bases."""
    homes = {point: colour.value for colour in creeper.Colour for point in spec.bases(colour)}
    missing = set(spec.missing_holes)
    return {
        "size": spec.size,
        "lattice": spec.lattice,
        "holes": [
            {"name": hole_name(spec, (r, c)), "row": r, "col": c}
            for r in range(spec.lattice)
            for c in range(spec.lattice)
            if (r, c) not in missing
        ],
        "octagons": [
            {"name": octagon_name(spec, (r, c)), "row": r, "col": c, "home": homes.get((r, c))}
            for r in range(spec.size)
            for c in range(spec.size)
        ],
    }


def _point(spec: BoardSpec, hole: str) -> Point:
    return spec.lattice - int(hole[1:]), ord(hole[0]) - ord("a")


def last_move(spec: BoardSpec, move: creeper.Move | None) -> dict[str, Any] | None:
    if move is None:
        return None
    jumped = None
    if move.kind is creeper.MoveKind.JUMP:
        (r1, c1), (r2, c2) = _point(spec, move.origin), _point(spec, move.target)
        jumped = octagon_name(spec, (min(r1, r2), min(c1, c2)))
    return {
        "origin": move.origin,
        "target": move.target,
        "kind": move.kind.value,
        "jumped": jumped,
        "text": str(move),
    }


def position(game: Any) -> dict[str, Any]:
    """What anyone may see of a Creeper game state (all of it is public)."""
    state: creeper.State = game.state
    spec = state.spec
    colours = list(creeper.Colour)
    return {
        "geometry": geometry(spec),
        "pins": {hole: c.value for c in colours for hole in state.pin_holes(c)},
        "discs": {octagon: c.value for c in colours for octagon in state.disc_octagons(c)},
        "to_move": state.to_move.value,
        "ply": state.ply,
        "max_plies": game.max_plies,
        "captured": {c.value: state.captured(c) for c in colours},
        "disc_count": {c.value: len(state.disc_octagons(c)) for c in colours},
        "last": last_move(spec, game.last_move),
        "colours": {
            str(seat): (colour.value if (colour := game.colour_of(seat)) else None)
            for seat in (0, 1)
        },
    }


def view(session: Session) -> dict[str, Any]:
    """The position, plus what the local seat may do now (legal moves, draw answers)."""
    game = session.game_state
    result = position(game)
    result["draw_offered_by"] = game.draw_offered_by
    turn = session.my_turn()
    moves: dict[str, list[list[str]]] = {}
    if turn is not None and "move" in turn.types:
        for move in creeper.legal_moves(game.state):
            moves.setdefault(move.origin, []).append([move.target, creeper.format_move(move)])
    result["legal"] = moves
    result["can_answer_draw"] = turn is not None and "accept" in turn.types
    return result


def typed_actions(session: Session, text: str) -> Iterator[str]:
    """A typed line as it is sent; a move that cannot be played is refused in the terminal's
    words (``move_problem``: one source for both faces), before the session's own check."""
    from creepnet.cli.creeper.console import move_problem

    words = text.split()
    if words and words[0] not in ("resign", "accept", "decline") and session.started:
        problem = move_problem(session, words[0])
        if problem is not None:
            raise GameRuleError(problem)
    yield text
