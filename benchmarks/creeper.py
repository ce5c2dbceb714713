"""Creeper engine speed and bot strength.

Prints perft nodes per second at depth 4 (leaf count over time, the last ply bulk-counted),
random playouts per second through the public API, and a bot league: every pairing of
search / greedy / random plays N games with colours alternated and a ply cap; a game reaching
the cap counts as a capped draw.

    python benchmarks/creeper.py [--games N] [--nodes NODES] [--cap PLIES]
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Callable

from creepnet.engine.creeper import (
    STANDARD,
    Colour,
    apply,
    core,
    initial_state,
    legal_moves,
    outcome,
    perft,
)
from creepnet.engine.creeper.board import tables
from creepnet.engine.creeper.bots import make_bot


def perft_rate(count: Callable[[], int], rounds: int = 3) -> tuple[int, float]:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        nodes = count()
        best = min(best, time.perf_counter() - started)
    return nodes, nodes / best


def perft_every_move(depth: int) -> int:
    """Perft that plays every last-ply move too, to show the per-move cost behind bulk counting."""
    t = tables(STANDARD)

    def count(side: int, mine: int, theirs: int, own: int, opp: int, depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for entry in core.generate(t, mine, theirs):
            mine2, theirs2, own2, opp2, gained = core.play(entry, mine, theirs, own, opp)
            if not (gained and core.connected(t, own2, side)) or depth == 1:
                total += count(side ^ 1, theirs2, mine2, opp2, own2, depth - 1)
        return total

    start = initial_state()
    return count(0, start.light_pins, start.dark_pins, 0, 0, depth)


def playout_rate(seconds: float = 2.0, cap: int = 300) -> tuple[float, float]:
    rng = random.Random(0)
    games = plies = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = initial_state()
        while state.ply < cap and (moves := legal_moves(state)):
            state = apply(state, rng.choice(moves))
        games += 1
        plies += state.ply
    return games / (time.perf_counter() - started), plies / games


def league_game(light: str, dark: str, seed: int, nodes: int, cap: int) -> tuple[str, int]:
    """'light', 'dark', 'draw' or 'cap', and the plies played."""

    def budget(name: str) -> dict[str, int]:
        return {"nodes": nodes} if name == "search" else {}

    players = {
        Colour.LIGHT: make_bot(light, seed, **budget(light)),
        Colour.DARK: make_bot(dark, seed + 1, **budget(dark)),
    }
    state = initial_state()
    while state.ply < cap:
        ended = outcome(state)
        if ended is not None:
            return (str(ended.winner) if ended.winner else "draw"), state.ply
        state = apply(state, players[state.to_move].choose(state))
    return "cap", state.ply


def league(games: int, nodes: int, cap: int) -> None:
    print(f"bot league: {games} games per pairing, colours alternated, cap {cap} plies")
    header = f"{'pairing':<18}{'A wins':>8}{'B wins':>8}{'draws':>7}{'capped':>8}"
    print(header + f"{'plies':>7}{'s/game':>8}")
    for a, b in itertools.combinations(["search", "greedy", "random"], 2):
        tally = {"a": 0, "b": 0, "draw": 0, "cap": 0}
        plies = 0
        started = time.perf_counter()
        for game in range(games):
            a_light = game % 2 == 0
            light, dark = (a, b) if a_light else (b, a)
            result, length = league_game(light, dark, 1000 * game, nodes, cap)
            plies += length
            if result in ("draw", "cap"):
                tally[result] += 1
            else:
                tally["a" if (result == "light") == a_light else "b"] += 1
        per_game = (time.perf_counter() - started) / games
        print(
            f"{a + ' v ' + b:<18}{tally['a']:>8}{tally['b']:>8}{tally['draw']:>7}{tally['cap']:>8}"
            f"{plies / games:>7.1f}{per_game:>8.2f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per pairing (default 100)")
    parser.add_argument("--nodes", type=int, default=2000, help="search bot node budget per move")
    parser.add_argument("--cap", type=int, default=300, help="ply cap per game (default 300)")
    args = parser.parse_args()

    nodes, rate = perft_rate(lambda: perft(initial_state(), 4))
    print(f"perft(4) from the start: {nodes} leaves, {rate:,.0f} nodes/s (last ply bulk-counted)")
    nodes, rate = perft_rate(lambda: perft_every_move(4), rounds=1)
    print(f"perft(4) playing every move: {nodes} leaves, {rate:,.0f} nodes/s")
    games_per_s, mean_plies = playout_rate(cap=args.cap)
    print(f"random playouts: {games_per_s:,.1f} games/s (mean {mean_plies:.1f} plies, public API)")
    league(args.games, args.nodes, args.cap)


if __name__ == "__main__":
    main()
