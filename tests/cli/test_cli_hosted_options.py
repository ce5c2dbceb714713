"""What every face (host, play, the page) writes in a new game's options, from one place."""

import argparse

import pytest

from creepnet.cli.game_options import hosted_options, seats_and_options


def args_for(kind: str, players: int | None) -> argparse.Namespace:
    return argparse.Namespace(kind=kind, players=players, turn_limit=None, max_plies=None)


@pytest.mark.parametrize("players", [3, 4])
def test_a_racer_table_of_three_or_four_escrows_its_keys_from_every_face(players):
    """`creepnet play racer --players 3` wrote no escrow, so the one person at the table, silent
    for the table's patience, ended the game abandoned instead of being retired."""
    seats, options = seats_and_options(args_for("racer", players))
    assert seats == players and options["escrow"] == 1
    assert options == hosted_options("racer", players, None)  # the page's, too


def test_two_seats_and_creeper_have_no_escrow():
    assert "escrow" not in seats_and_options(args_for("racer", 2))[1]
    assert "escrow" not in seats_and_options(args_for("creeper", None))[1]


def test_a_hosted_racer_game_caps_its_withdrawals_and_releases_ahead():
    options = hosted_options("racer", 2, 30)
    assert options == {"turn_limit": 30, "release_ahead": 1, "withdrawals_per_turn": 3}
