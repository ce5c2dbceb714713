"""Bot strength league: the new bots against the old, in-process with the engines (no network).

Prints a league table with Wilson 95% intervals and the think times:

* Racer, 2 players: the planner against the heuristic bot, seats alternated.
* Racer, 4 players: the planner in one seat against three heuristic bots, its seat rotated.
* Creeper: the new search against the old one ("classic") at equal time per move, colours
  alternated. Both get node budgets calibrated to the same seconds per move on this machine
  (measured first and printed), so the games themselves replay exactly.
* Creeper: the forced-connection set (tests/creeper/forced_connections.json) solved, and the
  nodes per second and depth each level reaches from positions of a real game.

* Racer: the planner's choices that differ from its heuristic's (``--only replay``; or from a
  planner that leaves other choices to the heuristic, ``--replay-against``), each replayed to
  the end of the game from worlds sampled from its seat's view: the gain by kind of choice.

* Racer: how near the opponent's hand in the planner's sampled worlds comes to the true one,
  sampled plainly and weighed by the opponent's choices (``--only beliefs``).

* Racer: the planner's own policy, the sharp bot, against heuristic bots (``--only sharp``;
  ``--games`` deals of 2 and of 4 players, each played with the sharp bot in every seat).

* Racer: the planner's win model refitted to fresh heuristic games (``--only fit``), its
  weights printed beside the log-loss of the model in engine/racer/planner.py.

    nice -n 19 python benchmarks/bots.py [--games N] [--racer-playouts P] [--racer-horizon T]
        [--racer-follow ask,force,stop,calamity] [--jobs J] [--first G] [--creeper-seconds S]
        [--replay-against FOLLOW] [--replay-playouts P] [--replay-horizon T] [--replay-worlds W]
        [--racer-memory K] [--racer-policy sharp|heuristic]
        [--only racer2|racer4|replay|creeper|forced|levels|fit|beliefs|sharp]

``--jobs`` plays the Racer games in that many processes (each game is seeded, so the figures
do not depend on it); ``--first`` starts at game G, so that two runs add up to one league.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from creepnet.engine import racer
from creepnet.engine.creeper import (
    Colour,
    State,
    apply,
    distance,
    initial_state,
    outcome,
    position,
)
from creepnet.engine.creeper.bots import ClassicSearchBot, SearchBot
from creepnet.engine.creeper.search import Budget, Searcher
from creepnet.engine.racer.attack_plans import AttackPlan
from creepnet.engine.racer.beliefs import MEMORY, Beliefs
from creepnet.engine.racer.bots import HeuristicBot, SharpBot
from creepnet.engine.racer.cards import Hero
from creepnet.engine.racer.planner import (
    CONFIDENCE,
    FEATURES,
    FEATURES_2P,
    FOLLOW,
    FOLLOWS,
    PLANNABLE_TOPICS,
    Candidate,
    PlanBudget,
    PlannerBot,
    determinize,
    features,
    features_2p,
    value,
)
from creepnet.engine.racer.turn_plans import TURN_PLANS
from creepnet.protocol.games.creeper import LEVEL_DEPTH, LEVEL_SECONDS
from creepnet.protocol.games.racer.bots import LEVEL_SECONDS as RACER_LEVEL_SECONDS

FORCED = Path(__file__).parent.parent / "tests" / "creeper" / "forced_connections.json"
POLICIES: dict[str, type[HeuristicBot]] = {"sharp": SharpBot, "heuristic": HeuristicBot}


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def row(name: str, wins: int, draws: int, games: int, goal: str, extra: str = "") -> None:
    low, high = wilson(wins, games)
    rate = wins / games if games else 0.0
    print(
        f"{name:<34}{wins:>5}{draws:>6}{games:>6}{rate:>8.0%}   [{low:.0%}, {high:.0%}]"
        f"   {goal:<8}{extra}",
        flush=True,
    )


def header() -> None:
    print(f"{'pairing':<34}{'wins':>5}{'draws':>6}{'games':>6}{'rate':>8}   95% interval   goal")


# --- Creepy Racer -------------------------------------------------------------------------------


Decide = Callable[[racer.State, int, list[racer.Action]], racer.Action]
Watch = Callable[[racer.State, int, int, racer.Action], None]


def drive_racer(
    players: int,
    seed: int,
    seat: int,
    decide: Decide | None,
    bot_seeds: list[int] | None = None,
    turn_limit: int = 300,
    watch: Watch | None = None,
) -> int | None:
    """One game of heuristic bots (seeded ``bot_seeds``, else ``seed * 10 + s``) with chance
    answered from ``seed``, where ``decide(view, seat, legal)`` takes ``seat``'s choices with
    more than one legal action (none when ``decide`` is None) and ``watch(view, seat, actor,
    action)`` sees every other seat's choice from ``seat``'s view; the winner."""
    rng = random.Random(seed)
    seeds = bot_seeds or [seed * 10 + s for s in range(players)]
    bots = [racer.make_bot("heuristic", bot_seed) for bot_seed in seeds]
    state = racer.new_game(racer.Options(players=players, turn_limit=turn_limit))
    while not isinstance(request := racer.pending(state), racer.GameOver):
        actor = request.actor
        if actor == racer.CHANCE:
            action: racer.Action = racer.chance_action(state, rng)
        else:
            view = racer.redact(state, actor)
            legal = racer.legal_actions(view)
            if len(legal) == 1:
                action = legal[0]
            elif actor == seat and decide is not None:
                action = decide(view, actor, legal)
            else:
                action = bots[actor].choose(racer.observation_of_view(view, actor), legal)
            if watch is not None and actor != seat and len(legal) > 1:
                watch(racer.redact(state, seat), seat, actor, action)
        state = racer.apply(state, action)
    return request.winner


def racer_game(
    players: int,
    planner_seat: int,
    seed: int,
    budget: PlanBudget | None,
    times: list[float],
    follow: frozenset[str] = FOLLOW,
    topics: frozenset[str] = PLANNABLE_TOPICS,
    turn_plans: int = TURN_PLANS,
    confidence: float = CONFIDENCE,
    memory: int = MEMORY,
    policy: str = "sharp",
) -> int | None:
    """One game: the planner at ``planner_seat`` (a heuristic bot when ``budget`` is None:
    the reference), heuristic bots elsewhere; the winner."""
    if budget is None:
        return drive_racer(players, seed, planner_seat, None)
    planner = PlannerBot(
        *(seed, budget, follow, topics, turn_plans, confidence, memory), POLICIES[policy]
    )
    # CPU time: the machine may be shared
    decide = timed(planner, times, time.process_time)
    watch = planner.observe if memory else None
    return drive_racer(players, seed, planner_seat, decide, watch=watch)


def timed(
    planner: PlannerBot,
    times: list[float],
    clock: Callable[[], float],
    counts: list[int] | None = None,
) -> Decide:
    """``planner``'s choices, each searched decision's time on ``clock`` added to ``times``
    (and its playouts to ``counts``)."""

    def decide(view: racer.State, actor: int, legal: list[racer.Action]) -> racer.Action:
        started = clock()
        action = planner.plan(view, actor, legal)
        if planner.last_playouts:
            times.append(clock() - started)
            if counts is not None:
                counts.append(planner.last_playouts)
        return action

    return decide


def _racer_pair(
    players: int,
    budget: PlanBudget,
    follow: frozenset[str],
    topics: frozenset[str],
    turn_plans: int,
    confidence: float,
    memory: int,
    policy: str,
    game: int,
) -> tuple[bool, int | None, list[float]]:
    """Game ``game`` with the planner at seat ``game mod players``: (the heuristic reference
    won that seat, the planner's game's winner, its think times)."""
    seat = game % players
    reference = racer_game(players, seat, 7_000 + game, None, []) == seat
    times: list[float] = []
    won = racer_game(
        *(players, seat, 7_000 + game, budget, times, follow, topics, turn_plans, confidence),
        *(memory, policy),
    )
    return reference, won, times


def racer_league(
    players: int,
    games: int,
    budget: PlanBudget,
    jobs: int = 1,
    first: int = 0,
    follow: frozenset[str] = FOLLOW,
    topics: frozenset[str] = PLANNABLE_TOPICS,
    turn_plans: int = TURN_PLANS,
    confidence: float = CONFIDENCE,
    memory: int = MEMORY,
    policy: str = "sharp",
) -> None:
    play = functools.partial(
        _racer_pair, players, budget, follow, topics, turn_plans, confidence, memory, policy
    )
    started = time.perf_counter()
    results = []
    with ProcessPoolExecutor(jobs) as pool:
        for game, result in enumerate(pool.map(play, range(first, first + games)), 1):
            results.append(result)
            if game % 10 == 0 and game < games:  # a tally so far, for long runs
                won = sum(w == g % players for g, (_, w, _) in enumerate(results, first))
                print(f"  ... {game} games: planner {won} wins", flush=True)
    elapsed = time.perf_counter() - started
    reference = sum(r[0] for r in results)
    row(f"racer {players}p: heuristic v heuristic", reference, 0, games, "(same seeds)")
    wins = sum(winner == game % players for game, (_, winner, _) in enumerate(results, first))
    draws = sum(winner is None for _, winner, _ in results)
    times = [t for _, _, game_times in results for t in game_times]
    goal = "≥ 70%" if players == 2 else "≥ 40%"
    median = statistics.median(times) if times else 0.0
    p90 = statistics.quantiles(times, n=10)[-1] if len(times) >= 10 else max(times, default=0.0)
    row(
        f"racer {players}p: planner v heuristic",
        wins,
        draws,
        games,
        goal,
        f"decision median {median:.2f} s, p90 {p90:.2f} s (CPU), "
        f"{elapsed * max(1, jobs) / games:.0f} s/game ({budget.playouts} playouts, "
        f"horizon {budget.horizon} turns, follows {','.join(sorted(follow))}, "
        f"plans {','.join(sorted(topics))}, turn plans {turn_plans}, "
        f"confidence {confidence:g}, memory {memory}, policy {policy}; "
        f"games {first}-{first + games - 1})",
    )
    # Each deal's result, for pairing two leagues on the same deals (W won, L lost, D drawn).
    marks = "".join(
        "D" if winner is None else "W" if winner == game % players else "L"
        for game, (_, winner, _) in enumerate(results, first)
    )
    print(f"  planner per deal from game {first}: {marks}", flush=True)


def _sharp_deal(players: int, deal: int) -> tuple[int, int]:
    """Deal ``deal`` played once with the sharp bot in each seat against heuristic bots (the
    same chance answers and bot seeds): its wins and the draws."""
    seed = 100_000 + deal
    options = racer.Options(players=players, turn_limit=300)
    wins = draws = 0
    for seat in range(players):
        bots: list[racer.Bot] = [racer.HeuristicBot(seed * 10 + s) for s in range(players)]
        bots[seat] = SharpBot(deal * 10 + seat)
        winner = racer.play_game(bots, seed, options).winner
        wins += winner == seat
        draws += winner is None
    return wins, draws


def sharp_league(deals: int, jobs: int = 1, first: int = 0) -> None:
    """The planner's own policy (the sharp bot) against heuristic bots, 2 and 4 players: each
    deal played with the sharp bot in every seat in turn, so the deal's luck cancels."""
    for players in (2, 4):
        with ProcessPoolExecutor(jobs) as pool:
            play = functools.partial(_sharp_deal, players)
            results = list(pool.map(play, range(first, first + deals), chunksize=20))
        row(
            f"racer {players}p: sharp v heuristic",
            sum(wins for wins, _ in results),
            sum(draws for _, draws in results),
            players * deals,
            f"({1 / players:.0%})",
            f"deals {first}-{first + deals - 1}, every seat",
        )


# --- the planner's choices, each replayed to the end of the game ------------------------------


def replayed_choices(
    budget: PlanBudget,
    follow: frozenset[str],
    against: frozenset[str] | None,
    against_budget: PlanBudget | None,
    worlds: int,
    game: int,
) -> tuple[bool, list[tuple[str, float]]]:
    """2-player game ``game`` (the league's deal and seat) with the planner following
    ``follow``. Wherever its choice differs from the reference (its heuristic's choice; with
    ``against`` or ``against_budget``, the choice of a copy of it that follows ``against``
    and/or plans with ``against_budget``), both are played to the
    end of the game from ``worlds`` worlds sampled from its seat's view (heuristic playouts,
    the same chance answers for both). Whether it won, and per difference "reference>choice"
    with the mean gain of its choice in win chance."""
    seat, seed = game % 2, 7_000 + game
    planner = PlannerBot(seed, budget, follow)
    judge = PlannerBot(seed, PlanBudget(playouts=1, horizon=10**6))  # playouts to the end
    found: list[tuple[racer.State, Candidate, Candidate]] = []

    def decide(view: racer.State, actor: int, legal: list[racer.Action]) -> racer.Action:
        reference = None
        if against is not None or against_budget is not None:
            other = copy.deepcopy(planner)
            other.follow = follow if against is None else against
            other.budget = against_budget or budget
            other.plan(view, actor, legal)
            reference = other.last_choice and other.last_choice[0]
        action = planner.plan(view, actor, legal)
        if planner.last_choice is not None:
            chosen, policy = planner.last_choice
            reference = reference or policy
            if chosen != reference:
                found.append((view, chosen, reference))
        return action

    winner = drive_racer(2, seed, seat, decide)
    gains = []
    for index, (view, chosen, reference) in enumerate(found):
        sampler = random.Random(f"{seed}:{index}")
        diffs = []
        for _ in range(worlds):
            world = determinize(view, sampler)
            if world is None:
                break
            chance = sampler.randrange(1 << 30)
            mine = judge._playout(world, seat, chosen, chance)
            diffs.append(mine - judge._playout(world, seat, reference, chance))
        if diffs:
            gains.append((f"{_kind(reference)}>{_kind(chosen)}", statistics.mean(diffs)))
    return winner == seat, gains


def _kind(candidate: Candidate) -> str:
    if isinstance(candidate, AttackPlan):
        return f"AttackPlan({candidate.opener or 'margin'})"
    return type(candidate).__name__


def replay_choices(
    games: int,
    budget: PlanBudget,
    follow: frozenset[str],
    against: frozenset[str] | None,
    against_budget: PlanBudget | None,
    worlds: int,
    jobs: int,
    first: int,
) -> None:
    play = functools.partial(replayed_choices, budget, follow, against, against_budget, worlds)
    won, gains = 0, []
    with ProcessPoolExecutor(jobs) as pool:
        for win, found in pool.map(play, range(first, first + games)):
            won += win
            gains.extend(found)
    reference = "its heuristic"
    if against is not None or against_budget is not None:
        other = against_budget or budget
        reference = (
            f"a planner following {_names(follow if against is None else against)} at "
            f"{other.playouts} playouts of {other.horizon} turns"
        )
    print(
        f"racer 2p, planner following {_names(follow)}, games {first}-{first + games - 1}: won "
        f"{won} of {games}; its choices where {reference} chose otherwise, each replayed to "
        f"the end in {worlds} worlds: gain in win chance, mean ± standard error"
    )
    by_kind: dict[str, list[float]] = {"all": [g for _, g in gains]}
    for kind, gain in gains:
        by_kind.setdefault(kind, []).append(gain)
    for kind, values in sorted(by_kind.items(), key=lambda item: -len(item[1])):
        error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
        print(
            f"  {kind:<44}{len(values):>5}  {statistics.mean(values):+.4f} ± {error:.4f}"
            f"   {sum(values) / games:+.3f} a game"
        )


def _names(follow: frozenset[str]) -> str:
    return ",".join(sorted(follow)) or "nothing"


# --- the planner's beliefs: its worlds' hidden hands against the true ones ---------------------


BELIEF_KINDS = ("HERO", *(hero.name for hero in Hero), "MONSTER", "CALAMITY", "GOOD_FORTUNE")


def belief_errors(games: int, first: int, memory: int, worlds: int = 10) -> None:
    """Heuristic games on the league's deals: at each decision of the planner's seat (the
    league's), ``worlds`` worlds sampled plainly and as many weighed by the other seat's last
    ``memory`` choices (engine/racer/beliefs.py); how many cards of each kind the opponent's
    hand in a world is off from its true hand, on average."""
    errors: dict[str, Counter[str]] = {"plain": Counter(), "beliefs": Counter()}
    decisions = sum(
        _belief_game(game, memory, worlds, errors) for game in range(first, first + games)
    )
    print(
        f"the opponent's hidden hand in the planner's worlds, deals {first}-{first + games - 1}: "
        f"cards off a world, mean of {worlds} worlds at each of {decisions} decisions "
        f"(memory {memory})"
    )
    print(f"  {'kind':<14}{'plain':>8}{'beliefs':>9}")
    for kind in BELIEF_KINDS:
        plain, weighed = (errors[m][kind] / max(1, decisions * worlds) for m in errors)
        print(f"  {kind.lower():<14}{plain:>8.3f}{weighed:>9.3f}")


def _belief_game(game: int, memory: int, worlds: int, errors: dict[str, Counter[str]]) -> int:
    """One game of ``belief_errors``, its errors added to ``errors``; its decisions."""
    seed, seat = 7_000 + game, game % 2
    beliefs = Beliefs(seat, memory)
    rng = random.Random(game)
    decisions = 0

    def watch(before: racer.State, actor: int, action: racer.Action, _: racer.State) -> None:
        nonlocal decisions
        if actor == racer.CHANCE or len(racer.legal_actions(racer.redact(before, actor))) < 2:
            return
        view = racer.redact(before, seat)
        if actor != seat:
            beliefs.observe(view, actor, action)
            return
        truth = _hand(before, 1 - seat)
        source = beliefs.sampler(view, rng, determinize)
        for _ in range(worlds):
            for mode, world in (("plain", determinize(view, rng)), ("beliefs", source(rng))):
                held = _hand(world, 1 - seat) if world is not None else Counter()
                errors[mode].update({k: abs(held[k] - truth[k]) for k in BELIEF_KINDS})
        decisions += 1

    bots = [racer.make_bot("heuristic", seed * 10 + s) for s in range(2)]
    racer.play_game(bots, seed, racer.Options(players=2, turn_limit=300), observer=watch)
    return decisions


def _hand(state: racer.State, seat: int) -> Counter[str]:
    """The kinds (and Heroes) of the cards ``seat`` holds, as ``state`` knows them."""
    held: Counter[str] = Counter()
    for slot in state.players[seat].hand:
        card = state.catalogue[state.known[slot]]
        held[card.kind.name] += 1
        if card.hero is not None:
            held[card.hero.name] += 1
    return held


# --- the planner's win model ------------------------------------------------------------------


Sample = tuple[list[tuple[float, ...]], int, list[float]]  # features per seat, winner, old model


def positions(players: int, games: int, base: int, every: int = 2) -> list[Sample]:
    """Every ``every``-th turn's start in heuristic games (a playout's leaf is a turn's start):
    each seat still in (its ``features_2p`` for 2 players, else ``features``), with who won."""
    read = features_2p if players == 2 else features
    samples: list[Sample] = []
    for game in range(games):
        seen: list[racer.State] = []
        observe = functools.partial(_turn_starts, seen, every)

        bots = [racer.make_bot("heuristic", (base + game) * 10 + s) for s in range(players)]
        result = racer.play_game(
            bots, base + game, racer.Options(players=players, turn_limit=300), observer=observe
        )
        for state in seen:
            seats = state.active_seats()
            if result.winner in seats and len(seats) >= 2:
                samples.append(
                    (
                        [read(state, s) for s in seats],
                        seats.index(result.winner),
                        [value(state, s) for s in seats],
                    )
                )
    return samples


def _turn_starts(
    seen: list[racer.State],
    every: int,
    before: racer.State,
    actor: int,
    action: object,
    after: racer.State,
) -> None:
    turn, earlier = after.turn, before.turn
    if turn and (earlier is None or turn.number != earlier.number) and turn.number % every == 0:
        seen.append(after)


def _shares(rows: list[tuple[float, ...]], weights: list[float]) -> list[float]:
    scores = [sum(w * x for w, x in zip(weights, r, strict=True)) for r in rows]
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]
    return [e / sum(exps) for e in exps]


def fit_logit(samples: list[Sample], l2: float = 1.0, rounds: int = 10) -> list[float]:
    """A conditional logit (softmax over the seats still in) by Newton's method, ridge ``l2``."""
    k = len(samples[0][0][0])
    weights = [0.0] * k
    for _ in range(rounds):
        grad = [-l2 * w for w in weights]
        hess = [[l2 * (a == b) for b in range(k)] for a in range(k)]
        for rows, winner, _ in samples:
            shares = _shares(rows, weights)
            mean = [sum(p * r[j] for p, r in zip(shares, rows, strict=True)) for j in range(k)]
            for j in range(k):
                grad[j] += rows[winner][j] - mean[j]
            for p, r in zip(shares, rows, strict=True):
                d = [r[j] - mean[j] for j in range(k)]
                for a in range(k):
                    if x := p * d[a]:  # one row at a time, skipping the zeros (most Heroes)
                        hess[a] = [h + x * e for h, e in zip(hess[a], d, strict=True)]
        step = _solve(hess, grad)
        weights = [w + s for w, s in zip(weights, step, strict=True)]
    return weights


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gauss-Jordan elimination with partial pivoting."""
    n = len(rhs)
    rows = [matrix[i][:] + [rhs[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col:
                f = rows[r][col] / rows[col][col]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def log_loss(samples: list[Sample], weights: list[float] | None) -> float:
    """Mean log-loss of the winner under ``weights`` (None: the planner's own model)."""
    total = 0.0
    for rows, winner, old in samples:
        shares = old if weights is None else _shares(rows, weights)
        total -= math.log(max(1e-9, shares[winner]))
    return total / len(samples)


# The planner's 2-player weights for its first 13 features before they were bent (a baseline).
WEIGHTS_13_2P = (0.22, 0.21, 0.22, 0.30, 0.55, 0.48, 0.68, 0.35, 0.39, 0.23, 0.24, -0.04, 0.19)


def _first(samples: list[Sample], k: int) -> list[Sample]:
    """The samples with only each seat's first ``k`` features."""
    return [([r[:k] for r in rows], winner, old) for rows, winner, old in samples]


def fit_model(games: int) -> None:
    """2 players: ``FEATURES_2P`` at every turn's start of 2-player games, beside the first 13
    alone refitted; more players: ``FEATURES`` at every other turn of 4-player games."""
    for players, names, every in ((2, FEATURES_2P, 1), (4, FEATURES, 2)):
        train = positions(players, games, 300_000 * players, every)
        test = positions(players, max(50, games * 3 // 8), 300_000 * players + 300_000, every)
        weights = fit_logit(train)
        print(
            f"racer win model, {players} players, {len(train)} positions of {games} games: "
            + ", ".join(f"{name} {w:.3f}" for name, w in zip(names, weights, strict=True))
        )
        line = f"  log-loss on {len(test)} fresh positions: refitted {log_loss(test, weights):.3f}"
        if players == 2:
            k = len(FEATURES)
            alone = log_loss(_first(test, k), fit_logit(_first(train, k)))
            before = log_loss(_first(test, k), list(WEIGHTS_13_2P))
            line += f", its first {k} alone {alone:.3f} (as fitted before {before:.3f})"
        print(f"{line}, planner's {log_loss(test, None):.3f}", flush=True)


# --- Creeper ------------------------------------------------------------------------------------


def real_positions(count: int = 12) -> list[State]:
    """Positions from one game between the search bots, every fifth ply."""
    players = {Colour.LIGHT: SearchBot(1, nodes=1_500), Colour.DARK: SearchBot(2, nodes=1_500)}
    state, seen = initial_state(), list[State]()
    while outcome(state) is None and len(seen) < count and state.ply < 300:
        if state.ply % 5 == 2:
            seen.append(state)
        state = apply(state, players[state.to_move].choose(state))
    return seen


def calibrate(make: Callable[[int], object], positions: list[State], nodes: int = 4_000) -> float:
    """Nodes per second of a bot with a node budget over ``positions``."""
    started = time.perf_counter()
    for state in positions:
        make(nodes).choose(state)  # type: ignore[attr-defined]
    return nodes * len(positions) / (time.perf_counter() - started)


def creeper_league(games: int, seconds: float, first: int = 0, cap: int = 200) -> None:
    positions = real_positions(6)
    new_rate = calibrate(lambda n: SearchBot(0, nodes=n), positions)
    old_rate = calibrate(lambda n: ClassicSearchBot(0, nodes=n), positions)
    new_nodes, old_nodes = int(new_rate * seconds), int(old_rate * seconds)
    print(
        f"creeper at {seconds} s a move: new search {new_nodes} nodes ({new_rate:,.0f}/s), "
        f"classic {old_nodes} nodes ({old_rate:,.0f}/s)"
    )
    wins = draws = 0
    plies = []
    for played, game in enumerate(range(first, first + games), 1):
        new, old = SearchBot(game, nodes=new_nodes), ClassicSearchBot(game, nodes=old_nodes)
        light_is_new = game % 2 == 0
        players = {Colour.LIGHT: new, Colour.DARK: old}
        if not light_is_new:
            players = {Colour.LIGHT: old, Colour.DARK: new}
        state = initial_state()
        while outcome(state) is None and state.ply < cap:
            state = apply(state, players[state.to_move].choose(state))
        ended = outcome(state)
        plies.append(state.ply)
        if ended is None or ended.winner is None:
            draws += 1
        elif players[ended.winner] is new:
            wins += 1
        if played % 10 == 0 and played < games:  # a tally so far, for long runs
            print(f"  ... {played} games: new search {wins} wins", flush=True)
    row(
        "creeper: new search v classic",
        wins,
        draws,
        games,
        "≥ 75%",
        f"mean {statistics.mean(plies):.0f} plies (cap {cap} counts as a draw; "
        f"games {first}-{first + games - 1})",
    )


def forced_set(nodes: int = 400_000) -> None:
    entries = json.loads(FORCED.read_text())
    print(f"forced connections ({FORCED.name}), budget {nodes} nodes each:")
    solved = 0
    for entry in entries:
        state = position(
            light_pins=entry["light_pins"],
            dark_pins=entry["dark_pins"],
            light_discs=entry["light_discs"],
            dark_discs=entry["dark_discs"],
            to_move=Colour(entry["to_move"]),
        )
        started = time.perf_counter()
        result = Searcher(0).search(state, Budget(nodes=nodes))
        took = time.perf_counter() - started
        ok = result.plies_to_win == entry["plies"]
        solved += ok
        print(
            f"  {entry['plies']} plies (game {entry['game']}, ply {entry['ply']}): "
            f"{'solved' if ok else 'NOT solved'} in {result.nodes} nodes, {took:.2f} s, "
            f"depth {result.depth}"
        )
    print(f"  {solved} of {len(entries)} solved at their length")


def make_forced(games: int, per_length: int = 3, nodes: int = 200_000) -> None:
    """Writes the forced-connection set: bot games (search v greedy), and from each won game's
    end, the winner's positions searched backwards while it is at most 4 octagons from linking;
    each forced win is kept at its length (the first few of each)."""
    from creepnet.engine.creeper.bots import GreedyBot

    found: dict[int, list[dict[str, object]]] = {3: [], 5: [], 7: []}
    for game in range(games):
        search, greedy = SearchBot(game, nodes=1_500), GreedyBot(game + 100)
        players = {Colour.LIGHT: search, Colour.DARK: greedy}
        if game % 2:
            players = {Colour.LIGHT: greedy, Colour.DARK: search}
        state, states = initial_state(), []
        while outcome(state) is None and state.ply < 200:
            states.append(state)
            state = apply(state, players[state.to_move].choose(state))
        ended = outcome(state)
        if ended is None or ended.winner is None:
            continue
        winner = ended.winner
        for earlier in states[-1::-2][1:]:  # the winner to move, from the end backwards
            if distance(earlier, winner) > 4:
                break  # four own moves turn at most four octagons: no 7-ply win from here
            result = Searcher(0).search(earlier, Budget(nodes=nodes, max_depth=6))
            length = result.plies_to_win
            if length in found and len(found[length]) < per_length:
                found[length].append(_entry(earlier, game, length))
                print(f"game {game} ply {earlier.ply}: {length} plies", flush=True)
        if all(len(v) >= per_length for v in found.values()):
            break
    entries = [entry for length in sorted(found) for entry in found[length]]
    FORCED.write_text(json.dumps(entries, indent=1) + "\n")
    print(f"wrote {len(entries)} positions to {FORCED}")


def _entry(state: State, game: int, plies: int) -> dict[str, object]:
    return {
        "game": game,
        "ply": state.ply,
        "plies": plies,
        "to_move": state.to_move.value,
        "light_pins": " ".join(state.pin_holes(Colour.LIGHT)),
        "dark_pins": " ".join(state.pin_holes(Colour.DARK)),
        "light_discs": " ".join(state.disc_octagons(Colour.LIGHT)),
        "dark_discs": " ".join(state.disc_octagons(Colour.DARK)),
    }


def levels() -> None:
    positions = real_positions(10)
    print(f"creeper levels over {len(positions)} positions of a real game:")
    for level, seconds in LEVEL_SECONDS.items():
        depths, rates = [], []
        for state in positions:
            bot = SearchBot(
                0, seconds=seconds, clock=time.perf_counter, max_depth=LEVEL_DEPTH[level]
            )
            started = time.perf_counter()
            bot.choose(state)
            assert bot.last is not None
            depths.append(bot.last.depth)
            rates.append(bot.last.nodes / (time.perf_counter() - started))
        print(
            f"  {level:<7}{seconds:>5} s: depth median {statistics.median(depths):.0f} "
            f"(min {min(depths)}, max {max(depths)}), {statistics.median(rates):,.0f} nodes/s"
        )
    print("racer levels (easy is the heuristic bot, instant):")
    for level, seconds in RACER_LEVEL_SECONDS.items():
        budget = PlanBudget(seconds=seconds, clock=time.perf_counter)
        planner = PlannerBot(0, budget)
        counts: list[int] = []
        times: list[float] = []
        decide = timed(planner, times, time.perf_counter, counts)
        drive_racer(2, 5, 0, decide, bot_seeds=[0, 1], turn_limit=40, watch=planner.observe)
        print(
            f"  {level:<7}{seconds:>5} s: playouts per decision median "
            f"{statistics.median(counts) if counts else 0:.0f}, decision median "
            f"{statistics.median(times):.2f} s over {len(times)} decisions"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing (default 40)")
    parser.add_argument(
        "--racer-playouts", type=int, default=300, help="planner playouts per decision"
    )
    parser.add_argument("--creeper-seconds", type=float, default=0.2, help="think time a move")
    parser.add_argument(
        "--only",
        choices=[
            *("racer2", "racer4", "replay", "creeper", "forced", "levels", "make-forced", "fit"),
            *("beliefs", "sharp"),
        ],
    )
    parser.add_argument(
        "--racer-policy",
        choices=sorted(POLICIES),
        default="sharp",
        help="the planner's own policy, in its playouts and for the steps it does not search "
        "(default sharp)",
    )
    parser.add_argument(
        "--racer-horizon", type=int, default=2, help="turns a planner playout plays (default 2)"
    )
    parser.add_argument(
        "--racer-follow",
        default=",".join(sorted(FOLLOW)),
        help="choices the planner leaves to its heuristic, of " + ",".join(sorted(FOLLOWS)),
    )
    parser.add_argument(
        "--racer-plan",
        default=",".join(sorted(PLANNABLE_TOPICS)),
        help="decisions the planner searches, of " + ",".join(sorted(PLANNABLE_TOPICS)),
    )
    parser.add_argument(
        "--racer-turn-plans",
        type=int,
        default=TURN_PLANS,
        help="at a turn's first move, pair this many of the planner's best moves with a "
        f"second (default {TURN_PLANS}; 0: none)",
    )
    parser.add_argument(
        "--racer-confidence",
        type=float,
        default=CONFIDENCE,
        help="standard errors a planner's move must beat its heuristic's by to be played "
        f"(default {CONFIDENCE:g})",
    )
    parser.add_argument(
        "--racer-memory",
        type=int,
        default=MEMORY,
        help="the other seats' last choices the planner's sampled worlds are weighed by "
        f"(engine/racer/beliefs.py; default {MEMORY}; 0: none, as before)",
    )
    parser.add_argument(
        "--replay-against",
        help="--only replay: compare with a planner that follows these (default: its heuristic)",
    )
    parser.add_argument(
        "--replay-playouts", type=int, help="--only replay: compare with a planner at P playouts"
    )
    parser.add_argument(
        "--replay-horizon", type=int, help="--only replay: compare with a planner of T turns"
    )
    parser.add_argument(
        "--replay-worlds", type=int, default=100, help="--only replay: worlds per choice"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes for the Racer games")
    parser.add_argument(
        "--first", type=int, default=0, help="the first Racer game (more games in another run)"
    )
    args = parser.parse_args()
    parts = [args.only] if args.only else ["forced", "levels", "racer2", "racer4", "creeper"]
    budget = PlanBudget(playouts=args.racer_playouts, horizon=args.racer_horizon)
    follow = frozenset(filter(None, args.racer_follow.split(",")))
    against = None
    if args.replay_against is not None:
        against = frozenset(filter(None, args.replay_against.split(",")))
    if not follow <= FOLLOWS or not (against or frozenset()) <= FOLLOWS:
        parser.error(f"--racer-follow and --replay-against take some of {_names(FOLLOWS)}")
    topics = frozenset(filter(None, args.racer_plan.split(",")))
    if not topics <= PLANNABLE_TOPICS:
        parser.error(f"--racer-plan takes some of {_names(PLANNABLE_TOPICS)}")
    if args.racer_turn_plans < 0:
        parser.error("--racer-turn-plans takes 0 or more")
    for part in parts:
        if part == "replay":
            against_budget = None
            if args.replay_playouts is not None or args.replay_horizon is not None:
                against_budget = PlanBudget(
                    playouts=args.replay_playouts or args.racer_playouts,
                    horizon=args.replay_horizon or args.racer_horizon,
                )
            replay_choices(
                *(args.games, budget, follow, against, against_budget),
                *(args.replay_worlds, args.jobs, args.first),
            )
        elif part == "fit":
            fit_model(args.games)
        elif part == "sharp":
            header()
            sharp_league(args.games, args.jobs, args.first)
        elif part == "beliefs":
            belief_errors(args.games, args.first, args.racer_memory)
        elif part == "make-forced":
            make_forced(args.games)
        elif part == "forced":
            forced_set()
        elif part == "levels":
            levels()
        else:
            header()
            if part == "racer2":
                racer_league(
                    *(2, args.games, budget, args.jobs, args.first, follow, topics),
                    *(args.racer_turn_plans, args.racer_confidence, args.racer_memory),
                    args.racer_policy,
                )
            elif part == "racer4":
                racer_league(
                    *(4, args.games, budget, args.jobs, args.first, follow, topics),
                    *(args.racer_turn_plans, args.racer_confidence, args.racer_memory),
                    args.racer_policy,
                )
            else:
                creeper_league(args.games, args.creeper_seconds, args.first)


if __name__ == "__main__":
    main()
