"""`creepnet replay` of a Racer log: hands by name once the game is over, counts before."""

import re

from creepnet.cli.main import main
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot


def racer_log(tmp_path, finished: bool = True):
    table = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 4}, seed=9, onion_length=256
    )
    table.run([seat_bot("racer", "heuristic", seat) for seat in range(2)])
    events = table.sessions[0].log.events
    if not finished:
        events = [e for e in events if e.seq < len(events) - 2]  # before the last reveals
    path = tmp_path / "racer.log"
    path.write_bytes(b"".join(e.raw for e in events))
    return path, table


def test_a_finished_racer_log_replays_every_hand_turn_by_turn(tmp_path, capsys):
    path, table = racer_log(tmp_path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "== turn 1, seat" in out and "== turn 4, seat" in out
    first_hand = re.search(r"seat 0: line .*\n    hand: (.*)", out).group(1)
    final = table.sessions[0].game_state
    catalogue = final.state.catalogue
    names = {catalogue[card].name for card in final.cards.values()}
    assert first_hand != "-" and set(first_hand.split(", ")) <= names
    assert "result: draw (the turn limit was reached)" in out


def test_an_unfinished_racer_log_shows_hands_as_counts_only(tmp_path, capsys):
    path, _ = racer_log(tmp_path, finished=False)
    assert main(["replay", str(path), "--at", "2"]) == 0
    out = capsys.readouterr().out
    assert "hands stay hidden" in out
    assert re.search(r"hand: \d+ cards", out) and "== turn 2, seat" in out
