"""A whole Creeper game between two node processes in two network namespaces joined by a veth.

The test builds its own tiny network and nothing else: two namespaces named after this
process, a veth pair created directly inside them (it never appears in the machine's own
namespace), 10.77.0.1/30 and 10.77.0.2/30 on its two ends, loopback up.  The host and the
joiner run the real CLI (`ip netns exec NS python -m creepnet.cli ...`), each bound to its
namespace's address, zeroconf off (`--no-discovery`, `--addr`).  Afterwards both logs must be
byte-identical and verify as a finished game.  The namespaces are deleted in any case.

Skipped (with the reason) when not root, when `ip` is missing, or when the kernel or the
container refuses namespaces or veth pairs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest
import trio
from conftest import same_finished_log

HOST_ADDR, GUEST_ADDR = "10.77.0.1", "10.77.0.2"  # a private /30, inside the namespaces only
TIMEOUT = 120  # generous: these machines are slow and shared


def ip(*words: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(["ip", *words], capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(words)} failed: {result.stderr.strip()}")
    return result


@pytest.fixture
def namespaces() -> Iterator[tuple[str, str]]:
    """Two namespaces joined by a veth pair; deleted (with the veth) on teardown."""
    if os.geteuid() != 0:
        pytest.skip("needs root to create network namespaces")
    if shutil.which("ip") is None:
        pytest.skip("iproute2 (`ip`) is not installed")
    pid = os.getpid()
    host_ns, guest_ns = f"creepnet-{pid}-host", f"creepnet-{pid}-guest"
    host_if, guest_if = f"cnv{pid}h"[:15], f"cnv{pid}g"[:15]
    created: list[str] = []
    try:
        for ns in (host_ns, guest_ns):
            result = ip("netns", "add", ns, check=False)
            if result.returncode != 0:
                pytest.skip(f"`ip netns add` failed here: {result.stderr.strip()}")
            created.append(ns)
        # Born inside the namespaces: the veth never shows up among this machine's interfaces.
        result = ip(
            "-n",
            host_ns,
            "link",
            "add",
            host_if,
            "type",
            "veth",
            "peer",
            "name",
            guest_if,
            "netns",
            guest_ns,
            check=False,
        )
        if result.returncode != 0:
            pytest.skip(f"cannot create a veth pair here: {result.stderr.strip()}")
        for ns, dev, addr in ((host_ns, host_if, HOST_ADDR), (guest_ns, guest_if, GUEST_ADDR)):
            ip("-n", ns, "addr", "add", f"{addr}/30", "dev", dev)
            ip("-n", ns, "link", "set", "lo", "up")
            ip("-n", ns, "link", "set", dev, "up")
        yield host_ns, guest_ns
    finally:
        for ns in created:
            ip("netns", "delete", ns, check=False)  # takes its end of the veth with it


class Lines:
    """Lines of a child's stdout, kept for the failure message."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream, self.buffer, self.seen = stream, b"", []

    async def until(self, prefix: str) -> str:
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                line = raw.decode(errors="replace")
                self.seen.append(line)
                if line.startswith(prefix):
                    return line
            chunk = await self.stream.receive_some(4096)
            if not chunk:
                raise AssertionError(f"no {prefix!r} line; output: {self.seen}")
            self.buffer += chunk

    async def rest(self) -> str:
        while chunk := await self.stream.receive_some(4096):
            self.buffer += chunk
        return "\n".join(self.seen) + "\n" + self.buffer.decode(errors="replace")


def in_namespace(ns: str, *words: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "creepnet.cli", *words]


async def start(command: list[str]) -> tuple[trio.Process, Lines]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # lines reach us as they are printed
    env.pop("CREEPNET_IFACE", None)
    process = await trio.lowlevel.open_process(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
    )
    assert process.stdout is not None
    return process, Lines(process.stdout)


async def test_bot_game_across_two_network_namespaces(namespaces, tmp_path):
    host_ns, guest_ns = namespaces
    host_home, guest_home = tmp_path / "host", tmp_path / "guest"
    processes: list[trio.Process] = []
    try:
        with trio.fail_after(TIMEOUT):
            host, host_out = await start(
                in_namespace(
                    host_ns,
                    "host",
                    "creeper",
                    "--bot",
                    "greedy",
                    "--seed",
                    "1",
                    "--no-discovery",
                    "--iface",
                    HOST_ADDR,
                    "--port",
                    "0",
                    "--max-plies",
                    "80",
                    "--player",
                    "host",
                    "--name",
                    "netns game",
                    "--home",
                    str(host_home),
                )
            )
            processes.append(host)
            hosting = await host_out.until("hosting ")
            game = hosting.split("(", 1)[1].split(")", 1)[0]  # "... game 'n' (3fa9c2d1) as ..."
            port = (await host_out.until("listening on port ")).split()[3].rstrip(";")
            guest, guest_out = await start(
                in_namespace(
                    guest_ns,
                    "join",
                    game,
                    "--addr",
                    f"{HOST_ADDR}:{port}",
                    "--bot",
                    "random",
                    "--seed",
                    "2",
                    "--iface",
                    GUEST_ADDR,
                    "--player",
                    "guest",
                    "--home",
                    str(guest_home),
                )
            )
            processes.append(guest)
            async with trio.open_nursery() as nursery:
                outputs: dict[str, str] = {}

                async def finish(name: str, process: trio.Process, lines: Lines) -> None:
                    outputs[name] = await lines.rest()
                    await process.wait()

                nursery.start_soon(finish, "host", host, host_out)
                nursery.start_soon(finish, "guest", guest, guest_out)
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
    assert host.returncode == 0, outputs["host"]
    assert guest.returncode == 0, outputs["guest"]
    assert "game over" in outputs["host"] and "game over" in outputs["guest"]

    host_log, guest_log = same_finished_log(host_home, guest_home, game)
    # The guest reached the host through the veth, at the host namespace's address.
    assert (guest_log.parent / "peers").read_text().split() == [f"{HOST_ADDR}:{port}"]
