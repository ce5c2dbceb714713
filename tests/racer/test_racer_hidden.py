"""Hidden information: per-seat nodes that see only blind shuffles and their own draws stay in
step with the full-information game; cheats are caught at once or by the audit."""

import random

import pytest

from creepnet.engine import racer
from creepnet.engine.racer import (
    CHANCE,
    PUBLIC,
    GameOver,
    IllegalAction,
    KeepDrawn,
    Learn,
    NeedCard,
    Options,
    PlayCalamity,
    Shuffle,
    action_from_dict,
    action_to_dict,
    apply,
    chance_action,
    crafted_position,
    legal_actions,
    new_game,
    observation,
    pending,
    redact,
    slot_of,
)


def as_seen_by(seat, request, action):
    """What seat ``seat``'s node receives: no permutations, no one else's private draws."""
    if isinstance(action, Shuffle):
        return Shuffle(None)
    if isinstance(action, Learn) and request.learner not in (PUBLIC, seat):
        return Learn(action.slot, None)
    return action


def play_with_nodes(players, seed, bot_name):
    options = Options(players=players, turn_limit=120)
    rng = random.Random(seed)
    bots = [racer.make_bot(bot_name, seed + k) for k in range(players)]
    full = new_game(options)
    nodes = [new_game(options) for _ in range(players)]
    steps = 0
    while not isinstance(request := pending(full), GameOver):
        assert all(pending(node) == request for node in nodes)
        if request.actor == CHANCE:
            action = chance_action(full, rng)
        else:
            me = nodes[request.actor]  # the actor decides on its own node only
            legal = legal_actions(me)
            assert legal == legal_actions(redact(full, request.actor))
            action = (
                legal[0]
                if len(legal) == 1
                else bots[request.actor].choose(observation(me, request.actor), legal)
            )
        full = apply(full, action)
        nodes = [apply(node, as_seen_by(k, request, action)) for k, node in enumerate(nodes)]
        for k, node in enumerate(nodes):
            assert dict(node.known) == dict(redact(full, k).known)
        steps += 1
    for k, node in enumerate(nodes):
        assert observation(node, k) == observation(full, k)
        hidden = {s: c for s, c in full.known.items() if s not in node.known}
        assert racer.audit(node, hidden) == []  # the end-of-game reveal checks out
    return steps


@pytest.mark.parametrize(
    "players, seed, bot", [(2, 1, "heuristic"), (3, 2, "random"), (4, 3, "heuristic")]
)
def test_seat_nodes_stay_in_step_with_the_full_game(players, seed, bot):
    assert play_with_nodes(players, seed, bot) > 50


def test_a_node_does_not_know_other_hands_or_any_deck():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]},
        hands={0: ["2X"], 1: ["3X"]},
        decks={0: ["Reversal"]},
    )
    view = redact(state, 1)
    assert view.card(slot_of(state, "3X")) is not None
    assert view.card(slot_of(state, "2X")) is None
    assert view.card(state.players[0].deck[0]) is None
    assert view.card(slot_of(state, "Grimy Gus")) is not None
    obs = observation(state, 1)
    assert [state.card(s).name for s, _ in obs.hand] == ["3X"]
    assert obs.players[0].hand_count == 1 and obs.players[0].deck_count == 1


def test_playing_a_card_other_than_the_one_held_is_refused():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]}, hands={0: ["2X", "Flat Tire"]}
    )
    two_x = slot_of(state, "2X")
    flat_tire = state.known[slot_of(state, "Flat Tire")]
    with pytest.raises(IllegalAction, match="different card"):
        apply(state, PlayCalamity(two_x, flat_tire, slot_of(state, "Rusty Rita")))


def test_a_node_refuses_a_card_it_already_knows_to_be_elsewhere():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]},
        hands={0: ["Flat Tire", "2X"], 1: ["Flat Tire"]},
    )
    node = redact(state, 1)  # seat 1 cannot see seat 0's hand ...
    mine = state.known[slot_of(state, "Flat Tire", seat=1)]
    cheat = PlayCalamity(slot_of(state, "2X"), mine, slot_of(state, "Rusty Rita"))
    with pytest.raises(IllegalAction, match="elsewhere"):
        apply(node, cheat)  # ... but knows this Flat Tire is in its own hand


def test_a_hidden_kept_creep_is_caught_by_the_audit():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]},
        decks={0: ["Nitro Nosferatu", "2X", "3X"]},
        at="turn-start",
    )
    node = redact(state, 1)
    request = pending(node)
    assert isinstance(request, NeedCard) and request.learner == 0
    node = apply(node, Learn(request.slot, None))
    node = apply(node, KeepDrawn(request.slot))  # seat 1 cannot tell it was a Creep
    with pytest.raises(IllegalAction):
        apply(
            apply(state, Learn(request.slot, state.known[request.slot])), KeepDrawn(request.slot)
        )  # the full state can
    hidden = {s: c for s, c in state.known.items() if s not in node.known}
    problems = racer.audit(node, hidden)
    assert any("kept hidden" in p for p in problems)


def test_actions_round_trip_through_plain_dicts():
    samples = [
        Shuffle((2, 0, 1)),
        Shuffle(None),
        racer.Die(4),
        Learn(7, None),
        Learn(7, 3),
        racer.Pick(1),
        racer.PlaceCreep(5, 2),
        racer.Pass(),
        racer.Launch(),
        racer.Launch(3, 100),
        PlayCalamity(1, 2, 3),
        racer.ForceHostage(2),
    ]
    for action in samples:
        assert action_from_dict(action_to_dict(action)) == action
    with pytest.raises(IllegalAction):
        action_from_dict({"type": "Teleport"})
