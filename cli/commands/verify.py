"""`creepnet verify FILE…`: a verdict with reasons per log (exit 0 valid, 1 invalid, 2 usage)."""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter

from creepnet.cli.options import UsageError, fail, read_file
from creepnet.cli.signature_pool import SignaturePool
from creepnet.cli.text import printable_lines
from creepnet.protocol.log import Rejection, parse_or_reject, split_log
from creepnet.protocol.verify import Verdict, verify_file_bytes


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("verify", help="verify game logs offline, rules and crypto included")
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="game logs, or equivocation proofs a node stored"
    )
    parser.add_argument("--json", action="store_true", help="one JSON verdict per line")
    parser.add_argument(
        "--serial",
        action="store_true",
        help="check every signature in this process (by default a long log's are shared "
        "with one worker process when a core looks free)",
    )
    parser.set_defaults(func=run)


def escrow_note(data: bytes) -> str | None:
    """The escrow work of a log whose table retired a seat, every piece of which a valid verdict
    has checked (docs/ESCROW.md: each share against its commitment, each re-deal's bundle)."""
    try:
        events = [parse_or_reject(raw) for raw in split_log(data).items]
    except Rejection:
        return None
    ops = Counter(
        event.body.get("op")
        for event in events
        if event.type == "deck" and isinstance(event.body, dict)
    )
    if not ops["recover"] and not ops["refresh"]:
        return None
    return (
        f"escrow checked: {ops['recover']} publications of shares of a retired seat's keys, "
        f"{ops['refresh']} re-deals of escrow among the seats still playing"
    )


def render(name: str, verdict: Verdict, data: bytes | None = None) -> str:
    if not verdict.valid:
        assert verdict.error is not None
        return f"{name}: INVALID\n  {verdict.error.describe()}"
    if verdict.kind == "equivocation proof":
        notes = "".join(f"\n  {note}" for note in verdict.notes)
        return f"{name}: valid equivocation proof\n  {verdict.outcome}{notes}"
    state = "finished" if verdict.finished else "unfinished"
    lines = [f"{name}: valid, {verdict.events} events, {state}"]
    if verdict.outcome:
        lines.append(f"  outcome: {verdict.outcome}")
    lines.extend(f"  {note}" for note in verdict.notes)
    retired = any("retired by the table" in note for note in verdict.notes)
    escrow = escrow_note(data) if data is not None and retired else None
    if escrow is not None:
        lines.append(f"  {escrow}")
    return "\n".join(lines)


def compare(contents: dict[str, bytes]) -> str:
    """Whether several files hold the same bytes (every peer of a game should store one log)."""
    groups: dict[bytes, list[str]] = {}
    for name, data in contents.items():
        groups.setdefault(data, []).append(name)
    if len(groups) == 1:
        return f"the {len(contents)} logs are byte-identical"
    same = "; ".join(" = ".join(names) for names in groups.values())
    return f"the logs are not identical: {same}"


def run(args: argparse.Namespace) -> int:
    with SignaturePool() as pool:
        return _verify_all(args, None if args.serial or not core_free() else pool)


def core_free() -> bool:
    """Whether a core looks idle now: another process ready to run leaves none for the worker.

    The worker only pays off on a free core; competing for a busy one, its parse and the
    hand-overs make a run slower than --serial (docs/PERFORMANCE.md, "Logs").  Linux says how
    many tasks are runnable at this instant; the 1-minute load average, the fallback elsewhere,
    lags a minute behind (just after a busy minute it says no on an idle machine)."""
    cores = os.cpu_count() or 1
    others = runnable_others()
    if others is not None:
        return others <= cores - 2
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system: assume a free core
        return True
    return load <= cores - 1


def runnable_others(samples: int = 5) -> int | None:
    """Tasks other than this one ready to run (the 4th field of Linux's /proc/loadavg), the
    fewest of a few samples ~2 ms apart so that a passing blip does not count; None elsewhere."""
    counts = []
    try:
        for _ in range(samples):
            with open("/proc/loadavg", encoding="ascii") as handle:
                counts.append(int(handle.read().split()[3].split("/")[0]) - 1)  # minus us
            time.sleep(0.002)
    except (OSError, ValueError, IndexError):
        return None
    return min(counts)


def _verify_all(args: argparse.Namespace, pool: SignaturePool | None) -> int:
    worst = 0
    contents: dict[str, bytes] = {}
    for name in args.files:
        try:
            data = read_file(name)
        except UsageError as exc:
            fail(str(exc))
            worst = 2
            continue
        contents[name] = data
        verdict = verify_file_bytes(data, pool)
        if args.json:
            print(json.dumps({"file": name, **verdict.to_json()}))
        else:
            print(printable_lines(render(name, verdict, data)))
        if not verdict.valid:
            worst = max(worst, 1)
    if len(contents) > 1 and not args.json:
        print(compare(contents))
    return worst
