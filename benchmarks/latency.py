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

    sudo nice .venv/bin/python benchmarks/latency.py --path direct|relayed|lan [--moves N]

``--path`` measures instead in the NAT test bed of tests/node/netns_nat.py (root; every party a
process in its own namespace, homes on a tmpfs): ``direct`` — host in home a, guest in home b,
both behind cone NATs, the game's connection hole-punched; ``relayed`` — home b behind the
symmetric NAT, through ``creepnet relay`` in the public namespace; ``lan`` — two machines on
home a's LAN, plain TCP.  Figures: the same one-way move latency; a ping over the game's own
libp2p connection (a second stream on it); the bare TCP round trip of the same path (the same
Python echo; home a's router forwards its port, so a plain connection takes the direct path's
hops; for ``relayed`` also through a bare TCP relay, one Python loop per direction, in the
public namespace); each Racer turn of a 2-seat random-bot game as the host sees it; and
``creepnet join INVITE`` (a fresh process) until it prints that it is seated.

``--delay-ms D`` makes every home's uplink a wire D ms long each way (tests/node/netns_wire.py:
the kernel here has no ``netem``), so a path between the homes takes 2·D one way, direct or
relayed; the bare round trips cross the very same wires as the game.  ``--join-steps`` prints
where each join's time goes (the join run with timing wrappers around py-libp2p's and the
node's steps); ``--moves 0`` and ``--turns 0`` leave out the moves and the Racer games.  Two
Racer games are played one after the other, side by side: a table with one position per
private release, and one made with ``release_ahead`` (a draw's certain cards released together,
docs/spec-racer.md §8).  Each is printed with its turns' hand-overs between the seats (author
changes in the log, each a one-way trip) and the floor they put on a turn.

    .venv/bin/python benchmarks/latency.py --racer-handovers GAMES [--turns N] [--racer-bot BOT]

counts those hand-overs per turn over in-memory 2-seat games of random bots, or of heuristic
bots (``--racer-bot heuristic``: they attack and answer with Heroes as people do), no network,
for both tables on the same seeds.
"""

from __future__ import annotations

import argparse
import collections
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
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

LOOPBACK = "127.0.0.1"
DEADLINE = 60.0  # seconds, the whole run at the default sizes (normally ~15 s)
PATHS = ("direct", "relayed", "lan")  # --path: measured in the NAT test bed (root)
ECHO_PROTOCOL = "/creepnet/bench-echo/1"  # the benchmark's own echo over the carrier
BARE_PORT, PROXY_PORT, RELAY_PORT = 4010, 4011, 4001


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


async def spawn(command: list[str], *, quiet: bool = False) -> tuple[trio.Process, Lines]:
    """A child with piped stdin/stdout (quiet: its stderr, libp2p's chatter, discarded)."""
    process = await trio.lowlevel.open_process(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL if quiet else None,
    )
    assert process.stdout is not None
    return process, Lines(process.stdout)


def say(line: str) -> None:
    print(line, flush=True)


# ----- child: `creepnet join` with a step clock (--join-steps) ------------------------------


def step(what: str) -> None:
    say(f"step {time.monotonic():.6f} {what}")


def clock(owner: Any, name: str, label: Any = None) -> None:
    """Wrap owner.name (a coroutine method) so that it prints a step as it starts and ends."""
    original = getattr(owner, name)

    @functools.wraps(original)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        tag = label(*args) if label else f"{owner.__name__}.{name}"
        step(f"+ {tag}")
        try:
            return await original(*args, **kwargs)
        finally:
            step(f"- {tag}")

    setattr(owner, name, timed)


def role_join_steps(argv: list[str]) -> int:
    """`creepnet join …` in this process, every libp2p and node step of the join stamped (the
    benchmark's instrument only: timing wrappers around public methods, nothing else changed)."""
    step("python started")
    from creepnet.cli.main import main as cli_main

    step("creepnet imported")
    import libp2p.host.basic_host as basic_host
    from libp2p.protocol_muxer.multiselect_client import MultiselectClient
    from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol
    from libp2p.relay.circuit_v2.transport import CircuitV2Transport
    from libp2p.security.noise.transport import Transport as Noise

    from creepnet.node import connections, sync
    from creepnet.node.node import Node
    from creepnet.node.wan import carrier

    step("libp2p imported")
    short = lambda peer: str(peer)[-6:]  # noqa: E731
    clock(basic_host.BasicHost, "connect", lambda h, info: f"connect {short(info.peer_id)}")
    clock(basic_host.BasicHost, "new_stream", lambda h, peer, ps: f"stream {list(ps)}")
    clock(MultiselectClient, "select_one_of", lambda c, ps, *a: f"select {list(ps)}")
    clock(CircuitV2Transport, "dial", lambda t, addr: "circuit dial")
    clock(DCUtRProtocol, "initiate_hole_punch", lambda d, peer: "dcutr punch")
    clock(Noise, "secure_outbound", lambda t, conn, peer: "noise out")
    clock(Noise, "secure_inbound", lambda t, conn: "noise in")
    clock(carrier.Carrier, "run", lambda c, **k: "carrier run")
    clock(carrier.Carrier, "open_stream", lambda c, peer, *a, **k: "open_stream")
    clock(carrier.Carrier, "_punch", lambda c, peer, wait: f"punch wait (<= {wait:.2f} s)")
    kind = lambda conn: "relayed" if carrier.is_relayed(conn) else "direct"  # noqa: E731
    clock(carrier._Watcher, "connected", lambda w, net, conn: f"libp2p connection ({kind(conn)})")
    clock(connections, "handshake", lambda conn, *a: "our handshake")
    clock(sync.GameSync, "list_remote", lambda s, peer: "list")
    clock(Node, "join", lambda n, *a: "node.join")
    clock(Node, "_catch_up", lambda n, rt, length: f"catch up ({length})")
    code = cli_main(argv)
    step("exit")
    return code


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


@asynccontextmanager
async def node_on_path(home: str, bind: str, relay: str) -> AsyncIterator[tuple[Any, Any]]:
    """A node listening on bind; with relay, on the internet too (node/wan): (node, carrier)."""
    from creepnet.node import Node

    async with Node.open(Path(home), host=bind, port=0, discovery=False) as node:
        if not relay:
            yield node, None
            return
        from creepnet.node.wan.attach import internet

        async with internet(node, relays=[relay], listen=f"/ip4/{bind}/tcp/0") as carrier:
            yield node, carrier


def address_on_path(node: Any, carrier: Any) -> str:
    if carrier is None:
        return node.address
    from creepnet.node.wan.invite import wan_address

    return wan_address(carrier.peer_id, carrier.relay_addresses)


async def role_host(home: str, games: int, plies: int, bind: str, relay: str) -> None:
    stamps: Stamps = {k: {} for k in ("signed", "played", "arrived", "applied")}
    appends: list[int] = []
    async with node_on_path(home, bind, relay) as (node, carrier):
        if carrier is not None:
            await serve_echo(carrier)
            assert await carrier.wait_reserved(30), "no reservation at the relay"
        instrument(node, stamps, appends)
        ids = [
            await node.host_game(
                "creeper", f"bench-{i}", player="host", options={"max_plies": plies}
            )
            for i in range(games)
        ]
        appends.clear()  # only moves' appends from here on (genesis etc. excluded)
        say(f"listening {address_on_path(node, carrier)}")
        say("games " + " ".join(game.hex() for game in ids))
        async with trio.open_nursery() as nursery:
            for i, game in enumerate(ids):
                nursery.start_soon(play_stamped, node, game, 100 + i, stamps)
            await trio.to_thread.run_sync(sys.stdin.readline)  # the parent says "stop"
            nursery.cancel_scope.cancel()
        say(
            "result " + json.dumps({**stamps, "appends": appends, "frames": move_frame_sizes(node)})
        )


async def role_guest(
    home: str, address: str, moves: int, ids: list[str], bind: str, relay: str, size: int
) -> None:
    stamps: Stamps = {k: {} for k in ("signed", "played", "arrived", "applied")}
    appends: list[int] = []
    played = 0
    async with node_on_path(home, bind, relay) as (node, carrier):
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
        extra: dict[str, Any] = {}
        if carrier is not None:  # the same libp2p connection the games ran over, bare
            from creepnet.node.wan.attach import path_of

            (peer,) = [p for p in node.peers.values() if p.dialed == address]
            extra = {"path": path_of(peer.conn), "ping": await ping_peer(carrier, address, size)}
        say("result " + json.dumps({**stamps, "appends": appends, "games": i + 1, **extra}))


# ----- child: bare TCP echo and ping --------------------------------------------------------


async def read_exact(stream: trio.abc.ReceiveStream, count: int, buffer: bytearray) -> bytes:
    while len(buffer) < count:
        chunk = await stream.receive_some(65536)
        if not chunk:
            raise EOFError
        buffer += chunk
    data = bytes(buffer[:count])
    del buffer[:count]
    return data


async def role_echo(bind: str = LOOPBACK) -> None:
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
        port = 0 if bind == LOOPBACK else BARE_PORT  # in the bed: the port the router forwards
        listeners = await nursery.start(functools.partial(trio.serve_tcp, serve, port, host=bind))
        say(f"listening {listeners[0].socket.getsockname()[1]}")
        await trio.to_thread.run_sync(sys.stdin.readline)
        nursery.cancel_scope.cancel()


async def role_ping(port: int, size: int, count: int, host: str = LOOPBACK) -> None:
    stream = await trio.open_tcp_stream(host, port)  # trio sets TCP_NODELAY, as the node
    say("result " + json.dumps(await ping_stream(stream, size, count)))


PING_BUDGET = 8.0  # seconds of round trips at most (a delayed path: fewer, long ones)


async def ping_stream(stream: trio.abc.Stream, size: int, count: int) -> list[int]:
    """Round trips of size-byte frames (length-prefixed) over stream, after 100 warm-ups (or
    a tenth of the budget); count of them, or as many as PING_BUDGET seconds allow."""
    frame = (size - 4).to_bytes(4, "big") + os.urandom(size - 4)
    buffer = bytearray()
    times: list[int] = []
    warm, start = 100, time.monotonic()
    for i in range(count + warm):
        started = time.perf_counter_ns()
        await stream.send_all(frame)
        header = await read_exact(stream, 4, buffer)
        await read_exact(stream, int.from_bytes(header, "big"), buffer)
        if i < warm and time.monotonic() - start > PING_BUDGET / 10:
            warm = i + 1  # warmed up long enough
        elif i >= warm:
            times.append(time.perf_counter_ns() - started)
            if time.monotonic() - start > PING_BUDGET:
                break
    await stream.aclose()
    return times


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


@dataclass(frozen=True)
class Place:
    """Where the two nodes run: namespaces (none: here), addresses, the relay (none: TCP)."""

    host_ns: str = ""
    host_bind: str = LOOPBACK
    guest_ns: str = ""
    guest_bind: str = LOOPBACK
    relay: str = ""
    size: int = 0  # the libp2p ping's frame size (a move's `events` frame)

    def inside(self, ns: str, command: list[str]) -> list[str]:
        return ["ip", "netns", "exec", ns, *command] if ns else command

    def options(self, bind: str) -> list[str]:
        return ["--bind", bind, "--relay", self.relay, "--size", str(self.size)]


async def measure_moves(
    root: Path, moves: int, plies: int, place: Place = Place()
) -> dict[str, Any]:
    games = max(2, math.ceil(moves / 12) + 1)  # random games are rarely shorter than 12 plies
    host_command = child("host", str(root / "host"), str(games), str(plies))
    host_command += place.options(place.host_bind)
    host, host_out = await spawn(
        place.inside(place.host_ns, host_command), quiet=bool(place.host_ns)
    )
    guest = None
    try:
        address = await host_out.expect("listening ")
        ids = (await host_out.expect("games ")).split()
        started = time.perf_counter()
        guest_command = child("guest", str(root / "guest"), address, str(moves), *ids)
        guest_command += place.options(place.guest_bind)
        guest, guest_out = await spawn(
            place.inside(place.guest_ns, guest_command), quiet=bool(place.guest_ns)
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
        "path": guest_result.get("path", "lan"),
        "ping": guest_result.get("ping", []),
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


# ----- --path: the NAT test bed (tests/node/netns_nat.py), every party in a namespace ----------

WAN_PINGS = 300  # round trips over the game's libp2p connection (Python's Noise and yamux)


async def serve_echo(carrier: Any) -> None:
    """Echo on our own protocol over the carrier: a bare ping over the game's connection."""
    from libp2p.custom_types import TProtocol

    from creepnet.node.wan.carrier import CarrierStream

    async def handler(raw: Any) -> None:
        stream = CarrierStream(raw, str(raw.muxed_conn.peer_id))
        while data := await stream.receive_some(65536):
            await stream.send_all(data)

    carrier.host.set_stream_handler(TProtocol(ECHO_PROTOCOL), handler)


async def ping_peer(carrier: Any, address: str, size: int) -> dict[str, Any]:
    """Round trips on a new stream over the libp2p connection the game used (libp2p opens
    streams on the connection it has: direct after a punch, else the relay circuit)."""
    from libp2p.custom_types import TProtocol

    from creepnet.node.wan.carrier import CarrierStream, peer_id_of
    from creepnet.node.wan.invite import parse_wan_address

    peer, _ = parse_wan_address(address)
    raw = await carrier.host.new_stream(peer_id_of(peer), [TProtocol(ECHO_PROTOCOL)])
    stream = CarrierStream(raw, peer)
    relayed = stream.relayed
    return {"times": await ping_stream(stream, size, WAN_PINGS), "relayed": relayed}


async def role_proxy(bind: str, target: str, port: int) -> None:
    """A bare TCP relay (one Python loop per direction): the relayed path without libp2p."""

    async def pump(source: trio.abc.Stream, sink: trio.abc.Stream) -> None:
        try:
            while data := await source.receive_some(65536):
                await sink.send_all(data)
        except trio.BrokenResourceError:
            pass

    async def serve(stream: trio.SocketStream) -> None:
        async with await trio.open_tcp_stream(target, port) as onward, trio.open_nursery() as n:
            n.start_soon(pump, stream, onward)
            await pump(onward, stream)
            n.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        await nursery.start(functools.partial(trio.serve_tcp, serve, PROXY_PORT, host=bind))
        say("listening")
        await trio.sleep_forever()


async def role_relay(home: str, public: str) -> None:
    from creepnet.node.wan.carrier import Limits
    from creepnet.node.wan.relay import run_relay

    await run_relay(
        Path(home),
        f"0.0.0.0:{RELAY_PORT}",
        Limits(),
        announce=[public],
        ready=lambda addresses: say(f"relay {addresses[0]}"),
    )


def _turns_and_authors(game: bytes, raws: list[bytes]) -> Iterator[tuple[int | None, Any, bool]]:
    """Each event of a Racer log with the turn under way when it was appended and whether it
    changed the author (a hand-over)."""
    from creepnet.protocol.session import Session

    replay = Session.follow(game)
    author = None
    for raw in raws:
        played = replay.game_state  # None until the game starts
        turn = None if played is None or played.state.turn is None else played.state.turn.number
        replay.receive(raw)
        event = replay.log.events[-1]
        yield turn, event, event.author != author
        author = event.author


def handovers_per_turn(game: bytes, raws: list[bytes]) -> dict[int, int]:
    """Author changes between consecutive events of a Racer log, by the turn under way when
    the later one was appended.  The log is one chain (each event names the one before), so
    every change of author is a one-way trip between seats: a turn of h hand-overs takes at
    least h one-way path times, whatever the carrier."""
    counts: dict[int, int] = {}
    for turn, _, handed_over in _turns_and_authors(game, raws):
        if turn is not None:
            counts[turn] = counts.get(turn, 0) + handed_over
    return counts


def handover_kind(event: Any) -> str:
    """What the seat that takes over writes first: a game action by its name (a decision,
    or the drawer keeping its cards), a deck step, an onion reveal."""
    if event.type == "act":
        return str(event.body["action"]).split()[0]
    if event.type == "deck":
        op = "release" if "keys" in event.body else str(event.body.get("op", "commit"))
        return f"deck {op}"
    return str(event.type)


# The Racer tables compared side by side: one-position private releases (every log before the
# option), and a private draw's certain draws released together (docs/spec-racer.md §8).
RACER_TABLES = {"one position a release": {}, "release_ahead": {"release_ahead": 1}}


def harness_handovers(
    games: int, turns: int, options: dict[str, int], bot: str = "random"
) -> tuple[list[int], collections.Counter[str]]:
    """Hand-overs per turn over some 2-seat Racer games of ``bot`` (in memory, no network),
    and how many began with each kind of event."""
    from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

    found: list[int] = []
    kinds: collections.Counter[str] = collections.Counter()
    for seed in range(games):
        table = SessionHarness(
            seats=2, kind="racer", seed=seed, options={"turn_limit": turns, **options}
        )
        table.run([seat_bot("racer", bot, 2 * seed + 1), seat_bot("racer", bot, 2 * seed + 2)])
        host = table.sessions[0]
        assert host.game is not None and host.finished
        counts: dict[int, int] = {}
        for turn, event, handed_over in _turns_and_authors(
            host.game, [event.raw for event in host.log.events]
        ):
            if turn is not None:
                counts[turn] = counts.get(turn, 0) + handed_over
                if handed_over:
                    kinds[handover_kind(event)] += 1
        found.extend(counts.values())
    return found, kinds


def report_handovers(games: int, turns: int, bot: str = "random") -> None:
    print(
        f"Racer hand-overs per turn (author changes in the log; 2 seats, {bot} bots, "
        f"{games} games of {turns} turns, the same seeds for each table):"
    )
    means = {}
    for label, options in RACER_TABLES.items():
        counts, kinds = harness_handovers(games, turns, options, bot)
        median, mean = statistics.median(counts), statistics.mean(counts)
        means[label] = mean
        print(
            f"  {label}: {len(counts)} turns, median {median:g}, mean {mean:.2f}, "
            f"min {min(counts)}, max {max(counts)}; a turn takes at least {median / 2:g} round "
            f"trips of the path (median), {mean / 2:.2f} on average"
        )
        print(
            "    a turn's hand-overs by what the seat taking over writes first: "
            + ", ".join(f"{kind} {n / len(counts):.2f}" for kind, n in kinds.most_common())
        )
    plain, ahead = means.values()
    print(f"  release_ahead / one position, mean hand-overs: {ahead / plain:.2f}")


def racer_turn(runtime: Any) -> int | None:
    played = runtime.session.game_state  # None until the game starts
    turn = None if played is None else played.state.turn
    return None if turn is None else turn.number


async def role_racer_host(home: str, turns: int, table: str, bind: str, relay: str) -> None:
    """A 2-seat Racer game (random bots) with the options of RACER_TABLES[table]; stamps each
    new turn number as this node sees it."""
    from creepnet.node.bot import run_bot

    async with node_on_path(home, bind, relay) as (node, carrier):
        if carrier is not None:
            assert await carrier.wait_reserved(30), "no reservation at the relay"
        options = {"turn_limit": turns, **RACER_TABLES[table]}
        game = await node.host_game("racer", "bench racer", player="host", options=options)
        say(f"listening {address_on_path(node, carrier)}")
        say(f"games {game.hex()}")
        stamps: list[tuple[int, int]] = []

        async def watch() -> None:
            last = None
            while not node.session(game).finished:
                await node.wait_for(
                    game, lambda rt, seen=last: rt.session.finished or racer_turn(rt) != seen
                )
                last = racer_turn(node.games[game])
                if last is not None:
                    stamps.append((last, time.monotonic_ns()))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            await node.wait_for(game, lambda rt: len(rt.session.seats) == 2)
            await run_bot(node, game, "random", 1)
            with trio.fail_after(30):
                await node.wait_synced(game)
            nursery.cancel_scope.cancel()
        raws = [event.raw for event in node.session(game).log.events]
        say("handovers " + json.dumps(handovers_per_turn(game, raws)))
        say("result " + json.dumps(stamps))


async def role_racer_guest(home: str, address: str, bind: str, relay: str) -> None:
    from creepnet.node.bot import run_bot

    async with node_on_path(home, bind, relay) as (node, _carrier):
        game = await node.join(address, None, player="guest")
        await run_bot(node, game, "random", 2)
        with trio.fail_after(30):
            await node.wait_synced(game)
        say("done")


@dataclass
class PathBed:
    """The bed of one --path: its namespaces, the relay, a bare echo at the host's end."""

    path: str
    net: Any = None
    relay: str = ""
    children: list[trio.Process] = field(default_factory=list)

    async def start(self, ns: str, command: list[str]) -> Lines:
        process, out = await spawn(["ip", "netns", "exec", ns, *command], quiet=True)
        self.children.append(process)
        return out

    def close(self) -> None:
        for process in self.children:
            if process.returncode is None:
                process.kill()
        if self.net is not None:
            self.net.destroy()  # kills what is left in its namespaces, deletes them


def bed_module() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "node"))
    import netns_nat

    return netns_nat


def forward_bare_port(net: Any, home: Any) -> None:
    """Home a's router forwards BARE_PORT to home a (dnat): the bare echo is then reachable
    along the very path a direct (hole-punched) connection takes."""
    rules = (
        "table ip bench {\n  chain pre { type nat hook prerouting priority dstnat;\n"
        f'    iifname "wan" tcp dport {BARE_PORT} dnat to {home.address}:{BARE_PORT}\n  }}\n}}\n'
        f'add rule ip filter guard iifname "wan" tcp dport {BARE_PORT} ct status dnat accept\n'
    )
    subprocess.run(
        ["ip", "netns", "exec", home.router, "nft", "-f", "-"],
        input=rules, text=True, check=True, capture_output=True, timeout=30,
    )  # fmt: skip


async def bare_round_trips(bed: PathBed, size: int, count: int) -> dict[str, list[int]]:
    """TCP echo round trips along the path, the same Python loop at both ends."""
    net, found = bed.net, {}
    a = net.homes["a"]
    await (await bed.start(a.name, child("echo", "--bind", a.address))).expect("listening ")
    ping = ["ping", str(BARE_PORT), str(size), str(count)]
    if bed.path == "lan":
        out = await bed.start(a.machines[1][0], child(*ping, "--bind", a.address))
        found["lan"] = json.loads(await out.expect("result "))
        return found
    forward_bare_port(net, a)
    b = net.homes["b"]
    out = await bed.start(b.name, child(*ping, "--bind", a.public))
    found["through both NATs"] = json.loads(await out.expect("result "))
    if bed.path == "relayed":
        relay_ip = net.relay_addresses[0]
        proxy = child("proxy", a.public, str(BARE_PORT), "--bind", relay_ip)
        await (await bed.start(net.public, proxy)).expect("listening")
        ping = ["ping", str(PROXY_PORT), str(size), str(count), "--bind", relay_ip]
        out = await bed.start(b.name, child(*ping))
        found["through a bare TCP relay"] = json.loads(await out.expect("result "))
    return found


async def time_joins(bed: PathBed, root: Path, samples: int, steps: bool = False) -> list[float]:
    """From starting `creepnet join INVITE` (a fresh process) to its "joined at" line (seated;
    the board follows at once), each against a freshly hosted game."""
    cli = [sys.executable, "-m", "creepnet.cli"]
    a = bed.net.homes["a"]
    guest_ns, guest_ip = (
        a.machines[1]
        if bed.path == "lan"
        else (bed.net.homes["b"].name, bed.net.homes["b"].address)
    )
    times = []
    for k in range(samples):
        host = [*cli, "host", "creeper", "--bot", "greedy", "--max-plies", "6", "--no-discovery"]
        host += ["--iface", a.address, "--player", "host", "--home", str(root / f"jh{k}")]
        if bed.path != "lan":
            host += ["--internet", "--relay", bed.relay]
        out = await bed.start(a.name, host)
        if bed.path == "lan":
            line = await out.expect("  (or without zeroconf:  creepnet join ")
            target = line.rstrip(")").split()
        else:
            target = [(await out.expect("invite ")).split("creepnet join ", 1)[1].strip()]
        join = ["join", *target, "--bot", "random", "--iface", guest_ip]
        join += ["--player", "guest", "--home", str(root / f"jg{k}")]
        join = child("join-steps", "--", *join) if steps else [*cli, *join]
        started = time.monotonic()
        joined = await bed.start(guest_ns, join)
        line = await joined.next()
        while not line.startswith("joined at "):
            if line.startswith("step "):
                _, at, what = line.split(" ", 2)
                print(f"  {(float(at) - started) * 1000:7.0f} ms  {what}")
            line = await joined.next()
        times.append(time.monotonic() - started)
        if steps:
            print(f"  {times[-1] * 1000:7.0f} ms  joined (seated)\n")
    return times


async def path_main(args: argparse.Namespace) -> int:
    netns_nat = bed_module()
    why = netns_nat.unavailable()
    if why:
        print(f"--path needs the NAT test bed, which cannot be built here: {why}")
        return 1
    if args.delay_ms and args.path == "lan":
        print("--delay-ms delays the homes' uplinks: the lan path crosses none")
        return 1
    nats = {"lan": {"a": "cone"}, "direct": {"a": "cone", "b": "cone"}}
    nats["relayed"] = {"a": "cone", "b": "symmetric"}
    bed = PathBed(args.path)
    # Homes on a tmpfs where there is one: the path's cost, not the disk's (the loopback run
    # measures fsync's share).
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    root = Path(tempfile.mkdtemp(prefix="creepnet-lat-path-", dir=shm))
    try:
        bed.net = netns_nat.build(
            nats[args.path],
            machines={"a": 2} if args.path == "lan" else None,
            delay_ms=args.delay_ms,
        )
        net, a = bed.net, bed.net.homes["a"]
        with trio.fail_after(DEADLINE * 5 + args.moves * (0.1 + args.delay_ms / 100)):
            if args.path != "lan":
                relay_ip = net.relay_addresses[0]
                out = await bed.start(
                    net.public, child("relay", str(root / "relay"), "--bind", relay_ip)
                )
                bed.relay = await out.expect("relay ")
            guest_ns, guest_ip = (
                a.machines[1]
                if args.path == "lan"
                else (net.homes["b"].name, net.homes["b"].address)
            )
            size = 120  # about one move's sealed `events` frame (the loopback run measures it)
            place = Place(a.name, a.address, guest_ns, guest_ip, bed.relay, size)
            print(
                f"creepnet latency over the {args.path} path, NAT test bed (namespaces, "
                f"nftables masquerade; {os.cpu_count()} CPUs): "
                + " | ".join(f"home {k}: {v} NAT" for k, v in nats[args.path].items())
                + (f"; every uplink {args.delay_ms:g} ms each way" if args.delay_ms else "")
            )
            bare = await bare_round_trips(bed, size, min(args.pings, 2000))
            run = await measure_moves(root, args.moves, args.plies, place) if args.moves else None
            racer = {
                table: await measure_racer(root / str(k), args.turns, place, table)
                for k, table in enumerate(RACER_TABLES if args.turns else ())
            }
            joins = await time_joins(bed, root, args.joins, args.join_steps)
        report(args.path, bare, run, racer, joins, size)
    finally:
        bed.close()
        shutil.rmtree(root, ignore_errors=True)
    return 0


async def measure_racer(
    root: Path, turns: int, place: Place, table: str
) -> list[tuple[float, int]]:
    """Seconds of each Racer turn after the first (2 seats, random bots, the options of
    RACER_TABLES[table]), the host's view, with the turn's hand-overs between the seats
    (handovers_per_turn)."""
    root.mkdir(parents=True, exist_ok=True)
    extra = ["--bind", place.host_bind, "--relay", place.relay]
    host = child("racer-host", str(root / "rh"), str(turns), table, *extra)
    host_out = await spawn(place.inside(place.host_ns, host), quiet=True)
    processes = [host_out[0]]
    try:
        address = await host_out[1].expect("listening ")
        await host_out[1].expect("games ")
        extra = ["--bind", place.guest_bind, "--relay", place.relay]
        guest = await spawn(
            place.inside(place.guest_ns, child("racer-guest", str(root / "rg"), address, *extra)),
            quiet=True,
        )
        processes.append(guest[0])
        handovers = json.loads(await host_out[1].expect("handovers "))
        stamps = json.loads(await host_out[1].expect("result "))
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
    # A turn's time: from its number showing to the next one's; its hand-overs, by number.
    turns = [(b[1] - a[1]) / 1e9 for a, b in zip(stamps, stamps[1:], strict=False)]
    counts = [handovers.get(str(a[0]), 0) for a, _ in zip(stamps, stamps[1:], strict=False)]
    return list(zip(turns, counts, strict=True))


def report(
    path: str,
    bare: dict[str, list[int]],
    run: dict[str, Any] | None,
    racer: dict[str, list[tuple[float, int]]],
    joins: list[float],
    size: int,
) -> None:
    for label, times in bare.items():
        print(
            f"bare TCP round trip {label} ({size}-byte frames, {len(times)}): "
            f"median {us(statistics.median(times))}, p99 {us(percentile(times, 99))}"
        )
    if path == "relayed":
        base_label, goal = "through a bare TCP relay", 2
    else:
        base_label, goal = ("lan" if path == "lan" else "through both NATs"), 5
    base = statistics.median(bare[base_label])
    if run is not None:
        report_moves(run, base, base_label, goal)
    medians = {table: report_racer(table, turns, base) for table, turns in racer.items()}
    if len(medians) == 2:
        plain, ahead = medians.values()
        print(f"Racer turn, release_ahead / one position a release: {ahead / plain:.2f}")
    if joins:
        median = statistics.median(joins)
        goal_note = (
            f" ({'meets' if median <= 3 else 'MISSES'} the goal of <= 3 s)"
            if path == "direct"
            else ""
        )
        print(
            f"`creepnet join` (fresh process) to seated, {len(joins)}: median {median:.2f} s, "
            f"max {max(joins):.2f} s{goal_note}"
        )


def report_racer(table: str, racer: list[tuple[float, int]], base: float) -> float:
    """One table's Racer turns against the path's bare round trip; returns the median turn."""
    times = [seconds for seconds, _ in racer]
    turn, handovers = statistics.median(times), statistics.median(c for _, c in racer)
    mean = statistics.mean(c for _, c in racer)
    print(
        f"Racer turn ({table}; 2 seats, random bots, the host's clock), {len(racer)} turns: "
        f"median {turn * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
        f"({turn * 1e9 / base:.1f}x the bare round trip)"
    )
    # Each hand-over is a one-way trip: half a round trip of the path at least (on loopback,
    # where the path is µs, the turn is all CPU and no floor is worth printing).
    floor = statistics.median(c * base / 2e9 for _, c in racer)
    print(
        f"  hand-overs between the seats per turn: median {handovers:g}, mean {mean:.2f} (the "
        f"log's author changes, each a one-way trip)"
        + (
            f", a floor of {floor * 1000:.0f} ms a turn on this path ({handovers / 2:g} "
            f"round trips); turn / floor = {turn / floor:.2f}"
            if base >= 1e6
            else ""
        )
    )
    return turn


def report_moves(run: dict[str, Any], base: float, base_label: str, goal: float) -> None:
    print(f"\nthe game's connection: {run['path']}")
    lat = run["latencies"]
    move = statistics.median(lat)
    print(
        f"move latency, one way (sign+fsync, send, verify+fsync): {len(lat)} moves, median "
        f"{ms(move)}, p99 {ms(percentile(lat, 99))}"
    )
    seg = {k: statistics.median(v) for k, v in run["segments"].items()}
    print(
        f"  median split: mover {ms(seg['mover'])} | queue->receiver's handler "
        f"{ms(seg['wire'])} (the path) | receiver {ms(seg['receiver'])}"
    )
    ping = run["ping"]
    if ping:
        libp2p = statistics.median(ping["times"])
        print(
            "libp2p round trip on the game's connection "
            f"({'relayed' if ping['relayed'] else 'direct'}), "
            f"{len(ping['times'])}: median {ms(libp2p)}; move latency / it = {move / libp2p:.1f}x"
        )
    ratio = move / base
    print(
        f"  move latency / bare round trip {base_label} = {ratio:.1f}x "
        f"({'meets' if ratio <= goal else 'MISSES'} the goal of <= {goal}x)"
    )


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300, help="moves to time (default 300)")
    parser.add_argument("--plies", type=int, default=120, help="ply cap per game (default 120)")
    parser.add_argument("--pings", type=int, default=5000, help="bare round trips (default 5000)")
    parser.add_argument("--adverts", type=int, default=5, help="discovery samples (default 5)")
    parser.add_argument(
        "--path",
        choices=PATHS,
        help="instead: move latency, a Racer turn and the join time over this path in the NAT "
        "test bed of tests/node/netns_nat.py (root), against the path's bare round trips",
    )
    parser.add_argument("--joins", type=int, default=3, help="--path: joins timed (default 3)")
    parser.add_argument(
        "--racer-handovers",
        type=int,
        default=0,
        metavar="GAMES",
        help="instead: count the hand-overs between the seats per Racer turn over GAMES "
        "in-memory 2-seat games of --turns turns (no network)",
    )
    parser.add_argument(
        "--racer-bot",
        choices=("random", "heuristic"),
        default="random",
        help="--racer-handovers: the bots of those games (default random)",
    )
    parser.add_argument(
        "--join-steps",
        action="store_true",
        help="--path: print where each join's time goes (libp2p and node steps, stamped)",
    )
    parser.add_argument("--turns", type=int, default=6, help="--path: Racer turn limit (default 6)")
    parser.add_argument(
        "--delay-ms",
        type=float,
        default=0.0,
        help="--path direct|relayed: each home's uplink this many ms long each way (default 0)",
    )
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--bind", default=LOOPBACK, help=argparse.SUPPRESS)
    parser.add_argument("--relay", default="", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    return parser.parse_args()


if __name__ == "__main__":
    options = parse()
    role, rest = options.role, options.rest
    bind, relay = options.bind, options.relay
    if role == "host":
        trio.run(role_host, rest[0], int(rest[1]), int(rest[2]), bind, relay)
    elif role == "guest":
        trio.run(role_guest, rest[0], rest[1], int(rest[2]), rest[3:], bind, relay, options.size)
    elif role == "echo":
        trio.run(role_echo, bind)
    elif role == "ping":
        trio.run(role_ping, int(rest[0]), int(rest[1]), int(rest[2]), bind)
    elif role == "proxy":
        trio.run(role_proxy, bind, rest[0], int(rest[1]))
    elif role == "relay":
        trio.run(role_relay, rest[0], bind)
    elif role == "racer-host":
        trio.run(role_racer_host, rest[0], int(rest[1]), rest[2], bind, relay)
    elif role == "racer-guest":
        trio.run(role_racer_guest, rest[0], rest[1], bind, relay)
    elif options.racer_handovers:
        report_handovers(options.racer_handovers, options.turns, options.racer_bot)
    elif role == "join-steps":
        sys.exit(role_join_steps(rest))
    elif options.path:
        sys.exit(trio.run(path_main, options))
    elif role == "advertiser":
        trio.run(role_advertiser, rest[0])
    else:
        sys.exit(trio.run(main, options))
