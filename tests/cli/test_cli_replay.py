"""`creepnet replay` and `verify` of logs where a seat left: a Racer table that retired a silent
seat and played on, and a Creeper game claimed abandoned (issue #23)."""

import re

from retired_logs import GONE, abandoned_creeper_log, retired_racer_log

from creepnet.cli.main import main
from creepnet.protocol.log import split_log
from creepnet.protocol.session import Session

JARGON = re.compile(r"deck work|acts:|slot=|card=|deck:\d|faceup|release |recover|refresh ")


def test_a_retirement_is_told_with_the_tables_steps_for_the_retired_seat(tmp_path, capsys):
    path = tmp_path / "retired.log"
    path.write_bytes(retired_racer_log())
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    retired = re.search(
        rf"p{GONE} \(seat {GONE}\) left the game or stopped answering, and was retired at seq "
        r"(\d+) by the votes of p0 \(seat 0\) and p1 \(seat 1\); the table plays on without "
        r"them\n      with: publish its shares of retired seat 2's keys \(p0, p1\)",
        out,
    )
    assert retired, out
    after = out[retired.end() :]
    assert (
        f"for retired seat {GONE}" in after
        and f"for retired seat {GONE}" not in out[: retired.start()]
    )
    assert f"seat {GONE} (out)" in after and not JARGON.search(out)
    assert "result: draw (the turn limit was reached)" in out

    assert main(["verify", str(path)]) == 0
    said = capsys.readouterr().out
    assert f"seat {GONE} (p{GONE}) retired by the table at seq {retired[1]}" in said
    # both seats left published their shares of its keys; with two left, nobody re-deals
    assert "escrow checked: 2 publications of shares of a retired seat's keys, 0 re-deals" in said


def test_the_retire_event_alone_is_told_in_words(tmp_path, capsys):
    path = tmp_path / "retired.log"
    data = retired_racer_log()
    path.write_bytes(data)
    events = Session.from_log(split_log(data).items).log.events
    seq = next(e.seq for e in events if e.type == "retire")
    assert main(["replay", str(path), "--event", str(seq)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"seq {seq}: p{GONE} (seat {GONE}) left the game or stopped answering")
    assert f"seat {GONE} (out)" in out


def test_an_abandoned_game_is_told_as_the_claim_it_is(tmp_path, capsys):
    path = tmp_path / "abandoned.log"
    path.write_bytes(abandoned_creeper_log())
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    claim = "seq 9: p0 (seat 0): claims the game abandoned at seq 9: p1 (seat 1) is gone"
    assert claim in out
    assert out.rstrip().endswith("unfinished: abandoned by seat 1, claimed by seat 0 at seq 9")
    assert main(["verify", str(path)]) == 0
    said = capsys.readouterr().out
    assert "valid, 10 events, unfinished" in said
    assert "outcome: unfinished: abandoned by seat 1, claimed by seat 0 at seq 9" in said
