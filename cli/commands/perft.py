"""`creepnet perft`: count move sequences from a position, to check and time the rules engine."""

from __future__ import annotations

import argparse
import sys
import time

from creepnet.cli.options import fail
from creepnet.engine import creeper


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("perft", help="count move sequences of a given depth (engine check)")
    parser.add_argument("game", choices=["creeper"], help="which game's rules")
    parser.add_argument("depth", type=int, help="plies to look ahead (0 or more)")
    parser.add_argument("--divide", action="store_true", help="also print the count per first move")
    parser.add_argument(
        "--after",
        default="",
        metavar="MOVES",
        help="start after these space-separated moves from the start position, e.g. 'e7-d6 b7-c6'",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.depth < 0:
        return fail("depth must be 0 or more")
    state = creeper.initial_state()
    try:
        for move in args.after.split():
            state = creeper.apply(state, move)
    except ValueError as exc:
        return fail(f"--after: {exc}")
    started = time.perf_counter()
    if args.divide and args.depth > 0:
        counts = creeper.perft_divide(state, args.depth)
        for move, count in counts.items():
            print(f"{move} {count}")
        total = sum(counts.values())
    else:
        total = creeper.perft(state, args.depth)
    elapsed = time.perf_counter() - started
    print(f"perft({args.depth}) = {total}")
    rate = f"{total / elapsed:,.0f} nodes/s" if elapsed > 0 else "too fast to time"
    print(f"{total} nodes in {elapsed:.3f} s, {rate}", file=sys.stderr)
    return 0
