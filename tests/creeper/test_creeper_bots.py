"""Creeper bots: legal, deterministic given the seed, and sensible on crafted positions."""

import pytest

from creepnet.engine.creeper import (
    Colour,
    Outcome,
    apply,
    initial_state,
    legal_moves,
    outcome,
    position,
)
from creepnet.engine.creeper.bots import BOT_NAMES, make_bot

SMALL_SEARCH = {"nodes": 300}


def bot(name, seed=0):
    return make_bot(name, seed, **(SMALL_SEARCH if name == "search" else {}))


def play(light, dark, cap=40):
    players = {Colour.LIGHT: light, Colour.DARK: dark}
    state, moves = initial_state(), []
    while state.ply < cap and outcome(state) is None:
        move = players[state.to_move].choose(state)
        assert move in legal_moves(state)
        moves.append(str(move))
        state = apply(state, move)
    return moves, state


def test_bot_names():
    assert set(BOT_NAMES) == {"random", "greedy", "search"}
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("oracle")
    with pytest.raises(ValueError, match="takes no budget"):
        make_bot("greedy", nodes=10)


def test_same_budget_and_seed_same_choice():
    state = apply(initial_state(), "e7-d6")
    assert make_bot("search", 3, nodes=500).choose(state) == make_bot(
        "search", 3, nodes=500
    ).choose(state)


def test_search_breaks_flip_wars():
    # Greedy always re-flips a disc it just lost; without its repetition penalty the search bot
    # (seed 0, 300 nodes) answers in kind and this game shuffles to the ply cap.
    _, final = play(bot("search", 0), bot("greedy", 0), cap=300)
    assert outcome(final) is not None


@pytest.mark.parametrize("name", BOT_NAMES)
def test_same_seed_same_game(name):
    first, _ = play(bot(name, 7), bot("random", 8))
    again, _ = play(bot(name, 7), bot("random", 8))
    assert first == again


def test_different_seeds_differ():
    assert (
        play(bot("random", 1), bot("random", 2))[0] != play(bot("random", 3), bot("random", 4))[0]
    )


# Light needs only D5 to link F6 and A1 along F5 E5 D5 C5 B5 A5 A4 A3 A2; d6-e5 jumps it.
NEARLY_WON = position(
    light_pins="d6 g5",
    dark_pins="a5 g2",
    light_discs="F5 E5 C5 B5 A5 A4 A3 A2",
)


@pytest.mark.parametrize("name", ["greedy", "search"])
def test_takes_a_winning_move(name):
    move = bot(name).choose(NEARLY_WON)
    assert outcome(apply(NEARLY_WON, move)) == Outcome(Colour.LIGHT, Outcome.CONNECTION)


def test_search_stops_a_one_move_win():
    # Same threat with dark to move: d6-e5 is light's only winning jump over D5 (its corners
    # d6 e6 d5 e5; e6-d5 needs a pin on e6). Placing a dark disc on D5 would not help, light
    # would flip it; dark's d5 pin must take the landing hole (d5-e5) or capture (d5xd7).
    state = position(
        light_pins="d6 g5",
        dark_pins="d5 g2",
        light_discs="F5 E5 C5 B5 A5 A4 A3 A2",
        to_move=Colour.DARK,
    )
    reply = bot("search").choose(state)
    after = apply(state, reply)
    assert not any(outcome(apply(after, m)) is not None for m in legal_moves(after))


def test_no_move_is_an_error():
    boxed = position(light_pins="b7", dark_pins="c7 b6 a6 c6 d7 b5")
    for name in BOT_NAMES:
        with pytest.raises(ValueError, match="no legal move"):
            bot(name).choose(boxed)


def test_search_beats_random():
    for seed in range(2):
        light_first = seed % 2 == 0
        searcher, other = bot("search", seed), bot("random", seed)
        light, dark = (searcher, other) if light_first else (other, searcher)
        _, final = play(light, dark, cap=200)
        winner = Colour.LIGHT if light_first else Colour.DARK
        assert outcome(final) == Outcome(winner, Outcome.CONNECTION)
