"""Creeper over the internet, on one machine: homes behind NAT routers, a relay in between.

The bed (tests/node/netns_nat.py) is network namespaces this test creates and deletes, with
nftables masquerade NAT: "cone" routers keep a home's source port (endpoint-independent
mapping), the "symmetric" one gives every flow a random port.  Every process is the real CLI run
inside a namespace: `creepnet relay` in the public one, `creepnet host … --internet` in one
home, `creepnet join INVITE` in another.  Afterwards both logs must be byte-identical and verify
as a finished game.

* two cone homes: the joiner's connection is direct after a hole punch (the routers drop, never
  answer, unsolicited packets, so only a punch opens them), not relayed;
* a home behind the symmetric NAT: no punch can work; the game goes through the relay;
* a hole punch that lands late (the direct path cut until the game runs relayed): the relayed
  connection is closed once the direct one holds, the guest redials onto the direct one, and
  the game finishes with the relay gone.

Skipped (with the reason) when not root, without `ip`/`nft`, where namespaces cannot be made, or
without the optional extra (`pip install 'creepnet[wan]'`).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator

import pytest
import trio
from conftest import same_finished_log

sys.path.insert(0, os.path.dirname(__file__))
import netns_nat  # noqa: E402
from netns_nat import Lines, Processes, bed_or_skip, relay_in_public  # noqa: E402

TIMEOUT = 240  # generous: these machines are slow and shared

pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")


@pytest.fixture
def cone_homes() -> Iterator[netns_nat.Internet]:
    yield from bed_or_skip({"a": "cone", "b": "cone"})


@pytest.fixture
def symmetric_home() -> Iterator[netns_nat.Internet]:
    yield from bed_or_skip({"a": "cone", "b": "symmetric"})


async def run_to_end(
    running: dict[str, tuple[trio.Process, Lines]], outputs: dict[str, str]
) -> None:
    """Wait for every process to exit, each one's remaining output kept in outputs."""

    async def finish(name: str, process: trio.Process, lines: Lines) -> None:
        outputs[name] = await lines.rest()
        await process.wait()

    async with trio.open_nursery() as nursery:
        for name, (process, lines) in running.items():
            nursery.start_soon(finish, name, process, lines)


async def play_over_the_internet(
    bed: netns_nat.Internet, tmp_path, *, kill_relay: bool = False
) -> tuple[str, str]:
    """A bot game, host in home a, guest in home b; returns (the guest's path line, game).
    With kill_relay: the relay is killed once the game runs, and started again (same home,
    so the same peer id and address) once the guest has seen its connection drop."""
    host_home, guest_home = tmp_path / "host", tmp_path / "guest"
    processes = Processes(bed)
    a, b = bed.homes["a"], bed.homes["b"]
    outputs: dict[str, str] = {}
    watched: dict[str, Lines] = {}
    try:
        with trio.fail_after(TIMEOUT):
            relay_process, relay = await relay_in_public(processes, tmp_path)
            # A game long enough to interrupt: the kill lands within a ply of the first move,
            # and the game then waits for the relay (20 plies at 0.3 s; 60 slept 18 s of it).
            pace = ["--pace", "0.3"] if kill_relay else []
            plies = "20" if kill_relay else "60"
            host, host_out = await processes.start(
                a.name,
                "host", "creeper", "--bot", "greedy", "--seed", "1", "--max-plies", plies,
                "--no-discovery", "--iface", a.address, "--player", "host",
                "--name", "wan game", "--home", str(host_home),
                "--internet", "--relay", relay, *pace,
            )  # fmt: skip
            watched["host"] = host_out
            line = await host_out.until("invite ")
            invite = line.split("creepnet join ", 1)[1].strip()
            game = invite.split(":")[1][:8]
            guest, guest_out = await processes.start(
                b.name,
                "join", invite, "--bot", "random", "--seed", "2", "--iface", b.address,
                "--player", "guest", "--home", str(guest_home), *pace,
                *(["-v"] if kill_relay else []),
            )  # fmt: skip
            watched["guest"] = guest_out
            path = await guest_out.until("path: ")
            if kill_relay:
                await guest_out.until(" event: ", anywhere=True)  # moves are arriving
                relay_process.send_signal(signal.SIGKILL)
                await relay_process.wait()
                await guest_out.until(" peer-disconnected: ", anywhere=True)
                cut = len(guest_out.seen)
                await relay_in_public(processes, tmp_path)
            await run_to_end({"host": (host, host_out), "guest": (guest, guest_out)}, outputs)
    except trio.TooSlowError:
        tails = {name: lines.seen[-30:] for name, lines in watched.items()}
        for name, lines in watched.items():
            (tmp_path / f"{name}.out").write_text("\n".join(lines.seen) + lines.buffer.decode())
        raise AssertionError(
            f"the game did not finish in {TIMEOUT}s; last lines: {tails}"
        ) from None
    finally:
        processes.kill_all()
    assert host.returncode == 0, outputs.get("host")
    assert guest.returncode == 0, outputs.get("guest")
    assert "game over" in outputs["host"] and "game over" in outputs["guest"]
    if kill_relay:  # moves came after the cut, over the relay that came back
        assert any(" event: " in line for line in outputs["guest"].splitlines()[cut:])
    same_finished_log(host_home, guest_home, game)
    return path, game


async def test_two_homes_behind_cone_nats_play_directly_after_a_hole_punch(cone_homes, tmp_path):
    path, _game = await play_over_the_internet(cone_homes, tmp_path)
    print(path)
    # Direct: the connection runs between the two routers' public addresses, no relay circuit.
    assert path.startswith("path: direct"), path
    assert "p2p-circuit" not in path and cone_homes.homes["a"].public in path, path


async def test_a_home_behind_a_symmetric_nat_plays_through_the_relay(symmetric_home, tmp_path):
    path, _game = await play_over_the_internet(symmetric_home, tmp_path)
    print(path)
    assert path.startswith("path: relayed"), path
    assert "p2p-circuit" in path, path


async def test_a_relayed_game_resumes_when_the_killed_relay_comes_back(symmetric_home, tmp_path):
    path, _game = await play_over_the_internet(symmetric_home, tmp_path, kill_relay=True)
    assert path.startswith("path: relayed"), path


async def test_a_hole_punch_that_lands_late_takes_the_game_off_the_relay(cone_homes, tmp_path):
    """The punch lands after the dial stopped waiting for it: the game starts relayed and
    must end on the direct path.  The direct path between the two homes is cut until the
    guest says its path is relayed, then mended, so the punch still going on in the
    background lands late; the relayed connection is then closed, the guest redials and finds
    the direct one.  The relay is then killed for good: the game finishing shows that it no
    longer needs the relay."""
    bed, host_home, guest_home = cone_homes, tmp_path / "host", tmp_path / "guest"
    processes = Processes(bed)
    a, b = bed.homes["a"], bed.homes["b"]
    outputs: dict[str, str] = {}
    watched: dict[str, Lines] = {}
    bed.cut("a", "b")
    try:
        with trio.fail_after(TIMEOUT):
            relay_process, relay = await relay_in_public(processes, tmp_path)
            pace = ["--pace", "2.5"]  # these bots' game is 21 plies: ~50 s, over both paths
            host, host_out = await processes.start(
                a.name,
                "host", "creeper", "--bot", "greedy", "--seed", "1", "--max-plies", "60",
                "--no-discovery", "--iface", a.address, "--player", "host",
                "--name", "late punch", "--home", str(host_home),
                "--internet", "--relay", relay, *pace,
            )  # fmt: skip
            watched["host"] = host_out
            invite = (await host_out.until("invite ")).split("creepnet join ", 1)[1].strip()
            game = invite.split(":")[1][:8]
            guest, guest_out = await processes.start(
                b.name,
                "join", invite, "--bot", "random", "--seed", "2", "--iface", b.address,
                "--player", "guest", "--home", str(guest_home), "-v", *pace,
            )  # fmt: skip
            watched["guest"] = guest_out
            path = await guest_out.until("path: ")
            assert path.startswith("path: relayed"), path
            bed.mend()
            await guest_out.until(" peer-disconnected: ", anywhere=True)  # the relayed one
            await guest_out.until(" peer-connected: ", anywhere=True)  # the redial
            relay_process.send_signal(signal.SIGKILL)
            await relay_process.wait()
            cut = len(guest_out.seen)
            await run_to_end({"host": (host, host_out), "guest": (guest, guest_out)}, outputs)
    except trio.TooSlowError:
        for name, lines in watched.items():
            (tmp_path / f"{name}.out").write_text("\n".join(lines.seen) + lines.buffer.decode())
        tails = {name: lines.seen[-30:] for name, lines in watched.items()}
        raise AssertionError(f"the game did not finish in {TIMEOUT}s; last: {tails}") from None
    finally:
        processes.kill_all()
    assert host.returncode == 0, outputs.get("host")
    assert guest.returncode == 0, outputs.get("guest")
    assert "game over" in outputs["host"] and "game over" in outputs["guest"]
    # Moves went on after the relay was gone: over the direct path.
    assert any(" event: " in line for line in outputs["guest"].splitlines()[cut:])
    same_finished_log(host_home, guest_home, game)
