"""Levels for people: easy, medium and hard for every game, from the registry's one list,
each with its think time stated, each playing legal moves through the seat interface."""

import pytest

from creepnet.cli.main import main
from creepnet.engine import creeper
from creepnet.protocol.games import GAMES, bot_names, get_game, level_help
from creepnet.protocol.games.creeper import CreeperRules

LEVELS = ("easy", "medium", "hard")


@pytest.mark.parametrize("kind", ["creeper", "racer"])
def test_every_game_has_the_three_levels_and_keeps_its_bots(kind):
    game = get_game(kind)
    assert tuple(game.levels) == LEVELS
    assert set(LEVELS) <= set(game.bots)
    old = {"creeper": {"random", "greedy", "search"}, "racer": {"random", "heuristic"}}[kind]
    assert old <= set(game.bots)
    assert all(" s " in what or "instant" in what for what in game.levels.values())


def test_the_command_line_offers_the_levels_with_their_think_times(capsys):
    assert set(LEVELS) <= set(bot_names())
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for kind in GAMES:
        for level, what in get_game(kind).levels.items():
            assert f"{level} ({what})" in shown
    assert level_help() in shown


@pytest.mark.parametrize("level", LEVELS)
def test_a_creeper_level_answers_with_a_legal_move(level):
    rules = CreeperRules()
    game = rules.apply_random(rules.start(2, {}, None), 0)  # seat 0 plays light
    text = get_game("creeper").make_bot(level, 3).choose(game, 0)
    kind, body = rules.action(game, 0, text)
    after = rules.apply(game, 0, kind, body)
    assert after.state.ply == 1 and after.last_move in creeper.legal_moves(game.state)
