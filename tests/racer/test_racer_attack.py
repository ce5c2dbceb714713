"""Creepy Racer attacks on crafted positions: openers, the Hero exchange, outcomes."""

import pytest

from creepnet.engine.racer import (
    AddAttacker,
    Decide,
    DeclareAttack,
    Die,
    IllegalAction,
    Launch,
    NeedDie,
    PlayHero,
    StopHeroes,
    Withdraw,
    apply,
    crafted_position,
    legal_actions,
    pending,
    slot_of,
)

LINES = {
    0: ["Grimy Gus", "Slime Sally", "Skidmark Skip"],  # 3, 3, 4
    1: ["Nitro Nosferatu", "Rusty Rita", "Exhaust Ed"],  # 5, 3, 4
}


def position(hand0=(), hand1=("Flat Tire",), **kw):
    return crafted_position(lines=LINES, hands={0: list(hand0), 1: list(hand1)}, **kw)


def hand_card(state, name, seat):
    slot = slot_of(state, name, seat)
    return slot, state.known[slot]


def declare(state, target, *attackers):
    state = apply(state, DeclareAttack(slot_of(state, target)))
    for name in attackers:
        state = apply(state, AddAttacker(slot_of(state, name)))
    return state


def names(state, slots):
    return sorted(state.card(s).name for s in slots)


def alive(state, seat):
    return [state.card(c.slot).name for c in state.players[seat].line]


def test_plain_attack_must_exceed_the_target():
    state = declare(position(), "Exhaust Ed", "Skidmark Skip")  # 4 against 4
    assert Launch() not in legal_actions(state)
    with pytest.raises(IllegalAction, match="stronger"):
        apply(state, Launch())
    assert Withdraw() in legal_actions(state)
    state = apply(state, Withdraw())
    assert pending(state) == Decide(0, "move") and state.turn.moves_left == 2


def test_single_attack_wins_when_the_defender_stops():
    state = declare(position(), "Rusty Rita", "Skidmark Skip")  # 4 against 3
    state = apply(state, Launch())
    assert pending(state) == Decide(1, "hero")  # the defender answers first
    assert legal_actions(state) == [StopHeroes()]
    state = apply(state, StopHeroes())
    assert alive(state, 1) == ["Nitro Nosferatu", "Exhaust Ed"]
    assert names(state, state.dead) == ["Rusty Rita"]
    assert state.turn.moves_left == 1  # the whole attack was one move


def test_combined_attack_adds_strengths_and_all_attackers_die_on_failure():
    state = declare(position(hand1=["2X"]), "Nitro Nosferatu", "Grimy Gus", "Slime Sally")
    state = apply(state, Launch())  # 6 against 5
    state = apply(state, PlayHero(*hand_card(state, "2X", 1)))  # 6 against 10
    # The attacker holds no Hero, so the exchange ends at once.
    assert alive(state, 0) == ["Skidmark Skip"]
    assert names(state, state.dead) == ["Grimy Gus", "Slime Sally"]
    assert names(state, state.discard) == ["2X"]


def test_attack_on_a_player_without_cards_is_refused():
    state = position(hand1=())
    assert not any(isinstance(a, DeclareAttack) for a in legal_actions(state))
    with pytest.raises(IllegalAction, match="no cards"):
        apply(state, DeclareAttack(slot_of(state, "Rusty Rita")))


def test_attacking_your_own_creep_is_refused():
    with pytest.raises(IllegalAction):
        apply(position(), DeclareAttack(slot_of(position(), "Grimy Gus")))


@pytest.mark.parametrize(
    "hero, target, legal",
    [
        ("2X", "Nitro Nosferatu", True),  # 3*2 = 6 > 5
        ("2X", "Exhaust Ed", True),  # 6 > 4
        ("3X", "Nitro Nosferatu", True),
        ("Reversal", "Nitro Nosferatu", True),  # swap: 5 against 3
        ("Reversal", "Rusty Rita", False),  # swap: 3 against 3 is no attack
        ("Modifier", "Nitro Nosferatu", True),  # a gamble, always allowed
        ("Creep Eraser", "Nitro Nosferatu", False),  # never an opener
    ],
)
def test_openers(hero, target, legal):
    state = declare(position(hand0=[hero]), target, "Grimy Gus")
    launch = Launch(*hand_card(state, hero, 0))
    assert (launch in legal_actions(state)) is legal
    if not legal:
        with pytest.raises(IllegalAction):
            apply(state, launch)


def test_double_opener_that_is_not_enough_is_refused():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: [("Nitro Nosferatu", [])]}, hands={0: ["2X"], 1: ["3X"]}
    )
    state = declare(state, "Nitro Nosferatu", "Grimy Gus")
    assert Launch(*hand_card(state, "2X", 0)) in legal_actions(state)
    state = crafted_position(
        lines={0: [("Skidmark Skip", ["Flat Tire", "Bone Dry"])], 1: ["Nitro Nosferatu"]},
        hands={0: ["2X"], 1: ["3X"]},
    )
    state = declare(state, "Nitro Nosferatu", "Skidmark Skip")  # 2*2 = 4 against 5
    assert Launch(*hand_card(state, "2X", 0)) not in legal_actions(state)


def test_reversal_opener_swaps_the_values():
    state = declare(position(hand0=["Reversal"]), "Nitro Nosferatu", "Grimy Gus")
    state = apply(state, Launch(*hand_card(state, "Reversal", 0)))
    assert state.stage.values == (5, 3)
    state = apply(state, StopHeroes())
    assert names(state, state.dead) == ["Nitro Nosferatu"]
    assert names(state, state.discard) == ["Reversal"]


def test_reversal_reply_takes_the_opponents_last_effect():
    state = declare(
        position(hand0=["2X", "Flat Tire"], hand1=["Reversal"]), "Rusty Rita", "Skidmark Skip"
    )
    state = apply(state, Launch(*hand_card(state, "2X", 0)))
    assert state.stage.values == (8, 3)
    state = apply(state, PlayHero(*hand_card(state, "Reversal", 1)))
    assert state.stage.values == (4, 6)  # the 2X moved to the defender
    assert pending(state) == Decide(0, "hero")
    assert legal_actions(state) == [StopHeroes()]
    state = apply(state, StopHeroes())
    assert alive(state, 0) == ["Grimy Gus", "Slime Sally"]
    assert names(state, state.discard) == ["2X", "Reversal"]


def test_reversal_answered_by_reversal_takes_the_effect_back():
    state = declare(
        position(hand0=["Reversal", "Flat Tire"], hand1=["3X", "Modifier"]),
        "Rusty Rita",
        "Skidmark Skip",
    )
    state = apply(state, Launch())  # 4 against 3
    state = apply(state, PlayHero(*hand_card(state, "3X", 1)))
    assert state.stage.values == (4, 9)
    state = apply(state, PlayHero(*hand_card(state, "Reversal", 0)))
    assert state.stage.values == (12, 3)
    assert pending(state) == Decide(1, "hero")
    state = apply(state, PlayHero(*hand_card(state, "Modifier", 1)))
    assert pending(state) == NeedDie("modifier", 1)
    state = apply(state, Die(5))
    assert state.stage.values == (12, 15)
    state = apply(state, StopHeroes())  # the attacker stops: 12 is not above 15
    assert names(state, state.dead) == ["Skidmark Skip"]


def test_reversal_reply_without_an_effect_to_take_swaps():
    state = declare(position(hand1=["Reversal"]), "Rusty Rita", "Skidmark Skip")
    state = apply(state, Launch())
    state = apply(state, PlayHero(*hand_card(state, "Reversal", 1)))
    assert names(state, state.dead) == ["Skidmark Skip"]  # 3 against 4 after the swap


def test_opening_modifier_that_falls_short_loses_at_once():
    state = declare(
        position(hand0=["Modifier"], hand1=["Creep Eraser"]), "Nitro Nosferatu", "Grimy Gus"
    )
    state = apply(state, Launch(*hand_card(state, "Modifier", 0)))
    assert pending(state) == NeedDie("modifier", 0)
    state = apply(state, Die(1))  # 3 is not above 5: the defender is never asked
    assert names(state, state.dead) == ["Grimy Gus"]
    assert names(state, state.discard) == ["Modifier"]
    assert pending(state) == Decide(0, "move") and state.turn.moves_left == 1


def test_opening_modifier_that_lifts_the_attacker_continues():
    state = declare(position(hand0=["Modifier"]), "Nitro Nosferatu", "Grimy Gus")
    state = apply(apply(state, Launch(*hand_card(state, "Modifier", 0))), Die(2))
    assert state.stage.values == (6, 5)
    assert pending(state) == Decide(1, "hero")


def test_modifier_waits_for_its_die():
    state = declare(position(hand0=["Modifier"]), "Nitro Nosferatu", "Grimy Gus")
    state = apply(state, Launch(*hand_card(state, "Modifier", 0)))
    with pytest.raises(IllegalAction):
        apply(state, StopHeroes())
    with pytest.raises(IllegalAction):
        apply(state, Die(7))


def test_creep_eraser_wins_at_once_for_the_defender():
    state = declare(
        position(hand0=["3X", "2X"], hand1=["Creep Eraser"]), "Nitro Nosferatu", "Skidmark Skip"
    )
    state = apply(state, Launch(*hand_card(state, "3X", 0)))  # 12 against 5
    state = apply(state, PlayHero(*hand_card(state, "Creep Eraser", 1)))
    assert alive(state, 0) == ["Grimy Gus", "Slime Sally"]  # the 2X never came into play
    assert names(state, state.discard) == ["3X", "Creep Eraser"]
    assert len(state.players[0].hand) == 1


def test_exchange_ends_when_the_side_to_play_has_no_card():
    state = declare(position(hand0=[], hand1=["2X"]), "Rusty Rita", "Skidmark Skip")
    state = apply(state, Launch())
    state = apply(state, PlayHero(*hand_card(state, "2X", 1)))  # 4 against 6, attacker empty
    assert pending(state) == Decide(0, "move")
    assert names(state, state.dead) == ["Skidmark Skip"]


def test_creep_eraser_wins_at_once_for_the_attacker():
    state = declare(
        position(hand0=["Creep Eraser"], hand1=["3X", "2X"]),
        "Nitro Nosferatu",
        "Grimy Gus",
        "Slime Sally",
    )
    state = apply(state, Launch())
    state = apply(state, PlayHero(*hand_card(state, "3X", 1)))
    state = apply(state, PlayHero(*hand_card(state, "Creep Eraser", 0)))
    assert names(state, state.dead) == ["Nitro Nosferatu"]
    assert len(state.players[1].hand) == 1


def test_attacker_losing_every_creep_is_out_and_the_game_ends():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Nitro Nosferatu"], 2: ["Rusty Rita"]},
        hands={0: ["Modifier"], 1: ["2X"]},
    )
    state = declare(state, "Nitro Nosferatu", "Grimy Gus")
    state = apply(apply(state, Launch(*hand_card(state, "Modifier", 0))), Die(1))
    assert not state.players[0].active
    assert state.turn.seat == 1  # the eliminated attacker's turn ended at once
