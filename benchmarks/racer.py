"""Creepy Racer throughput: whole bot games per second through the full-information driver.

.venv/bin/python benchmarks/racer.py [--games N] [--bot heuristic|random]
"""

from __future__ import annotations

import argparse
import time

from creepnet.engine.racer import Options, make_bot, play_game

TURN_LIMIT = 400


def measure(players: int, games: int, bot: str) -> tuple[float, float, float]:
    """(games per second, mean turns, mean engine steps) over ``games`` seeded games."""
    turns = steps = 0
    started = time.perf_counter()
    for seed in range(games):
        bots = [make_bot(bot, seed * 10 + seat) for seat in range(players)]
        result = play_game(bots, seed, Options(players=players, turn_limit=TURN_LIMIT))
        turns += result.turns
        steps += result.steps
    elapsed = time.perf_counter() - started
    return games / elapsed, turns / games, steps / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bot", choices=["heuristic", "random"], default="heuristic")
    args = parser.parse_args()
    for players in (2, 4):
        rate, turns, steps = measure(players, args.games, args.bot)
        print(
            f"{players} players, {args.bot} bots: {rate:7.1f} games/s "
            f"(mean {turns:.1f} turns, {steps:.0f} engine steps per game, "
            f"{rate * steps:,.0f} steps/s)"
        )


if __name__ == "__main__":
    main()
