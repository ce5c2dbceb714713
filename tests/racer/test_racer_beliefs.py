"""Beliefs: what the other seats did makes the planner's sampled worlds fit it (a seat that
stopped an exchange it was losing held no Creep Eraser), softly, from the seat's view only."""

import random
from dataclasses import replace
from types import MappingProxyType

import pytest

from creepnet.engine.racer import (
    Decide,
    Hero,
    Options,
    Pass,
    StopHeroes,
    audit,
    make_bot,
    pending,
    play_game,
    redact,
)
from creepnet.engine.racer.beliefs import Beliefs
from creepnet.engine.racer.planner import determinize


def losing(state, seat):
    """Whether ``seat`` is losing the exchange under way (the values as they stand)."""
    attacker, defender = state.stage.values
    return attacker <= defender if seat == state.turn.seat else attacker > defender


def a_stop_while_losing():
    """The state before seat 1 (a heuristic bot) stopped an exchange it was losing, with
    Heroes in its hand that seat 0 cannot see."""
    found = []

    def watch(before, actor, action, after):
        if (
            pending(before) == Decide(1, "hero")
            and action == StopHeroes()
            and losing(before, 1)
            and len(before.players[1].hand) >= 3
        ):
            found.append(before)

    for seed in range(50):
        bots = [make_bot("heuristic", seed * 10 + s) for s in range(2)]
        play_game(bots, seed, Options(players=2, turn_limit=200), observer=watch)
        if found:
            return found[0]
    raise AssertionError("no stop while losing in 50 games")


@pytest.fixture(scope="module")
def stopped():
    return a_stop_while_losing()


def with_eraser_in_hand(state, seat):
    """``state`` with one of ``seat``'s hand cards swapped for a Creep Eraser that seat 0
    cannot see (from a deck or the box): another world seat 0 could not tell apart."""
    hidden = redact(state, 0).known.keys()
    erasers = [
        slot
        for slot, card in state.known.items()
        if slot not in hidden
        and state.catalogue[card].hero is Hero.ERASER
        and slot not in state.players[seat].hand
    ]
    mine = [s for s in state.players[seat].hand if s not in hidden]
    assert erasers and mine
    a, b = mine[0], erasers[0]
    known = {**state.known, a: state.known[b], b: state.known[a]}
    return replace(state, known=MappingProxyType(known))


def eraser_held(world, seat):
    return any(
        world.catalogue[world.known[s]].hero is Hero.ERASER for s in world.players[seat].hand
    )


def test_the_true_world_explains_the_stop_and_one_with_an_eraser_does_not(stopped):
    beliefs = Beliefs(0)
    beliefs.observe(redact(stopped, 0), 1, StopHeroes())
    assert len(beliefs.choices) == 1
    assert beliefs.misfits(stopped) == 0
    other = with_eraser_in_hand(stopped, 1)
    assert redact(other, 0) == redact(stopped, 0) and not audit(other)
    assert beliefs.misfits(other) == 1  # the model would have played the Eraser


def test_its_worlds_hold_an_eraser_less_often_once_it_saw_the_stop(stopped):
    view = redact(stopped, 0)
    rng = random.Random(5)
    prior = [determinize(view, rng) for _ in range(300)]
    beliefs = Beliefs(0)
    beliefs.observe(view, 1, StopHeroes())
    source = beliefs.sampler(view, random.Random(6), determinize)
    after = [source(rng) for _ in range(300)]
    for world in after:  # every world still agrees with the view and the rules
        assert world is not None and not audit(world)
        assert redact(world, 0).known == view.known
    before_rate = sum(eraser_held(w, 1) for w in prior) / len(prior)
    after_rate = sum(eraser_held(w, 1) for w in after) / len(after)
    assert before_rate > 0.2
    assert after_rate < before_rate / 2  # its other Heroes that would help count too


def test_a_choice_no_world_explains_only_blurs_the_worlds(stopped):
    """A person the model does not describe: every world misfits alike, so the sampling is
    the plain one's (the weights are equal), never empty."""
    view = redact(stopped, 0)
    beliefs = Beliefs(0)
    beliefs.observe(view, 1, Pass())  # a move, where the model plays a Hero or stops
    source = beliefs.sampler(view, random.Random(6), determinize)
    rng = random.Random(7)
    worlds = [source(rng) for _ in range(300)]
    assert all(w is not None and not audit(w) for w in worlds)
    rate = sum(eraser_held(w, 1) for w in worlds) / len(worlds)
    plain = sum(eraser_held(determinize(view, rng), 1) for _ in range(300)) / 300
    assert abs(rate - plain) < 0.12


def test_without_choices_it_samples_as_the_plain_planner(stopped):
    view = redact(stopped, 0)
    source = Beliefs(0).sampler(view, random.Random(1), determinize)
    assert source(random.Random(2)) == determinize(view, random.Random(2))


def test_it_remembers_only_the_other_seats_decisions_and_only_its_memory(stopped):
    view = redact(stopped, 0)
    beliefs = Beliefs(1, memory=2)
    beliefs.observe(view, 1, StopHeroes())  # its own seat's: nothing to learn
    assert not beliefs.choices
    other = Beliefs(0, memory=2)
    for _ in range(3):
        other.observe(view, 1, StopHeroes())
    assert len(other.choices) == 2
    off = Beliefs(0, memory=0)
    off.observe(view, 1, StopHeroes())
    assert not off.choices
