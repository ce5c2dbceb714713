"""Bit-level Creeper rules shared by the public API, perft and the bots.

Positions here are seen from the side to move: ``mine``/``theirs`` are pin masks over holes,
``own``/``opp`` disc masks over octagons, and ``side`` (0 light, 1 dark) picks the mover's bases.
"""

from __future__ import annotations

from creepnet.engine.creeper.board import CAPTURE, JUMP, Entry, Tables


def generate(t: Tables, mine: int, theirs: int) -> list[Entry]:
    """Legal move entries for the pins `mine`, pin by pin in hole order: jumps, steps, captures."""
    occupied = mine | theirs
    moves: list[Entry] = []
    add = moves.append
    jumps, steps, captures = t.jumps, t.steps, t.captures
    pins = mine
    while pins:
        low = pins & -pins
        pins ^= low
        hole = low.bit_length() - 1
        for e in jumps[hole]:
            if not occupied & e[2]:
                add(e)
        for e in steps[hole]:
            if not occupied & e[2]:
                add(e)
        for e in captures[hole]:
            if theirs & e[3] and not occupied & e[2]:
                add(e)
    return moves


def has_move(t: Tables, mine: int, theirs: int) -> bool:
    """Whether the pins `mine` have any legal move; stops at the first (the common case)."""
    occupied = mine | theirs
    pins = mine
    while pins:
        low = pins & -pins
        pins ^= low
        hole = low.bit_length() - 1
        for e in t.jumps[hole]:
            if not occupied & e[2]:
                return True
        for e in t.steps[hole]:
            if not occupied & e[2]:
                return True
        for e in t.captures[hole]:
            if theirs & e[3] and not occupied & e[2]:
                return True
    return False


def play(e: Entry, mine: int, theirs: int, own: int, opp: int) -> tuple[int, int, int, int, bool]:
    """Apply a legal entry; also says whether an octagon turned to the mover's colour."""
    kind, toggle, _, aux, _ = e
    mine ^= toggle
    gained = False
    if kind == JUMP:
        if aux and not own & aux:
            own |= aux
            opp &= ~aux
            gained = True
    elif kind == CAPTURE:
        theirs ^= aux
    return mine, theirs, own, opp, gained


def connected(t: Tables, discs: int, side: int) -> bool:
    """Whether `discs` link, orthogonally, an octagon next to one base and one next to the other."""
    ring_a, ring_b = t.base_rings[side]
    reach = discs & ring_a
    while reach:
        if reach & ring_b:
            return True
        grown = reach | (t.grow(reach) & discs)
        if grown == reach:
            return False
        reach = grown
    return False


def distance(t: Tables, own: int, side: int) -> int:
    """Fewest octagons that must still turn to the mover's colour to connect its bases.

    A 0-1 breadth-first search done level by level on bitmasks: own discs cost 0, any other
    non-home octagon costs 1 (an empty one takes a disc, an opponent's disc can be flipped by a
    single jump just the same); home bases are impassable since no disc is ever placed there.
    """
    ring_a, ring_b = t.base_rings[side]
    passable = t.octagon_mask & ~t.home_mask
    reach = _fill(t, own & ring_a, own)
    cost = 0
    while not reach & ring_b:
        wider = _fill(t, reach | ((t.grow(reach) | ring_a) & passable), own)
        if wider == reach:  # only on a board whose bases cannot be linked at all
            return t.spec.size * t.spec.size
        reach = wider
        cost += 1
    return cost


def _fill(t: Tables, seeds: int, own: int) -> int:
    """`seeds` plus every own disc orthogonally connected to them."""
    while True:
        grown = seeds | (t.grow(seeds) & own)
        if grown == seeds:
            return seeds
        seeds = grown


def count_leaves(
    t: Tables, side: int, mine: int, theirs: int, own: int, opp: int, depth: int
) -> int:
    """Perft from a position that is not over: move sequences of exactly `depth` >= 1 plies."""
    moves = generate(t, mine, theirs)
    if depth == 1:
        return len(moves)  # bulk counting: the children need no expansion
    total = 0
    for kind, toggle, _, aux, _ in moves:
        if kind == JUMP and aux and not own & aux:
            gained_own = own | aux
            if connected(t, gained_own, side):
                continue  # won: the game ends, no sequence continues through here
            total += count_leaves(
                t, side ^ 1, theirs, mine ^ toggle, opp & ~aux, gained_own, depth - 1
            )
        elif kind == CAPTURE:
            total += count_leaves(t, side ^ 1, theirs ^ aux, mine ^ toggle, opp, own, depth - 1)
        else:
            total += count_leaves(t, side ^ 1, theirs, mine ^ toggle, opp, own, depth - 1)
    return total
