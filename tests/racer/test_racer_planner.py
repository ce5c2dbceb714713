"""The Racer planner: worlds consistent with its seat's view, choices that depend on that view
only (and on the seed), and every kind of move used in its games."""

import random
from collections import Counter

import pytest

from creepnet.engine import racer
from creepnet.engine.racer import (
    CHANCE,
    Decide,
    GameOver,
    Kind,
    Options,
    apply,
    audit,
    chance_action,
    legal_actions,
    make_bot,
    new_game,
    observation_of_view,
    pending,
    redact,
)
from creepnet.engine.racer.planner import PlanBudget, PlannerBot, determinize

SMALL = PlanBudget(playouts=12, horizon=2)


def play(players, planner_seats, seed, budget=SMALL, stop=None, record=None):
    """A driver game with planners at ``planner_seats`` and heuristic bots elsewhere; stops
    early at the first state for which ``stop`` says so (returned then)."""
    rng = random.Random(seed)
    bots = [make_bot("heuristic", seed * 10 + s) for s in range(players)]
    planners = {s: PlannerBot(seed + s, budget) for s in planner_seats}
    state = new_game(Options(players=players, turn_limit=200))
    while not isinstance(request := pending(state), GameOver):
        actor = request.actor
        if actor == CHANCE:
            action = chance_action(state, rng)
        else:
            view = redact(state, actor)
            legal = legal_actions(view)
            if stop is not None and stop(state, actor, legal):
                return state
            if len(legal) == 1:
                action = legal[0]
            elif actor in planners:
                action = planners[actor].plan(view, actor, legal)
            else:
                action = bots[actor].choose(observation_of_view(view, actor), legal)
            if record is not None and actor in planners:
                record(state, action)
        state = apply(state, action)
    return state


def a_move_decision(state, actor, legal):
    request = pending(state)
    return (
        actor == 0
        and isinstance(request, Decide)
        and request.topic == "move"
        and state.turn.number >= 8
        and len(legal) >= 3
    )


@pytest.fixture(scope="module")
def midgame():
    state = play(2, [], 11, stop=a_move_decision)
    assert isinstance(pending(state), Decide)
    return state


def hidden_from(state, seat):
    view = redact(state, seat)
    return {slot: state.known[slot] for _, slot in racer.locations(state) if slot not in view.known}


def test_a_world_agrees_with_the_view_and_the_public_counts(midgame):
    view = redact(midgame, 0)
    for seed in range(5):
        world = determinize(view, random.Random(seed))
        assert world is not None and not audit(world)  # every card once, no Creep in a hand
        assert all(world.known[slot] == card for slot, card in view.known.items())
        for player in world.players:
            creeps = sum(world.catalogue[world.known[s]].kind is Kind.CREEP for s in player.deck)
            assert creeps == player.deck_creeps
        assert redact(world, 0).known == view.known  # the seat could not tell it apart


def test_plays_the_same_whatever_the_cards_it_cannot_see(midgame):
    view = redact(midgame, 0)
    legal = legal_actions(view)
    other = determinize(view, random.Random(99))  # the same view, other hidden cards
    changed = hidden_from(midgame, 0).keys() & {
        slot for slot in hidden_from(other, 0) if other.known[slot] != midgame.known[slot]
    }
    assert len(changed) > 20  # most hidden cards are elsewhere in the other world
    choices = set()
    for world in (midgame, other):
        bot = PlannerBot(3, SMALL)
        choices.add(bot.plan(redact(world, 0), 0, legal_actions(redact(world, 0))))
        assert bot.last_playouts == SMALL.playouts  # it searched (not a lone candidate)
    assert len(choices) == 1 and choices <= set(legal)


def test_the_seed_and_the_view_seed_its_rng(midgame):
    view = redact(midgame, 0)
    legal = legal_actions(view)
    budget = PlanBudget(playouts=30, horizon=2)
    first = PlannerBot(3, budget).plan(view, 0, legal)
    assert all(PlannerBot(3, budget).plan(view, 0, legal) == first for _ in range(2))


def test_a_time_budget_reads_only_the_injected_clock(midgame):
    view = redact(midgame, 0)
    ticks = iter(range(10**6))
    bot = PlannerBot(3, PlanBudget(seconds=7, clock=lambda: next(ticks), horizon=2))
    bot.plan(view, 0, legal_actions(view))
    assert bot.last_playouts == 6  # one tick at the start, one before each playout


def test_planner_games_use_every_kind_of_move():
    seen = Counter()

    def record(state, action):
        seen[type(action).__name__] += 1
        card = getattr(action, "card", None)
        if card is not None and state.catalogue[card].kind is Kind.HERO:
            seen[f"{type(action).__name__} {state.catalogue[card].name}"] += 1

    for seed in range(4):
        play(2 + seed % 3, [0, 1], seed, record=record)
    wanted = {
        "PlayCalamity",
        "PlayGoodFortune",
        "DeclareAttack",
        "AddAttacker",
        "Launch",
        "StopHeroes",
        "PlayMonster",
        "AskHostage",
        "ForceHostage",
        "AcceptHostage",
        "RefuseHostage",
        "Discard",
        "PlayHero 2X",
        "PlayHero 3X",
        "PlayHero Reversal",
        "PlayHero Creep Eraser",
    }
    assert wanted <= set(seen), wanted - set(seen)


def test_the_planner_plays_a_real_session_from_its_seat_view():
    from creepnet.protocol.games import get_game
    from creepnet.protocol.testing.sessions import SessionHarness, seat_bot
    from creepnet.protocol.verify import verify_log_bytes

    medium = get_game("racer").make_bot("medium", 0)
    searched = []

    def planner(session):
        text = medium.choose(session.local_view(), session.local_seat)
        searched.append(medium.engine_bot.last_playouts)
        return text

    table = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 6}, seed=4, onion_length=512
    )
    table.run([planner, seat_bot("racer", "heuristic", 1)])
    assert table.rejections == []
    assert max(searched) > 0  # it searched from the node's view, not just fell back
    data = b"".join(event.raw for event in table.sessions[0].log.events)
    verdict = verify_log_bytes(data)
    assert verdict.valid and verdict.finished, verdict.error
