"""Creepy Racer over the network: bot nodes as separate processes on 127.0.0.1, no pacing.

For 2, 3 and 4 players: the whole game's wall time, the median and p99 time per turn (seen by a
spectator node in this process), and the share of that time the cryptography needs, measured on
the very same game's log in this process: every seat's deck work as its author (shuffles, locks,
releases, none-of proofs, transfers, plays, from the secrets in its home) plus one peer's checks of
every deck message.  Those are on the critical path of every event (the next author must check
an event before it can answer), so ``wall / crypto - 1`` is the network and session overhead.
Goals: overhead <= 50%; a 4-player turn's median under 250 ms.

    python benchmarks/racer_network.py [--players 2 3 4] [--turns 12] [--seed 1]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from creepnet.node.node import Node
from creepnet.node.storage import Home
from creepnet.protocol.deck import DeckState
from creepnet.protocol.games.racer.private import RacerPrivate
from creepnet.protocol.games.racer.table import DeckStep, ShowDrawn, next_step
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.rules import Seating
from creepnet.protocol.session import Session

LOOPBACK = "127.0.0.1"
CLI = [sys.executable, "-m", "creepnet.cli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


async def network_game(players: int, turns: int, seed: int, work: Path) -> dict:
    """Run one game between processes; a spectator here times every turn."""
    port = free_port()
    common = ["--pace", "0", "--iface", LOOPBACK, "--bot", "heuristic"]
    host = ["host", "racer", "--name", "bench", "--players", str(players)]
    host += ["--turn-limit", str(turns), "--port", str(port), "--no-discovery", "--seed", str(seed)]
    commands = [[*CLI, *host, *common, "--home", str(work / "seat0")]]
    for k in range(1, players):
        join = ["join", "bench", "--addr", f"{LOOPBACK}:{port}", "--seed", str(seed + k)]
        commands.append([*CLI, *join, *common, "--home", str(work / f"seat{k}")])
    processes = [
        subprocess.Popen(commands[0], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ]
    turn_starts: list[float] = []
    try:
        async with Node.open(work / "spectator", host=LOOPBACK) as spectator:
            with trio.fail_after(60):
                while True:  # the host process is starting: try until it listens
                    try:
                        game = await spectator.watch(f"{LOOPBACK}:{port}")
                        break
                    except (OSError, Exception):  # noqa: BLE001 - not up yet
                        await trio.sleep(0.2)
            processes += [
                subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for c in commands[1:]
            ]
            session = spectator.session(game)
            shown = None
            started = None
            while not session.finished:
                await spectator.wait_changed(game)
                if session.started and started is None:
                    started = time.perf_counter()
                state = session.game_state.state if session.started else None
                number = state.turn.number if state is not None and state.turn else None
                if number is not None and number != shown:
                    turn_starts.append(time.perf_counter())
                    shown = number
            wall = time.perf_counter() - (started or time.perf_counter())
            turn_starts.append(time.perf_counter())
            log = session.log.to_bytes()
            raws = [event.raw for event in session.log.events]
    finally:
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    durations = [b - a for a, b in zip(turn_starts, turn_starts[1:], strict=False)]
    return {"wall": wall, "turns": durations, "log": log, "raws": raws}


def crypto_seconds(raws: list[bytes], work: Path, players: int) -> float:
    """Every seat's deck work as author plus one peer's deck checks, on the same log."""
    secrets_of: dict[bytes, SeatSecrets] = {}  # guests race for seats: match homes by key
    for k in range(players):
        home = Home(work / f"seat{k}")
        stored = next((work / f"seat{k}" / "games").glob("*/secrets")).read_bytes()
        secrets_of[home.identity().public_key] = SeatSecrets.from_bytes(stored)
    checking = [0.0]
    original = DeckState.apply

    def timed_apply(self, seat, seq, message):  # type: ignore[no-untyped-def]
        begin = time.perf_counter()
        try:
            return original(self, seat, seq, message)
        finally:
            checking[0] += time.perf_counter() - begin

    session = Session()
    authoring = 0.0
    privates: list[RacerPrivate] = []
    DeckState.apply = timed_apply  # type: ignore[method-assign]
    try:
        for raw in raws:
            if session.started and not privates:
                seating = Seating(session.game, tuple(session.seat_keys))  # type: ignore[arg-type]
                privates = [
                    RacerPrivate(seating, k, secrets_of[key].deck_secret)
                    for k, key in enumerate(session.seat_keys)
                ]
            if privates and session.result is None and session.rules.next(session.game_state):
                step = next_step(session.game_state)
                if isinstance(step, DeckStep | ShowDrawn):
                    before = checking[0]
                    begin = time.perf_counter()
                    privates[step.seat].owed(session.game_state, len(session.log))
                    authoring += time.perf_counter() - begin - (checking[0] - before)
            session.accept(raw)
    finally:
        DeckState.apply = original  # type: ignore[method-assign]
    return authoring + checking[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--turns", type=int, default=12, help="turn limit of each game")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'players':>7} {'events':>6} {'turns':>5} {'wall s':>7} {'median ms':>9} "
          f"{'p99 ms':>7} {'crypto s':>8} {'overhead':>8}")  # fmt: skip
    for players in args.players:
        with tempfile.TemporaryDirectory(prefix="creepnet-bench-") as folder:
            work = Path(folder)
            game = trio.run(network_game, players, args.turns, args.seed, work)
            crypto = crypto_seconds(game["raws"], work, players)
        turns = sorted(game["turns"])
        median = statistics.median(turns) * 1000
        p99 = turns[min(len(turns) - 1, int(len(turns) * 0.99))] * 1000
        overhead = game["wall"] / crypto - 1
        print(
            f"{players:>7} {len(game['raws']):>6} {len(turns):>5} {game['wall']:>7.1f} "
            f"{median:>9.0f} {p99:>7.0f} {crypto:>8.1f} {overhead:>8.0%}"
        )


if __name__ == "__main__":
    main()
