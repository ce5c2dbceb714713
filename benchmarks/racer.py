"""Creepy Racer throughput and balance: whole bot games through the full-information driver.

.venv/bin/python benchmarks/racer.py [--games N] [--bot heuristic|random]

Prints games per second, mean and median game length in turns, each seat's share of the wins,
the starting player's share, and the games that ended without a winner (turn limit or a dead
position).  Racer over the network (nodes as processes, proofs and all) is racer_network.py.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

from creepnet.engine.racer import Options, make_bot, play_game

TURN_LIMIT = 400


@dataclass(frozen=True)
class Figures:
    rate: float  # games per second
    mean_turns: float
    median_turns: float
    steps: float  # mean engine steps per game
    seat_wins: tuple[int, ...]
    starter_wins: int
    no_winner: int


def measure(players: int, games: int, bot: str) -> Figures:
    turns, steps = [], 0
    seat_wins, starter_wins, no_winner = [0] * players, 0, 0
    started = time.perf_counter()
    for seed in range(games):
        bots = [make_bot(bot, seed * 10 + seat) for seat in range(players)]
        result = play_game(bots, seed, Options(players=players, turn_limit=TURN_LIMIT))
        turns.append(result.turns)
        steps += result.steps
        if result.winner is None:
            no_winner += 1
        else:
            seat_wins[result.winner] += 1
            starter_wins += result.winner == result.final.start_seat
    elapsed = time.perf_counter() - started
    return Figures(
        games / elapsed,
        statistics.mean(turns),
        statistics.median(turns),
        steps / games,
        tuple(seat_wins),
        starter_wins,
        no_winner,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bot", choices=["heuristic", "random"], default="heuristic")
    args = parser.parse_args()
    for players in (2, 4):
        f = measure(players, args.games, args.bot)
        shares = " / ".join(f"{100 * w / args.games:.0f}%" for w in f.seat_wins)
        print(
            f"{players} players, {args.bot} bots: {f.rate:7.1f} games/s "
            f"(mean {f.mean_turns:.1f} turns, median {f.median_turns:g}, {f.steps:.0f} engine "
            f"steps per game, {f.rate * f.steps:,.0f} steps/s)\n"
            f"    seat wins {shares}; starting player wins {100 * f.starter_wins / args.games:.0f}%"
            f"; no winner {f.no_winner}"
        )


if __name__ == "__main__":
    main()
