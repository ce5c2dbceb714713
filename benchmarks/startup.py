"""Start-up: `creepnet --help` side by side with a bare `python -c pass`, and how soon a Creeper
demo shows its first move (issue 26.17).

Each command runs ``--runs`` times, interleaved, and the median wall time is printed with its
ratio to the bare interpreter, next to how many modules it imports (counted with
``python -X importtime``) and how many of those are Creepy Racer's or the deck's.  The demo row
is the time from starting `creepnet demo creeper` until its spectator prints the board after
ply 1 (three nodes, two of them separate processes, zeroconf on loopback, the colour coin).
Goals: `creepnet --help` <= 4x `python -c pass`; a Creeper command loads no Racer or deck
module (tests/cli/test_cli_startup.py asserts the second).

    nice -n 19 python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = [sys.executable]
CREEPNET = [sys.executable, "-m", "creepnet.cli"]
script = Path(sys.executable).with_name("creepnet")
if script.exists():  # the installed entry point, as a user runs it (-m adds runpy's imports)
    CREEPNET = [sys.executable, str(script)]

# A Creeper game at the terminal: the human leaves at once (quit), the bot node stays idle.
CREEPER_COMMAND = ["play", "creeper", "--vs", "random", "--player", "me"]


def wall(command: list[str], stdin: str = "", env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, capture_output=True, text=True, check=True, env=env)
    return time.perf_counter() - start


def modules(command: list[str], stdin: str = "", env: dict[str, str] | None = None) -> list[str]:
    """The modules a command imports, from ``-X importtime`` (one stderr line per module)."""
    done = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
    )
    return [
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line and "cumulative" not in line
    ]


def first_move_seconds(out: Path) -> float:
    """From starting the Creeper demo until its spectator shows the board after ply 1."""
    start = time.perf_counter()
    with subprocess.Popen(
        [*CREEPNET, "demo", "creeper", "--max-plies", "2", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as demo:
        assert demo.stdout is not None
        for line in demo.stdout:
            if line.startswith("ply 1 |"):
                seconds = time.perf_counter() - start
                break
        else:
            raise RuntimeError("the demo ended before its first move was shown")
        demo.stdout.read()  # let it finish and verify, so runs do not overlap
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each command (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "CREEPNET_HOME": str(Path(folder) / "home")}
        rows = {
            "python -c pass": (PYTHON + ["-c", "pass"], ""),
            "creepnet --help": (CREEPNET + ["--help"], ""),
            "creepnet verify --help": (CREEPNET + ["verify", "--help"], ""),
            "creepnet " + " ".join(CREEPER_COMMAND): (CREEPNET + CREEPER_COMMAND, "quit\n"),
        }
        times: dict[str, list[float]] = {name: [] for name in rows}
        demo: list[float] = []
        for run in range(args.runs):
            for name, (command, stdin) in rows.items():
                times[name].append(wall(command, stdin, env))
            if run < max(3, args.runs // 3):  # the demo is slow: fewer runs
                demo.append(first_move_seconds(Path(folder) / f"demo-{run}"))
        bare = statistics.median(times["python -c pass"])
        print(f"start-up, median of {args.runs} runs (load {os.getloadavg()[0]:.2f})")
        print(f"  {'command':<44} {'wall':>8} {'x bare':>7} {'modules':>8} {'racer/deck':>10}")
        for name, (command, stdin) in rows.items():
            loaded = modules(command, stdin, env)
            game = [m for m in loaded if m.startswith("creepnet") and ("racer" in m or "deck" in m)]
            median = statistics.median(times[name])
            print(
                f"  {name:<44} {median * 1000:6.0f}ms {median / bare:6.1f}x "
                f"{len(loaded):8d} {len(game):10d}"
            )
        first = statistics.median(demo)
        print(f"  {'demo creeper: first move shown':<44} {first * 1000:6.0f}ms ({len(demo)} runs)")
        ratio = statistics.median(times["creepnet --help"]) / bare
        print(
            f"goal creepnet --help <= 4x python -c pass: {ratio:.1f}x",
            "met" if ratio <= 4 else "MISSED",
        )


if __name__ == "__main__":
    main()
