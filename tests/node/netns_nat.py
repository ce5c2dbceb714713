"""A small internet on one machine: homes behind NAT routers, and a public network between them.

Everything lives in network namespaces this module creates and deletes; the veth pairs are born
inside them, so nothing appears among (or changes) the machine's own interfaces or routes.  The
addresses (10.213.x.y) exist only inside the namespaces::

    home-A 10.213.1A.2 ── 10.213.1A.1 router-A 10.213.A.2 ──┐
                                                              public 10.213.A.1 / 10.213.B.1
    home-B 10.213.1B.2 ── 10.213.1B.1 router-B 10.213.B.2 ──┘   (the relay listens here)

With ``delay_ms=D`` (``build(nats, delay_ms=D)``) every home's uplink is a wire D ms long each
way: a namespace ``wire-A`` between router-A and the public network, where netns_wire.py
copies every Ethernet frame across after D ms (the kernel here has no ``netem``).  A path
between two homes then takes 2·D one way, 4·D there and back, whether direct or relayed.

A home may have more machines on its LAN (``build(nats, machines={"a": 2})``): the router's
``lan`` is then a bridge, and machine k (from 0) is 10.213.1A.(2+k) in ``home-A`` (k = 0) or
``home-A<k>``; the first is ``Home.name``/``Home.address``, all are ``Home.machines``.

Each router forwards and masquerades its home behind its public address with nftables:

* ``"cone"`` (endpoint-independent mapping): plain ``masquerade``; Linux keeps the home's source
  port where it can, so one home socket shows the same public address to every destination —
  the NAT hole punching needs.  (Filtering is still address-and-port dependent: an unsolicited
  packet goes nowhere.)
* ``"symmetric"`` (endpoint-dependent mapping): ``masquerade fully-random``; every new flow gets
  a fresh random public port, so the address a relay observes is useless to anyone else.

``Internet.run(ns, argv)`` runs a command inside a namespace.  Callers skip (``unavailable()``)
where the machine cannot make namespaces (not root, no ``ip``/``nft``, a container that refuses).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import trio

NAT_KINDS = ("cone", "symmetric")
RELAY_PORT = 4001
WIRE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns_wire.py")


def unavailable() -> str | None:
    """Why a NAT test bed cannot be built here, or None."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    for tool in ("ip", "nft"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install iproute2 nftables)"
    return None


def _run(argv: list[str], *, check: bool = True, stdin: str | None = None) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30, input=stdin)
    if check and result.returncode != 0:
        raise BedError(f"{' '.join(argv)} failed: {result.stderr.strip()}")
    return result.stdout


class BedError(RuntimeError):
    """The bed could not be built (the message says which command failed and why)."""


@dataclass
class Home:
    name: str  # the namespace
    router: str  # its router's namespace
    address: str  # inside the home
    public: str  # the router's address on the public network
    nat: str
    machines: list[tuple[str, str]] = field(default_factory=list)  # (namespace, address)


@dataclass
class Internet:
    token: str = field(default_factory=lambda: secrets.token_hex(3))
    homes: dict[str, Home] = field(default_factory=dict)
    public: str = ""
    relay_addresses: list[str] = field(default_factory=list)  # the public namespace's own
    delay_ms: float = 0.0  # each home's uplink, one way (a wire; 0: none)
    _namespaces: list[str] = field(default_factory=list)
    _wires: list[subprocess.Popen] = field(default_factory=list)

    def ns(self, role: str) -> str:
        return f"cn{self.token}-{role}"

    def _add_ns(self, name: str) -> None:
        _run(["ip", "netns", "add", name])
        self._namespaces.append(name)
        _run(["ip", "-n", name, "link", "set", "lo", "up"])

    def _veth(
        self, ns_a: str, if_a: str, addr_a: str | None, ns_b: str, if_b: str, addr_b: str | None
    ) -> None:
        _run(["ip", "-n", ns_a, "link", "add", if_a, "type", "veth", "peer", "name", if_b,
              "netns", ns_b])  # fmt: skip
        for ns, dev, addr in ((ns_a, if_a, addr_a), (ns_b, if_b, addr_b)):
            if addr is not None:
                _run(["ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev])
            _run(["ip", "-n", ns, "link", "set", dev, "up"])

    def _uplink(self, label: str, index: int, router: str, wan_pub: str, wan_rtr: str) -> None:
        """router's wan ↔ public's p<index>: one veth, or two through a delaying wire."""
        if not self.delay_ms:
            self._veth(self.public, f"p{index}", wan_pub, router, "wan", wan_rtr)
            return
        wire = self.ns(f"wire-{label}")
        self._add_ns(wire)  # no address, no forwarding: only the wire process moves frames
        _run(["ip", "netns", "exec", wire, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
        _run(["ip", "netns", "exec", wire, "sysctl", "-qw",
              "net.ipv6.conf.default.disable_ipv6=1"])  # fmt: skip
        self._veth(self.public, f"p{index}", wan_pub, wire, "pub", None)
        self._veth(wire, "rtr", None, router, "wan", wan_rtr)
        for ns, dev in ((self.public, f"p{index}"), (router, "wan")):
            _run(self.python(ns, WIRE, "no-offload", dev))
        process = subprocess.Popen(
            self.python(wire, WIRE, "run", str(self.delay_ms), "rtr", "pub"),
            stdout=subprocess.PIPE,
            text=True,
        )
        self._wires.append(process)
        assert process.stdout is not None
        if process.stdout.readline().strip() != "wire ready":
            raise BedError(f"the wire of home {label} did not start (exit {process.poll()})")

    def build(self, nats: dict[str, str], machines: dict[str, int] | None = None) -> Internet:
        """Homes named by their NAT kind, e.g. {"a": "cone", "b": "symmetric"}; machines:
        how many a home's LAN has (default 1); each uplink delayed by self.delay_ms."""
        self.public = self.ns("public")
        self._add_ns(self.public)
        _run(["ip", "netns", "exec", self.public, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
        for index, (label, nat) in enumerate(sorted(nats.items()), start=1):
            if nat not in NAT_KINDS:
                raise ValueError(f"NAT kind must be one of {NAT_KINDS}, not {nat!r}")
            home, router = self.ns(f"home-{label}"), self.ns(f"router-{label}")
            self._add_ns(router)
            wan_pub, wan_rtr = f"10.213.{index}.1", f"10.213.{index}.2"
            lan_rtr = f"10.213.{10 + index}.1"
            self._uplink(label, index, router, wan_pub, wan_rtr)
            count = (machines or {}).get(label, 1)
            if count > 1:  # a LAN: the router's side is a bridge, every machine a port of it
                _run(["ip", "-n", router, "link", "add", "lan", "type", "bridge"])
                _run(["ip", "-n", router, "addr", "add", f"{lan_rtr}/24", "dev", "lan"])
                _run(["ip", "-n", router, "link", "set", "lan", "up"])
            members = []
            for k in range(count):
                machine, address = home + (str(k) if k else ""), f"10.213.{10 + index}.{2 + k}"
                self._add_ns(machine)
                if count == 1:
                    self._veth(router, "lan", lan_rtr, machine, "eth0", address)
                else:
                    _run(["ip", "-n", router, "link", "add", f"lan{k}", "type", "veth", "peer",
                          "name", "eth0", "netns", machine])  # fmt: skip
                    _run(["ip", "-n", router, "link", "set", f"lan{k}", "master", "lan", "up"])
                    _run(["ip", "-n", machine, "addr", "add", f"{address}/24", "dev", "eth0"])
                    _run(["ip", "-n", machine, "link", "set", "eth0", "up"])
                _run(["ip", "-n", machine, "route", "add", "default", "via", lan_rtr])
                members.append((machine, address))
            _run(["ip", "-n", router, "route", "add", "default", "via", wan_pub])
            _run(["ip", "netns", "exec", router, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
            masquerade = "masquerade fully-random" if nat == "symmetric" else "masquerade"
            rules = (
                "table ip nat {\n"
                "  chain post { type nat hook postrouting priority srcnat;"
                f' oifname "wan" {masquerade}; }}\n'
                "}\n"
                "table ip filter {\n"
                "  chain guard { type filter hook forward priority filter; policy drop;\n"
                '    iifname "lan*" accept\n'
                "    ct state established,related accept\n"
                "  }\n"
                # Like most home routers, drop (never refuse) what nobody asked for: a
                # hole-punch SYN that comes before our own left must be retried, not reset.
                "  chain stealth { type filter hook input priority filter;\n"
                '    iifname "wan" ct state new,invalid drop\n'
                "  }\n"
                "}\n"
            )
            _run(["ip", "netns", "exec", router, "nft", "-f", "-"], stdin=rules)
            self.homes[label] = Home(home, router, members[0][1], wan_rtr, nat, members)
            self.relay_addresses.append(wan_pub)
        return self

    def cut(self, a: str, b: str) -> None:
        """Drop, in the public network, every packet between homes a and b's routers: their
        direct path is gone (a hole punch cannot land) while the relay is still reached."""
        one, two = self.homes[a].public, self.homes[b].public
        rules = (
            "table ip cut {\n  chain forward { type filter hook forward priority filter;\n"
            f"    ip saddr {one} ip daddr {two} drop\n    ip saddr {two} ip daddr {one} drop\n"
            "  }\n}\n"
        )
        _run(self.argv(self.public, "nft", "-f", "-"), stdin=rules)

    def mend(self) -> None:
        """Undo cut(): the direct path is back."""
        self.run(self.public, "nft", "delete", "table", "ip", "cut")

    def argv(self, ns: str, *words: str) -> list[str]:
        return ["ip", "netns", "exec", ns, *words]

    def python(self, ns: str, *words: str) -> list[str]:
        return self.argv(ns, sys.executable, *words)

    def run(self, ns: str, *words: str, check: bool = True) -> str:
        return _run(self.argv(ns, *words), check=check)

    def destroy(self) -> None:
        """Delete every namespace made (their veths and nftables tables go with them)."""
        for name in reversed(self._namespaces):
            for pid in _run(["ip", "netns", "pids", name], check=False).split():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), 9)  # only processes living in our own namespaces
            _run(["ip", "netns", "delete", name], check=False)
        self._namespaces.clear()
        for wire in self._wires:
            wire.kill()  # killed with its namespace already; this reaps it
            wire.wait()
        self._wires.clear()


def build(
    nats: dict[str, str], machines: dict[str, int] | None = None, *, delay_ms: float = 0.0
) -> Internet:
    """An Internet with those homes (each uplink delay_ms long one way); destroyed again if
    building fails half-way."""
    bed = Internet(delay_ms=delay_ms)
    try:
        return bed.build(nats, machines)
    except BaseException:
        bed.destroy()
        raise


# ----- running the CLI in the bed (the WAN tests share these) ----------------------------


def bed_or_skip(
    nats: dict[str, str], machines: dict[str, int] | None = None, *, delay_ms: float = 0.0
) -> Iterator[Internet]:
    """A built bed for a fixture (skipped, with the reason, where none can be built); deleted
    afterwards, whatever happened."""
    why = unavailable()
    if why:
        pytest.skip(why)
    try:
        bed = build(nats, machines, delay_ms=delay_ms)
    except BedError as exc:
        pytest.skip(f"cannot build the NAT test bed here: {exc}")
    try:
        yield bed
    finally:
        bed.destroy()


class Lines:
    """Lines of a child's stdout, kept for the failure message."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream, self.buffer, self.seen = stream, b"", []

    async def until(self, prefix: str, *, anywhere: bool = False) -> str:
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                line = raw.decode(errors="replace")
                self.seen.append(line)
                if line.startswith(prefix) or (anywhere and prefix in line):
                    return line
            chunk = await self.stream.receive_some(4096)
            if not chunk:
                raise AssertionError(f"no {prefix!r} line; output: {self.seen[-40:]}")
            self.buffer += chunk

    async def rest(self) -> str:
        while chunk := await self.stream.receive_some(4096):
            self.buffer += chunk
        return "\n".join(self.seen) + "\n" + self.buffer.decode(errors="replace")


class Processes:
    def __init__(self, bed: Internet) -> None:
        self.bed, self.started = bed, []

    async def start(self, ns: str, *words: str) -> tuple[trio.Process, Lines]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("CREEPNET_IFACE", None)
        env.pop("CREEPNET_RELAYS", None)
        process = await trio.lowlevel.open_process(
            self.bed.python(ns, "-m", "creepnet.cli", *words),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
        )
        self.started.append(process)
        assert process.stdout is not None
        return process, Lines(process.stdout)

    def kill_all(self) -> None:
        for process in self.started:
            if process.returncode is None:
                process.send_signal(signal.SIGKILL)


async def relay_in_public(processes: Processes, tmp_path) -> tuple[trio.Process, str]:
    bed = processes.bed
    relay, out = await processes.start(
        bed.public,
        "relay",
        "--listen",
        f"0.0.0.0:{RELAY_PORT}",
        "--announce",
        bed.relay_addresses[0],
        "--home",
        str(tmp_path / "relay"),
    )
    return relay, (await out.until("relay ")).split()[1]
