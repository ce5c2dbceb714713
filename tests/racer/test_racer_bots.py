"""The heuristic bot: ties broken by its own RNG (no seat is the favourite victim), and every
kind of move used when it helps, so bot games exercise every rule."""

from collections import Counter

from creepnet.engine import racer
from creepnet.engine.racer import (
    AcceptHostage,
    AskHostage,
    Decide,
    HeuristicBot,
    Launch,
    Options,
    Pass,
    PlayCalamity,
    RefuseHostage,
    crafted_position,
    legal_actions,
    make_bot,
    observation,
    pending,
    play_game,
    slot_of,
)


def choice(state, seed):
    seat = pending(state).actor
    return HeuristicBot(seed).choose(observation(state, seat), legal_actions(state))


def test_equally_good_victims_are_chosen_by_the_bot_rng_not_by_seat():
    # Three opponents, each with one Creep at strength 1: finishing any is as good.
    state = crafted_position(
        lines={
            0: ["Grimy Gus"],
            1: [("Slime Sally", ["Bone Dry", "Bone Dry"])],
            2: [("Pothole Pete", ["Blown Gasket", "Blown Gasket"])],
            3: [("Mudflap Mo", ["Dead Battery", "Dead Battery"])],
        },
        hands={0: ["Wrong Turn"], 1: ["2X"], 2: ["2X"], 3: ["2X"]},
    )
    owners = {
        slot_of(state, name): seat
        for seat, name in enumerate(["Grimy Gus", "Slime Sally", "Pothole Pete", "Mudflap Mo"])
    }
    victims = Counter()
    for seed in range(60):
        action = choice(state, seed)
        assert isinstance(action, PlayCalamity)
        victims[owners[action.target]] += 1
    assert set(victims) == {1, 2, 3}
    assert min(victims.values()) >= 10  # about 20 each


def test_a_weak_hand_asks_for_a_hostage_exchange_and_a_strong_one_refuses():
    weak = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Nitro Nosferatu"]},
        hands={0: ["Extra Gas"], 1: ["Spare Wheel", "2X", "3X"]},
        forced_used=[0],
    )
    assert choice(weak, 1) == AskHostage(1)
    asked = racer.apply(weak, AskHostage(1))
    assert pending(asked) == Decide(1, "hostage")
    assert choice(asked, 1) == RefuseHostage()  # 2X and 3X are worth keeping
    poor = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Nitro Nosferatu"]},
        hands={0: ["Extra Gas"], 1: ["Spare Wheel", "Duct Tape"]},
        forced_used=[0],
    )
    assert choice(racer.apply(poor, AskHostage(1)), 1) == AcceptHostage()


def test_a_refused_hostage_exchange_is_not_asked_again_in_the_same_turn():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Nitro Nosferatu"]},
        hands={0: ["Extra Gas"], 1: ["Spare Wheel", "2X", "3X"]},
        forced_used=[0],
    )
    bot = HeuristicBot(1)  # one bot for the whole game: it remembers

    def bot_move(state):
        assert pending(state) == Decide(0, "move")
        return bot.choose(observation(state, 0), legal_actions(state))

    assert bot_move(state) == AskHostage(1)
    state = racer.apply(racer.apply(state, AskHostage(1)), RefuseHostage())
    assert observation(state, 0).moves_left == 1  # the same turn, one move left
    assert AskHostage(1) in legal_actions(state)  # asking again would be legal, and refused
    assert bot_move(state) != AskHostage(1)
    state = racer.apply(state, bot_move(state))
    while pending(state).actor != 0:  # seat 1's turn passes
        state = racer.apply(state, Pass())
    assert bot_move(state) == AskHostage(1)  # a new turn: worth asking again


def test_a_modifier_opens_an_attack_when_most_faces_win():
    state = crafted_position(
        lines={0: ["Skidmark Skip"], 1: ["Nitro Nosferatu"]},  # 4 against 5: x2..x6 win
        hands={0: ["Modifier"], 1: ["Extra Gas"]},
    )
    for seed in range(4):  # without a Hero it attacks or not by a coin; with one, always
        state_now = state
        while isinstance(
            action := choice(state_now, seed), (racer.DeclareAttack, racer.AddAttacker)
        ):
            state_now = racer.apply(state_now, action)
        assert action == Launch(slot_of(state, "Modifier"), state.known[slot_of(state, "Modifier")])


def test_bot_games_use_every_kind_of_move():
    seen = Counter()

    def record(before, actor, action, after):
        if actor >= 0:
            seen[type(action).__name__] += 1
            if isinstance(action, Launch) and action.card is not None:
                seen["open with " + before.catalogue[action.card].name] += 1

    for seed in range(6):
        players = 2 + seed % 3
        bots = [make_bot("heuristic", seed * 10 + s) for s in range(players)]
        play_game(bots, seed, Options(players=players, turn_limit=400), observer=record)
    kinds = {
        "PlaceCreep",
        "KeepDrawn",
        "Pass",
        "PlayCalamity",
        "PlayGoodFortune",
        "DeclareAttack",
        "AddAttacker",
        "Launch",
        "PlayHero",
        "StopHeroes",
        "PlayMonster",
        "DeclineMonster",
        "AskHostage",
        "ForceHostage",
        "AcceptHostage",
        "RefuseHostage",
        "Discard",
        "open with 2X",
        "open with 3X",
        "open with Modifier",
    }
    assert kinds <= set(seen), kinds - set(seen)
