"""The host's machine crashes mid-game: `kill -9`, then the same `creepnet host` command again.
Real processes, TCP and zeroconf on 127.0.0.1 only."""

from __future__ import annotations

import re
import sys

import pytest
import trio
from conftest import Output, same_finished_log, start

LOOPBACK = "127.0.0.1"
CLI = [sys.executable, "-m", "creepnet.cli"]
TIMEOUT = 180  # generous: these machines are slow and shared
EVENT = re.compile(r"\] event: #(\d+) ")
LISTENING = re.compile(r"listening: listening on 127\.0\.0\.1:(\d+) ")  # the node's -v log


def after_move(line: str, seq: int = 12) -> bool:
    match = EVENT.search(line)
    return match is not None and int(match.group(1)) >= seq


async def port_of(output: Output) -> str:
    match = LISTENING.search(await output.until(LISTENING.search))
    assert match is not None
    return match.group(1)


@pytest.mark.parametrize("again_with", ["host", "join"])
async def test_the_host_is_killed_and_one_command_resumes_the_game(tmp_path, again_with):
    """`creepnet host creeper --name crashy` run again, or `creepnet join crashy` on the host's
    home: the game resumes on the same port, the guest reconnects, and both finish."""
    host_home, guest_home = tmp_path / "host", tmp_path / "guest"
    common = ["--iface", LOOPBACK, "--pace", "0.05", "--home", str(host_home), "-v"]
    seat = ["--bot", "greedy", "--seed", "1", "--player", "host", *common]
    host_command = ["host", "creeper", "--name", "crashy", "--max-plies", "60", *seat]
    again_command = host_command if again_with == "host" else ["join", "crashy", *seat]
    guest_command = [
        "join", "crashy", "--bot", "random", "--seed", "2", "--wait", "60",
        "--player", "guest", "--home", str(guest_home), "--iface", LOOPBACK, "--pace", "0.05",
    ]  # fmt: skip
    outputs: list[Output] = []
    try:
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                host = await start(nursery, *host_command)
                outputs.append(host)
                port = await port_of(host)
                guest = await start(nursery, *guest_command)
                outputs.append(guest)
                await guest.until("joined at ")
                await host.until(after_move)  # mid-game
                host.process.kill()  # SIGKILL: no goodbye, no flush, no zeroconf withdrawal
                await host.process.wait()
                assert guest.process.returncode is None

                again = await start(nursery, *again_command)
                outputs.append(again)
                game = (await again.until("resuming game 'crashy' (")).split("(")[1].rstrip(")")
                assert await port_of(again) == port
                assert "peer-connected" in await again.until("peer-connected")
                assert await again.process.wait() == 0, again.text
                assert await guest.process.wait() == 0, guest.text
    finally:
        for output in outputs:
            if output.process.returncode is None:
                output.process.kill()
    assert "game over" not in host.text  # it really was killed mid-game
    assert "game over" in again.text and "game over" in guest.text
    assert "hosting creeper game" not in again.text  # resumed, not a new game
    host_log, guest_log = same_finished_log(host_home, guest_home, game)
    assert (guest_log.parent / "peers").read_text().split() == [f"{LOOPBACK}:{port}"]


def test_the_port_note_says_where_the_game_is_now_and_how_it_is_found():
    from types import SimpleNamespace

    from creepnet.cli.network import port_note

    same = SimpleNamespace(port_taken=None, port=4100, discovery=None)
    assert port_note(same) is None
    moved = SimpleNamespace(port_taken=4100, port=4242, discovery=object())
    note = port_note(moved)
    assert note and "port 4100" in note and "4242" in note and "zeroconf" in note
    hidden = SimpleNamespace(port_taken=4100, port=4242, discovery=None, host="127.0.0.1")
    hidden.address = "127.0.0.1:4242"
    assert "--addr 127.0.0.1:4242" in (port_note(hidden) or "")
    everywhere = SimpleNamespace(port_taken=4100, port=4242, discovery=None, host="0.0.0.0")
    shown = port_note(everywhere) or ""
    assert "<this-host>" not in shown and ":4242" in shown  # a real address of this machine
