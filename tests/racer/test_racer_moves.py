"""Creepy Racer rules on crafted positions: drawing, Calamities, Monsters, Good Fortune,
Hostage Exchange, hand limit, elimination."""

import pytest

from creepnet.engine import racer
from creepnet.engine.racer import (
    AcceptHostage,
    AskHostage,
    Decide,
    DeclineMonster,
    Discard,
    ForceHostage,
    IllegalAction,
    KeepDrawn,
    Learn,
    NeedCard,
    NeedPick,
    NeedReveal,
    NeedShuffle,
    Pass,
    Pick,
    PlaceCreep,
    PlayCalamity,
    PlayGoodFortune,
    PlayMonster,
    RefuseHostage,
    Shuffle,
    apply,
    crafted_position,
    legal_actions,
    pending,
    slot_of,
)


def name_of(state, slot):
    return state.card(slot).name


def line_names(state, seat):
    return [name_of(state, c.slot) for c in state.players[seat].line]


def strength_of(state, name):
    slot = slot_of(state, name)
    return state.strength(state.find_creep(slot)[1])


def play(state, name, seat, **kw):
    """The action that plays the named hand card of ``seat``."""
    slot = slot_of(state, name, seat)
    return slot, state.known[slot]


def learn_all(state):
    """Answer chance card requests from full knowledge until a seat must act."""
    while isinstance(req := pending(state), NeedCard):
        state = apply(state, Learn(req.slot, state.known[req.slot]))
    return state


def finish_draws(state):
    while True:
        state = learn_all(state)
        if not isinstance(pending(state), NeedReveal):
            return state
        state = apply(state, legal_actions(state)[0])


def pass_turn(state):
    """Finish the current turn: complete draws, pass, discard down to the limit."""
    while True:
        state = learn_all(state)
        req = pending(state)
        if isinstance(req, NeedReveal):
            state = apply(state, legal_actions(state)[0])
        elif isinstance(req, Decide) and req.topic == "move":
            return apply(state, Pass())
        elif isinstance(req, Decide) and req.topic == "discard":
            state = apply(state, legal_actions(state)[0])
        else:
            raise AssertionError(req)


# --- drawing -----------------------------------------------------------------------------------


def test_turn_draws_two_and_a_drawn_creep_is_placed_and_replaced():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Slime Sally"]},
        decks={0: ["Nitro Nosferatu", "2X", "3X", "Reversal"]},
        at="turn-start",
    )
    req = pending(state)
    assert isinstance(req, NeedCard) and req.learner == 0
    state = learn_all(state)
    nitro = slot_of(state, "Nitro Nosferatu")
    assert pending(state) == NeedReveal(0, nitro)
    assert legal_actions(state) == [PlaceCreep(nitro, state.known[nitro])]
    with pytest.raises(IllegalAction, match="must be placed"):
        apply(state, KeepDrawn(nitro))
    state = apply(state, PlaceCreep(nitro, state.known[nitro]))
    assert line_names(state, 0) == ["Grimy Gus", "Nitro Nosferatu"]
    for _ in range(2):
        state = learn_all(state)
        state = apply(state, legal_actions(state)[0])
    assert sorted(name_of(state, s) for s in state.players[0].hand) == ["2X", "3X"]
    assert [name_of(state, s) for s in state.players[0].deck] == ["Reversal"]
    assert pending(state) == Decide(0, "move")
    assert state.turn.moves_left == 2


def test_placing_a_non_creep_is_refused():
    state = learn_all(
        crafted_position(
            lines={0: ["Grimy Gus"], 1: ["Slime Sally"]}, decks={0: ["2X", "3X"]}, at="turn-start"
        )
    )
    slot = pending(state).slot
    with pytest.raises(IllegalAction):
        apply(state, PlaceCreep(slot, state.known[slot]))


def test_empty_deck_redeals_the_shuffled_discard_round_robin_from_the_drawer():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Slime Sally"], 2: ["Pothole Pete"]},
        decks={1: ["2X"], 2: ["3X"]},
        discard=["Bone Dry", "Flat Tire", "Reversal", "Modifier"],
        turn=1,
        at="turn-start",
    )
    state = learn_all(state)
    state = apply(state, legal_actions(state)[0])  # keeps the 2X: seat 1's deck is now empty
    req = pending(state)
    assert isinstance(req, NeedShuffle) and req.pool == "discard" and req.size == 4
    state = apply(state, Shuffle((3, 2, 1, 0)))
    assert state.discard == ()
    # Dealt from the drawer clockwise: seat 1 gets 2 cards, seats 2 and 0 one each;
    # seat 1 then draws its first one at once.
    assert len(state.players[1].deck) == 1 and len(state.players[1].hand) == 2
    assert [name_of(state, s) for s in state.players[1].hand] == ["2X", "Modifier"]
    assert [name_of(state, s) for s in state.players[2].deck] == ["3X", "Reversal"]
    assert [name_of(state, s) for s in state.players[0].deck] == ["Flat Tire"]
    assert [name_of(state, s) for s in state.players[1].deck] == ["Bone Dry"]
    assert racer.audit(state) == []


def test_nothing_is_drawn_when_deck_and_discard_are_empty():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Slime Sally"]}, hands={1: ["2X"]}, at="turn-start"
    )
    assert pending(state) == Decide(0, "move")
    assert state.players[0].hand == ()


# --- Calamity, Monster, Good Fortune -------------------------------------------------------------


def test_calamity_lowers_strength_and_target_is_always_asked_to_react():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Skidmark Skip"]}, hands={0: ["Flat Tire"], 1: ["2X"]}
    )
    target = slot_of(state, "Skidmark Skip")
    state = apply(state, PlayCalamity(*play(state, "Flat Tire", 0), target))
    assert strength_of(state, "Skidmark Skip") == 3
    # Seat 1 holds no Monster, but is asked anyway: the question reveals nothing.
    assert pending(state) == Decide(1, "react")
    assert legal_actions(state) == [DeclineMonster()]
    state = apply(state, DeclineMonster())
    assert pending(state) == Decide(0, "move") and state.turn.moves_left == 1


def test_calamity_only_on_an_opponents_creep():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Skidmark Skip"]}, hands={0: ["Flat Tire"]}
    )
    with pytest.raises(IllegalAction, match="opponent"):
        apply(state, PlayCalamity(*play(state, "Flat Tire", 0), slot_of(state, "Grimy Gus")))


def test_calamity_to_zero_kills_when_the_reaction_is_declined():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: [("Slime Sally", ["Flat Tire", "Bone Dry"]), "Rusty Rita"]},
        hands={0: ["Flat Tire"], 1: ["2X"]},
    )
    sally = slot_of(state, "Slime Sally")
    state = apply(state, PlayCalamity(*play(state, "Flat Tire", 0), sally))
    assert pending(state) == Decide(1, "react")  # asked before the death is resolved
    state = apply(state, DeclineMonster())
    assert line_names(state, 1) == ["Rusty Rita"]
    assert state.dead == (sally,)
    assert sorted(name_of(state, s) for s in state.discard) == [
        "Bone Dry",
        "Flat Tire",
        "Flat Tire",
    ]


def test_monster_saves_a_creep_at_zero_and_takes_the_turn_order():
    state = crafted_position(
        lines={
            0: ["Grimy Gus"],
            1: ["Rusty Rita"],
            2: [("Slime Sally", ["Flat Tire", "Bone Dry"]), ("Pothole Pete", ["Flat Tire"])],
        },
        hands={0: ["Flat Tire", *["2X"] * 8, *["3X"] * 3], 1: ["Modifier"], 2: ["Tread Troll"]},
        decks={2: ["Reversal", "Reversal"]},
    )
    sally = slot_of(state, "Slime Sally")
    state = apply(state, PlayCalamity(*play(state, "Flat Tire", 0), sally))
    assert strength_of(state, "Slime Sally") == 0
    troll = play(state, "Tread Troll", 2)
    assert PlayMonster(*troll) in legal_actions(state)
    state = apply(state, PlayMonster(*troll))
    # Every Flat Tire on seat 2's Creeps is gone; the Bone Dry stays; Sally lives.
    assert strength_of(state, "Slime Sally") == 2
    assert strength_of(state, "Pothole Pete") == 3
    assert [name_of(state, s) for s in state.find_creep(sally)[1].attached] == [
        "Bone Dry",
        "Tread Troll",
    ]
    assert sorted(name_of(state, s) for s in state.discard) == ["Flat Tire"] * 3
    # Seat 0's turn ends at once, after discarding down to 10 ...
    assert pending(state) == Decide(0, "discard")
    state = apply(state, legal_actions(state)[0])
    # ... then seat 2 plays a full turn, and play continues clockwise from seat 2.
    assert state.turn.seat == 2
    state = finish_draws(state)
    assert pending(state) == Decide(2, "move")
    assert len(state.players[2].hand) == 2
    assert state.turn.moves_left == 2
    state = apply(state, Pass())
    assert state.turn.seat == 0  # seat 1 is skipped this round
    # While the Monster stays, no Flat Tire may land anywhere in seat 2's line.
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: [("Slime Sally", ["Tread Troll"]), "Pothole Pete"]},
        hands={0: ["Flat Tire", "Bone Dry"]},
    )
    pete = slot_of(state, "Pothole Pete")
    with pytest.raises(IllegalAction, match="Monster"):
        apply(state, PlayCalamity(*play(state, "Flat Tire", 0), pete))
    assert not any(
        isinstance(a, PlayCalamity) and state.card(a.slot).name == "Flat Tire"
        for a in legal_actions(state)
    )
    assert any(isinstance(a, PlayCalamity) and a.target == pete for a in legal_actions(state))


def test_monster_must_match_the_calamity_family():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]}, hands={0: ["Flat Tire"], 1: ["Fuel Fiend"]}
    )
    state = apply(state, PlayCalamity(*play(state, "Flat Tire", 0), slot_of(state, "Rusty Rita")))
    assert legal_actions(state) == [DeclineMonster()]
    with pytest.raises(IllegalAction, match="match"):
        apply(state, PlayMonster(*play(state, "Fuel Fiend", 1)))


def test_monster_goes_to_discard_when_its_creep_dies():
    state = crafted_position(
        lines={
            0: ["Grimy Gus"],
            1: [("Slime Sally", ["Tread Troll", "Bone Dry", "Bone Dry"]), "Rusty Rita"],
        },
        hands={0: ["Bone Dry"], 1: ["2X"]},
    )
    state = apply(state, PlayCalamity(*play(state, "Bone Dry", 0), slot_of(state, "Slime Sally")))
    state = apply(state, DeclineMonster())
    assert "Tread Troll" in [name_of(state, s) for s in state.discard]
    assert line_names(state, 1) == ["Rusty Rita"]


def test_good_fortune_removes_the_matching_calamity():
    state = crafted_position(
        lines={0: [("Grimy Gus", ["Bone Dry", "Flat Tire"])], 1: ["Rusty Rita"]},
        hands={0: ["Extra Gas", "Spare Wheel", "Jump Start"]},
    )
    gus = slot_of(state, "Grimy Gus")
    assert strength_of(state, "Grimy Gus") == 1
    with pytest.raises(IllegalAction, match="no matching"):
        apply(state, PlayGoodFortune(*play(state, "Jump Start", 0), gus))
    state = apply(state, PlayGoodFortune(*play(state, "Extra Gas", 0), gus))
    assert strength_of(state, "Grimy Gus") == 2
    assert sorted(name_of(state, s) for s in state.discard) == ["Bone Dry", "Extra Gas"]
    assert state.turn.moves_left == 1
    assert [type(a).__name__ for a in legal_actions(state)].count("PlayGoodFortune") == 1


def test_two_moves_then_the_turn_passes():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Skidmark Skip"]},
        hands={0: ["Flat Tire", "Bone Dry", "Dead Battery"], 1: ["2X"]},
    )
    skip = slot_of(state, "Skidmark Skip")
    state = apply(apply(state, PlayCalamity(*play(state, "Flat Tire", 0), skip)), DeclineMonster())
    state = apply(apply(state, PlayCalamity(*play(state, "Bone Dry", 0), skip)), DeclineMonster())
    assert state.turn.seat == 1


# --- hand limit ----------------------------------------------------------------------------------


def test_hand_limit_discards_face_up_down_to_ten():
    hand = ["2X"] * 8 + ["3X"] * 4
    state = crafted_position(lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]}, hands={0: hand})
    state = apply(state, Pass())
    assert pending(state) == Decide(0, "discard")
    assert {state.card(a.slot).name for a in legal_actions(state)} == {"2X", "3X"}
    state = apply(state, Discard(*play(state, "3X", 0)))
    assert pending(state) == Decide(0, "discard")
    with pytest.raises(IllegalAction):
        apply(state, Discard(slot_of(state, "2X", 0), state.known[slot_of(state, "3X", 0)]))
    state = apply(state, Discard(*play(state, "3X", 0)))
    assert len(state.players[0].hand) == 10 and state.turn.seat == 1
    assert [name_of(state, s) for s in state.discard] == ["3X", "3X"]


# --- Hostage Exchange -----------------------------------------------------------------------------


def hostage_state(**kw):
    return crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Rusty Rita"], 2: ["Slime Sally"]},
        hands={0: ["2X", "3X"], 1: ["Reversal", "Modifier"], 2: []},
        **kw,
    )


def test_refused_hostage_ask_uses_the_move():
    state = apply(hostage_state(), AskHostage(1))
    assert pending(state) == Decide(1, "hostage")
    assert legal_actions(state) == [AcceptHostage(), RefuseHostage()]
    state = apply(state, RefuseHostage())
    assert pending(state) == Decide(0, "move") and state.turn.moves_left == 1
    assert not state.players[0].forced_hostage


def test_accepted_hostage_swaps_one_blind_card_each_way():
    state = apply(apply(hostage_state(), AskHostage(1)), AcceptHostage())
    assert pending(state) == NeedPick(giver=1, taker=0, size=2)
    state = apply(state, Pick(1))  # seat 0 takes seat 1's Modifier
    assert pending(state) == NeedPick(giver=0, taker=1, size=2)
    state = apply(state, Pick(0))  # seat 1 takes seat 0's 2X
    modifier, double = slot_of(state, "Modifier"), slot_of(state, "2X")
    assert pending(state) == NeedCard(modifier, 0)
    state = apply(state, Learn(modifier, None))  # a seat that does not learn gets no id
    assert pending(state) == NeedCard(double, 1)
    state = apply(state, Learn(double, state.known[double]))
    assert sorted(name_of(state, s) for s in state.players[0].hand) == ["3X", "Modifier"]
    assert sorted(name_of(state, s) for s in state.players[1].hand) == ["2X", "Reversal"]
    assert state.audience[modifier] == {1}  # the giver saw it go; the taker learns on its node
    assert 1 in state.audience[double] and 0 in state.audience[double]
    assert pending(state) == Decide(0, "move") and state.turn.moves_left == 1


def test_forced_hostage_cannot_be_refused_and_is_once_per_game():
    state = apply(hostage_state(), ForceHostage(1))
    assert isinstance(pending(state), NeedPick)  # no question to refuse
    assert state.players[0].forced_hostage
    state = apply(apply(state, Pick(0)), Pick(0))
    state = learn_all(state)
    assert ForceHostage(1) not in legal_actions(state)
    with pytest.raises(IllegalAction, match="already used"):
        apply(state, ForceHostage(1))
    assert AskHostage(1) in legal_actions(state)


def test_hostage_needs_a_card_in_both_hands():
    state = hostage_state()
    assert AskHostage(2) not in legal_actions(state)
    with pytest.raises(IllegalAction, match="at least one card"):
        apply(state, ForceHostage(2))


# --- elimination and winning ----------------------------------------------------------------------


def test_an_empty_line_and_no_creep_to_draw_puts_a_player_out_and_play_skips_them():
    state = crafted_position(
        lines={
            0: ["Grimy Gus"],
            1: [("Slime Sally", ["Flat Tire", "Flat Tire"])],
            2: ["Rusty Rita"],
        },
        hands={0: ["Flat Tire"], 1: ["2X"]},
        decks={1: ["3X", "Extra Gas"]},
    )
    state = apply(state, PlayCalamity(*play(state, "Flat Tire", 0), slot_of(state, "Slime Sally")))
    state = apply(state, DeclineMonster())
    assert not state.players[1].active
    # Hand and deck have left play (kept for the audit), never drawn again.
    places = {place for place, _ in racer.locations(state)}
    assert {"out:hand:1", "out:deck:1"} <= places
    assert pending(state) == Decide(0, "move")
    state = pass_turn(state)
    assert state.turn.seat == 2


def test_last_player_in_wins():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: [("Slime Sally", ["Flat Tire", "Flat Tire"])]},
        hands={0: ["Flat Tire"], 1: ["2X"]},
    )
    state = apply(state, PlayCalamity(*play(state, "Flat Tire", 0), slot_of(state, "Slime Sally")))
    state = apply(state, DeclineMonster())
    assert pending(state) == racer.GameOver(0)
    assert legal_actions(state) == []
    with pytest.raises(IllegalAction):
        apply(state, Pass())


def test_turn_limit_ends_in_a_draw():
    options = racer.Options(players=2, turn_limit=1)
    state = crafted_position(lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]}, options=options)
    state = apply(state, Pass())
    assert pending(state) == racer.GameOver(None)


def test_wrong_answers_are_typed_illegal_actions():
    state = crafted_position(lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]}, hands={0: ["2X"]})
    with pytest.raises(IllegalAction) as info:
        apply(state, racer.Die(3))
    assert isinstance(info.value, ValueError) and info.value.reason
    with pytest.raises(IllegalAction, match="not in your hand"):
        apply(state, PlayCalamity(999, 40, slot_of(state, "Rusty Rita")))
