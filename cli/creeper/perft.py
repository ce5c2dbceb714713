"""`creepnet perft creeper`: count move sequences from a position, to check and time the rules
engine (the command line is `creepnet.cli.commands.perft`)."""

from __future__ import annotations

import argparse
import sys
import time

from creepnet.cli.options import fail
from creepnet.engine import creeper


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
