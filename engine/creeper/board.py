"""Creeper board geometry as data (`BoardSpec`) and the lookup tables derived from it.

Holes live on a lattice of (size + 1) x (size + 1) points, indexed ``row * lattice + col``
(row 0 at the top); octagons on a size x size grid, indexed ``row * size + col``. Pins and discs
are bitmasks over these indices, which keeps move generation to a few integer operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from functools import cache

Point = tuple[int, int]  # (row from the top, column from the left)


class Colour(Enum):
    LIGHT = "light"
    DARK = "dark"

    @property
    def other(self) -> Colour:
        return _DARK if self is _LIGHT else _LIGHT

    def __str__(self) -> str:
        return self.value


# Module names for the members: on Python 3.11 ``Colour.LIGHT`` is a descriptor lookup costing
# about ten times a global's, and the rules ask for a colour several times per move.
_LIGHT, _DARK = Colour.LIGHT, Colour.DARK


@dataclass(frozen=True)
class BoardSpec:
    """Everything that varies between board layouts; code paths never hard-code these."""

    size: int  # octagons per side
    missing_holes: tuple[Point, ...]  # lattice points that have no hole
    light_bases: tuple[Point, Point]
    dark_bases: tuple[Point, Point]
    light_start: tuple[Point, ...]
    dark_start: tuple[Point, ...]

    @property
    def lattice(self) -> int:
        return self.size + 1

    def __hash__(self) -> int:
        # tables(spec) is looked up several times per move: hash the nested tuples once.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(tuple(self.__dict__[name] for name in _SPEC_FIELDS))
            object.__setattr__(self, "_hash", cached)
        return cached

    def bases(self, colour: Colour) -> tuple[Point, Point]:
        return self.light_bases if colour is _LIGHT else self.dark_bases

    def start(self, colour: Colour) -> tuple[Point, ...]:
        return self.light_start if colour is _LIGHT else self.dark_start


_SPEC_FIELDS = ("size", "missing_holes", "light_bases", "dark_bases", "light_start", "dark_start")

STANDARD = BoardSpec(
    size=6,
    missing_holes=((0, 0), (0, 6), (6, 0), (6, 6)),
    light_bases=((0, 5), (5, 0)),
    dark_bases=((0, 0), (5, 5)),
    light_start=((0, 4), (0, 5), (1, 6), (2, 6), (4, 0), (5, 0), (6, 1), (6, 2)),
    dark_start=((0, 1), (0, 2), (1, 0), (2, 0), (6, 4), (6, 5), (4, 6), (5, 6)),
)


class MoveKind(Enum):
    JUMP = "jump"  # diagonal, over an octagon
    STEP = "step"  # orthogonal, to the adjacent hole
    CAPTURE = "capture"  # orthogonal, over an opponent pin


@dataclass(frozen=True)
class Move:
    """A pin move named by its holes in notation (e.g. ``e7``), so it is board-independent."""

    origin: str
    target: str
    kind: MoveKind

    def __str__(self) -> str:
        separator = "x" if self.kind is MoveKind.CAPTURE else "-"
        return f"{self.origin}{separator}{self.target}"


# Move-table entries are plain tuples for speed in the hot loops:
# (kind, toggle, target_bit, aux_bit, move) where toggle = origin_bit | target_bit and aux_bit is
# the jumped octagon's bit (0 over a home base) or the captured hole's bit.
JUMP, STEP, CAPTURE = 0, 1, 2
Entry = tuple[int, int, int, int, Move]

_KIND_CODE = {MoveKind.JUMP: JUMP, MoveKind.STEP: STEP, MoveKind.CAPTURE: CAPTURE}
_DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))
_ORTHOGONALS = ((-1, 0), (0, -1), (0, 1), (1, 0))


class Side(IntEnum):
    """Index of a colour in per-colour tables."""

    LIGHT = 0
    DARK = 1


def side(colour: Colour) -> Side:
    return Side.LIGHT if colour is _LIGHT else Side.DARK


def hole_name(spec: BoardSpec, point: Point) -> str:
    row, col = point
    return f"{chr(ord('a') + col)}{spec.lattice - row}"


def octagon_name(spec: BoardSpec, point: Point) -> str:
    row, col = point
    return f"{chr(ord('A') + col)}{spec.size - row}"


@dataclass(frozen=True)
class Tables:
    """Precomputed geometry for one BoardSpec (see `tables`)."""

    spec: BoardSpec
    hole_mask: int
    octagon_mask: int
    home_mask: int
    not_first_col: int  # octagon bits outside column 0 (guards the shift-left wrap)
    not_last_col: int
    base_rings: tuple[tuple[int, int], tuple[int, int]]  # per Side: octagons next to each base
    hole_names: tuple[str | None, ...]  # per lattice index; None where there is no hole
    hole_index: dict[str, int]
    octagon_names: tuple[str, ...]
    octagon_index: dict[str, int]
    jumps: tuple[tuple[Entry, ...], ...]  # per hole index
    steps: tuple[tuple[Entry, ...], ...]
    captures: tuple[tuple[Entry, ...], ...]
    entries: dict[tuple[str, str], Entry]  # every geometrically possible move by its holes

    def hole_point(self, index: int) -> Point:
        return divmod(index, self.spec.lattice)

    def grow(self, cells: int) -> int:
        """Octagons orthogonally adjacent to `cells` (plus, harmlessly, some of `cells`)."""
        n = self.spec.size
        return (
            ((cells << 1) & self.not_first_col)
            | ((cells >> 1) & self.not_last_col)
            | (cells << n)
            | (cells >> n)
        ) & self.octagon_mask


def tables(spec: BoardSpec) -> Tables:
    """The lookup tables of spec, memoised on the spec itself (several lookups per move)."""
    cached = spec.__dict__.get("_tables")
    if cached is None:
        cached = _build_tables(spec)
        object.__setattr__(spec, "_tables", cached)
    return cached


@cache
def _build_tables(spec: BoardSpec) -> Tables:
    lattice, size = spec.lattice, spec.size
    missing = set(spec.missing_holes)

    def is_hole(r: int, c: int) -> bool:
        return 0 <= r < lattice and 0 <= c < lattice and (r, c) not in missing

    def hole_bit(r: int, c: int) -> int:
        return 1 << (r * lattice + c)

    def octagon_bit(r: int, c: int) -> int:
        return 1 << (r * size + c)

    homes = {*spec.light_bases, *spec.dark_bases}
    home_mask = sum(octagon_bit(*p) for p in homes)

    def ring(base: Point) -> int:
        r, c = base
        return sum(
            octagon_bit(r + dr, c + dc)
            for dr, dc in _ORTHOGONALS
            if 0 <= r + dr < size and 0 <= c + dc < size and (r + dr, c + dc) not in homes
        )

    hole_names: list[str | None] = [None] * (lattice * lattice)
    for r in range(lattice):
        for c in range(lattice):
            if is_hole(r, c):
                hole_names[r * lattice + c] = hole_name(spec, (r, c))
    octagon_names = tuple(octagon_name(spec, divmod(i, size)) for i in range(size * size))

    def entry(kind: MoveKind, r: int, c: int, r2: int, c2: int, aux: int) -> Entry:
        move = Move(hole_name(spec, (r, c)), hole_name(spec, (r2, c2)), kind)
        return (_KIND_CODE[kind], hole_bit(r, c) | hole_bit(r2, c2), hole_bit(r2, c2), aux, move)

    jumps, steps, captures = [], [], []
    for index in range(lattice * lattice):
        r, c = divmod(index, lattice)
        here_jumps, here_steps, here_captures = [], [], []
        if is_hole(r, c):
            for dr, dc in _DIAGONALS:
                if is_hole(r + dr, c + dc):
                    octagon = (min(r, r + dr), min(c, c + dc))
                    aux = 0 if octagon in homes else octagon_bit(*octagon)
                    here_jumps.append(entry(MoveKind.JUMP, r, c, r + dr, c + dc, aux))
            for dr, dc in _ORTHOGONALS:
                if is_hole(r + dr, c + dc):
                    here_steps.append(entry(MoveKind.STEP, r, c, r + dr, c + dc, 0))
                if is_hole(r + dr, c + dc) and is_hole(r + 2 * dr, c + 2 * dc):
                    over = hole_bit(r + dr, c + dc)
                    here_captures.append(
                        entry(MoveKind.CAPTURE, r, c, r + 2 * dr, c + 2 * dc, over)
                    )
        jumps.append(tuple(here_jumps))
        steps.append(tuple(here_steps))
        captures.append(tuple(here_captures))

    all_entries = [e for per_hole in (*jumps, *steps, *captures) for e in per_hole]
    first_col = sum(octagon_bit(r, 0) for r in range(size))
    last_col = sum(octagon_bit(r, size - 1) for r in range(size))
    octagon_mask = (1 << (size * size)) - 1
    return Tables(
        spec=spec,
        hole_mask=sum(1 << i for i, name in enumerate(hole_names) if name),
        octagon_mask=octagon_mask,
        home_mask=home_mask,
        not_first_col=octagon_mask & ~first_col,
        not_last_col=octagon_mask & ~last_col,
        base_rings=(
            (ring(spec.light_bases[0]), ring(spec.light_bases[1])),
            (ring(spec.dark_bases[0]), ring(spec.dark_bases[1])),
        ),
        hole_names=tuple(hole_names),
        hole_index={name: i for i, name in enumerate(hole_names) if name},
        octagon_names=octagon_names,
        octagon_index={name: i for i, name in enumerate(octagon_names)},
        jumps=tuple(jumps),
        steps=tuple(steps),
        captures=tuple(captures),
        entries={(e[4].origin, e[4].target): e for e in all_entries},
    )


def iter_bits(mask: int):
    """Indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
