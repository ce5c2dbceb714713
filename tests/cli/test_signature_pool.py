"""A worker process checking signatures must never change a verdict, nor which fault is first."""

from __future__ import annotations

from concurrent.futures import wait

import pytest

from creepnet.cli.main import main
from creepnet.cli.signature_pool import SignaturePool
from creepnet.protocol.log import iter_log
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot
from creepnet.protocol.verify import verify_log_bytes


class SettledPool(SignaturePool):
    """Waits for the worker to finish every chunk, so every verdict it can give is used."""

    def start(self, raws: list[bytes]) -> None:
        super().start(raws)
        wait(list(self._pending.values()))


def game_log() -> bytes:
    table = SessionHarness(seed=3, options={"max_plies": 150})
    table.run([creeper_bot("random", 1), creeper_bot("random", 2)])
    return table.spectator.log.to_bytes()


GAME = game_log()
RAWS = list(iter_log(GAME))


def forge(data: bytes, index: int) -> bytes:
    """Flip one bit of event index's signature: still canonical, no longer valid."""
    start = sum(map(len, RAWS[:index]))
    raw = RAWS[index]
    at = start + len(raw) - 70  # inside sig: only type and v (a few bytes) follow it
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]


def cases() -> dict[str, bytes]:
    late = len(RAWS) - 3
    return {
        "valid": GAME,
        "forged late": forge(GAME, late),
        "forged early": forge(GAME, 2),
        "forged late, then garbage": forge(GAME, late) + b"\xc1",
        "forged late, then torn": forge(GAME, late) + RAWS[5][:20],
        "two forged": forge(forge(GAME, 40), late),
        "forged after a reordering": forge(
            b"".join([*RAWS[:30], RAWS[31], RAWS[30], *RAWS[32:]]), late
        ),
        "dropped event": b"".join(RAWS[:50] + RAWS[51:]),
    }


@pytest.mark.parametrize("pool_type", [SettledPool, SignaturePool])
def test_worker_verdicts_are_the_serial_verdicts(pool_type):
    assert len(RAWS) > 100
    with pool_type(chunk=7, min_events=0) as pool:
        for name, data in cases().items():
            serial = verify_log_bytes(data).to_json()
            assert verify_log_bytes(data, pool).to_json() == serial, name
        if pool_type is SettledPool:
            assert pool.checked_by_worker > 0  # the worker's path was really taken


def test_forged_signature_is_found_by_the_worker_and_reported_first():
    data = forge(GAME, len(RAWS) - 3) + b"\xc1"
    with SettledPool(chunk=7, min_events=0) as pool:
        verdict = verify_log_bytes(data, pool)
    assert verdict.error.kind == "signature" and verdict.error.seq == len(RAWS) - 3


def test_short_logs_stay_in_one_process():
    with SignaturePool(min_events=len(RAWS) + 1) as pool:
        assert verify_log_bytes(GAME, pool).valid
        assert pool.checked_by_worker == 0


def test_cli_verdict_is_the_same_with_and_without_the_worker(tmp_path, capsys):
    path = tmp_path / "forged.log"
    path.write_bytes(forge(GAME, len(RAWS) - 3))
    outputs = []
    for extra in ([], ["--serial"]):
        assert main(["verify", "--json", *extra, str(path)]) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and '"signature"' in outputs[0]


@pytest.mark.parametrize(
    "others, load, worker",
    [
        (0, 9.0, True),  # idle now, though the last minute was busy: the load average lags
        (1, 0.2, False),  # another process runs now
        (None, 0.2, True),  # no /proc/loadavg: the 1-minute load average decides
        (None, 9.0, False),
    ],
)
def test_the_cli_shares_signatures_with_a_worker_only_when_a_core_looks_free(
    tmp_path, capsys, monkeypatch, others, load, worker
):
    import os

    from creepnet.cli.commands import verify as command

    offered = []

    class Recording(SignaturePool):
        def start(self, raws: list[bytes]) -> None:
            offered.append(len(raws))
            super().start(raws)

    monkeypatch.setattr(command, "SignaturePool", Recording)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(command, "runnable_others", lambda: others)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    path = tmp_path / "game.log"
    path.write_bytes(GAME)
    assert main(["verify", str(path)]) == 0
    assert offered == ([len(RAWS)] if worker else [])
    assert main(["verify", "--serial", str(path)]) == 0
    assert offered == ([len(RAWS)] if worker else [])  # --serial never offers it
    assert "valid" in capsys.readouterr().out


def test_runnable_others_reads_linux_and_says_none_without_it(monkeypatch):
    import builtins
    from pathlib import Path

    from creepnet.cli.commands.verify import runnable_others

    if Path("/proc/loadavg").exists():
        others = runnable_others(samples=2)
        assert others is not None and others >= 0  # we are running: at least ourselves
    real_open = builtins.open

    def no_proc(path, *args, **kwargs):
        if str(path) == "/proc/loadavg":
            raise FileNotFoundError(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", no_proc)
    assert runnable_others(samples=2) is None
