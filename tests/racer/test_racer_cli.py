"""The local Creepy Racer demo: `creepnet demo racer --local`."""

import io
import re

from creepnet.cli.main import main
from creepnet.cli.racer.local_demo import run_local_demo


def test_racer_demo_command_prints_setup_turns_and_winner(capsys):
    assert main(["demo", "racer", "--local", "--players", "3", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "3 players, seed 4" in out
    assert "Set-up: seat 0 deals" in out
    assert re.search(r"Roll to start: .* -> seat \d starts", out)
    assert re.search(r"^Turn +1 - seat \d: ", out, re.M)
    assert re.search(r"^(Winner: seat \d after \d+ turns|Draw: )", out, re.M)


def test_racer_demo_shows_the_console_screen_a_player_sees():
    out = io.StringIO()
    assert run_local_demo(4, 3, out=out) == 0
    screens = re.findall(r"^--- seat 0's screen [^\n]*\n(.*?)\n-{80}$", out.getvalue(), re.M | re.S)
    assert len(screens) >= 3  # the first turn, every ten turns, the end
    for screen in screens:
        rows = screen.split("\n")
        assert len(rows) <= 23 and max(map(len, rows)) <= 80
        assert rows[1][1:].startswith("seat 0 (you): ")
        out_of_game = rows[1].endswith(": out")
        assert any(row.startswith("your hand: ") for row in rows) != out_of_game
    assert screens[-1].split("\n")[-1].startswith("game over: ")


def test_local_demo_is_reproducible_and_varies_with_the_seed():
    def story(players, seed):
        out = io.StringIO()
        assert run_local_demo(players, seed, out=out) == 0
        return out.getvalue()

    assert story(2, 7) == story(2, 7)
    assert story(2, 7) != story(2, 8)
    assert "seat 3:" in story(4, 1)


def test_local_demo_refuses_a_bad_player_count(capsys):
    assert main(["demo", "racer", "--local", "--players", "5"]) == 2
    assert "2 to 4 players" in capsys.readouterr().err
