"""Canonical action text: every seat action round-trips, and there is one spelling per action."""

import random

import pytest

from creepnet.engine import racer
from creepnet.engine.racer import IllegalAction, format_action, parse_action


def every_legal_action_of_some_games():
    for seed in range(6):
        state = racer.new_game(racer.Options(players=2 + seed % 3))
        bots = [racer.make_bot("random", seed * 10 + k) for k in range(4)]
        rng = random.Random(seed)
        for _ in range(400):
            request = racer.pending(state)
            if isinstance(request, racer.GameOver):
                break
            if request.actor == racer.CHANCE:
                state = racer.apply(state, racer.chance_action(state, rng))
                continue
            legal = racer.legal_actions(state)
            yield from legal
            obs = racer.observation(state, request.actor)
            state = racer.apply(state, bots[request.actor].choose(obs, legal))


def test_every_legal_seat_action_round_trips():
    seen = set()
    for action in every_legal_action_of_some_games():
        text = format_action(action)
        assert parse_action(text) == action
        seen.add(type(action).__name__)
    assert {"Pass", "PlayCalamity", "DeclareAttack", "Launch", "KeepDrawn"} <= seen


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "unknown action"),
        ("teleport slot=1", "unknown action"),
        ("discard slot=1", "malformed"),
        ("discard card=2 slot=1", "write it as 'discard slot=1 card=2'"),
        ("discard slot=01 card=2", "bad field"),
        ("discard slot=1 card=2 slot=3", "bad field"),
        ("discard slot=1 card=-2", "bad field"),
        ("pass extra=1", "malformed"),
    ],
)
def test_malformed_text_gets_a_reason(text, reason):
    with pytest.raises(IllegalAction, match=reason):
        parse_action(text)


def test_chance_actions_have_no_seat_text():
    with pytest.raises(IllegalAction):
        format_action(racer.Die(3))
