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
