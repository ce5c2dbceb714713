"""Perft counts from the start position, and the `creepnet perft` command."""

import pytest

from creepnet.cli.main import main
from creepnet.engine.creeper import (
    apply,
    initial_state,
    perft,
    perft_divide,
    position,
)

# Depth 1: light has two groups of four pins, mirror images under a half turn of the board.
# In the top-right group e7 has 2 steps (d7, e6) and 2 jumps (d6, f6); f7 has 1 step (f6) and
# 1 jump (e6), its other diagonal being its own pin g6; g6 has 1 step (f6) and 1 jump (f5), g7
# being no hole and f7, g5 its own pins; g5 has 2 steps (g4, f5) and 2 jumps (f6, f4).
# No capture is possible. 12 per group, 24 in all.
#
# Depth 2: dark also has 24 moves at the start. Of light's 12 moves per group, only four touch
# dark's options: e7-d7 blocks c7-d7 but opens c7xe7 (24), g5-g4 blocks g3-g4 but opens g3xg5
# (24), e7-d6 and g5-f4 land where c7 and g3 would jump (23 each). 2 * (10 * 24 + 2 * 23) = 572.
# Depths 3 and 4 come from the engine and are cross-checked against a naive reference
# implementation in test_creeper_properties.py (depth 3) and by the symmetry test below.
PINNED = {0: 1, 1: 24, 2: 572, 3: 14876, 4: 384824}


@pytest.mark.parametrize(("depth", "count"), sorted(PINNED.items()))
def test_perft_from_the_start(depth, count):
    assert perft(initial_state(), depth) == count


def test_divide_sums_to_perft_and_children_agree():
    state = initial_state()
    divide = perft_divide(state, 3)
    assert len(divide) == 24
    assert sum(divide.values()) == PINNED[3]
    for move, count in divide.items():
        assert perft(apply(state, move), 2) == count


def half_turn(move: str) -> str:
    def rotate(hole: str) -> str:
        return f"{chr(ord('a') + ord('g') - ord(hole[0]))}{8 - int(hole[1])}"

    return f"{rotate(move[:2])}{move[2]}{rotate(move[3:])}"


def test_divide_is_symmetric_under_a_half_turn():
    # The start position (pins, bases) maps onto itself under a half turn.
    divide = perft_divide(initial_state(), 3)
    assert {half_turn(m) for m in divide} == set(divide)
    for move, count in divide.items():
        assert divide[half_turn(move)] == count


def test_a_finished_game_has_no_moves():
    won = apply(
        position(
            light_pins="d6",
            dark_pins="g3",
            light_discs="F5 E5 C5 B5 A5 A4 A3 A2",
        ),
        "d6-e5",
    )
    assert perft(won, 0) == 1
    assert perft(won, 1) == 0 and perft(won, 3) == 0
    assert perft_divide(won, 2) == {}


def test_a_drawn_position_has_no_moves():
    # Dark's only pin, b7, is boxed in (see test_creeper_rules).
    boxed = position(light_pins="b7", dark_pins="c7 b6 a6 c6 d7 b5")
    assert perft(boxed, 1) == 0
    light_to_box = position(light_pins="c7 b6 a6 c6 d7 b5", dark_pins="b7")
    # Light's 15 moves: c7 1, d7 3, a6 1, b6 2, c6 3, b5 5 (no captures). Every light pin is a
    # blocker, and moving one frees exactly one dark reply: c7 away frees b7-c7, d7 away b7xd7,
    # a6-a5 the jump b7-a6 over dark's own base, b6 away b7-b6, c6 away b7-c6, b5 away b7xb5.
    assert perft(light_to_box, 1) == 15
    assert set(perft_divide(light_to_box, 2).values()) == {1}


def test_perft_rejects_negative_depth():
    with pytest.raises(ValueError):
        perft(initial_state(), -1)


def test_cli_perft(capsys):
    assert main(["perft", "creeper", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "perft(2) = 572"
    assert "nodes/s" in captured.err


def test_cli_perft_divide(capsys):
    assert main(["perft", "creeper", "1", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 25
    assert "e7-d6 1" in lines and lines[-1] == "perft(1) = 24"


def test_cli_perft_after_moves(capsys):
    assert main(["perft", "creeper", "1", "--after", "e7-d7"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "perft(1) = 24"  # see depth-2 note


def test_cli_perft_rejects_bad_input(capsys):
    assert main(["perft", "creeper", "-1"]) == 2
    assert main(["perft", "creeper", "1", "--after", "e7-e5"]) == 2
    assert "--after" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["perft", "chess", "1"])
