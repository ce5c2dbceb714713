"""What a peer's refused input costs the node that checks it: the figures behind the CPU budget
per peer (node/budget.py, docs/NODE.md "Admission").

.venv/bin/python benchmarks/rejection_cost.py [--repeat N]

Prints the CPU time (the checking thread's, median of N) of: opening and decoding one full
`events` frame (per MiB), a garbage event, a Creeper move the rules refuse (signed by the seat
owed it), and a Racer shuffle whose proof was doctored and re-signed by the seat owed it (the
dearest refusal there is: the whole shuffle proof is checked before it fails).  Then how many
of each one peer can make us check within the budget's burst and per second of its rate.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from creepnet.node import budget, messages
from creepnet.node.channel import Sealer
from creepnet.node.framing import FRAME_LIMITS, decode_message
from creepnet.protocol import codec
from creepnet.protocol.session import Session

sys.path.insert(0, str(Path(__file__).parent.parent / "tests" / "racer"))


def cpu(check: Callable[[], object], repeat: int) -> float:
    """Median thread CPU seconds of one call."""
    times = []
    for _ in range(repeat):
        started = time.thread_time()
        check()
        times.append(time.thread_time() - started)
    return statistics.median(times)


def frame_cost(repeat: int) -> tuple[float, int]:
    items = [bytes(range(256)) * 8] * 250  # 512 KiB of event bytes, as a batch may carry
    body = codec.encode(messages.events(b"\x01" * 16, 0, items, 250))
    key = b"\x02" * 32

    def check() -> None:
        sealed = Sealer(key).seal(body)
        decode_message(Sealer(key).open(sealed), FRAME_LIMITS)

    return cpu(check, repeat), len(body)


def refused(session: Session, raw: bytes, repeat: int) -> float:
    receipt = session.receive(raw)
    assert receipt.status == "rejected", receipt.status
    return cpu(lambda: session.receive(raw), repeat)


def creeper_illegal(repeat: int) -> float:
    from test_racer_cheats import deliver, honest, sign

    from creepnet.protocol.testing.sessions import SessionHarness

    table = SessionHarness(seats=2, kind="creeper", options={}, seed=3)
    spectator = table.spectator
    while not spectator.started or "reveal" in spectator.expected().types:  # to the first move
        seat = spectator.expected().seat
        deliver(table, sign(table, seat, *honest(table, seat)))
    seat = spectator.expected().seat
    return refused(spectator, sign(table, seat, "move", {"move": "a1-a1"}).raw, repeat)


def racer_bad_shuffle(repeat: int) -> float:
    from test_racer_cheats import at_deck, drive, honest, racer_table, sign

    table = racer_table()
    seat = drive(table, at_deck("shuffle"))
    type_, body = honest(table, seat)
    doctored = copy.deepcopy(body)
    perm = doctored["proof"]["perm"]
    perm[0], perm[1] = perm[1], perm[0]  # valid points, in the wrong order
    return refused(table.spectator, sign(table, seat, type_, doctored).raw, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    frame, size = frame_cost(args.repeat)
    print(
        f"frame: open + decode {size} bytes: {frame * 1e3:.2f} ms "
        f"({frame / size * (1 << 20) * 1e3:.2f} ms per MiB)"
    )
    garbage = cpu(lambda: Session.follow(b"\x01" * 16).receive(b"\xc1junk"), args.repeat)
    rows = [
        ("garbage event", garbage),
        ("Creeper move refused by the rules", creeper_illegal(args.repeat)),
        ("Racer shuffle, doctored proof", racer_bad_shuffle(args.repeat)),
    ]
    print(f"budget: burst {budget.BURST:g} s, rate {budget.RATE:g} s/s, shun {budget.SHUN:g} s")
    for name, seconds in rows:
        print(
            f"{name:<36} {seconds * 1e3:8.3f} ms each; {budget.BURST / seconds:10.0f} in the "
            f"burst, then {budget.RATE / seconds:9.1f} per second"
        )


if __name__ == "__main__":
    main()
