"""Creepy Racer between real processes on 127.0.0.1: the demo, and a player killed mid-game
(`kill -9`) who reruns its command and finishes the game with the others."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import trio
from conftest import Output, only_log, start

from creepnet.protocol.verify import verify_log_bytes

LOOPBACK = "127.0.0.1"
CLI = [sys.executable, "-m", "creepnet.cli"]
TIMEOUT = 500  # generous: every event carries proofs and these machines are shared
EVENT = re.compile(r"\] event: #(\d+) ")


def creepnet(*words: str) -> subprocess.CompletedProcess:
    """Run one `creepnet` command to its end; it must succeed."""
    result = subprocess.run(
        [*CLI, *words], capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.mark.timeout(TIMEOUT + 60)
def test_the_racer_demo_runs_three_bot_processes_and_a_spectator(tmp_path):
    result = creepnet(
        *("demo", "racer", "--players", "3", "--seed", "5", "--turn-limit", "4"),
        *("--pace", "0", "--out", str(tmp_path)),
    )
    assert "logs byte-identical: yes (host, guest1, guest2, watcher)" in result.stdout
    logs = {(tmp_path / f"{role}.log").read_bytes() for role in ("host", "guest1", "guest2")}
    assert len(logs) == 1
    verdict = verify_log_bytes(logs.pop())
    assert verdict.valid and verdict.finished and verdict.outcome in result.stdout
    lobby = (tmp_path / "host.out").read_text()
    assert "(3/3 seated)" in lobby and "all seats taken: the game starts" in lobby


@pytest.mark.timeout(TIMEOUT + 60)
def test_play_racer_against_two_bot_nodes(tmp_path):
    """`creepnet play racer --players 3`: this seat (here a bot too) against two bot nodes."""
    result = creepnet(
        *("play", "racer", "--players", "3", "--vs", "random", "--bot", "heuristic"),
        *("--turn-limit", "3", "--home", str(tmp_path)),
    )
    assert "game over: draw (the turn limit was reached)" in result.stdout
    verdict = verify_log_bytes(only_log(tmp_path).read_bytes())
    assert verdict.valid and verdict.finished and len(verdict.notes) == 4  # game + 3 seats


@pytest.mark.timeout(TIMEOUT + 60)
async def test_a_player_killed_mid_game_reruns_join_and_the_game_finishes(tmp_path):
    homes = [tmp_path / name for name in ("host", "guest1", "guest2")]
    common = ["--iface", LOOPBACK, "--pace", "0", "-v"]
    host_command = ["host", "racer", "--name", "crashy", "--players", "3", "--turn-limit", "5"]
    host_command += ["--bot", "heuristic", "--home", str(homes[0]), *common]

    def guest(k: int) -> list[str]:
        return ["join", "crashy", "--bot", "heuristic", "--seed", str(k), "--wait", "60"]  + [
            "--player", f"guest{k}", "--home", str(homes[k]), *common
        ]  # fmt: skip

    outputs: list[Output] = []
    try:
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                for command in (host_command, guest(1), guest(2)):
                    outputs.append(await start(nursery, *command))
                victim = outputs[1]

                def mid_game(line: str) -> bool:  # past the deal, into the turns
                    match = EVENT.search(line)
                    return match is not None and int(match.group(1)) >= 90

                await victim.until(mid_game)
                victim.process.kill()  # SIGKILL: no goodbye, no flush
                await victim.process.wait()
                again = await start(nursery, *guest(1))
                outputs.append(again)
                await again.until("resuming game 'crashy'")
                for output in (outputs[0], outputs[2], again):
                    assert await output.process.wait() == 0, output.text
    finally:
        for output in outputs:
            if output.process.returncode is None:
                output.process.kill()
    assert "game over" not in victim.text and "game over" in again.text
    logs = {only_log(home).read_bytes() for home in homes}
    assert len(logs) == 1
    verdict = verify_log_bytes(logs.pop())
    assert verdict.valid and verdict.finished, verdict.error
