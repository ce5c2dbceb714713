"""Move notation and the text board."""

import re

import pytest

from creepnet.engine.creeper import (
    Colour,
    Move,
    MoveKind,
    NotationError,
    apply,
    format_move,
    initial_state,
    parse_move,
    position,
    render,
)


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("e7-d6", Move("e7", "d6", MoveKind.JUMP)),
        ("e7-e6", Move("e7", "e6", MoveKind.STEP)),
        ("c3xc5", Move("c3", "c5", MoveKind.CAPTURE)),
        ("a5xa3", Move("a5", "a3", MoveKind.CAPTURE)),
        ("b1-a2", Move("b1", "a2", MoveKind.JUMP)),
        ("  g6-g5\n", Move("g6", "g5", MoveKind.STEP)),
    ],
)
def test_parse_and_format(text, move):
    assert parse_move(text) == move
    assert format_move(move) == str(move) == text.strip()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "bad syntax"),
        ("e7d6", "bad syntax"),
        ("e7--d6", "bad syntax"),
        ("e7-d6-c5", "bad syntax"),
        ("e7 - d6", "bad syntax"),
        ("E7-D6", "lowercase"),
        ("a1-b2", "no such hole a1"),  # the four lattice corners have no hole
        ("g7-f6", "no such hole g7"),
        ("h3-g3", "no such hole h3"),
        ("e8-e7", "no such hole e8"),
        ("e0-e1", "no such hole e0"),
        ("e07-e6", "no such hole e07"),
        ("e7-e7", "same hole"),
        ("e7-e4", "no move"),
        ("e7-g5", "no move"),
        ("c3-c5", "wrong separator.*write c3xc5"),
        ("e7xd6", "wrong separator.*jump, write e7-d6"),
        ("e7xe6", "wrong separator.*step, write e7-e6"),
    ],
)
def test_rejections_say_why(text, reason):
    with pytest.raises(NotationError, match=reason):
        parse_move(text)


def test_notation_error_is_a_value_error():
    assert issubclass(NotationError, ValueError)


def test_apply_accepts_notation_and_rejects_bad_text():
    state = initial_state()
    assert apply(state, "e7-d6") == apply(state, parse_move("e7-d6"))
    with pytest.raises(NotationError):
        apply(state, "nonsense")


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_render_fits_a_small_terminal_and_shows_the_start():
    text = render(initial_state())
    lines = text.splitlines()
    assert len(lines) <= 20
    assert max(len(line) for line in lines) <= 80
    assert lines[0].split() == list("abcdefg")
    assert lines[1].split() == ["7", "x", "x", "+", "o", "o", "7"]  # b7 c7 dark, e7 f7 light
    assert lines[2].split() == ["=D=", ".", ".", ".", ".", "=L=", "6"]  # octagon row 6
    assert "light to move" in text and "discs L0 D0" in text and "pins lost L0 D0" in text


def test_render_marks_discs_and_the_last_move():
    state = position(light_pins="d4", dark_pins="a5", dark_discs="B2", ply=7)
    move = parse_move("d4-e5")
    text = render(apply(state, move), last_move=move)
    assert "[o]" in text  # the pin where it landed
    assert "{L}" in text  # the octagon it jumped, now light
    assert "(D)" in text
    assert "last d4-e5" in text and "dark to move" in text


def test_render_reports_the_outcome():
    state = position(light_pins="b7", dark_pins="c7 b6 a6 c6 d7 b5")
    assert "game over: draw" in render(state)


def test_coloured_render_adds_only_escapes():
    state = apply(initial_state(), "e7-d6")
    move = parse_move("e7-d6")
    coloured = render(state, move, colour=True)
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured).replace("[o]", " o ").replace("{L}", "(L)") == render(
        state, move
    ).replace("[o]", " o ").replace("{L}", "(L)")
    assert max(len(ANSI.sub("", line)) for line in coloured.splitlines()) <= 80


def test_render_shows_every_piece_in_its_place():
    state = position(
        light_pins="d4 g4",
        dark_pins="a4 c1",
        light_discs="C3 D3",
        dark_discs="E5",
        to_move=Colour.DARK,
    )
    rows = [line.split() for line in render(state).splitlines()]
    # Hole ranks 7..1 are on rows 1, 3, ..., 13; octagon ranks 6..1 on rows 2, 4, ..., 12.
    assert rows[7] == ["4", "x", "+", "+", "o", "+", "+", "o", "4"]
    assert rows[13] == ["1", "+", "x", "+", "+", "+", "1"]  # b1..f1: a1 and g1 do not exist
    assert rows[4] == [".", ".", ".", ".", "(D)", ".", "5"]
    assert rows[8] == [".", ".", "(L)", "(L)", ".", ".", "3"]
    assert rows[12] == ["=L=", ".", ".", ".", ".", "=D=", "1"]
