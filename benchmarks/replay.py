"""Replay and fully verify long bot game logs, next to bare Ed25519 verifies of the same messages.

Full verification = decoding, signatures, chain, entitlement, onion reveals and every Creeper move
through the engine.  Both loops run in this process, side by side.  Goal: ratio >= 0.7.

Each game is timed right after a bare verify of its own signatures, round after round, so both
sides of a ratio see the same load; the ratio of the best round and the median of the per-game
ratios are printed, in wall-clock and in CPU time (which waiting for a busy core does not
inflate), with the load average.

    python benchmarks/replay.py [--events N] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bare import bare_verify_seconds  # benchmarks/bare.py, beside this script

from creepnet.protocol.log import load_log
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot
from creepnet.protocol.verify import verify_log_bytes


def long_logs(events: int) -> list[bytes]:
    """Random-vs-random games capped at 2,000 plies until at least ``events`` events in all."""
    logs: list[bytes] = []
    seed = 0
    while sum(len(load_log(data)) for data in logs) < events:
        table = SessionHarness(seed=seed, options={"max_plies": 2000})
        table.run([creeper_bot("random", seed), creeper_bot("random", seed + 1)])
        logs.append(table.spectator.log.to_bytes())
        seed += 1
    return logs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    logs = long_logs(args.events)
    games = [[(e.author, e.signed_bytes(), e.sig) for e in load_log(data).events] for data in logs]
    total = sum(map(len, games))
    load_before = os.getloadavg()
    rounds = []  # per round: per game ((bare wall, ours wall), (bare cpu, ours cpu))
    for _ in range(args.rounds):
        pairs = []
        for data, triples in zip(logs, games, strict=True):
            bare = measure(lambda triples=triples: bare_verify_seconds(triples))
            ours = measure(lambda data=data: verify_log_bytes(data))
            pairs.append(((bare[0], ours[0]), (bare[1], ours[1])))
        rounds.append(pairs)
    load_after = os.getloadavg()
    print(f"logs:                  {len(logs)} games, {total} events")
    print(f"load average           before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    for clock, label in ((0, "wall"), (1, "CPU ")):
        bare = min(sum(pair[clock][0] for pair in pairs) for pairs in rounds)
        ours = min(sum(pair[clock][1] for pair in pairs) for pairs in rounds)
        median = statistics.median(p[clock][0] / p[clock][1] for pairs in rounds for p in pairs)
        print(f"{label}: full replay + verify {total / ours:8,.0f} events/s")
        print(f"{label}: bare Ed25519 verify  {total / bare:8,.0f} verifies/s   (libsodium)")
        print(f"{label}: ratio {bare / ours:.2f}, median per game {median:.2f}   (goal >= 0.7)")


def measure(run) -> tuple[float, float]:
    """Wall and CPU seconds of run()."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


if __name__ == "__main__":
    main()
