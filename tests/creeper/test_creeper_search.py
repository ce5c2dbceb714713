"""The Creeper search: agrees with plain minimax, finds forced connections written down from
real bot games, keeps to its budget, ends repeating games in a draw, beats the old search."""

import json
from pathlib import Path

import pytest

from creepnet.engine.creeper import Colour, apply, initial_state, legal_moves, outcome, position
from creepnet.engine.creeper.bots import ClassicSearchBot, SearchBot, make_bot
from creepnet.engine.creeper.search import Budget, Searcher, full_width

FORCED = json.loads((Path(__file__).parent / "forced_connections.json").read_text())


def crafted(entry):
    return position(
        light_pins=entry["light_pins"],
        dark_pins=entry["dark_pins"],
        light_discs=entry["light_discs"],
        dark_discs=entry["dark_discs"],
        to_move=Colour(entry["to_move"]),
    )


def after(moves):
    state = initial_state()
    for move in moves:
        state = apply(state, move)
    return state


def test_the_forced_set_has_connections_of_three_five_and_seven_plies():
    lengths = [entry["plies"] for entry in FORCED]
    assert {3, 5, 7} <= set(lengths)
    assert all(lengths.count(n) >= 2 for n in (3, 5, 7))


@pytest.mark.parametrize(
    "entry", FORCED, ids=[f"{e['plies']}-plies-game{e['game']}-ply{e['ply']}" for e in FORCED]
)
def test_finds_each_forced_connection_at_its_length(entry):
    state = crafted(entry)
    result = Searcher(0).search(state, Budget(nodes=400_000))
    assert result.forced_win and result.plies_to_win == entry["plies"]
    # And the move it plays keeps the win: the opponent's best answer still loses.
    reply = Searcher(0).search(apply(state, result.move), Budget(nodes=400_000))
    assert outcome(apply(state, result.move)) is not None or reply.score < -900_000


# Positions from a real game (search v greedy), shallow enough for plain minimax.
SMALL = [
    after([]),
    after(["e7-d6", "b7-c6"]),
    after(["e7-d6", "b7-c6", "a3-b4", "g3-f4", "d6-e5"]),
    crafted(FORCED[0]),
]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("index", range(len(SMALL)))
def test_the_search_scores_as_plain_minimax(index, depth):
    state = SMALL[index]
    result = Searcher(index, repetition=False).search(state, Budget(nodes=10**9, max_depth=depth))
    assert result.score == full_width(state, depth)
    if not result.forced_win:
        assert result.depth == depth


def test_a_node_budget_is_deterministic_and_kept():
    state = after(["e7-d6", "b7-c6"])
    first = Searcher(5).search(state, Budget(nodes=5_000))
    again = Searcher(5).search(state, Budget(nodes=5_000))
    assert first == again
    assert first.nodes <= 5_000 + 256  # the budget is looked at every 256 nodes


def test_a_time_budget_reads_only_the_injected_clock():
    ticks = iter(range(10**9))
    result = Searcher(0).search(initial_state(), Budget(seconds=40, clock=lambda: next(ticks)))
    # One tick at the start, one every 256 nodes: 40 ticks is about 10,000 nodes.
    assert 39 * 256 <= result.nodes <= 41 * 256
    assert result.depth >= 2


# A repeating, level position: both sides step a pin back and forth.
SHUFFLE = ["e7-d7", "a5-a4", "d7-e7", "a4-a5"]


def test_offers_a_draw_when_the_game_repeats_and_is_level():
    fresh = SearchBot(0, nodes=3_000)
    assert not fresh.reply(initial_state()).offer_draw  # no repetition yet
    repeated = after(SHUFFLE)
    assert repeated.key() == initial_state().key()
    reply = SearchBot(0, nodes=3_000).reply(repeated)
    assert reply.move in legal_moves(repeated) and reply.offer_draw


def test_accepts_a_draw_unless_it_is_ahead():
    level = after(SHUFFLE)
    assert SearchBot(0, nodes=3_000).reply(level, draw_offered=True).accept
    # Light one octagon from linking: no draw for it.
    winning = position(light_pins="d6 g5", dark_pins="a5 g2", light_discs="F5 E5 C5 B5 A5 A4 A3 A2")
    reply = SearchBot(0, nodes=3_000).reply(winning, draw_offered=True)
    assert not reply.accept and reply.move is not None


def test_two_search_bots_do_not_flip_forever():
    players = {Colour.LIGHT: SearchBot(1, nodes=2_000), Colour.DARK: SearchBot(2, nodes=2_000)}
    state, drawn = initial_state(), False
    while outcome(state) is None and state.ply < 300:
        reply = players[state.to_move].reply(state, draw_offered=drawn)
        if reply.accept:
            break
        drawn = reply.offer_draw
        state = apply(state, reply.move)
    assert state.ply < 300  # a connection, no moves, or a draw agreed; not the ply cap


def test_beats_the_old_search_at_equal_nodes():
    wins = 0
    for game in range(4):
        new, old = SearchBot(game, nodes=2_000), ClassicSearchBot(game, nodes=2_000)
        players = {Colour.LIGHT: new, Colour.DARK: old}
        if game % 2:
            players = {Colour.LIGHT: old, Colour.DARK: new}
        state = initial_state()
        while outcome(state) is None and state.ply < 200:
            state = apply(state, players[state.to_move].choose(state))
        ended = outcome(state)
        wins += ended is not None and players.get(ended.winner) is new
    assert wins >= 3


def test_make_bot_budgets():
    assert isinstance(make_bot("search", 1, nodes=100), SearchBot)
    assert isinstance(make_bot("classic", 1, nodes=100), ClassicSearchBot)
    with pytest.raises(ValueError, match="nodes or seconds"):
        Budget()
