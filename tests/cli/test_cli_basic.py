"""`creepnet id`, `log` and `verify` as a user runs them: output and exit codes."""

import io
import json
from contextlib import redirect_stdout

from creepnet.cli.main import main
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot
from creepnet.protocol.verify import verify_log_bytes


def write_log(path, plies=4):
    """A real, unfinished two-seat Creeper game; returns the host's identity."""
    table = SessionHarness(seed=5, options={"max_plies": plies})
    table.run([creeper_bot("random", 1), creeper_bot("random", 2)])
    path.write_bytes(table.spectator.log.to_bytes())
    return table.identities[0]


def test_id_creates_then_shows(tmp_path, capsys):
    assert main(["id", "--home", str(tmp_path)]) == 0
    first = capsys.readouterr().out
    assert "created a new identity" in first
    assert main(["id", "--home", str(tmp_path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert not shown["created"] and shown["fingerprint"] in first


def test_id_name_is_saved_and_checked(tmp_path, capsys):
    assert main(["id", "--home", str(tmp_path), "--name", "Ann"]) == 0
    assert "name         Ann" in capsys.readouterr().out
    assert json.loads(_id_json(tmp_path, capsys))["name"] == "Ann"
    assert main(["id", "--home", str(tmp_path), "--name", "bad\x1bname"]) == 2
    assert "printable" in capsys.readouterr().err
    assert json.loads(_id_json(tmp_path, capsys))["name"] == "Ann"  # the bad one changed nothing


def _id_json(home, capsys) -> str:
    assert main(["id", "--home", str(home), "--json"]) == 0
    return capsys.readouterr().out


def test_id_uses_creepnet_home(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CREEPNET_HOME", str(tmp_path / "h"))
    assert main(["id"]) == 0
    assert (tmp_path / "h" / "identity.key").exists()


def test_verify_valid_log(tmp_path, capsys):
    write_log(tmp_path / "game.log")
    assert main(["verify", str(tmp_path / "game.log")]) == 0
    out = capsys.readouterr().out
    assert "valid, 9 events, finished" in out and "move limit" in out


def test_verify_invalid_log_names_seq_reason_and_author(tmp_path, capsys):
    write_log(tmp_path / "game.log")
    data = bytearray((tmp_path / "game.log").read_bytes())
    last_sig = data.rindex(b"sig") + 5  # past the key and the bin8 header: the signature
    data[last_sig + 10] ^= 0xFF
    (tmp_path / "bad.log").write_bytes(bytes(data))
    assert main(["verify", str(tmp_path / "bad.log")]) == 1
    assert "seq 8: bad signature" in capsys.readouterr().out
    assert main(["verify", "--json", str(tmp_path / "bad.log")]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["valid"] is False and verdict["error"]["seq"] == 8


def test_verify_unreadable_file_is_a_usage_error(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing.log")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_log_prints_one_line_per_event_and_json(tmp_path, capsys):
    who = write_log(tmp_path / "game.log")
    assert main(["log", str(tmp_path / "game.log")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 9 and who.fingerprint in lines[0] and "genesis" in lines[0]
    assert "move" in lines[-1]
    assert main(["log", "--json", str(tmp_path / "game.log")]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [row["seq"] for row in rows] == list(range(9))


def test_no_command_prints_help_and_usage_code(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_verify_names_the_seq_of_a_malformed_event(tmp_path, capsys):
    write_log(tmp_path / "game.log")
    data = (tmp_path / "game.log").read_bytes()
    (tmp_path / "bad.log").write_bytes(data + b"\xc1")
    assert main(["verify", str(tmp_path / "bad.log")]) == 1
    assert "seq 9: malformed event" in capsys.readouterr().out


def test_replay_shows_who_did_what_and_the_board(tmp_path, capsys):
    write_log(tmp_path / "game.log")
    assert main(["replay", str(tmp_path / "game.log")]) == 0
    out = capsys.readouterr().out
    assert "seq 0: p0 (seat 0): hosts creeper game" in out
    # the colour draw's reveals, folded under the start they serve, each told
    assert "starts the game\n    seq 3: p0 reveals randomness for draw 0\n" in out
    assert "plays " in out
    assert "result: draw (move limit of 4 plies)" in out
    assert out.count("ply ") == 5  # the start position and four moves
    assert main(["replay", "--event", "5", str(tmp_path / "game.log")]) == 0
    at = capsys.readouterr().out
    assert at.startswith("seq 5:") and "ply 1" in at
    assert main(["replay", "--event", "99", str(tmp_path / "game.log")]) == 2


def test_replay_at_counts_moves_not_events(tmp_path, capsys):
    write_log(tmp_path / "game.log")
    for ply in (0, 1, 3, 4):
        assert main(["replay", "--at", str(ply), str(tmp_path / "game.log")]) == 0
        shown = capsys.readouterr().out
        assert f"ply {ply} |" in shown and shown.count("ply ") == 1
        assert ("plays " in shown) == (ply > 0)
    assert main(["replay", "--at", "5", str(tmp_path / "game.log")]) == 2
    assert "only 4 moves" in capsys.readouterr().err


def test_verify_of_several_logs_says_whether_they_are_identical(tmp_path, capsys):
    write_log(tmp_path / "a.log")
    (tmp_path / "b.log").write_bytes((tmp_path / "a.log").read_bytes())
    write_log(tmp_path / "c.log", plies=2)
    assert main(["verify", str(tmp_path / "a.log"), str(tmp_path / "b.log")]) == 0
    assert "the 2 logs are byte-identical" in capsys.readouterr().out
    logs = [str(tmp_path / name) for name in ("a.log", "b.log", "c.log")]
    assert main(["verify", *logs]) == 0
    out = capsys.readouterr().out
    assert "not identical" in out and "c.log" in out.split("not identical")[1]


def test_replay_into_a_closed_pipe_stops_quietly(tmp_path):
    import subprocess
    import sys

    write_log(tmp_path / "game.log", plies=30)
    shell = f"{sys.executable} -m creepnet.cli replay {tmp_path / 'game.log'} | head -1"
    result = subprocess.run(["sh", "-c", shell], capture_output=True, text=True, timeout=60)
    assert result.stdout.startswith("seq 0:") and result.stderr == ""


def test_version_and_the_american_spelling_of_colour(capsys):
    import pytest

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("creepnet ")
    # --color is parsed (the limit is what is refused, before anything is opened)
    assert main(["host", "creeper", "--color", "--max-plies", "0"]) == 2
    assert "--max-plies must be positive" in capsys.readouterr().err


def test_verify_checks_an_equivocation_proof_file(tmp_path, capsys):
    from creepnet.protocol.event import sign_event
    from creepnet.protocol.log import EquivocationProof

    table = SessionHarness(seed=5, options={"max_plies": 4})
    table.run([creeper_bot("random", 1), creeper_bot("random", 2)])
    last = table.spectator.log.events[-1]
    cheater = next(i for i in table.identities if i.public_key == last.author)
    twin = sign_event(cheater, game=last.game, seq=last.seq, prev=last.prev, type="resign", body={})
    proof = EquivocationProof(last.raw, twin.raw).to_bytes()
    (tmp_path / "equivocation").write_bytes(proof)
    assert main(["verify", str(tmp_path / "equivocation")]) == 0
    out = capsys.readouterr().out
    assert "valid equivocation proof" in out and cheater.fingerprint in out and "resign" in out
    forged = bytearray(proof)
    forged[-5] ^= 1  # inside the second event's bytes
    (tmp_path / "forged").write_bytes(bytes(forged))
    assert main(["verify", str(tmp_path / "forged")]) == 1
    assert "INVALID" in capsys.readouterr().out


def test_a_proof_of_two_different_authors_proves_nothing(tmp_path, capsys):
    from creepnet.protocol.log import EquivocationProof

    table = SessionHarness(seed=6, options={"max_plies": 4})
    table.run([creeper_bot("random", 1), creeper_bot("random", 2)])
    a, b = table.spectator.log.events[-2:]  # consecutive moves by the two players
    (tmp_path / "bogus").write_bytes(EquivocationProof(a.raw, b.raw).to_bytes())
    assert main(["verify", str(tmp_path / "bogus")]) == 1
    assert "differ in game, seq or author" in capsys.readouterr().out


def test_every_cheat_of_the_cheat_demo_is_caught_and_attributed(tmp_path):
    from creepnet.cli.creeper.cheat_demo import run_cheats
    from creepnet.node.storage import _KEY_FILE_MAGIC, KEY_FILE, write_private_file

    table = SessionHarness(seed=8, options={"max_plies": 30})
    table.run([creeper_bot("greedy", 1), creeper_bot("random", 2)])
    guest = table.identities[1]
    write_private_file(tmp_path / KEY_FILE, _KEY_FILE_MAGIC + guest.seed())
    said: list[str] = []
    assert run_cheats(table.spectator.log.to_bytes(), tmp_path, said.append)
    text = "\n".join(said)
    assert text.count("creepnet verify: INVALID") == 4
    assert f"(author {guest.fingerprint})" in text and f"{guest.fingerprint} equivocated" in text


def test_the_demo_verifies_each_distinct_log_once_and_reports_every_copy(tmp_path, monkeypatch):
    """Byte-identical logs have one verdict (verification is a function of the bytes): the
    demo's report verifies each distinct log once, and still names every node's copy."""
    from types import SimpleNamespace

    from creepnet.cli.commands import demo

    table = SessionHarness(seed=5, options={"max_plies": 6})
    table.run([creeper_bot("random", 1), creeper_bot("random", 2)])
    data = table.spectator.log.to_bytes()
    homes = {role: tmp_path / role for role in ("host", "guest", "watcher")}
    for home in homes.values():
        (home / "games" / "g").mkdir(parents=True)
        (home / "games" / "g" / "log").write_bytes(data)
    verified: list[bytes] = []

    def counting(log: bytes):
        verified.append(log)
        return verify_log_bytes(log)

    monkeypatch.setattr(demo, "verify_log_bytes", counting)
    processes = {role: SimpleNamespace(returncode=0) for role in ("host", "guest")}
    said, out = io.StringIO(), tmp_path / "out"
    out.mkdir()
    with redirect_stdout(said):
        assert demo._report(out, homes, processes, None) == 0  # type: ignore[arg-type]
    assert verified == [data]
    text = said.getvalue()
    for role in homes:
        assert f"{role}.log: valid, 11 events, finished" in text
    assert "logs byte-identical: yes (host, guest, watcher)" in text
    assert "outcome: draw (move limit of 6 plies)" in text


def test_a_port_of_unicode_digits_is_a_clear_error_not_a_traceback(tmp_path, capsys):
    """`"²".isdigit()` is true and `int("²")` raises: `relay --listen HOST:²` died with a
    ValueError traceback, `join --addr` printed Python's own message; and full-width digits
    ("４１００") passed as a port.  A port is ASCII digits."""
    from creepnet.node.storage import Home
    from creepnet.node.transport import parse_address

    home = str(tmp_path / "h")
    assert main(["relay", "--listen", "127.0.0.1:²", "--home", home]) == 2
    assert "--listen must look like HOST:PORT" in capsys.readouterr().err
    assert main(["join", "--addr", "127.0.0.1:²", "--home", home]) == 2
    assert "--addr must look like HOST:PORT" in capsys.readouterr().err
    for port in ("²", "４１００"):
        try:
            parse_address(f"127.0.0.1:{port}")
        except ValueError as exc:
            assert "not a HOST:PORT address" in str(exc)
        else:
            raise AssertionError(f"{port!r} was taken for a port")
    store = Home(tmp_path / "h").game(bytes(16))
    store.folder.mkdir(parents=True)
    store.port_path.write_text("²\n")  # a damaged port file is no port, not a crash
    assert store.load_port() is None


def test_an_iface_that_is_no_ipv4_address_is_a_clear_error(tmp_path, capsys, monkeypatch):
    """`games --iface notanip` died with zeroconf's ValueError traceback."""
    assert main(["games", "--iface", "notanip", "--wait", "1"]) == 2
    said = capsys.readouterr().err
    assert "--iface (or $CREEPNET_IFACE) takes an interface's IPv4 address" in said
    monkeypatch.setenv("CREEPNET_IFACE", "127.0.0.1,999.1.1.1")
    assert main(["games", "--wait", "1"]) == 2
    assert "'999.1.1.1'" in capsys.readouterr().err
    # raised inside a command's trio run (host, join: the node's nursery), still one line
    import argparse

    from creepnet.cli.network import run_trio
    from creepnet.cli.options import UsageError

    async def choose(args):
        raise UsageError("--iface (or $CREEPNET_IFACE) takes an interface's IPv4 address")

    assert run_trio(choose, argparse.Namespace()) == 2
    assert "takes an interface's IPv4 address" in capsys.readouterr().err


def test_a_service_type_zeroconf_refuses_is_a_clear_error(tmp_path, capsys, monkeypatch):
    """`creepnet ui` with $CREEPNET_SERVICE_TYPE=bogus died with zeroconf's traceback from its
    browse thread; every command that browses or advertises now says what is wrong, exit 2."""
    monkeypatch.setenv("CREEPNET_IFACE", "127.0.0.1")
    monkeypatch.setenv("CREEPNET_HOME", str(tmp_path / "home"))
    for bad in ("bogus", "_much_too_long_a_name._tcp.local.", "_cn._tcp.local"):
        monkeypatch.setenv("CREEPNET_SERVICE_TYPE", bad)
        for command in (["games", "--wait", "1"], ["ui", "--no-browser"], ["host", "creeper"]):
            assert main(command) == 2, (bad, command)
            said = capsys.readouterr().err
            assert "$CREEPNET_SERVICE_TYPE must be a DNS-SD service type" in said, said
            assert "Traceback" not in said
    assert not (tmp_path / "home").exists()  # refused before anything was written
