"""Events verified per second by our log verifier vs. a bare loop of Ed25519 verifies.

Both run in this process on the same 10,000 messages, side by side, so the ratio is meaningful
on a noisy machine.  Goal: ratio >= 0.8 (signature checking dominates).

    python benchmarks/verify.py [--events N] [--rounds R]
"""

from __future__ import annotations

import argparse
import time

from bare import bare_verify_seconds  # benchmarks/bare.py, beside this script

from creepnet.protocol.event import sign_event
from creepnet.protocol.identity import Identity
from creepnet.protocol.log import EventLog, load_log


def build(events: int) -> EventLog:
    seats = [Identity.generate(), Identity.generate()]
    log = EventLog()
    for seq in range(events):
        body = {"move": f"c{seq % 7 + 1}-d{seq % 6 + 1}"}
        log.append(
            sign_event(
                seats[seq % 2], game=b"B" * 16, seq=seq, prev=log.head, type="move", body=body
            )
        )
    return log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    log = build(args.events)
    data = log.to_bytes()
    triples = [(e.author, e.signed_bytes(), e.sig) for e in log.events]
    ours, bare = [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        assert len(load_log(data)) == args.events
        ours.append(time.perf_counter() - start)
        bare.append(bare_verify_seconds(triples))
    ours_rate, bare_rate = args.events / min(ours), args.events / min(bare)
    print(f"events:              {args.events} ({len(data)} bytes)")
    print(f"creepnet load+verify {ours_rate:10,.0f} events/s")
    print(f"bare Ed25519 verify  {bare_rate:10,.0f} verifies/s")
    print(f"ratio                {ours_rate / bare_rate:10.2f}   (goal >= 0.8)")


if __name__ == "__main__":
    main()
