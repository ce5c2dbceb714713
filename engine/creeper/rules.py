"""Creeper game state and rules: immutable `State`, legal moves, `apply`, outcome, perft."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from creepnet.engine.creeper import core
from creepnet.engine.creeper.board import (
    CAPTURE,
    JUMP,
    STANDARD,
    BoardSpec,
    Colour,
    Entry,
    Move,
    Tables,
    iter_bits,
    side,
    tables,
)
from creepnet.engine.creeper.notation import parse_move

LIGHT, DARK = Colour.LIGHT, Colour.DARK  # as globals: a member lookup on the Enum costs more


class IllegalMove(ValueError):
    """A move that the rules forbid in the given position; the message says why."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended. The engine detects CONNECTION and NO_MOVES; the session layer records
    AGREEMENT and RESIGNATION, which are decided outside the rules."""

    CONNECTION: ClassVar[str] = "connection"  # winner linked both home bases
    NO_MOVES: ClassVar[str] = "no-moves"  # draw: the side to move cannot move
    AGREEMENT: ClassVar[str] = "agreement"  # draw agreed by the players
    RESIGNATION: ClassVar[str] = "resignation"  # winner's opponent resigned

    winner: Colour | None
    reason: str

    def __post_init__(self) -> None:
        decisive = {self.CONNECTION, self.RESIGNATION}
        if self.reason not in decisive | {self.NO_MOVES, self.AGREEMENT}:
            raise ValueError(f"unknown outcome reason {self.reason!r}")
        if (self.winner is not None) != (self.reason in decisive):
            raise ValueError(
                f"a {self.reason} outcome {'needs' if self.reason in decisive else 'has no'} winner"
            )

    def __str__(self) -> str:
        if self.winner is None:
            return "draw: no legal move" if self.reason == self.NO_MOVES else "draw by agreement"
        how = "connection" if self.reason == self.CONNECTION else "resignation"
        return f"{self.winner} wins by {how}"


@dataclass(frozen=True)
class State:
    """A position. Pins are bitmasks over hole indices (row * lattice + col), discs over octagon
    indices (row * size + col); build crafted positions with `position`.

    `history` holds the earlier positions since the last irreversible move (a capture or a
    newly placed disc), which is all a repetition can look back to: a chain of
    ``(position, older history)`` pairs, newest first, ``()`` when empty, each position the
    tuple of side to move, pins and discs (what ``key()`` encodes, cheaper to build).  A chain,
    not a flat tuple, so a move shares its history instead of copying it (a long game was
    quadratic to replay).
    """

    to_move: Colour
    light_pins: int
    dark_pins: int
    light_discs: int = 0
    dark_discs: int = 0
    ply: int = 0
    spec: BoardSpec = field(default=STANDARD, repr=False)
    history: tuple[()] | tuple[tuple, tuple] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        t = tables(self.spec)
        if (self.light_pins | self.dark_pins) & ~t.hole_mask:
            raise ValueError("a pin stands where there is no hole")
        if self.light_pins & self.dark_pins:
            raise ValueError("two pins share a hole")
        if (self.light_discs | self.dark_discs) & (t.home_mask | ~t.octagon_mask):
            raise ValueError("a disc lies on a home base or off the board")
        if self.light_discs & self.dark_discs:
            raise ValueError("two discs share an octagon")

    def pins(self, colour: Colour) -> int:
        return self.light_pins if colour is LIGHT else self.dark_pins

    def discs(self, colour: Colour) -> int:
        return self.light_discs if colour is LIGHT else self.dark_discs

    def pin_holes(self, colour: Colour) -> list[str]:
        names = tables(self.spec).hole_names
        return [names[i] or "" for i in iter_bits(self.pins(colour))]

    def disc_octagons(self, colour: Colour) -> list[str]:
        names = tables(self.spec).octagon_names
        return [names[i] for i in iter_bits(self.discs(colour))]

    def captured(self, colour: Colour) -> int:
        """How many of `colour`'s pins have left the game."""
        return len(self.spec.start(colour)) - self.pins(colour).bit_count()

    def key(self) -> bytes:
        """Canonical position encoding: side to move, pins and discs (not ply or history)."""
        t = tables(self.spec)
        holes, octagons = t.hole_mask.bit_length(), t.spec.size * t.spec.size
        packed = self.light_pins
        packed = (packed << holes) | self.dark_pins
        packed = (packed << octagons) | self.light_discs
        packed = (packed << octagons) | self.dark_discs
        packed = (packed << 1) | (self.to_move is Colour.DARK)
        return packed.to_bytes((2 * holes + 2 * octagons + 1 + 7) // 8, "big")


def initial_state(spec: BoardSpec = STANDARD) -> State:
    lattice = spec.lattice
    light = sum(1 << (r * lattice + c) for r, c in spec.light_start)
    dark = sum(1 << (r * lattice + c) for r, c in spec.dark_start)
    return State(Colour.LIGHT, light, dark, spec=spec)


def position(
    *,
    light_pins: Iterable[str] | str = (),
    dark_pins: Iterable[str] | str = (),
    light_discs: Iterable[str] | str = (),
    dark_discs: Iterable[str] | str = (),
    to_move: Colour = Colour.LIGHT,
    ply: int = 0,
    spec: BoardSpec = STANDARD,
) -> State:
    """A crafted position from hole names (``"e7 d6"`` or a list) and octagon names (``"B5"``)."""
    t = tables(spec)

    def mask(names: Iterable[str] | str, index: dict[str, int], what: str) -> int:
        bits = 0
        for name in names.split() if isinstance(names, str) else names:
            if name not in index:
                raise ValueError(f"no such {what} {name!r}")
            if bits & (1 << index[name]):
                raise ValueError(f"{what} {name} listed twice")
            bits |= 1 << index[name]
        return bits

    return State(
        to_move,
        mask(light_pins, t.hole_index, "hole"),
        mask(dark_pins, t.hole_index, "hole"),
        mask(light_discs, t.octagon_index, "octagon"),
        mask(dark_discs, t.octagon_index, "octagon"),
        ply,
        spec,
    )


def _relative(state: State) -> tuple[int, int, int, int]:
    """(mine, theirs, own, opp) from the side to move."""
    me, you = state.to_move, state.to_move.other
    return state.pins(me), state.pins(you), state.discs(me), state.discs(you)


def _won_by_last_mover(t: Tables, state: State) -> bool:
    # Only the mover's discs can turn to the mover's colour, so only the mover can have won.
    # Memoised on the (immutable) state: a replay asks it of every position twice, once in
    # outcome() after the move and again when apply() checks the next move.
    won = state.__dict__.get("_won")
    if won is None:
        last = state.to_move.other
        won = core.connected(t, state.discs(last), side(last))
        object.__setattr__(state, "_won", won)
    return won


def outcome(state: State) -> Outcome | None:
    """CONNECTION win for the side that just moved, NO_MOVES draw, or None while play goes on."""
    t = tables(state.spec)
    if _won_by_last_mover(t, state):
        return Outcome(state.to_move.other, Outcome.CONNECTION)
    pins = (state.light_pins, state.dark_pins)
    if state.to_move is DARK:
        pins = pins[::-1]
    if not core.has_move(t, *pins):
        return Outcome(None, Outcome.NO_MOVES)
    return None


def legal_moves(state: State) -> list[Move]:
    """Legal moves pin by pin in hole order (top row first): jumps, steps, then captures."""
    t = tables(state.spec)
    if _won_by_last_mover(t, state):
        return []
    mine, theirs, _, _ = _relative(state)
    return [e[4] for e in core.generate(t, mine, theirs)]


def apply(state: State, move: Move | str) -> State:
    """The position after `move` (a Move or its notation); IllegalMove says why it cannot be."""
    t = tables(state.spec)
    if isinstance(move, str):
        move = parse_move(move, state.spec)
    if _won_by_last_mover(t, state):
        raise IllegalMove(f"game is over ({outcome(state)})")
    try:
        entry = _legal_entry(t, state, move)
    except IllegalMove:
        # Only now is it worth generating every move: a legal move proves the side to move
        # has one, so a full no-moves check on the hot path would be wasted work.
        over = outcome(state)
        if over is not None:
            raise IllegalMove(f"game is over ({over})") from None
        raise
    kind, _, _, aux, _ = entry
    light = state.to_move is LIGHT
    if light:
        mine, theirs, own, opp = (
            state.light_pins,
            state.dark_pins,
            state.light_discs,
            state.dark_discs,
        )
    else:
        mine, theirs, own, opp = (
            state.dark_pins,
            state.light_pins,
            state.dark_discs,
            state.light_discs,
        )
    # Captures and new discs can never be undone, so no earlier position can recur after them.
    placed = kind == JUMP and aux and not (own | opp) & aux
    history = () if kind == CAPTURE or placed else (_position(state), state.history)
    mine, theirs, own, opp, gained = core.play(entry, mine, theirs, own, opp)
    fields = (DARK, mine, theirs, own, opp) if light else (LIGHT, theirs, mine, opp, own)
    # A move that turns no octagon leaves both sides' discs as they were, so whether the mover
    # has now won is whether its discs linked before the move, when that is known.
    won = None if gained else state.__dict__.get("_mover_linked")
    return _successor(*fields, state.ply + 1, state.spec, history, won)


def _successor(
    to_move: Colour,
    light_pins: int,
    dark_pins: int,
    light_discs: int,
    dark_discs: int,
    ply: int,
    spec: BoardSpec,
    history: tuple,
    won: bool | None,
) -> State:
    """A State built from a legal move of a valid one, which is valid by construction.

    Skips ``__post_init__``'s checks (and the frozen dataclass's per-field setattr), which
    cost about as much as the move itself on the replay path.  Memoises what is known of the
    connections (see ``_won_by_last_mover``): ``won`` if the caller knows it, and that the
    side to move has not linked, which is so after every legal move: its discs were not linked
    before it (or the game would be over) and the move can only have taken discs from it.
    """
    state = object.__new__(State)
    state.__dict__.update(
        to_move=to_move,
        light_pins=light_pins,
        dark_pins=dark_pins,
        light_discs=light_discs,
        dark_discs=dark_discs,
        ply=ply,
        spec=spec,
        history=history,
        _mover_linked=False,
    )
    if won is not None:
        state.__dict__["_won"] = won
    return state


def _legal_entry(t: Tables, state: State, move: Move) -> Entry:
    entry = t.entries.get((move.origin, move.target))
    if entry is None:  # every entry joins two holes, so only now can a name be no hole
        for name in (move.origin, move.target):
            if name not in t.hole_index:
                raise IllegalMove(f"no such hole {name!r}")
        raise IllegalMove(f"{move.origin} to {move.target} is neither a step, a jump nor a capture")
    if entry[4].kind is not move.kind:
        raise IllegalMove(
            f"{move.origin} to {move.target} is a {entry[4].kind.value}, not a {move.kind.value}"
        )
    me = state.to_move
    if me is LIGHT:
        mine, theirs = state.light_pins, state.dark_pins
    else:
        mine, theirs = state.dark_pins, state.light_pins
    origin_bit = entry[1] ^ entry[2]  # toggle = origin | target
    if not mine & origin_bit:
        holder = f"a {me.other} pin" if theirs & origin_bit else "no pin"
        raise IllegalMove(f"not your pin: {move.origin} holds {holder} and {me} is to move")
    if (mine | theirs) & entry[2]:
        raise IllegalMove(f"destination {move.target} is occupied")
    if entry[0] == CAPTURE and not theirs & entry[3]:
        over = t.hole_names[entry[3].bit_length() - 1]
        what = "your own pin, which cannot be jumped" if mine & entry[3] else "no pin"
        raise IllegalMove(f"nothing to capture: {over} holds {what}")
    return entry


def _position(state: State) -> tuple[Colour, int, int, int, int]:
    """What a repetition compares, as ``key()`` but a tuple: cheap to build on every move."""
    return (state.to_move, state.light_pins, state.dark_pins, state.light_discs, state.dark_discs)


def repetitions(state: State) -> int:
    """How many times the current position has occurred (1 the first time)."""
    key, count, node = _position(state), 1, state.history
    while node:
        earlier, node = node
        count += earlier == key
    return count


def distance(state: State, colour: Colour) -> int:
    """Fewest octagons that must still turn to `colour` to link its bases (0 once linked).

    Own discs cost 0, empty and opponent octagons 1 each (a single jump places or flips)."""
    t = tables(state.spec)
    return core.distance(t, state.discs(colour), side(colour))


def perft(state: State, depth: int) -> int:
    """Number of move sequences of exactly `depth` plies (a finished game has no moves)."""
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if depth == 0:
        return 1
    t = tables(state.spec)
    if _won_by_last_mover(t, state):
        return 0
    mine, theirs, own, opp = _relative(state)
    return core.count_leaves(t, side(state.to_move), mine, theirs, own, opp, depth)


def perft_divide(state: State, depth: int) -> dict[str, int]:
    """Perft per legal first move, keyed by its notation."""
    if depth < 1:
        raise ValueError("depth must be >= 1")
    return {str(move): perft(apply(state, move), depth - 1) for move in legal_moves(state)}


__all__ = [
    "IllegalMove",
    "Outcome",
    "State",
    "apply",
    "distance",
    "initial_state",
    "legal_moves",
    "outcome",
    "perft",
    "perft_divide",
    "position",
    "repetitions",
]
