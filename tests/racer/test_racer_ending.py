"""How a Creepy Racer game ends: a player is out only when the line is empty and no Creep is
left in the draw deck; a dead position (no card in any hand, deck or discard pile) ends the
game at once."""

from dataclasses import replace

import pytest

from creepnet.engine import racer
from creepnet.engine.racer import (
    Decide,
    DeclineMonster,
    GameOver,
    IllegalAction,
    KeepDrawn,
    Learn,
    NeedCard,
    NeedReveal,
    NeedShuffle,
    Options,
    Pass,
    PlaceCreep,
    PlayCalamity,
    apply,
    crafted_position,
    make_bot,
    pending,
    play_game,
    redact,
    slot_of,
)
from creepnet.engine.racer.state import with_player


def kill_sallys_last_creep(state):
    """Seat 0 plays its Flat Tire on seat 1's Slime Sally (strength 1), seat 1 declines."""
    slot = slot_of(state, "Flat Tire", 0)
    state = apply(state, PlayCalamity(slot, state.known[slot], slot_of(state, "Slime Sally")))
    return apply(state, DeclineMonster())


def test_a_player_with_a_creep_still_in_the_deck_is_not_out_and_draws_it():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: [("Slime Sally", ["Flat Tire", "Flat Tire"])]},
        hands={0: ["Flat Tire"], 1: ["2X"]},
        decks={1: ["Extra Gas", "Skidmark Skip", "3X"]},
        moves_left=1,
    )
    assert state.players[1].deck_creeps == 1
    state = kill_sallys_last_creep(state)
    assert state.players[1].line == () and state.players[1].active
    assert not isinstance(pending(state), GameOver)
    # Seat 1 plays on: its draw finds the Creep, which goes to the line.
    while not isinstance(req := pending(state), Decide):
        if isinstance(req, NeedCard):
            state = apply(state, Learn(req.slot, state.known[req.slot]))
        elif isinstance(req, NeedReveal):
            state = apply(state, racer.legal_actions(state)[0])
        else:
            state = apply(state, Pass())
    assert state.turn.seat == 1
    assert [state.card(c.slot).name for c in state.players[1].line] == ["Skidmark Skip"]
    assert state.players[1].deck_creeps == 0


def test_the_count_of_creeps_in_a_deck_is_public():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Slime Sally"]},
        hands={0: ["Flat Tire"]},
        decks={1: ["Skidmark Skip", "3X"]},
    )
    view = racer.observation(state, 0)  # seat 0 never saw seat 1's deck
    assert view.players[1].deck_creeps == 1 and view.players[1].deck_count == 2
    assert redact(state, 0).players[1].deck_creeps == 1


def test_the_deck_shift_carries_each_deck_with_its_count():
    state = new_dealt_game(3)
    labelled = state
    for seat, count in enumerate((7, 6, 5)):  # distinct labels, to see which way they go
        labelled = with_player(labelled, replace(labelled.players[seat], deck_creeps=count))
    shifted = apply(labelled, racer.Die(5))
    assert [p.deck_creeps for p in shifted.players] == [5, 7, 6]
    assert [p.deck for p in shifted.players] == [state.players[s].deck for s in (2, 0, 1)]


def new_dealt_game(players):
    state = racer.new_game(Options(players=players))
    while not isinstance(req := pending(state), racer.NeedDie):
        if isinstance(req, NeedShuffle):
            state = apply(state, racer.Shuffle(tuple(range(req.size))))
        else:
            state = apply(state, Learn(req.slot, state.known[req.slot]))
    assert [p.deck_creeps for p in state.players] == [7] * players  # 10 dealt, 3 face-up
    return state


def seat_one_draws(decks, deck_creeps=None):
    """Seat 1's turn begins with the given deck; returns the state at its first reveal."""
    state = crafted_position(lines={0: ["Grimy Gus"], 1: ["Slime Sally"]}, decks=decks)
    if deck_creeps is not None:
        state = with_player(state, replace(state.players[1], deck_creeps=deck_creeps))
    state = apply(state, Pass())
    req = pending(state)
    assert isinstance(req, NeedCard) and req.learner == 1
    return state, req.slot


def test_placing_a_creep_from_a_deck_with_none_left_is_illegal():
    state, slot = seat_one_draws({1: ["Skidmark Skip", "3X"]}, deck_creeps=0)
    state = apply(state, Learn(slot, state.known[slot]))
    with pytest.raises(IllegalAction, match="no Creep is left"):
        apply(state, PlaceCreep(slot, state.known[slot]))


def test_keeping_a_draw_when_only_creeps_were_left_is_caught_without_seeing_the_card():
    state, slot = seat_one_draws({1: ["Skidmark Skip"]})
    view = apply(redact(state, 0), Learn(slot, None))  # seat 0 does not learn the card
    assert pending(view) == NeedReveal(1, slot)
    with pytest.raises(IllegalAction, match="only Creeps were left"):
        apply(view, KeepDrawn(slot))


# --- dead positions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lines, winner",
    [
        ({0: ["Grimy Gus", "Slime Sally"], 1: ["Skidmark Skip"]}, 0),  # more Creeps
        ({0: ["Grimy Gus"], 1: ["Skidmark Skip"]}, 1),  # as many, more strength
        ({0: ["Grimy Gus"], 1: ["Rusty Rita"]}, None),  # level on both: a draw
    ],
)
def test_a_position_nobody_can_change_ends_at_the_next_turn(lines, winner):
    state = crafted_position(lines=lines)  # no card in any hand, deck or discard pile
    state = apply(state, Pass())
    assert pending(state) == GameOver(winner)
    assert pending(redact(state, 1)) == GameOver(winner)  # every seat sees the same end


def test_cards_in_the_discard_pile_keep_the_game_going():
    state = crafted_position(lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]}, discard=["2X"])
    state = apply(state, Pass())
    assert pending(state) == NeedShuffle("discard", state.discard)


def test_a_hand_of_an_out_player_does_not_keep_the_game_going():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Rusty Rita"], 2: []},
        hands={2: ["2X", "3X"]},
        options=Options(players=3),
    )
    assert not state.players[2].active
    assert pending(apply(state, Pass())) == GameOver(None)


def test_bots_in_a_dead_position_stop_at_once():
    state = crafted_position(lines={0: ["Grimy Gus", "Slime Sally"], 1: ["Rusty Rita"]})
    bots = [make_bot("heuristic", 1), make_bot("heuristic", 2)]
    result = play_game(bots, 1, state=state)  # no turn limit
    assert result.winner == 0 and result.steps == 1


# --- whole games ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_in_whole_games_the_public_count_is_the_true_count(players):
    def check(before, actor, action, after):
        for p in after.players:
            # A drawn Creep sits in the hand until it is placed: it still counts.
            unplaced = (*p.deck, *p.hand)
            assert p.deck_creeps == sum(after.card(s).kind is racer.Kind.CREEP for s in unplaced)
            if after.turn is not None:
                assert p.active == (bool(p.line) or p.deck_creeps > 0)

    for seed in range(2):
        bots = [make_bot("heuristic", seed * 10 + s) for s in range(players)]
        result = play_game(bots, seed, Options(players=players, turn_limit=400), observer=check)
        assert result.winner is not None
        loser_lines = [p for p in result.final.players if p.seat != result.winner]
        assert all(not p.line and p.deck_creeps == 0 for p in loser_lines)
