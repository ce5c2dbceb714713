"""Random games checked against a deliberately naive reference of the rules.

The reference works on sets of (row, col) points straight from the rule text, sharing nothing
with the bitboard engine except the notation of holes and octagons.
"""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.engine.creeper import (
    STANDARD,
    Colour,
    IllegalMove,
    NotationError,
    Outcome,
    State,
    apply,
    format_move,
    initial_state,
    legal_moves,
    outcome,
    parse_move,
    perft,
)
from creepnet.engine.creeper.bots import make_bot

LATTICE = STANDARD.lattice
SIZE = STANDARD.size
HOLES = {(r, c) for r in range(LATTICE) for c in range(LATTICE)} - set(STANDARD.missing_holes)
HOMES = {*STANDARD.light_bases, *STANDARD.dark_bases}
DIAGONALS = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
ORTHOGONALS = [(-1, 0), (0, -1), (0, 1), (1, 0)]


def hole(name):
    return LATTICE - int(name[1:]), ord(name[0]) - ord("a")


def hole_name(point):
    return f"{chr(ord('a') + point[1])}{LATTICE - point[0]}"


def octagon(name):
    return SIZE - int(name[1:]), ord(name[0]) - ord("A")


def snapshot(state: State):
    """(pins, discs) as {point: colour} dictionaries."""
    pins = {hole(n): c for c in Colour for n in state.pin_holes(c)}
    discs = {octagon(n): c for c in Colour for n in state.disc_octagons(c)}
    return pins, discs


def reference_moves(state: State) -> set[str]:
    pins, _ = snapshot(state)
    me = state.to_move
    moves = set()
    for (r, c), who in pins.items():
        if who is not me:
            continue
        for dr, dc in DIAGONALS + ORTHOGONALS:
            to = (r + dr, c + dc)
            if to in HOLES and to not in pins:
                moves.add(f"{hole_name((r, c))}-{hole_name(to)}")
        for dr, dc in ORTHOGONALS:
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if pins.get(over) is me.other and to in HOLES and to not in pins:
                moves.add(f"{hole_name((r, c))}x{hole_name(to)}")
    return moves


def reference_apply(state: State, text: str):
    pins, discs = snapshot(state)
    origin, target = hole(text[:2]), hole(text[3:])
    me = pins.pop(origin)
    pins[target] = me
    (r1, c1), (r2, c2) = origin, target
    if text[2] == "x":
        del pins[(r1 + r2) // 2, (c1 + c2) // 2]
    elif abs(r1 - r2) == 1 and abs(c1 - c2) == 1:
        jumped = (min(r1, r2), min(c1, c2))
        if jumped not in HOMES:
            discs[jumped] = me
    return pins, discs


def reference_connected(discs, colour) -> bool:
    def next_to(base):
        return {(base[0] + dr, base[1] + dc) for dr, dc in ORTHOGONALS}

    base_a, base_b = STANDARD.bases(colour)
    mine = {p for p, who in discs.items() if who is colour}
    frontier = list(mine & next_to(base_a))
    seen = set(frontier)
    while frontier:
        r, c = frontier.pop()
        for dr, dc in ORTHOGONALS:
            p = (r + dr, c + dc)
            if p in mine and p not in seen:
                seen.add(p)
                frontier.append(p)
    return bool(seen & next_to(base_b))


def reference_perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    if reference_connected(snapshot(state)[1], state.to_move.other):
        return 0
    return sum(reference_perft(apply(state, m), depth - 1) for m in reference_moves(state))


def random_game(seed: int, plies: int, greedy: Colour | None = None) -> list[State]:
    """A random game; a greedy player on one side makes connections (and so wins) common."""
    states = [initial_state()]
    players = {
        c: make_bot("greedy" if c is greedy else "random", seed + i) for i, c in enumerate(Colour)
    }
    while len(states) <= plies and legal_moves(states[-1]):
        states.append(apply(states[-1], players[states[-1].to_move].choose(states[-1])))
    return states


games = st.builds(
    random_game, st.integers(0, 2**32), st.integers(0, 120), st.sampled_from([None, *Colour])
)


@settings(max_examples=25, deadline=None)
@given(games)
def test_random_games_agree_with_the_reference_and_keep_invariants(states):
    for before, after in itertools.pairwise(states):
        pins, discs = snapshot(after)
        assert len(pins) == after.light_pins.bit_count() + after.dark_pins.bit_count()
        assert not set(discs) & HOMES
        for colour in Colour:
            assert after.pins(colour).bit_count() <= before.pins(colour).bit_count()
            covered = after.light_discs | after.dark_discs
            assert before.discs(colour) & ~covered == 0  # discs never leave the board
        assert after.ply == before.ply + 1 and after.to_move is before.to_move.other
    for state in states:
        won = reference_connected(snapshot(state)[1], state.to_move.other)
        legal = [format_move(m) for m in legal_moves(state)]
        assert len(legal) == len(set(legal))
        assert set(legal) == (set() if won else reference_moves(state))
        expected = None
        if won:
            expected = Outcome(state.to_move.other, Outcome.CONNECTION)
        elif not legal:
            expected = Outcome(None, Outcome.NO_MOVES)
        assert outcome(state) == expected
        for text in legal:
            after = apply(state, text)
            assert after == apply(state, parse_move(text))  # deterministic, both input forms
            assert snapshot(after) == reference_apply(state, text)


@settings(max_examples=8, deadline=None)
@given(games)
def test_every_other_move_between_holes_is_rejected(states):
    state = states[-1]
    legal = {format_move(m) for m in legal_moves(state)}
    names = sorted(hole_name(p) for p in HOLES)
    for origin in names:
        for target in names:
            for separator in "-x":
                text = f"{origin}{separator}{target}"
                if text in legal:
                    continue
                try:
                    apply(state, text)
                except (IllegalMove, NotationError) as error:
                    assert str(error)
                else:
                    raise AssertionError(f"{text} was accepted but is not legal")


@settings(max_examples=30, deadline=None)
@given(games)
def test_notation_round_trips_for_every_legal_move(states):
    for state in states[-3:]:
        for move in legal_moves(state):
            assert parse_move(format_move(move)) == move
            assert parse_move(str(move)) == move


@settings(max_examples=30, deadline=None)
@given(games)
def test_keys_identify_positions(states):
    for a, b in itertools.pairwise(states):
        assert a.key() != b.key()  # the side to move always differs
        rebuilt = State(b.to_move, b.light_pins, b.dark_pins, b.light_discs, b.dark_discs)
        assert rebuilt.key() == b.key()


def test_perft_matches_the_reference_to_depth_3():
    assert perft(initial_state(), 3) == reference_perft(initial_state(), 3)


@settings(max_examples=10, deadline=None)
@given(games)
def test_perft_matches_the_reference_on_random_positions(states):
    state = states[-1]
    assert perft(state, 2) == reference_perft(state, 2)
