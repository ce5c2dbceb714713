"""Move latency between two node processes on loopback, against a bare TCP ping-pong, and
zeroconf advertisement-to-browse time.

    .venv/bin/python benchmarks/latency.py [--moves N] [--pings N] [--adverts N]

What it measures (all in one run, every party a separate OS process, 127.0.0.1 only):

* move latency, one way: two nodes (host and guest, random bots) play Creeper games until N
  moves are made.  The mover stamps ``time.monotonic_ns()`` just before ``node.play`` (which
  signs the move, appends + fsyncs it, then sends it); the other node stamps the moment it
  publishes the ``event`` update for it (accepted by its session *and* fsynced to its own log:
  the point from which the node acknowledges it).  CLOCK_MONOTONIC is one system-wide clock on
  Linux (outside time namespaces), so stamps taken in two processes are directly comparable;
  no halving of a round trip is needed, and the bots' thinking time is not in the figure.
  Run twice: with the nodes' homes on the disk and on a tmpfs (/dev/shm), to separate the
  cost of fsync (two per move: the mover's and the receiver's) from the protocol's.
* bare round trip: a trio TCP echo between two processes, frames of the same size as the
  ``events`` frame that carries one move (4-byte length + body), median of N round trips.
* discovery: a node process hosts a game with zeroconf bound to 127.0.0.1; this process
  browses (its own Zeroconf on 127.0.0.1) and stamps the game's appearance.  Measured from the
  ``host_game`` call (which triggers the advertisement) to the ``Found`` item.  Then a fresh
  browse (a new Zeroconf, as `creepnet games` starts) until the answer is stable: its time,
  and how many of the advertised games it saw.

The whole run is bounded (a global deadline, children killed on exit).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

LOOPBACK = "127.0.0.1"
DEADLINE = 60.0  # seconds, the whole run at the default sizes (normally ~15 s)


# ----- small helpers -----------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[rank]


def fs_type(path: Path) -> str:
    """The filesystem type holding path (longest mount point prefix in /proc/mounts)."""
    best, kind = "", "?"
    try:
        resolved = str(path.resolve())
        with open("/proc/mounts") as mounts:
            for line in mounts:
                parts = line.split()
                inside = len(parts) >= 3 and (
                    resolved == parts[1] or resolved.startswith(parts[1].rstrip("/") + "/")
                )
                if inside and len(parts[1]) > len(best):
                    best, kind = parts[1], parts[2]
    except OSError:
        pass
    return kind


class Lines:
    """Line reader over a child's stdout pipe."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def next(self) -> str:
        while b"\n" not in self.buffer:
            chunk = await self.stream.receive_some(4096)
            if not chunk:
                raise EOFError("child closed its stdout")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    async def expect(self, prefix: str) -> str:
        while True:
            line = await self.next()
            if line.startswith(prefix):
                return line[len(prefix) :].strip()


def child(role: str, *args: str) -> list[str]:
    return [sys.executable, os.path.abspath(__file__), "--role", role, *args]


async def spawn(command: list[str]) -> tuple[trio.Process, Lines]:
    process = await trio.lowlevel.open_process(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    return process, Lines(process.stdout)


def say(line: str) -> None:
    print(line, flush=True)


# ----- child: a node playing games, stamping sign and apply times -----------------------------


Stamps = dict[str, dict[str, int]]  # kind of stamp -> "<game hex>:<seq>" -> monotonic ns


def instrument(node: Any, stamps: Stamps, appends: list[int]) -> None:
    """Stamp each event's arrival (an `events` message handed to the node) and its `move`
    update (accepted + stored); time every log append."""
    from creepnet.node import updates
    from creepnet.node.storage import GameStore
    from creepnet.node.sync import GameSync

    publish = node._broadcaster.publish

    def stamped(update: Any) -> None:
        if update.kind == updates.EVENT and update.data.get("type") == "move":
            stamps["applied"][f"{update.game.hex()}:{update.data['seq']}"] = time.monotonic_ns()
        publish(update)

    node._broadcaster.publish = stamped
    append = GameStore.append

    def timed(self: Any, raws: list[bytes]) -> None:
        started = time.perf_counter_ns()
        try:
            append(self, raws)
        finally:
            appends.append(time.perf_counter_ns() - started)

    GameStore.append = timed  # type: ignore[method-assign]
    on_events = GameSync._on_events

    async def arrived(self: Any, runtime: Any, peer: Any, message: dict[str, Any]) -> None:
        stamp = time.monotonic_ns()
        for offset in range(len(message["items"])):
            stamps["arrived"].setdefault(f"{runtime.game.hex()}:{message['from'] + offset}", stamp)
        await on_events(self, runtime, peer, message)

    GameSync._on_events = arrived  # type: ignore[method-assign]


async def play_stamped(node: Any, game: bytes, seed: int, stamps: Stamps) -> None:
    """run_bot, with a stamp just before each of our moves is signed, and one when node.play
    returns (signed, stored, queued to the peer's writer)."""
    from creepnet.node.bot import run_bot

    async def stamped(game: bytes, text: str) -> Any:
        stamp = time.monotonic_ns()
        event = await node.play(game, text)
        stamps["played"][f"{game.hex()}:{event.seq}"] = time.monotonic_ns()
        stamps["signed"][f"{game.hex()}:{event.seq}"] = stamp
        return event

    await run_bot(node, game, "random", seed, play=stamped)


def move_frame_sizes(node: Any) -> list[int]:
    """Sizes of the `events` frames that carry one move each (as the node gossips them)."""
    from creepnet.node import messages
    from creepnet.node.channel import TAG_SIZE
    from creepnet.node.framing import encode_frame

    sizes = []
    for game, runtime in node.games.items():
        for event in runtime.session.log.events:
            if event.type == "move":
                frame = encode_frame(messages.events(game, event.seq, [event.raw], event.seq + 1))
                sizes.append(len(frame) + TAG_SIZE)  # sealed on the wire
    return sizes


async def role_host(home: str, games: int, plies: int) -> None:
    from creepnet.node import Node

    stamps: Stamps = {k: {} for k in ("signed", "played", "arrived", "applied")}
    appends: list[int] = []
    async with Node.open(Path(home), host=LOOPBACK, port=0, discovery=False) as node:
        instrument(node, stamps, appends)
        ids = [
            await node.host_game(
                "creeper", f"bench-{i}", player="host", options={"max_plies": plies}
            )
            for i in range(games)
        ]
        appends.clear()  # only moves' appends from here on (genesis etc. excluded)
        say(f"listening {node.address}")
        say("games " + " ".join(game.hex() for game in ids))
        async with trio.open_nursery() as nursery:
            for i, game in enumerate(ids):
                nursery.start_soon(play_stamped, node, game, 100 + i, stamps)
            await trio.to_thread.run_sync(sys.stdin.readline)  # the parent says "stop"
            nursery.cancel_scope.cancel()
        say(
            "result " + json.dumps({**stamps, "appends": appends, "frames": move_frame_sizes(node)})
        )


async def role_guest(home: str, address: str, moves: int, ids: list[str]) -> None:
    from creepnet.node import Node

    stamps: Stamps = {k: {} for k in ("signed", "played", "arrived", "applied")}
    appends: list[int] = []
    played = 0
    async with Node.open(Path(home), host=LOOPBACK, port=0, discovery=False) as node:
        instrument(node, stamps, appends)
        for i, game_hex in enumerate(ids):
            game = await node.join(address, game_hex, player="guest")
            await play_stamped(node, game, 200 + i, stamps)
            played += sum(1 for e in node.session(game).log.events if e.type == "move")
            if played >= moves or i == len(ids) - 1:
                break
        # Before going away, make sure the host has our last move.  Only when it is ours:
        # a peer's `events` message does not count as its acknowledgement (see the report), so
        # wait_synced after the host moved last would wait for a `have` that never comes.
        if node.session(game).log.events[-1].author == node.identity.public_key:
            with trio.fail_after(10):
                await node.wait_synced(game)
        say("result " + json.dumps({**stamps, "appends": appends, "games": i + 1}))


# ----- child: bare TCP echo and ping --------------------------------------------------------


async def read_exact(stream: trio.SocketStream, count: int, buffer: bytearray) -> bytes:
    while len(buffer) < count:
        chunk = await stream.receive_some(65536)
        if not chunk:
            raise EOFError
        buffer += chunk
    data = bytes(buffer[:count])
    del buffer[:count]
    return data


async def role_echo() -> None:
    async def serve(stream: trio.SocketStream) -> None:
        buffer = bytearray()
        try:
            while True:
                header = await read_exact(stream, 4, buffer)
                body = await read_exact(stream, int.from_bytes(header, "big"), buffer)
                await stream.send_all(header + body)
        except (EOFError, trio.BrokenResourceError):
            return

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, serve, 0, host=LOOPBACK))
        say(f"listening {listeners[0].socket.getsockname()[1]}")
        await trio.to_thread.run_sync(sys.stdin.readline)
        nursery.cancel_scope.cancel()


async def role_ping(port: int, size: int, count: int) -> None:
    stream = await trio.open_tcp_stream(LOOPBACK, port)  # trio sets TCP_NODELAY, as the node
    frame = (size - 4).to_bytes(4, "big") + os.urandom(size - 4)
    buffer = bytearray()
    times = []
    for i in range(count + 100):  # the first 100 warm up
        started = time.perf_counter_ns()
        await stream.send_all(frame)
        header = await read_exact(stream, 4, buffer)
        await read_exact(stream, int.from_bytes(header, "big"), buffer)
        if i >= 100:
            times.append(time.perf_counter_ns() - started)
    await stream.aclose()
    say("result " + json.dumps(times))


# ----- child: a node advertising games on demand -----------------------------------------------


async def role_advertiser(home: str) -> None:
    from creepnet.node import Node

    async with Node.open(
        Path(home), host=LOOPBACK, port=0, discovery=True, iface=[LOOPBACK]
    ) as node:
        say("ready")
        i = 0
        while (await trio.to_thread.run_sync(sys.stdin.readline)).strip() == "host":
            stamp = time.monotonic_ns()
            game = await node.host_game("creeper", f"adbench {i}", player="host")
            say(f"hosted {game.hex()} {stamp}")
            i += 1


# ----- the parent: run the phases, report -------------------------------------------------------


async def measure_moves(root: Path, moves: int, plies: int) -> dict[str, Any]:
    games = max(2, math.ceil(moves / 12) + 1)  # random games are rarely shorter than 12 plies
    host, host_out = await spawn(child("host", str(root / "host"), str(games), str(plies)))
    guest = None
    try:
        address = await host_out.expect("listening ")
        ids = (await host_out.expect("games ")).split()
        started = time.perf_counter()
        guest, guest_out = await spawn(
            child("guest", str(root / "guest"), address, str(moves), *ids)
        )
        guest_result = json.loads(await guest_out.expect("result "))
        elapsed = time.perf_counter() - started
        await guest.wait()
        assert host.stdin is not None
        await host.stdin.send_all(b"stop\n")
        host_result = json.loads(await host_out.expect("result "))
        await host.wait()
    finally:
        for process in (host, guest):
            if process is not None and process.returncode is None:
                process.kill()
    latencies, segments = [], {"mover": [], "wire": [], "receiver": []}
    for mover, other in ((host_result, guest_result), (guest_result, host_result)):
        for key, stamp in mover["signed"].items():
            if key in other["applied"] and key in other["arrived"]:
                latencies.append(other["applied"][key] - stamp)
                segments["mover"].append(mover["played"][key] - stamp)
                segments["wire"].append(other["arrived"][key] - mover["played"][key])
                segments["receiver"].append(other["applied"][key] - other["arrived"][key])
    appends = host_result["appends"] + guest_result["appends"]
    return {
        "latencies": latencies,
        "segments": segments,
        "appends": appends,
        "frames": host_result["frames"],
        "games": guest_result["games"],
        "elapsed": elapsed,
        "fs": fs_type(root),
    }


async def measure_ping(size: int, count: int) -> list[int]:
    echo, echo_out = await spawn(child("echo"))
    try:
        port = await echo_out.expect("listening ")
        ping, ping_out = await spawn(child("ping", port, str(size), str(count)))
        try:
            times = json.loads(await ping_out.expect("result "))
            await ping.wait()
        finally:
            if ping.returncode is None:
                ping.kill()
        assert echo.stdin is not None
        await echo.stdin.send_all(b"stop\n")
        await echo.wait()
    finally:
        if echo.returncode is None:
            echo.kill()
    return times


async def measure_discovery(root: Path, samples: int) -> tuple[list[int], dict[str, float]]:
    """Advert-to-browse times; then a fresh `creepnet games`-style browse of those games."""
    from creepnet.node.discovery import Found, browse_until_stable, open_discovery

    seen: dict[str, int] = {}
    arrived = trio.Event()

    async def collect(channel: trio.MemoryReceiveChannel) -> None:
        nonlocal arrived
        async for item in channel:
            if isinstance(item, Found) and item.game not in seen:
                seen[item.game] = time.monotonic_ns()
                arrived.set()
                arrived = trio.Event()

    results = []
    advertiser, out = await spawn(child("advertiser", str(root / "advertiser")))
    try:
        async with (
            open_discovery([LOOPBACK]) as discovery,
            discovery.browse() as channel,
            trio.open_nursery() as nursery,
        ):
            nursery.start_soon(collect, channel)
            await out.expect("ready")
            assert advertiser.stdin is not None
            for _ in range(samples):
                await advertiser.stdin.send_all(b"host\n")
                game_hex, stamp = (await out.expect("hosted ")).split()
                with trio.fail_after(15):
                    while game_hex[:8] not in seen:
                        await arrived.wait()
                results.append(seen[game_hex[:8]] - int(stamp))
            nursery.cancel_scope.cancel()
        async with open_discovery([LOOPBACK]) as fresh:
            started = time.monotonic()
            listed = await browse_until_stable(fresh, wait=10)
            listing = {
                "seconds": time.monotonic() - started,
                "seen": len({f.game for f in listed} & set(seen)),
                "hosted": len(seen),
            }
        await advertiser.stdin.send_all(b"stop\n")
        with trio.move_on_after(10):
            await advertiser.wait()
    finally:
        if advertiser.returncode is None:
            advertiser.kill()
    return results, listing


def ms(ns: float) -> str:
    return f"{ns / 1e6:.2f} ms"


def us(ns: float) -> str:
    return f"{ns / 1e3:.0f} µs"


async def main(args: argparse.Namespace) -> int:
    disk_root = Path(tempfile.mkdtemp(prefix="creepnet-lat-"))
    shm_root = (
        Path(tempfile.mkdtemp(prefix="creepnet-lat-", dir="/dev/shm"))
        if os.path.isdir("/dev/shm")
        else None
    )
    try:
        with trio.fail_after(DEADLINE + args.moves * 0.02 + args.adverts * 3):
            print(
                f"creepnet latency benchmark: {args.moves} moves, two node processes, "
                f"{LOOPBACK} only; {os.cpu_count()} CPUs"
            )
            print(
                "method: one-way, stamped with CLOCK_MONOTONIC (system-wide on Linux) in each "
                "process:\n  mover: just before node.play (sign, append+fsync, send);  "
                "receiver: its `event` update (session accepted + fsynced)"
            )
            runs = {"disk": await measure_moves(disk_root, args.moves, args.plies)}
            if shm_root is not None:
                runs["tmpfs"] = await measure_moves(shm_root, args.moves, args.plies)
            size = int(statistics.median(runs["disk"]["frames"]))
            pings = await measure_ping(size, args.pings)
            rtt = statistics.median(pings)
            print(
                f"\nbare trio TCP ping-pong, two processes, {size}-byte frames "
                f"(= one move's `events` frame), {len(pings)} round trips:"
            )
            print(f"  median round trip {us(rtt)}   p99 {us(percentile(pings, 99))}")
            for label, run in runs.items():
                lat = run["latencies"]
                median = statistics.median(lat)
                print(
                    f"\nmove latency, homes on {label} ({run['fs']}): {len(lat)} moves in "
                    f"{run['games']} games, {run['elapsed']:.2f} s"
                )
                print(
                    f"  median {ms(median)}   p99 {ms(percentile(lat, 99))}   "
                    f"min {ms(min(lat))}   max {ms(max(lat))}"
                )
                seg = {k: statistics.median(v) for k, v in run["segments"].items()}
                print(
                    f"  median split: mover {ms(seg['mover'])} (sign, append+fsync, queue)"
                    f" | queue->receiver's handler {ms(seg['wire'])} (writer task, TCP, "
                    f"frame decode) | receiver {ms(seg['receiver'])} (verify, append+fsync)"
                )
                appends = run["appends"]
                print(
                    f"  log append+fsync per call: median {ms(statistics.median(appends))}, "
                    f"p99 {ms(percentile(appends, 99))} (two per move: mover's and receiver's)"
                )
                ratio = median / rtt
                verdict = "meets" if ratio <= 5 else "MISSES"
                print(
                    f"  ratio median move latency / median bare round trip = {ratio:.1f}x "
                    f"({verdict} the goal of <= 5x)"
                )
            if "tmpfs" in runs:
                disk = statistics.median(runs["disk"]["latencies"])
                shm = statistics.median(runs["tmpfs"]["latencies"])
                share = (disk - shm) / disk * 100 if disk else 0
                print(
                    f"\n  disk vs tmpfs: {ms(disk)} vs {ms(shm)} median: "
                    f"{share:.0f}% of the move latency on disk is storage (fsync)"
                )
            if args.adverts > 0:
                found, listing = await measure_discovery(disk_root, args.adverts)
                print(
                    f"\nzeroconf (127.0.0.1 only), host_game -> Found in another process's "
                    f"browse, {len(found)} samples:"
                )
                print(
                    f"  median {ms(statistics.median(found))}   "
                    f"samples: {', '.join(ms(s) for s in found)}"
                )
                print(
                    f"  a fresh browse until stable (as `creepnet games`): "
                    f"{listing['seconds']:.2f} s, saw {listing['seen']} of the "
                    f"{listing['hosted']} games the long browse saw (a fixed wait was 3 s)"
                )
    finally:
        shutil.rmtree(disk_root, ignore_errors=True)
        if shm_root is not None:
            shutil.rmtree(shm_root, ignore_errors=True)
    return 0


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300, help="moves to time (default 300)")
    parser.add_argument("--plies", type=int, default=120, help="ply cap per game (default 120)")
    parser.add_argument("--pings", type=int, default=5000, help="bare round trips (default 5000)")
    parser.add_argument("--adverts", type=int, default=5, help="discovery samples (default 5)")
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    return parser.parse_args()


if __name__ == "__main__":
    options = parse()
    role, rest = options.role, options.rest
    if role == "host":
        trio.run(role_host, rest[0], int(rest[1]), int(rest[2]))
    elif role == "guest":
        trio.run(role_guest, rest[0], rest[1], int(rest[2]), rest[3:])
    elif role == "echo":
        trio.run(role_echo)
    elif role == "ping":
        trio.run(role_ping, int(rest[0]), int(rest[1]), int(rest[2]))
    elif role == "advertiser":
        trio.run(role_advertiser, rest[0])
    else:
        sys.exit(trio.run(main, options))
