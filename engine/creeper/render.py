"""Plain-text Creeper board for an 80x24 terminal.

Holes sit every 4 columns; each octagon is drawn as 3 characters between its corner holes:

    +  empty hole        o  light pin        x  dark pin
    .  empty octagon     (L) (D) discs       =L= =D= home bases
    last move: origin *, target [o], jumped octagon {L}

``flip`` draws it mirrored top to bottom, for the dark player: their first home base (row 0)
at the bottom left, where the light player sees theirs, as the page does.
"""

from __future__ import annotations

from creepnet.engine.creeper.board import Colour, Move, MoveKind, tables
from creepnet.engine.creeper.rules import State, outcome

_PIN = {Colour.LIGHT: "o", Colour.DARK: "x"}
_ANSI = {Colour.LIGHT: "\x1b[1;33m", Colour.DARK: "\x1b[1;35m"}
_HIGHLIGHT = "\x1b[7m"
_RESET = "\x1b[0m"
LEGEND = "+ hole  o/x light/dark pin  (L)/(D) disc  =L=/=D= home  last move: * [ ] { }"


def render(
    state: State, last_move: Move | None = None, colour: bool = False, flip: bool = False
) -> str:
    t = tables(state.spec)
    spec = state.spec
    lattice, size = spec.lattice, spec.size

    def paint(text: str, who: Colour | None, highlight: bool = False) -> str:
        if not colour or (who is None and not highlight):
            return text
        return (_HIGHLIGHT if highlight else "") + (_ANSI[who] if who else "") + text + _RESET

    origin = target = jumped = None
    if last_move is not None:
        origin, target = t.hole_index[last_move.origin], t.hole_index[last_move.target]
        if last_move.kind is MoveKind.JUMP:
            (r1, c1), (r2, c2) = t.hole_point(origin), t.hole_point(target)
            jumped = min(r1, r2) * size + min(c1, c2)

    def hole_cell(r: int, c: int) -> str:
        index = r * lattice + c
        if t.hole_names[index] is None:
            return "   "
        who = next((p for p in Colour if state.pins(p) >> index & 1), None)
        mark = _PIN[who] if who else ("*" if index == origin else "+")
        if index == target:
            return paint(f"[{mark}]", who, highlight=True)
        return f" {paint(mark, who, highlight=index == origin)} "

    homes = {p: c for c in Colour for p in spec.bases(c)}

    def octagon_cell(i: int, j: int) -> str:
        index = i * size + j
        if (i, j) in homes:
            return paint(f"={homes[i, j].value[0].upper()}=", homes[i, j])
        who = next((p for p in Colour if state.discs(p) >> index & 1), None)
        letter = who.value[0].upper() if who else "."
        if index == jumped:
            return paint(f"{{{letter}}}", who, highlight=True)
        return paint(f"({letter})", who) if who else " . "

    files = "".join(f"{chr(ord('a') + c):^4}" for c in range(lattice))
    octagon_files = "".join(f"{chr(ord('A') + j):^4}" for j in range(size))

    def hole_row(r: int) -> str:
        holes = " ".join(hole_cell(r, c) for c in range(lattice))
        return f"{lattice - r:>2} {holes} {lattice - r}"

    def octagon_row(i: int) -> str:  # between hole rows i and i + 1
        return f"     {' '.join(octagon_cell(i, j) for j in range(size))}   {size - i}"

    lines = ["   " + files]
    for r in range(lattice - 1, -1, -1) if flip else range(lattice):
        lines.append(hole_row(r))
        below = r - 1 if flip else r
        if 0 <= below < size:
            lines.append(octagon_row(below))
    lines.append("     " + octagon_files)
    lines.append(_status(state, last_move))
    lines.append(LEGEND)
    return "\n".join(line.rstrip() for line in lines)


def _status(state: State, last_move: Move | None) -> str:
    over = outcome(state)
    head = f"game over: {over}" if over else f"{state.to_move} to move"
    discs = f"discs L{state.light_discs.bit_count()} D{state.dark_discs.bit_count()}"
    lost = f"pins lost L{state.captured(Colour.LIGHT)} D{state.captured(Colour.DARK)}"
    last = f" | last {last_move}" if last_move else ""
    return f"ply {state.ply} | {head} | {discs} | {lost}{last}"
