"""A 4-player Racer game across three homes and the LAN of one of them, over the internet.

The bed (tests/node/netns_nat.py): home a (a cone NAT) has two machines on its LAN, home b sits
behind a cone NAT, home c behind the symmetric one; the relay runs in the public namespace.
The host (home a) runs `creepnet host racer --players 4 --internet`; the other three seats —
the second machine on a's LAN, b and c — run `creepnet join INVITE`, every seat a bot.  The mesh
(node/mesh.py) must cross the NATs too: each guest reaches each other guest at the `wan:`
address the host passed on (its peer id at the host's relays, which every invited seat holds a
reservation at), through the relay or after a hole punch.  Afterwards the four logs must be
byte-identical and verify as a finished game.

Skipped (with the reason) when not root, without `ip`/`nft`, where namespaces cannot be made,
or without the optional extra (`pip install 'creepnet[wan]'`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator

import pytest
import trio
from conftest import only_log

from creepnet.protocol.verify import verify_log_bytes

sys.path.insert(0, os.path.dirname(__file__))
import netns_nat  # noqa: E402
from netns_nat import Lines, Processes, bed_or_skip, relay_in_public  # noqa: E402

TIMEOUT = 240  # generous: these machines are slow and shared
# Bots wait before each move, so the game outlasts the mesh's dials (a relay circuit, then a
# hole punch): a game over before two guests met would prove nothing about the mesh.
PACE = ["--pace", "1.2"]  # 0.4 s: once a game of 7 s, over before the symmetric seat was met
CONNECTED = re.compile(r"peer-connected: connected to (\S+) .* at (\S+)")

pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")


@pytest.fixture
def three_homes() -> Iterator[netns_nat.Internet]:
    yield from bed_or_skip({"a": "cone", "b": "cone", "c": "symmetric"}, machines={"a": 2})


async def test_four_racer_seats_in_three_homes_mesh_across_the_nats(three_homes, tmp_path):
    bed = three_homes
    a, b, c = bed.homes["a"], bed.homes["b"], bed.homes["c"]
    seats = {"guest1": a.machines[1], "guest2": b.machines[0], "guest3": c.machines[0]}
    homes = {name: tmp_path / name for name in ("host", *seats)}
    processes = Processes(bed)
    watched: dict[str, Lines] = {}
    outputs: dict[str, str] = {}
    try:
        with trio.fail_after(TIMEOUT):
            _relay, relay = await relay_in_public(processes, tmp_path)
            host, host_out = await processes.start(
                a.name,
                "host", "racer", "--players", "4", "--turn-limit", "2", "--bot", "heuristic",
                "--seed", "1", "--no-discovery", "--iface", a.address, "--player", "host",
                "--name", "four homes", "--home", str(homes["host"]),
                "--internet", "--relay", relay, *PACE, "-v",
            )  # fmt: skip
            watched["host"] = host_out
            invite = (await host_out.until("invite ")).split("creepnet join ", 1)[1].strip()
            started = {"host": host}
            for k, (name, (ns, address)) in enumerate(seats.items(), start=1):
                started[name], watched[name] = await processes.start(
                    ns,
                    "join", invite, "--bot", "random", "--seed", str(k), "--iface", address,
                    "--player", name, "--home", str(homes[name]), *PACE, "-v",
                )  # fmt: skip
            async with trio.open_nursery() as nursery:

                async def finish(name: str) -> None:
                    outputs[name] = await watched[name].rest()
                    await started[name].wait()

                for name in started:
                    nursery.start_soon(finish, name)
    except trio.TooSlowError:
        tails = {}
        for name, lines in watched.items():
            text = "\n".join(lines.seen) + "\n" + lines.buffer.decode(errors="replace")
            (tmp_path / f"{name}.out").write_text(text)
            tails[name] = text.splitlines()[-25:]
        raise AssertionError(f"no finish in {TIMEOUT}s; last lines: {tails}") from None
    finally:
        processes.kill_all()
    for name, text in outputs.items():
        (tmp_path / f"{name}.out").write_text(text)
    for name, process in started.items():
        assert process.returncode == 0, outputs.get(name)
        assert "game over" in outputs[name], outputs[name][-3000:]
    # The mesh crossed the NATs: every guest was connected to every other guest, over the
    # internet carrier (a wan: address or stream), not only through the host.
    for name in seats:
        found = CONNECTED.finditer(outputs[name])
        met = {m.group(1): m.group(2) for m in found if m.group(1) != "host"}
        assert set(met) == set(seats) - {name}, (name, met)
        assert all(address.startswith("wan:") for address in met.values()), (name, met)
    logs = {only_log(home).read_bytes() for home in homes.values()}
    assert len(logs) == 1, "the four logs differ"
    verdict = verify_log_bytes(logs.pop())
    assert verdict.valid and verdict.finished, verdict.error
