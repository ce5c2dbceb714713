"""Beyond the LAN: the two candidate stacks in a NAT test bed, side by side (needs root).

    sudo .venv/bin/python benchmarks/wan.py [--trials N] [--iroh-python PATH] [--install]

The bed is tests/node/netns_nat.py: two homes, each behind its own nftables masquerade router,
and a public namespace between them (10.213.x.y, inside the namespaces only).  Pairings: both
homes behind "cone" NATs (endpoint-independent mapping), and one behind the "symmetric" NAT
(a random port per flow).  Every party is a separate process inside its namespace.

* **py-libp2p** (this venv, the `wan` extra): a relay in the public namespace, a listener in
  home a holding a reservation, a dialer in home b.  Per trial: time from the dial to an open
  stream (relay circuit + DCUtR hole punch + stream), whether the stream is direct or relayed,
  and the median round trip of 100-byte messages over it.  trio-native: no bridge.
* **iroh** (``--iroh-python``: a Python with ``pip install iroh``): its wheel carries no relay
  server (that is the separate Rust ``iroh-relay`` binary), and its public relays and discovery
  are on the internet, which the bed must not reach; so the bed can only try it with relays
  and discovery off (``preset_minimal``, ``RelayMode.disabled``): a listener in the public
  namespace (no NAT on its side) and one behind the cone NAT.  It also measures the cost of
  driving iroh (asyncio) from trio through a bridge thread: the same round trips, each handed
  to the asyncio loop's thread and awaited with ``trio.to_thread.run_sync``.
* **bare round trip**: a TCP echo (the same Python loop) from home b to the public namespace:
  one leg of the relayed path.
* ``--install``: install time and installed size of each candidate in a fresh venv (from the
  package index pip is configured with).

Prints why when it cannot run (not root, no `ip`/`nft`, no namespaces, no libp2p).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "node"))
import netns_nat  # noqa: E402

RELAY_PORT, LISTEN_PORT, BARE_PORT, IROH_PORT = 4001, 4002, 4010, 4020
ROUND_TRIPS = 50
MESSAGE = b"m" * 100

# ----- the roles, each run as a child process inside a namespace ------------------------------


def role_libp2p(role: str, relays: list[str], peer: str | None) -> None:
    import secrets

    import trio

    from creepnet.node.wan.carrier import Carrier, Limits

    async def main() -> None:
        if role == "relay":
            carrier = Carrier(
                b"r" * 32, listen=[f"/ip4/0.0.0.0/tcp/{RELAY_PORT}"], relay_limits=Limits()
            )
        else:
            carrier = Carrier(
                secrets.token_bytes(32), listen=[f"/ip4/0.0.0.0/tcp/{LISTEN_PORT}"], relays=relays
            )
        async with trio.open_nursery() as nursery:
            await nursery.start(carrier.run)
            if role == "relay":
                say(ready=True, peer=carrier.peer_id)
                await trio.sleep_forever()
            if role == "listen":
                say(ready=await carrier.wait_reserved(30), peer=carrier.peer_id)
                async for stream in carrier.incoming:
                    nursery.start_soon(echo_trio, stream)
            assert peer is not None
            start = time.monotonic()
            try:
                stream = await carrier.open_stream(peer, relays)
            except Exception as exc:  # noqa: BLE001 - reported as the trial's outcome
                say(ok=False, error=str(exc)[:200], seconds=time.monotonic() - start)
                nursery.cancel_scope.cancel()
                return
            seconds = time.monotonic() - start
            rtt = await round_trips_trio(stream)
            say(ok=True, seconds=seconds, relayed=stream.relayed, rtt_ms=rtt)
            nursery.cancel_scope.cancel()

    trio.run(main)


async def echo_trio(stream) -> None:
    while data := await stream.receive_some(65536):
        await stream.send_all(data)


async def round_trips_trio(stream) -> float:
    times = []
    for _ in range(ROUND_TRIPS):
        start = time.perf_counter()
        await stream.send_all(MESSAGE)
        got = b""
        while len(got) < len(MESSAGE):
            got += await stream.receive_some(65536)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def role_bare(role: str, address: str) -> None:
    import trio

    async def main() -> None:
        if role == "bare-server":
            listeners = await trio.open_tcp_listeners(BARE_PORT, host="0.0.0.0")
            say(ready=True)
            await trio.serve_listeners(echo_trio, listeners)
        stream = await trio.open_tcp_stream(address, BARE_PORT)
        say(ok=True, rtt_ms=await round_trips_trio(stream))

    trio.run(main)


def role_iroh(role: str, peer: str | None, address: str | None) -> None:
    import asyncio

    import iroh

    alpn = b"creepnet/bench"

    def options(bind: str):
        return iroh.EndpointOptions(
            preset=iroh.preset_minimal(),
            bind_addr=bind,
            alpns=[alpn],
            relay_mode=iroh.RelayMode.disabled(),
        )

    async def echo(conn) -> None:
        bi = await conn.accept_bi()
        receive, send = bi.recv(), bi.send()
        while data := await receive.read(65536):
            await send.write_all(data)

    async def exchange(receive, send) -> None:
        await send.write_all(MESSAGE)
        got = b""
        while len(got) < len(MESSAGE):
            got += await receive.read(65536)

    async def server() -> None:
        endpoint = await iroh.Endpoint.bind(options(f"0.0.0.0:{IROH_PORT}"))
        say(ready=True, peer=str(endpoint.id()))
        while (incoming := await endpoint.accept_next()) is not None:
            conn = await (await incoming.accept()).connect()
            asyncio.get_running_loop().create_task(echo(conn))

    async def client() -> None:
        endpoint = await iroh.Endpoint.bind(options("0.0.0.0:0"))
        target = iroh.EndpointAddr(iroh.EndpointId.from_string(peer), None, [address])
        start = time.monotonic()
        try:
            conn = await asyncio.wait_for(endpoint.connect(target, alpn), 15)
            bi = await conn.open_bi()
        except Exception as exc:  # noqa: BLE001 - reported as the trial's outcome
            say(
                ok=False,
                error=f"{type(exc).__name__} {exc}"[:200],
                seconds=time.monotonic() - start,
            )
            return
        seconds = time.monotonic() - start
        receive, send = bi.recv(), bi.send()
        times = []
        for _ in range(ROUND_TRIPS):
            began = time.perf_counter()
            await exchange(receive, send)
            times.append(time.perf_counter() - began)
        loop = asyncio.get_running_loop()

        def from_trio() -> float:
            import trio

            async def main() -> float:
                bridged = []
                for _ in range(ROUND_TRIPS):
                    began = time.perf_counter()
                    future = asyncio.run_coroutine_threadsafe(exchange(receive, send), loop)
                    await trio.to_thread.run_sync(future.result)
                    bridged.append(time.perf_counter() - began)
                return statistics.median(bridged) * 1000

            return trio.run(main)

        bridged = await loop.run_in_executor(None, from_trio)
        say(ok=True, seconds=seconds, rtt_ms=statistics.median(times) * 1000, bridged_ms=bridged)

    asyncio.run(server() if role == "iroh-server" else client())


def say(**fields: object) -> None:
    print("RESULT " + json.dumps(fields), flush=True)


# ----- the driver ---------------------------------------------------------------------------------


class Bed:
    def __init__(self, nats: dict[str, str]) -> None:
        self.net = netns_nat.build(nats)
        self.children: list[subprocess.Popen[bytes]] = []

    def start(self, ns: str, python: str, *words: str) -> subprocess.Popen[bytes]:
        child = subprocess.Popen(
            self.net.argv(ns, python, "-u", __file__, *words),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.children.append(child)
        return child

    def close(self) -> None:
        for child in self.children:
            child.kill()
            child.wait()
        self.net.destroy()


def result(child: subprocess.Popen[bytes], timeout: float = 90) -> dict:
    """The child's RESULT line (waits for it, bounded)."""
    deadline = time.monotonic() + timeout
    assert child.stdout is not None
    os.set_blocking(child.stdout.fileno(), False)
    buffer = ""
    while time.monotonic() < deadline:
        try:
            chunk = os.read(child.stdout.fileno(), 65536)
        except BlockingIOError:
            chunk = b""
        if chunk:
            buffer += chunk.decode(errors="replace")
            found = re.search(r"^RESULT (.*)$", buffer, re.M)
            if found:
                return json.loads(found.group(1))
        elif child.poll() is not None and not chunk:
            break
        time.sleep(0.05)  # polling a child's pipe, bounded by the deadline
    return {"ok": False, "error": "no result in time"}


def libp2p_trials(nat_b: str, trials: int) -> list[dict]:
    bed = Bed({"a": "cone", "b": nat_b})
    try:
        relay = result(bed.start(bed.net.public, sys.executable, "libp2p", "relay"))
        relays = [f"/ip4/{bed.net.relay_addresses[0]}/tcp/{RELAY_PORT}/p2p/{relay['peer']}"]
        listener = result(
            bed.start(bed.net.homes["a"].name, sys.executable, "libp2p", "listen", *relays)
        )
        found = []
        for _ in range(trials):
            dialer = bed.start(
                bed.net.homes["b"].name,
                sys.executable,
                "libp2p",
                "dial",
                *relays,
                "--peer",
                listener["peer"],
            )
            found.append(result(dialer))
            dialer.kill()
        return found
    finally:
        bed.close()


def bare_trials() -> float:
    """Median TCP round trip from home b to the public namespace, the same Python echo: the
    relayed path is two such legs; the direct one crosses both routers once (their stealth
    rule drops a plain connection to a home, so nothing bare reaches home a itself)."""
    bed = Bed({"a": "cone", "b": "cone"})
    try:
        result(bed.start(bed.net.public, sys.executable, "bare", "bare-server"))
        home_b, relay = bed.net.homes["b"].name, bed.net.relay_addresses[0]
        found = result(bed.start(home_b, sys.executable, "bare", "bare-client", relay))
        return float(found.get("rtt_ms", float("nan")))
    finally:
        bed.close()


def iroh_trials(python: str) -> dict[str, dict]:
    bed = Bed({"a": "cone", "b": "cone"})
    try:
        found = {}
        for where, ns, address in (
            ("listener public", bed.net.public, bed.net.relay_addresses[0]),
            ("listener behind cone NAT", bed.net.homes["a"].name, bed.net.homes["a"].public),
        ):
            server = result(bed.start(ns, python, "iroh", "iroh-server"))
            client = bed.start(
                bed.net.homes["b"].name, python, "iroh", "iroh-client", "--peer", server["peer"],
                "--address", f"{address}:{IROH_PORT}",
            )  # fmt: skip
            found[where] = result(client)
        return found
    finally:
        bed.close()


def install_figures(package: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        venv = Path(folder) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        base = _size(venv)
        start = time.monotonic()
        done = subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "--no-cache-dir", package],
            capture_output=True,
            text=True,
        )
        seconds = time.monotonic() - start
        if done.returncode != 0:
            return f"{package}: install failed: {done.stderr.strip()[-200:]}"
        size = (_size(venv) - base) / 2**20
        return f"{package}: {seconds:.0f} s to install, {size:.0f} MiB installed"


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def summary(trials: list[dict]) -> str:
    ok = [t for t in trials if t.get("ok")]
    direct = [t for t in ok if not t.get("relayed")]
    if not ok:
        return f"0/{len(trials)} connected ({trials[0].get('error') if trials else 'no trial'})"
    failed = "".join(f"\n    failed: {t.get('error')}" for t in trials if not t.get("ok"))
    return (
        f"{len(ok)}/{len(trials)} connected, {len(direct)} direct; connect median "
        f"{statistics.median(t['seconds'] for t in ok):.2f} s; round trip median "
        f"{statistics.median(t['rtt_ms'] for t in ok):.2f} ms{failed}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--iroh-python", help="a Python with `pip install iroh` (else skipped)")
    parser.add_argument("--install", action="store_true", help="also time installing each stack")
    args = parser.parse_args()
    why = netns_nat.unavailable()
    if why:
        print(f"cannot run: {why}")
        return 0
    try:
        import libp2p  # noqa: F401
    except ImportError:
        print("cannot run: py-libp2p is missing (pip install -e '.[wan]')")
        return 0
    print(
        f"NAT test bed, {args.trials} trials per pairing (every party a process in its namespace)"
    )
    bare = bare_trials()
    print(f"bare TCP round trip, home b to the public namespace (one leg): {bare:.2f} ms")
    for nat_b in ("cone", "symmetric"):
        print(
            f"py-libp2p, home a cone, home b {nat_b}: {summary(libp2p_trials(nat_b, args.trials))}"
        )
    if args.iroh_python:
        for where, found in iroh_trials(args.iroh_python).items():
            if found.get("ok"):
                text = (
                    f"connected in {found['seconds']:.3f} s; round trip {found['rtt_ms']:.2f} ms, "
                    f"{found['bridged_ms']:.2f} ms driven from trio through a bridge thread"
                )
            else:
                text = f"no connection after {found.get('seconds', 0):.0f} s ({found.get('error')})"
            print(f"iroh, no relay (none can run in the bed), {where}: {text}")
    else:
        print("iroh: skipped (pass --iroh-python PATH, a Python with `pip install iroh`)")
    if args.install:
        for package in ("libp2p", "iroh"):
            print("install: " + install_figures(package))
    return 0


def child(argv: list[str]) -> None:
    kind, role, *rest = argv
    parser = argparse.ArgumentParser()
    parser.add_argument("words", nargs="*")
    parser.add_argument("--peer")
    parser.add_argument("--address")
    options = parser.parse_args(rest)
    if kind == "libp2p":
        role_libp2p(role, options.words, options.peer)
    elif kind == "bare":
        role_bare(role, options.words[0] if options.words else "")
    else:
        role_iroh(role, options.peer, options.address)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("libp2p", "bare", "iroh"):
        child(sys.argv[1:])
    else:
        sys.exit(main())
