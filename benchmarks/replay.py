"""Replay and fully verify long bot game logs, next to bare Ed25519 verifies of the same messages.

Full verification = decoding, signatures, chain, entitlement, onion reveals and every Creeper move
through the engine.  Both loops run in this process, side by side.  Goal: ratio >= 0.7.

    python benchmarks/replay.py [--events N] [--rounds R]
"""

from __future__ import annotations

import argparse
import time

from bare import bare_verify_seconds  # benchmarks/bare.py, beside this script

from creepnet.protocol.log import load_log
from creepnet.protocol.table import Table, creeper_bot
from creepnet.protocol.verify import verify_log_bytes


def long_logs(events: int) -> list[bytes]:
    """Random-vs-random games capped at 2,000 plies until at least ``events`` events in all."""
    logs: list[bytes] = []
    seed = 0
    while sum(len(load_log(data)) for data in logs) < events:
        table = Table(seed=seed, options={"max_plies": 2000})
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
    triples = [(e.author, e.signed_bytes(), e.sig) for data in logs for e in load_log(data).events]
    ours, bare = [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for data in logs:
            assert verify_log_bytes(data).valid
        ours.append(time.perf_counter() - start)
        bare.append(bare_verify_seconds(triples))
    total = len(triples)
    ours_rate, bare_rate = total / min(ours), total / min(bare)
    print(f"logs:                  {len(logs)} games, {total} events")
    print(f"full replay + verify   {ours_rate:10,.0f} events/s")
    print(f"bare Ed25519 verify    {bare_rate:10,.0f} verifies/s")
    print(f"ratio                  {ours_rate / bare_rate:10.2f}   (goal >= 0.7)")


if __name__ == "__main__":
    main()
