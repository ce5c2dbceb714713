"""Creepy Racer over the network: bot nodes as separate processes on 127.0.0.1, no pacing.

For 2, 3 and 4 players: the whole game's wall time and the median and p99 time per turn, taken
from the host's `--trace` (when it stored each event; `--spectator` times it from a verifying
spectator node in this process instead, a fifth node on the same cores), and the share of that
time the cryptography needs, measured on the very same game's log in this process: every seat's
deck work as its author (shuffles, locks, releases, none-of proofs, transfers, plays, from the
secrets in its home) plus one peer's checks of every deck message and its end-of-game audit
(*crypto s*, wall time, with the group's threads as the nodes use them).  Those are on the
critical path of every event (the next author must check an event before it can answer), so
``wall / crypto - 1`` is the network and session overhead.  Goals: overhead <= 50%; a 4-player
turn's median under 250 ms.

On a machine with fewer cores than nodes that ratio also counts the nodes waiting for each
other's CPU, so the CPU is accounted for too: *cpu s* is what the node processes spent in all
(start-up included), *game cpu* what they spent between the first and the last event of the
game (sampled from /proc), *crypto cpu* the deck work every node must do (every seat's
authoring, plus every node's checks of the messages it did not author and its end-of-game
audit), and *cpu overhead* = game cpu / crypto cpu - 1: what the network, the session, storage
and the bots cost on top of the cryptography, whatever the number of cores.  *floor s* =
crypto cpu / cores: no game on this machine can take less wall time.

    python benchmarks/racer_network.py [--players 2 3 4] [--turns 12] [--seed 1] [--kinds]
                                       [--spectator] [--threads N] [--rounds R] [--lan]

``--rounds R`` plays R games per player count (seeds apart) and adds their medians: single
games differ in length and in how the guests' races for seats came out.

``--lan`` runs a LAN on this machine: each node process is capped at cores/players of CPU (a
cgroup each, see cpucap.py; needs root), as if each ran on its own machine of that speed, and
*crypto s* is measured under the same cap; then ``wall / crypto - 1`` is the overhead such a
LAN would show, less its wire latency (the CPU columns stay as they are; *floor* then means
little).  Without it the nodes share the cores, and the busiest take them from the next author.

``--kinds`` adds, per game, where the time goes: from one event to the next as the host stored
them, by the next event's kind and hop (same author, to or from the host, guest to guest); and
the guest-to-guest shuffles and locks split by every node's trace (when the next author stored
the event with its answer, then when the host stored that answer).
``--threads 1`` runs every node on one core (CREEPNET_THREADS), to compare.

With ``CREEPNET_PROFILE=DIR`` every node process runs under cProfile and leaves
``DIR/<players>p-seat<k>.prof`` (a profile, not a figure: cProfile slows the run).

``--retire`` measures instead a retirement (issue 23's goal: from the timeout to the next move
after a retirement at most 2 s on loopback for 4 players): 4 real nodes in this process on
127.0.0.1 (as tests/racer/test_racer_retire_network.py runs them: trio, TCP, a bot each), a Racer
game with escrow and ``--retire-after`` seconds (default 1); once the set-up is done and a few
turns are played, one guest's node is shut down for good.  Timed on the remaining nodes (their
``--trace``, and the moment each casts its vote): the wall time from the first vote (the
retirement timer firing) to the next move applied on every remaining seat, split into the votes
(to the ``retire`` event), the recovery of the retired seat's keys, the refresh of the escrows
it held shares of, the table's steps for it, and the next move; plus how late the first vote
came after the timeout (the timer looks every ``node.retirement.TICK``).  The three remaining
nodes share this process's cores (and its interpreter lock), as they would not on three machines.

    python benchmarks/racer_network.py --retire [--rounds R] [--seed S] [--retire-after N]
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio
from cpucap import CapError, CpuCaps

from creepnet.engine.racer.state import HostageSwap
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.node.storage import Home
from creepnet.node.trace import read_trace
from creepnet.protocol import retirement
from creepnet.protocol.deck import DeckState
from creepnet.protocol.games.racer import adapter
from creepnet.protocol.games.racer.private import RacerPrivate
from creepnet.protocol.games.racer.schedule import DeckStep, ShowDrawn, next_step
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.log import iter_log, load_log
from creepnet.protocol.pending import FREE_WASTE, WASTE_PER_EVENT
from creepnet.protocol.rules import Seating
from creepnet.protocol.session import Session

LOOPBACK = "127.0.0.1"
CLI = [sys.executable, "-m", "creepnet.cli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


async def network_game(
    players: int, turns: int, seed: int, work: Path, spectator: bool, caps: CpuCaps | None = None
) -> dict:
    """Run one game between processes, timed by the host's `--trace` or by a live spectator;
    with ``caps``, node k runs in cgroup k (``--lan``)."""
    port = free_port()
    cpu_before = _children_cpu() + time.process_time()
    trace = work / "host.trace"
    common = ["--pace", "0", "--iface", LOOPBACK, "--bot", "heuristic"]
    host = ["host", "racer", "--name", "bench", "--players", str(players)]
    host += ["--turn-limit", str(turns), "--port", str(port), "--no-discovery", "--seed", str(seed)]
    commands = [[*CLI, *host, *common, "--home", str(work / "seat0"), "--trace", str(trace)]]
    for k in range(1, players):
        join = ["join", "bench", "--addr", f"{LOOPBACK}:{port}", "--seed", str(seed + k)]
        home = ["--home", str(work / f"seat{k}"), "--trace", str(work / f"seat{k}.trace")]
        commands.append([*CLI, *join, *common, *home])
    profile = os.environ.get("CREEPNET_PROFILE")  # a folder: profile every node process there
    if profile:
        for k, command in enumerate(commands):
            out = Path(profile) / f"{players}p-seat{k}.prof"
            command[1:1] = ["-m", "cProfile", "-o", str(out)]
    processes = [_start(commands[0], caps, 0)]
    samples: list[tuple[float, float]] = []  # (time, CPU seconds of every node process so far)
    try:
        if spectator:
            arrivals = await _spectate(port, commands, processes)
        else:
            await _listening(port)
            processes += [_start(command, caps, k) for k, command in enumerate(commands) if k]
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_sample_cpu, processes, samples)
                await trio.to_thread.run_sync(_wait_all, processes)
                nursery.cancel_scope.cancel()
            arrivals = None
    finally:
        _wait_all(processes)
    cpu = _children_cpu() + time.process_time() - cpu_before  # includes process start-up
    home = Home(work / "seat0")
    log = home.game(home.stored_games()[0]).log_path.read_bytes()
    raws = list(iter_log(log))
    if arrivals is None:  # when the host stored each event
        stored = read_trace(trace)[load_log(log).game]
        arrivals = [stored[seq] for seq in range(len(raws))]
    started, turn_starts = turn_boundaries(raws)
    wall = arrivals[-1] - arrivals[started]
    moments = [arrivals[seq] for seq in turn_starts] + [arrivals[-1]]
    durations = [b - a for a, b in zip(moments, moments[1:], strict=False)]
    in_game = _cpu_at(samples, arrivals[-1]) - _cpu_at(samples, arrivals[started])
    return {
        "wall": wall,
        "turns": durations,
        "raws": raws,
        "cpu": cpu,
        "cpu_in_game": in_game if samples else None,
        "arrivals": arrivals,
    }


async def _sample_cpu(processes: list[subprocess.Popen], samples: list) -> None:
    """Every 20 ms, the CPU time of the node processes (Linux /proc), to take the game's share
    without the start-up and the linger after it."""
    tick = os.sysconf("SC_CLK_TCK")
    while True:
        total = 0.0
        for process in processes:
            try:
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # exited: its last sample stands
                continue
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        samples.append((time.time(), max(total, samples[-1][1] if samples else 0.0)))
        await trio.sleep(0.02)


def _cpu_at(samples: list[tuple[float, float]], moment: float) -> float:
    """CPU seconds of the nodes at `moment`: the first sample at or after it."""
    return next((cpu for when, cpu in samples if when >= moment), samples[-1][1] if samples else 0)


def turn_boundaries(raws: list[bytes]) -> tuple[int, list[int]]:
    """The seq at which the game started (seats full) and the seq that opened each turn."""
    session = Session()
    started, starts, shown = None, [], None
    for seq, raw in enumerate(raws):
        session.accept(raw)
        if session.started and started is None:
            started = seq
        state = session.game_state.state if session.started else None
        number = state.turn.number if state is not None and state.turn else None
        if number is not None and number != shown:
            starts.append(seq)
            shown = number
    assert started is not None and session.finished, "the game did not finish"
    return started, starts


async def _spectate(port: int, commands: list[list[str]], processes: list) -> list[float]:
    """A spectator node in this process watches the game live; when it had each event."""
    arrivals: list[float] = []
    async with Node.open(Path(tempfile.mkdtemp(prefix="spectator-")), host=LOOPBACK) as node:
        with trio.fail_after(60):
            while True:  # the host process is starting: try until it listens
                try:
                    game = await node.watch(f"{LOOPBACK}:{port}")
                    break
                except (OSError, Exception):  # noqa: BLE001 - not up yet
                    await trio.sleep(0.2)
        processes += [_start(command) for command in commands[1:]]
        session = node.session(game)
        while not session.finished:
            await node.wait_changed(game)
            while len(arrivals) < len(session.log):
                arrivals.append(time.time())
    return arrivals


async def _listening(port: int) -> None:
    with trio.fail_after(60):
        while True:  # the host process is starting: try until it listens
            try:
                stream = await trio.open_tcp_stream(LOOPBACK, port)
            except OSError:
                await trio.sleep(0.05)
            else:
                await stream.aclose()
                return


def _start(command: list[str], caps: CpuCaps | None = None, k: int = 0) -> subprocess.Popen:
    enter = None if caps is None else lambda: caps.enter(k)  # before exec: capped from birth
    return subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, preexec_fn=enter
    )


# The node processes run as an installed creepnet would: with compiled bytecode (pip compiles
# it at install; an editable install under PYTHONDONTWRITEBYTECODE would compile every module
# at every start, ~0.2 s of CPU a process), kept apart from the source tree.
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "creepnet-bench-pycache")


def _wait_all(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def crypto_seconds(raws: list[bytes], work: Path, players: int) -> dict[str, float]:
    """Every seat's deck work as author plus one peer's deck checks and its end-of-game audit,
    on the same log: wall seconds (``author``, ``check``, ``audit``) and CPU seconds
    (``author_cpu``, ``check_cpu``, ``audit_cpu``; with the group's threads the CPU can exceed
    the wall time)."""
    secrets_of: dict[bytes, SeatSecrets] = {}  # guests race for seats: match homes by key
    for k in range(players):
        home = Home(work / f"seat{k}")
        stored = next((work / f"seat{k}" / "games").glob("*/secrets")).read_bytes()
        secrets_of[home.identity().public_key] = SeatSecrets.from_bytes(stored)
    checking = [0.0, 0.0]
    auditing = [0.0, 0.0]
    original = DeckState.apply
    original_audit = adapter.audit

    def timed_audit(*args, **kwargs):  # type: ignore[no-untyped-def]
        begin, begin_cpu = time.perf_counter(), time.process_time()
        try:
            return original_audit(*args, **kwargs)
        finally:
            auditing[0] += time.perf_counter() - begin
            auditing[1] += time.process_time() - begin_cpu

    def timed_apply(self, seat, seq, message):  # type: ignore[no-untyped-def]
        begin, begin_cpu = time.perf_counter(), time.process_time()
        try:
            return original(self, seat, seq, message)
        finally:
            checking[0] += time.perf_counter() - begin
            checking[1] += time.process_time() - begin_cpu

    session = Session()
    authoring, authoring_cpu = 0.0, 0.0
    privates: list[RacerPrivate] = []
    DeckState.apply = timed_apply  # type: ignore[method-assign]
    adapter.audit = timed_audit  # type: ignore[assignment]
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
                    before = list(checking)
                    begin, begin_cpu = time.perf_counter(), time.process_time()
                    privates[step.seat].owed(session.game_state, len(session.log))
                    authoring += time.perf_counter() - begin - (checking[0] - before[0])
                    authoring_cpu += time.process_time() - begin_cpu - (checking[1] - before[1])
            session.accept(raw)
    finally:
        DeckState.apply = original  # type: ignore[method-assign]
        adapter.audit = original_audit  # type: ignore[assignment]
    return {
        "author": authoring,
        "check": checking[0],
        "author_cpu": authoring_cpu,
        "check_cpu": checking[1],
        "audit": auditing[0],  # the end-of-game audit, which every node runs
        "audit_cpu": auditing[1],
    }


def by_kind(raws: list[bytes], arrivals: list[float]) -> dict[str, list[float]]:
    """The time from each played event to the next, by the next one's kind and hop.

    Kind: the event type, with the deck operation or the first word of the action.  Hop: the
    same author again, the host on either side of it, or guest to guest (through the host)."""
    session = Session()
    gaps: dict[str, list[float]] = {}
    previous = None
    for seq, raw in enumerate(raws):
        event = session.accept(raw)
        seat = session.seat_keys.index(event.author)
        if previous is not None and seq < len(arrivals) and session.started:
            word = event.body.get("op") or str(event.body.get("action", "")).split(" ")[0]
            hop = "same" if seat == previous else "host" if 0 in (seat, previous) else "g-g"
            key = f"{event.type} {word[:12]}".strip() + f" ({hop})"
            gaps.setdefault(key, []).append(arrivals[seq] - arrivals[seq - 1])
        previous = seat
    return gaps


def hop_split(raws: list[bytes], work: Path, players: int) -> dict[str, list[tuple[float, float]]]:
    """Guest-to-guest hops of the heavy deck steps (B's shuffle or lock, then C's), split by
    every node's `--trace`: from the host storing B's event to C storing it together with its
    answer (C's check and proof), then to the host storing C's (the host's check)."""
    node_of = {Home(work / f"seat{k}").identity().public_key: k for k in range(players)}
    names = ["host.trace"] + [f"seat{k}.trace" for k in range(1, players)]
    game = load_log(raws[0]).game
    stored = [read_trace(work / name)[game] for name in names]  # per node: seq -> when
    session, previous = Session(), None
    split: dict[str, list[tuple[float, float]]] = {}
    for seq, raw in enumerate(raws):
        event = session.accept(raw)
        node, op = node_of.get(event.author), event.body.get("op")
        if session.started and op in ("shuffle", "lock") and node and previous and node != previous:
            split.setdefault(op, []).append(
                (stored[node][seq - 1] - stored[0][seq - 1], stored[0][seq] - stored[node][seq])
            )
        previous = node
    return split


def print_split(split: dict[str, list[tuple[float, float]]]) -> None:
    print(f"    {'guest to guest':<16} {'count':>5} {'next author stored ms':>21} "
          f"{'then host stored ms':>19}")  # fmt: skip
    for op, hops in split.items():
        first, second = (statistics.median(hop[i] for hop in hops) * 1000 for i in (0, 1))
        print(f"    {'deck ' + op:<16} {len(hops):>5} {first:>21.0f} {second:>19.0f}")


def print_kinds(gaps: dict[str, list[float]]) -> None:
    print(f"    {'next event (hop)':<28} {'count':>5} {'median ms':>9} {'total s':>7}")
    for key, values in sorted(gaps.items(), key=lambda item: -sum(item[1]))[:12]:
        total = sum(values)
        median = statistics.median(values) * 1000
        print(f"    {key:<28} {len(values):>5} {median:>9.1f} {total:>7.2f}")


# --- a retirement, timed (--retire) ---------------------------------------------------------


class VoteClock:
    """When each node first voted, per position: Ballot.cast wrapped for one benchmark."""

    def __init__(self) -> None:
        self.first: dict[tuple[int, int], float] = {}  # (seq, voter) -> unix time

    def __enter__(self) -> VoteClock:
        original = self.original = retirement.Ballot.cast
        clock = self

        def cast(ballot: retirement.Ballot, identity, voter: int):  # type: ignore[no-untyped-def]
            clock.first.setdefault((ballot.position.seq, voter), time.time())
            return original(ballot, identity, voter)

        retirement.Ballot.cast = cast  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        retirement.Ballot.cast = self.original  # type: ignore[method-assign]


def _free_to_leave(runtime, seat: int) -> bool:  # type: ignore[no-untyped-def]
    """Not while the seat hands over a Hostage Exchange's card (that step cannot be retired)."""
    stage = runtime.session.game_state.state.stage
    return not isinstance(stage, HostageSwap) or seat not in (stage.asker, stage.target)


async def retire_game(work: Path, seed: int, retire_after: int, after: int) -> dict:
    """Four nodes play a Racer game with escrow; once `after` moves (`act` events) are played,
    a guest's node shuts down for good; the three others retire it and play on.  Returns the
    remaining nodes' traces, the host's log up to the next move, the first votes and who left."""
    players = 4
    options = {"escrow": 1, "retire_after": retire_after, "turn_limit": 30}
    with VoteClock() as votes:
        async with trio.open_nursery() as nursery:
            nodes: list[Node] = []
            scopes = [trio.CancelScope() for _ in range(players)]

            async def run_node(k: int, ready: trio.Event, game: list[bytes]) -> None:
                with scopes[k]:
                    home = work / f"node{k}"
                    trace = work / f"node{k}.trace"
                    async with Node.open(home, name=f"node{k}", trace=trace) as node:
                        nodes.append(node)
                        if k == 0:
                            game.append(
                                await node.host_game(
                                    "racer", "retire", seats=players, player="n0", options=options
                                )
                            )
                        else:
                            await node.join(nodes[0].address, game[0], player=f"n{k}")
                        ready.set()
                        await run_bot(node, game[0], "heuristic", seed + k)
                        await trio.sleep_forever()

            game: list[bytes] = []
            for k in range(players):
                ready = trio.Event()
                nursery.start_soon(run_node, k, ready, game)
                await ready.wait()
                if k == 0:
                    continue
                await nodes[0].wait_for(game[0], lambda rt, k=k: len(rt.session.seats) > k)
            host = nodes[0]
            victim_node = nodes[players - 1]
            victim = victim_node.session(game[0]).local_seat
            assert victim is not None and victim != 0
            await host.wait_for(
                game[0],
                lambda rt: _moves(rt.session) >= after and _free_to_leave(rt, victim),
                timeout=300,
            )
            left_at = len(host.session(game[0]).log)
            scopes[players - 1].cancel()  # that node is gone for good: no leave notice

            await host.wait_for(game[0], lambda rt: _next_move(rt.session) is not None, timeout=120)
            target = _next_move(host.session(game[0]))
            assert target is not None
            remaining = [n for n in nodes if n is not victim_node]
            for node in remaining:
                await node.wait_for(game[0], lambda rt: len(rt.session.log) > target, timeout=120)
            log = host.session(game[0]).log.to_bytes()
            waste = _worst_waste(remaining, game[0])
            nursery.cancel_scope.cancel()
    seats = {node.session(game[0]).local_seat: k for k, node in enumerate(nodes)}
    traces = {
        seat: read_trace(work / f"node{k}.trace")[game[0]]
        for seat, k in seats.items()
        if seat != victim
    }
    return {"log": log, "traces": traces, "votes": votes.first, "victim": victim,
            "left_at": left_at, "retire_after": retire_after, "waste": waste}  # fmt: skip


def _worst_waste(nodes: list[Node], game: bytes) -> int:
    """The most deliveries any node was charged for one sender (protocol/pending.py's
    allowance: duplicates, held and deferred events), over the whole game so far."""
    return max(
        node.session(game).wasted(other.identity.public_key)
        for node in nodes
        for other in nodes
        if other is not node
    )


def _moves(session: Session) -> int:
    return sum(event.type == "act" for event in session.log.events)


def _next_move(session: Session) -> int | None:
    """The seq of the first `act` event after a `retire`, if there is one yet (from the end of
    the log back: cheap enough to ask after every change while the table plays on)."""
    if not session.retired:
        return None
    move = None
    for event in reversed(session.log.events):
        if event.type == "retire":
            return move
        if event.type == "act":
            move = event.seq
    return None


def retire_phases(result: dict) -> dict[str, float]:
    """The phases of one retirement, in seconds.  An event is applied when every remaining node
    has stored it (their traces); from the first vote on, each event's share of the time (from
    the previous one applied to it applied) goes to its kind: the `retire`, a `recover`, a
    `refresh`, a deck step the table makes for the retired seat, any other step (the remaining
    seats' own deck steps and dice reveals the game owes first), and the next move (`act`)."""
    session = Session()
    kinds: dict[int, str] = {}
    recovered = 0
    retire_seq = None
    for raw in iter_log(result["log"]):
        step = next_step(session.game_state) if retire_seq is not None else None
        event = session.accept(raw)
        if event.type == "retire":
            retire_seq = event.seq
            kinds[event.seq] = "retire"
        elif retire_seq is None:
            continue
        elif event.type == "act":
            kinds[event.seq] = "next move"
            break
        elif event.type == "deck" and event.body.get("op") in ("recover", "refresh"):
            kinds[event.seq] = "recovery" if event.body["op"] == "recover" else "refresh"
            recovered += len(event.body.get("scalars", []))
        elif isinstance(step, DeckStep) and step.by is not None:
            kinds[event.seq] = "table"  # a deck step the table makes for the retired seat
        else:
            kinds[event.seq] = "other"
    assert retire_seq is not None
    traces = result["traces"]

    def applied(seq: int) -> float:
        return max(trace[seq] for trace in traces.values())

    cast = [t for (seq, _), t in result["votes"].items() if seq == retire_seq]
    deadline = min(trace[retire_seq - 1] for trace in traces.values()) + result["retire_after"]
    out = dict.fromkeys(RETIRE_PHASES, 0.0)
    out["votes"] = max(cast) - min(cast)  # the first vote to the last voter's
    before = max(cast)
    for seq, kind in kinds.items():
        out[kind] += applied(seq) - before
        before = applied(seq)
    out["total"] = before - min(cast)
    out["timer lag"] = min(cast) - deadline
    out["events"] = len(kinds)
    out["recovered"] = recovered
    out["table steps"] = sum(k == "table" for k in kinds.values())
    return out


RETIRE_PHASES = (
    "votes", "retire", "recovery", "refresh", "table", "other", "next move", "total", "timer lag"
)  # fmt: skip


def retire_benchmark(rounds: int, seed: int, retire_after: int) -> None:
    print(f"retirement, 4 nodes on 127.0.0.1 in one process, Racer with escrow, retire_after "
          f"{retire_after} s: ms from the first vote to the next move applied on every remaining "
          "seat")  # fmt: skip
    print("  seed  events  keys  table " + " ".join(f"{p:>9}" for p in RETIRE_PHASES)
          + "  waste")  # fmt: skip
    rows = []
    for round_ in range(rounds):
        result = None
        with tempfile.TemporaryDirectory(prefix="creepnet-retire-") as folder:
            try:
                result = trio.run(retire_game, Path(folder), seed + round_, retire_after, 6)
            except* trio.TooSlowError:  # a finding, not a figure: say so and go on
                print(f"  {seed + round_:>4}  the game stalled (no progress within the timeout)")
        if result is None:
            continue
        row = retire_phases(result)
        rows.append(row)
        print(f"  {seed + round_:>4} {row['events']:>7.0f} {row['recovered']:>5.0f} "
              f"{row['table steps']:>6.0f} "
              + " ".join(f"{row[p] * 1000:>9.0f}" for p in RETIRE_PHASES)
              + f" {result['waste']:>6}")  # fmt: skip
    if rounds > 1:
        medians = [statistics.median(r[p] for r in rows) * 1000 for p in RETIRE_PHASES]
        print("median " + " " * 19 + " ".join(f"{m:>9.0f}" for m in medians))
    print(
        "  (goal: total <= 2000 ms; timer lag: the first vote after the last event + retire_after;"
        "\n   waste: the most events one node was charged for one honest sender, against an"
        f" allowance of {FREE_WASTE} + {WASTE_PER_EVENT} per log event)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--turns", type=int, default=12, help="turn limit of each game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--kinds", action="store_true", help="also where each game's time goes, by event kind"
    )
    parser.add_argument(
        "--spectator",
        action="store_true",
        help="time the game from a verifying spectator node in this process (a 5th node on "
        "the same cores) instead of the host's --trace",
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="CREEPNET_THREADS for the node processes (1: each node on one core)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="games per player count")
    parser.add_argument(
        "--retire",
        action="store_true",
        help="time a retirement instead: 4 nodes in this process, one shut down mid-game",
    )
    parser.add_argument(
        "--retire-after", type=int, default=1, help="the game's retire_after (with --retire)"
    )
    parser.add_argument(
        "--lan",
        action="store_true",
        help="a LAN on this machine: cap each node at cores/players of CPU (a cgroup each; "
        "needs root), and time the crypto under the same cap",
    )
    args = parser.parse_args()
    if args.retire:
        retire_benchmark(args.rounds, args.seed, args.retire_after)
        return
    if args.lan and args.spectator:
        parser.error("--lan times the game from the host's trace: drop --spectator")
    if args.threads:
        ENV["CREEPNET_THREADS"] = str(args.threads)
    subprocess.run([*CLI, "--help"], env=ENV, check=True, capture_output=True)  # warm the cache
    print(f"{'players':>7} {'events':>6} {'turns':>5} {'wall s':>7} {'median ms':>9} "
          f"{'p99 ms':>7} {'crypto s':>8} {'overhead':>8} {'cpu s':>6} {'game cpu':>8} "
          f"{'crypto cpu':>10} {'cpu overhead':>12} {'floor s':>7}")  # fmt: skip
    cores = len(os.sched_getaffinity(0))
    results: dict[int, list[dict[str, float]]] = {}
    for round_ in range(args.rounds):
        for players in args.players:
            seed = args.seed + 10 * round_
            row, detail = one_game(
                players, args.turns, seed, args.spectator, cores, args.kinds, args.lan
            )
            results.setdefault(players, []).append(row)
            if detail is not None:
                print_kinds(detail[0])
                print_split(detail[1])
    if args.rounds > 1:
        print(f"median of {args.rounds} games each:")
        for players, rows in results.items():
            middle = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
            print_row(players, middle)


def one_game(
    players: int, turns: int, seed: int, spectator: bool, cores: int, kinds: bool, lan: bool
) -> tuple[dict[str, float], tuple[dict, dict] | None]:
    """Play one game; its row of figures (printed) and, if asked, where its time went (by
    kind and hop, and the guest-to-guest deck hops split by every node's trace)."""
    caps = None
    if lan:
        try:
            caps = CpuCaps.open(cores / players)
            for k in range(players + 1):  # one per node, and one for the yardstick
                caps.path(k)
        except (CapError, OSError) as exc:
            sys.exit(f"--lan: {exc}")
    try:
        with tempfile.TemporaryDirectory(prefix="creepnet-bench-") as folder:
            work = Path(folder)
            game = trio.run(network_game, players, turns, seed, work, spectator, caps)
            split = hop_split(game["raws"], work, players) if kinds else None
            if caps is not None:
                caps.enter(players)  # the yardstick on one node's share of the machine
            crypto = crypto_seconds(game["raws"], work, players)
    finally:
        if caps is not None:
            caps.close()
    durations = sorted(game["turns"])
    critical = crypto["author"] + crypto["check"] + crypto["audit"]
    # Every node but the author checks each deck message (the spectator too); all audit.
    nodes = players + spectator
    every_node = (
        crypto["author_cpu"] + (nodes - 1) * crypto["check_cpu"] + nodes * crypto["audit_cpu"]
    )
    in_game = game["cpu_in_game"]
    row = {
        "events": len(game["raws"]),
        "turns": len(durations),
        "wall": game["wall"],
        "median": statistics.median(durations) * 1000,
        "p99": durations[min(len(durations) - 1, int(len(durations) * 0.99))] * 1000,
        "crypto": critical,
        "overhead": game["wall"] / critical - 1,
        "cpu": game["cpu"],
        "game_cpu": in_game or 0.0,
        "crypto_cpu": every_node,
        "cpu_overhead": in_game / every_node - 1 if in_game else float("nan"),
        "floor": every_node / cores,
    }
    print_row(players, row)
    return row, (by_kind(game["raws"], game["arrivals"]), split) if kinds else None


def print_row(players: int, row: dict[str, float]) -> None:
    print(
        f"{players:>7} {row['events']:>6.0f} {row['turns']:>5.0f} {row['wall']:>7.1f} "
        f"{row['median']:>9.0f} {row['p99']:>7.0f} {row['crypto']:>8.1f} {row['overhead']:>8.0%} "
        f"{row['cpu']:>6.1f} {row['game_cpu']:>8.1f} {row['crypto_cpu']:>10.1f} "
        f"{row['cpu_overhead']:>12.0%} {row['floor']:>7.1f}"
    )


if __name__ == "__main__":
    main()
