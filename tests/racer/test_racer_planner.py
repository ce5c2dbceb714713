"""The Racer planner: worlds consistent with its seat's view, choices that depend on that view
only (and on the seed), and every kind of move used in its games."""

import copy
import random
from collections import Counter
from dataclasses import replace
from types import MappingProxyType

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
from creepnet.engine.racer.planner import PLANNABLE_TOPICS, PlanBudget, PlannerBot, determinize

SMALL = PlanBudget(playouts=12, horizon=2)


def play(
    players, planner_seats, seed, budget=SMALL, stop=None, record=None, memory=0, planners=None
):
    """A driver game with planners at ``planner_seats`` (told the other seats' choices, the
    last ``memory`` remembered; into ``planners`` if given) and heuristic bots elsewhere; stops
    early at the first state for which ``stop`` says so (returned then)."""
    rng = random.Random(seed)
    bots = [make_bot("heuristic", seed * 10 + s) for s in range(players)]
    planners = {} if planners is None else planners
    planners.update({s: PlannerBot(seed + s, budget, memory=memory) for s in planner_seats})
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
            for seat, planner in planners.items():
                if seat != actor:
                    planner.observe(redact(state, seat), seat, actor, action)
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


def test_hidden_hands_hold_fewer_calamities_and_more_monsters_than_the_decks(midgame):
    """As a heuristic's hand does (it plays its Calamities soon and keeps its Monsters)."""
    view = redact(midgame, 0)
    rng = random.Random(1)
    places = {"hand": Counter(), "deck": Counter()}
    for _ in range(300):
        world = determinize(view, rng)
        for place, slots in (("hand", world.players[1].hand), ("deck", world.players[1].deck)):
            for slot in slots:
                kind = world.catalogue[world.known[slot]].kind
                if kind is not Kind.CREEP:
                    places[place][kind] += 1

    def share(place, kind):
        return places[place][kind] / sum(places[place].values())

    assert share("hand", Kind.CALAMITY) < 0.85 * share("deck", Kind.CALAMITY)
    assert share("hand", Kind.MONSTER) > 1.2 * share("deck", Kind.MONSTER)


@pytest.mark.parametrize(("turn_plans", "budget"), [(0, SMALL), (3, PlanBudget(playouts=60))])
def test_plays_the_same_whatever_the_cards_it_cannot_see(midgame, turn_plans, budget, monkeypatch):
    from creepnet.engine.racer import planner as planner_module

    made = []
    pair = planner_module.PlannerBot._turn_plans
    monkeypatch.setattr(
        planner_module.PlannerBot,
        "_turn_plans",
        lambda self, *args: made.append(pair(self, *args)) or made[-1],
    )
    view = redact(midgame, 0)
    legal = legal_actions(view)
    other = determinize(view, random.Random(99))  # the same view, other hidden cards
    changed = hidden_from(midgame, 0).keys() & {
        slot for slot in hidden_from(other, 0) if other.known[slot] != midgame.known[slot]
    }
    assert len(changed) > 20  # most hidden cards are elsewhere in the other world
    choices = set()
    for world in (midgame, other):
        bot = PlannerBot(3, budget, turn_plans=turn_plans)
        choices.add(bot.plan(redact(world, 0), 0, legal_actions(redact(world, 0))))
        assert bot.last_playouts == budget.playouts  # it searched (not a lone candidate)
    assert len(choices) == 1 and choices <= set(legal)
    assert len(made) == (2 if turn_plans else 0) and all(made)  # turn plans were weighed
    assert all(plans == made[0] for plans in made)  # the same ones in both worlds


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
    """... told the other seat's choices: the game keeps the last ones, each with the public
    state before it, for the seat's planner to weigh its worlds by (engine/racer/beliefs.py)."""
    from creepnet.protocol.games import get_game
    from creepnet.protocol.testing.sessions import SessionHarness, seat_bot
    from creepnet.protocol.verify import verify_log_bytes

    medium = get_game("racer").make_bot("medium", 0)
    searched = []
    told = []

    def planner(session):
        text = medium.choose(session.local_view(), session.local_seat)
        searched.append(medium.engine_bot.last_playouts)
        beliefs = medium.engine_bot.beliefs
        told.append(len(beliefs.choices) if beliefs else 0)
        return text

    table = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 6}, seed=4, onion_length=512
    )
    table.run([planner, seat_bot("racer", "heuristic", 1)])
    assert table.rejections == []
    assert max(searched) > 0  # it searched from the node's view, not just fell back
    assert max(told) > 0
    assert all(choice.actor == 1 for choice in medium.engine_bot.beliefs.choices)
    recent = table.sessions[0].game_state.recent
    assert recent and {seat for _, seat, _ in recent} == {0, 1}
    for before, _, _ in recent:  # public: every card it knows, both seats have seen
        assert before.known == redact(before, 0).known == redact(before, 1).known
    data = b"".join(event.raw for event in table.sessions[0].log.events)
    verdict = verify_log_bytes(data)
    assert verdict.valid and verdict.finished, verdict.error


def test_the_screen_finds_the_best_candidate_and_plays_it_most(midgame, monkeypatch):
    """Sequential halving keeps the better half each round and the duel plays the winner over
    the heuristic's choice when it is better in every world (single moves only: no turn
    plans)."""
    from creepnet.engine.racer import planner as planner_module

    view = redact(midgame, 0)
    bot = PlannerBot(3, PlanBudget(playouts=120, horizon=2), turn_plans=0)
    obs, legal = observation_of_view(view, 0), legal_actions(view)
    baseline = planner_module._effect(obs, copy.deepcopy(bot.policy).choose(obs, legal))
    candidates = bot._candidates(obs, legal, baseline)
    assert len(candidates) >= 3
    worth = {action: random.Random(i).random() for i, action in enumerate(candidates)}
    played = Counter()

    def playout(self, world, seat, first, chance_seed):
        played[first] += 1
        return worth[first]

    monkeypatch.setattr(planner_module.PlannerBot, "_playout", playout)
    choice = bot.plan(view, 0, legal_actions(view))
    best = max(candidates, key=worth.get)
    assert choice == best
    assert played[best] == max(played.values()) > min(played[c] for c in candidates)
    assert sum(played.values()) == 120


def test_the_model_values_a_hero_in_the_own_hand(midgame):
    """Trading a card of seat 0's hand for an Eraser the opponent holds (or has in its deck)
    raises seat 0's value and lowers the opponent's (the model reads the full world)."""
    from creepnet.engine.racer.planner import features, value

    catalogue, known = midgame.catalogue, midgame.known
    mine = next(s for s in midgame.players[0].hand if catalogue[known[s]].kind is not Kind.HERO)
    other = midgame.players[1]
    eraser = next(
        s for s in (*other.hand, *other.deck) if catalogue[known[s]].name == "Creep Eraser"
    )
    swapped = dict(known)
    swapped[mine], swapped[eraser] = known[eraser], known[mine]
    richer = replace(midgame, known=MappingProxyType(swapped))
    assert sum(features(richer, 0)) > sum(features(midgame, 0))
    assert value(richer, 0) > value(midgame, 0)
    assert value(richer, 0) + value(richer, 1) == pytest.approx(1.0)


def test_a_time_budget_is_estimated_from_the_pace_so_far():
    from creepnet.engine.racer.planner import _Meter

    ticks = iter(range(10**6))
    meter = _Meter(PlanBudget(seconds=10, clock=lambda: next(ticks)))
    assert meter.more() and meter.more()  # two playouts, one tick each
    assert meter.capacity() == pytest.approx(8.0)  # 8 ticks left at one playout a tick
    counted = _Meter(PlanBudget(playouts=5))
    assert counted.more() and counted.capacity() == 4


def test_attack_plans_are_legal_whole_attacks_the_heuristic_would_not_make():
    from creepnet.engine.racer.attack_plans import attack_plans
    from creepnet.engine.racer.bots import plan_attack

    checked = 0
    for seed in range(40):
        state = play(2, [], seed, stop=a_move_decision)
        if isinstance(pending(state), GameOver):
            continue
        view = redact(state, 0)
        obs = observation_of_view(view, 0)
        for plan in attack_plans(obs, legal_actions(view)):
            own = plan_attack(obs, plan.target)
            assert own is None or (own[0], own[1] and own[1][1].name) != (
                plan.attackers,
                plan.opener,
            )
            after = state
            for step in plan.steps():
                assert step in legal_actions(redact(after, 0))
                after = apply(after, step)
            launch = plan.launch(legal_actions(redact(after, 0)), after.catalogue)
            assert launch is not None
            apply(after, launch)  # a legal launch (an illegal one raises)
            # A planner that chose the plan declares it, step by step, then launches it.
            bot = PlannerBot(1, SMALL)
            bot._attack = plan
            declared = apply(state, plan.steps()[0])
            for expected in (*plan.steps()[1:], launch):
                seen = redact(declared, 0)
                assert pending(seen) == Decide(0, "attack")
                assert bot.plan(seen, 0, legal_actions(seen)) == expected
                declared = apply(declared, expected)
            checked += 1
        if checked >= 5:
            break
    assert checked >= 5


def test_it_asks_for_a_hostage_exchange_only_where_its_heuristic_would(monkeypatch):
    """Asks its heuristic would not make are no candidates (they measured worse than the
    heuristic's own move): with playouts that score every ask best, it still does not ask
    where the heuristic would not, and asks where the heuristic would."""
    from creepnet.engine.racer import planner as planner_module

    def playout(self, world, seat, first, chance_seed):
        return 1.0 if isinstance(first, racer.AskHostage) else 0.0

    monkeypatch.setattr(planner_module.PlannerBot, "_playout", playout)

    def ask_legal(state, actor, legal):
        return a_move_decision(state, actor, legal) and any(
            isinstance(a, racer.AskHostage) for a in legal
        )

    outcomes = set()
    for seed in range(30):
        state = play(2, [], seed, stop=ask_legal)
        if isinstance(pending(state), GameOver):
            continue
        view = redact(state, 0)
        legal = legal_actions(view)
        bot = PlannerBot(3, SMALL)
        heuristic_asks = isinstance(
            copy.deepcopy(bot.policy).choose(observation_of_view(view, 0), legal),
            racer.AskHostage,
        )
        choice = bot.plan(view, 0, legal)
        assert isinstance(choice, racer.AskHostage) == heuristic_asks
        outcomes.add(heuristic_asks)
        if outcomes == {True, False}:
            break
    assert False in outcomes


@pytest.mark.parametrize(
    ("follow", "kind", "topic"),
    [
        ("force", racer.ForceHostage, "move"),
        ("stop", racer.StopHeroes, "hero"),
        ("calamity", racer.PlayCalamity, "move"),
    ],
)
def test_a_followed_choice_is_made_only_as_its_heuristic_makes_it(follow, kind, topic, monkeypatch):
    """With playouts that score every action of ``kind`` best (the heuristic's own choice
    less), a planner that follows its heuristic there plays such an action only where the
    heuristic plays that very one (for "calamity": where the heuristic plays a Calamity, that
    Calamity); one that does not follow plays it."""
    from creepnet.engine.racer import planner as planner_module

    heuristic = None  # the effect of the heuristic's choice at the decision under test

    def playout(self, world, seat, first, chance_seed):
        if not isinstance(first, kind):
            return 0.0
        return 0.5 if planner_module._effect(obs, first) == heuristic else 1.0

    monkeypatch.setattr(planner_module.PlannerBot, "_playout", playout)
    budget = PlanBudget(playouts=300)  # the scripted playouts cost nothing

    def decision(state, actor, legal):
        return (
            actor == 0
            and pending(state) == Decide(0, topic)
            and state.turn.number >= 4
            and sum(isinstance(a, kind) for a in legal) >= (2 if kind is racer.PlayCalamity else 1)
        )

    checked = overruled = 0
    for seed in range(60):
        state = play(2, [], seed, stop=decision)
        if isinstance(pending(state), GameOver):
            continue
        view = redact(state, 0)
        legal = legal_actions(view)
        obs = observation_of_view(view, 0)
        policy = copy.deepcopy(PlannerBot(3, budget).policy)
        heuristic = planner_module._effect(obs, policy.choose(obs, legal))
        if kind is racer.PlayCalamity and heuristic[0] != "PlayCalamity":
            continue
        following = PlannerBot(3, budget, follow=frozenset({follow})).plan(view, 0, legal)
        free = PlannerBot(3, budget, follow=frozenset()).plan(view, 0, legal)
        effect = planner_module._effect(obs, following)
        assert not isinstance(following, kind) or effect == heuristic
        assert isinstance(free, kind)
        overruled += planner_module._effect(obs, free) != heuristic
        checked += 1
        if checked >= 4 and overruled:
            break
    assert checked >= 2 and overruled


def test_it_refuses_a_choice_it_cannot_follow():
    with pytest.raises(ValueError, match="follow"):
        PlannerBot(3, SMALL, follow=frozenset({"discard"}))


def test_the_two_player_model_reads_only_what_the_seat_knows_of_itself(midgame):
    """Its features of a seat are public facts and that seat's own hand: the same in the seat's
    own view, and unchanged when the cards hidden from it are dealt otherwise."""
    from creepnet.engine.racer.planner import FEATURES_2P, features_2p

    for seat in (0, 1):
        read = features_2p(midgame, seat)
        assert len(read) == len(FEATURES_2P)
        assert features_2p(redact(midgame, seat), seat) == read
        other = determinize(redact(midgame, seat), random.Random(7))
        assert features_2p(other, seat) == read


def test_the_two_player_model_values_a_creep_more_in_a_short_line(midgame):
    """Losing one of its last Creeps costs a seat more of its score (log-odds) than losing one
    of many (a linear score would count them alike)."""
    from creepnet.engine.racer.planner import strength_score, value

    player = midgame.players[0]
    creep = max(player.line, key=midgame.strength)
    gone = replace(midgame.players[1], deck_creeps=0)

    def with_line(count):
        line = replace(player, line=(creep,) * count, deck_creeps=0)
        return replace(midgame, players=(line, gone))

    def score(count):
        return strength_score(with_line(count), 0)

    assert score(2) - score(1) > 1.5 * (score(6) - score(5)) > 0
    assert value(with_line(6), 0) > value(with_line(5), 0)


@pytest.mark.parametrize(
    ("topic", "kind"), [("discard", racer.Discard), ("react", racer.PlayMonster)]
)
def test_it_searches_discards_and_monster_answers_unless_told_not_to(topic, kind, monkeypatch):
    """With playouts that score one choice the heuristic would not make best (another discard,
    a Monster answer declined), the planner makes it by default; one told to search only the
    other decisions leaves ``topic`` to its heuristic (whose choice it then plays)."""
    from creepnet.engine.racer import planner as planner_module

    heuristic = None  # the effect of the heuristic's choice at the decision under test

    def playout(self, world, seat, first, chance_seed):
        return 0.0 if planner_module._effect(obs, first) == heuristic else 1.0

    monkeypatch.setattr(planner_module.PlannerBot, "_playout", playout)
    budget = PlanBudget(playouts=300)  # the scripted playouts cost nothing

    def decision(state, actor, legal):
        return (
            actor == 0
            and pending(state) == Decide(0, topic)
            and (topic != "react" or any(isinstance(a, kind) for a in legal))
        )

    checked = 0
    for seed in range(80):
        state = play(2, [], seed, stop=decision)
        if isinstance(pending(state), GameOver):
            continue
        view = redact(state, 0)
        legal = legal_actions(view)
        obs = observation_of_view(view, 0)
        heuristic = planner_module._effect(
            obs, copy.deepcopy(PlannerBot(3).policy).choose(obs, legal)
        )
        distinct = {planner_module._effect(obs, a) for a in legal}
        if len(distinct) < 2:
            continue
        others = PLANNABLE_TOPICS - {topic}
        leaving = PlannerBot(3, budget, topics=others).plan(view, 0, legal)
        default = PlannerBot(3, budget).plan(view, 0, legal)
        assert planner_module._effect(obs, leaving) == heuristic
        assert planner_module._effect(obs, default) != heuristic
        checked += 1
        if checked >= 3:
            break
    assert checked >= 1


def test_it_refuses_a_decision_it_cannot_search():
    with pytest.raises(ValueError, match="plan"):
        PlannerBot(3, SMALL, topics=frozenset({"attack"}))


def test_turn_plans_pair_the_best_first_moves_with_a_second_and_play_the_first(
    midgame, monkeypatch
):
    """At a turn's first move, the best ``turn_plans`` single moves of a first round (never a
    pass) are paired with the best others and a pass (never the same card twice); a pair that
    scores best is chosen, and its first move is what the planner plays. At a second move, or
    with ``turn_plans=0``, no pair is weighed."""
    from creepnet.engine.racer import planner as planner_module
    from creepnet.engine.racer.planner import TurnPlan

    worth = {}
    played = Counter()

    def playout(self, world, seat, first, chance_seed):
        played[first] += 1
        if isinstance(first, TurnPlan):
            return 1.0 if first.then == racer.Pass() else 0.6
        return worth.setdefault(first, random.Random(len(worth)).random() / 2)

    monkeypatch.setattr(planner_module.PlannerBot, "_playout", playout)
    view = redact(midgame, 0)
    legal = legal_actions(view)
    assert midgame.turn.moves_left == 2
    bot = PlannerBot(3, PlanBudget(playouts=200), turn_plans=2)
    choice = bot.plan(view, 0, legal)
    chosen, policy = bot.last_choice
    assert isinstance(chosen, TurnPlan) and chosen.then == racer.Pass()
    assert choice == chosen.first and choice in legal
    assert not isinstance(policy, TurnPlan)
    pairs = [c for c in played if isinstance(c, TurnPlan)]
    singles = [c for c in played if not isinstance(c, TurnPlan)]
    best_firsts = sorted((c for c in singles if c != racer.Pass()), key=lambda c: -worth[c])[:2]
    assert {p.first for p in pairs} == set(best_firsts)
    assert all(p.first != p.then and p.first != racer.Pass() for p in pairs)
    assert all(getattr(p.first, "slot", None) != getattr(p.then, "slot", 0) for p in pairs)
    assert sum(played.values()) == 200

    for bot, state in (
        (PlannerBot(3, PlanBudget(playouts=200), turn_plans=0), view),
        (
            PlannerBot(3, PlanBudget(playouts=200), turn_plans=2),
            replace(view, turn=replace(view.turn, moves_left=1)),
        ),
    ):
        played.clear()
        bot.plan(state, 0, legal_actions(state))
        assert played and not any(isinstance(c, TurnPlan) for c in played)


def test_a_turn_plan_playout_makes_its_second_move_where_the_heuristic_would_not(
    midgame, monkeypatch
):
    """In a playout of a turn plan, the seat's next move in the same turn is the plan's
    second; the heuristic plays the rest (as it plays a single move's)."""
    from creepnet.engine.racer import planner as planner_module
    from creepnet.engine.racer.turn_plans import TurnPlan, same_card

    moves = []  # the seat's moves in the turn, playout by playout
    applied = planner_module.apply

    def spy(state, action):
        if pending(state) == Decide(0, "move") and state.turn.number == midgame.turn.number:
            moves.append(action)
        return applied(state, action)

    monkeypatch.setattr(planner_module, "apply", spy)
    bot = PlannerBot(3, PlanBudget(playouts=1, horizon=1))
    view = redact(midgame, 0)
    firsts = [a for a in legal_actions(view) if not isinstance(a, (racer.Pass, racer.AskHostage))]
    checked = 0
    for seed in range(6):
        world = determinize(view, random.Random(seed))
        for first in firsts:
            moves.clear()
            bot._playout(world, 0, first, seed)
            if len(moves) < 2:
                continue  # the turn ended after the first move (a Monster answer)
            heuristic = moves[1]
            then = next(
                a
                for a in (racer.Pass(), *firsts)
                if a not in (first, heuristic) and not same_card(first, a)
            )
            moves.clear()
            bot._playout(world, 0, TurnPlan(first, then), seed)
            assert moves[:2] == [first, then]
            checked += 1
    assert checked >= 3


def test_it_refuses_a_negative_number_of_turn_plans():
    with pytest.raises(ValueError, match="turn_plans"):
        PlannerBot(3, SMALL, turn_plans=-1)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_planner_told_the_other_seats_choices_plays_whole_games_from_its_seat_view(seed):
    """Told every other seat's choice from its own seat's view (as a driver does), it keeps
    the last ``memory`` of the kinds its model of them describes (engine/racer/beliefs.py)."""
    planners = {}
    remembered = []

    def count(state, action):
        beliefs = planners[0].beliefs
        remembered.append(len(beliefs.choices) if beliefs else 0)

    final = play(2, [0], seed, record=count, memory=8, planners=planners)
    assert isinstance(pending(final), GameOver) and not audit(final)
    beliefs = planners[0].beliefs
    assert max(remembered) == 8 and beliefs.seat == 0
    assert all(
        choice.actor == 1 and pending(choice.view).topic in {"move", "hero", "react", "hostage"}
        for choice in beliefs.choices
    )
