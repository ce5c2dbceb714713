"""`creepnet verify` on a long game log, side by side with bare Ed25519 verifies.

One long Creeper game (two bots that never connect, drawn at the move limit: ~21,000 events by
default) is verified several ways in this process run: a bare loop of libsodium verifies of its
signed messages (the library creepnet uses), the same loop with `cryptography` (OpenSSL), and
creepnet's full verification (decoding, signatures, chain, entitlement, onion, every move through
the engine) in-process and through the CLI (`creepnet verify FILE`, a subprocess, whose
interpreter start-up is measured with `creepnet verify --help` and reported separately), each
both on one core (`--serial`) and by default, which adds a worker process checking part of the
signatures on a second core when a core looks free (cli/signature_pool.py).
Goal: full verification >= 0.8 x the bare libsodium rate.  Rounds interleave, best of each;
on a loaded machine the best-of figures drift apart, so the single-core ratio is also measured
in chunks of 500 events: each chunk of the replay is timed between two bare verifies of the
same chunk's signatures, and the median chunk ratio is printed.  Each one-core row also gives
the ratio in CPU time (this process's, or the CLI child's user + system time, start-up
included), which waiting for a busy core does not inflate: on a quiet machine the two agree.
The load average is printed before and after.

    python benchmarks/verify.py [--plies N] [--rounds R] [--log FILE]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bare import bare_verify_seconds, openssl_verify_seconds  # beside this script

from creepnet.cli.commands.verify import core_free
from creepnet.cli.signature_pool import SignaturePool
from creepnet.engine import creeper
from creepnet.protocol.log import iter_log, load_log
from creepnet.protocol.session import Session
from creepnet.protocol.testing.sessions import SessionHarness
from creepnet.protocol.verify import verify_log_bytes

CLI = [sys.executable, "-m", "creepnet.cli"]


def staller(seed: int):
    """A bot that plays any legal move that does not end the game (when it can)."""
    rng = random.Random(seed)

    def choose(session) -> str:
        state = session.engine_state
        moves = creeper.legal_moves(state)
        rng.shuffle(moves)
        for move in moves:
            if creeper.outcome(creeper.apply(state, move)) is None:
                return creeper.format_move(move)
        return creeper.format_move(moves[0])

    return choose


def long_log(plies: int) -> bytes:
    table = SessionHarness(seed=5, options={"max_plies": plies})
    table.run([staller(1), staller(2)])
    return table.spectator.log.to_bytes()


def chunked_ratio(raws: list[bytes], triples: list, chunk: int = 500) -> float:
    """Median over chunks of (bare libsodium time / full verification time), side by side."""
    session = Session()
    ratios = []
    for start in range(0, len(raws) - chunk + 1, chunk):
        part = triples[start : start + chunk]
        before = bare_verify_seconds(part)
        events = raws[start : start + chunk]
        ours = seconds(lambda events=events: [session.accept(raw) for raw in events])
        after = bare_verify_seconds(part)
        ratios.append((before + after) / 2 / ours)
    return statistics.median(ratios)


def seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def timed(run, cpu: dict[str, list[float]], key: str) -> float:
    """Wall seconds of run(); its CPU seconds (this process's and any child's) go to cpu[key]."""
    before = _cpu_seconds()
    wall = seconds(run)
    cpu.setdefault(key, []).append(_cpu_seconds() - before)
    return wall


def _cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plies", type=int, default=21_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--log", type=Path, help="a log file to use (written if missing)")
    args = parser.parse_args()
    if args.log and args.log.exists():
        data = args.log.read_bytes()
    else:
        data = long_log(args.plies)
        if args.log:
            args.log.write_bytes(data)
    events = load_log(data).events
    triples = [(e.author, e.signed_bytes(), e.sig) for e in events]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "long.log"
        path.write_bytes(data)
        keys = ("bare", "openssl", "ours", "ours+worker", "cli", "cli-serial", "py")
        times: dict[str, list[float]] = {key: [] for key in keys}
        verify = [*CLI, "verify"]
        cpu: dict[str, list[float]] = {}
        serial = [*verify, "--serial", str(path)]
        load_before = os.getloadavg()
        for _ in range(args.rounds):
            times["bare"].append(timed(lambda: bare_verify_seconds(triples), cpu, "bare"))
            times["openssl"].append(openssl_verify_seconds(triples))
            times["ours"].append(timed(lambda: verify_log_bytes(data), cpu, "ours"))
            with SignaturePool() as pool:
                times["ours+worker"].append(seconds(lambda: verify_log_bytes(data, pool)))
            times["cli"].append(seconds(lambda: run([*verify, str(path)])))
            times["cli-serial"].append(timed(lambda: run(serial), cpu, "cli-serial"))
            times["py"].append(seconds(lambda: run([*verify, "--help"])))
        load_after = os.getloadavg()
    assert verify_log_bytes(data).valid
    chunked = chunked_ratio(list(iter_log(data)), triples)
    best = {key: min(values) for key, values in times.items()}
    rate = {key: len(events) / value for key, value in best.items() if key != "py"}
    bare = rate["bare"]

    def row(label: str, key: str, note: str = "") -> tuple[str, float, str, str]:
        if key in cpu:  # one core: the ratio in CPU time too
            note = f"   CPU time {min(cpu['bare']) / min(cpu[key]):.2f}{note}"
        return (label, rate[key], "events/s", f"ratio {rate[key] / bare:.2f}{note}")

    for key in ("cli", "cli-serial"):
        rate[f"{key}-startup"] = len(events) / max(best[key] - best["py"], 1e-9)
    rows = [
        ("bare libsodium verify", bare, "verifies/s", ""),
        ("bare cryptography verify", rate["openssl"], "verifies/s", ""),
        row("verify_log_bytes, 1 core", "ours"),
        row("  + signature worker", "ours+worker"),
        row("creepnet verify --serial", "cli-serial"),
        row(f"  less start-up ({best['py']:.2f} s)", "cli-serial-startup"),
        row("creepnet verify (default)", "cli", "   (goal >= 0.8)"),
        row("  less start-up", "cli-startup"),
    ]
    print(f"log: {len(events)} events, {len(data)} bytes")
    loads = f"before {load_before[0]:.2f}, after {load_after[0]:.2f}"
    print(f"load average {loads} ({os.cpu_count()} cores)")
    worker = "with the worker" if core_free() else "in one process (no core looked free)"
    print(f"creepnet verify by default runs {worker}")
    for label, value, unit, note in rows:
        print(f"{label:<28}{value:10,.0f} {unit:<11} {note}")
    print(f"1 core, ratio in 500-event chunks, side by side (median): {chunked:.2f}")


def run(command: list[str]) -> None:
    subprocess.run(command, check=True, capture_output=True)


if __name__ == "__main__":
    main()
