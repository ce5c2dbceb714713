"""`creepnet replay` of a Racer log: turn by turn and move by move in the live page's words,
deck work folded into the move it serves; hands by name once the game is over, counts before."""

import re
from functools import cache

from creepnet.cli.main import main
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

# What the protocol calls its steps and actions: never shown as the replay's words.
JARGON = re.compile(r"deck work|acts:|slot=|card=|target=|deck:\d|faceup|keep-drawn|release ")


@cache
def played() -> SessionHarness:
    """One finished game for every test here (they only read it): deterministic from its seeds."""
    table = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 4}, seed=9, onion_length=256
    )
    table.run([seat_bot("racer", "heuristic", seat) for seat in range(2)])
    return table


def racer_log(tmp_path, finished: bool = True):
    table = played()
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
    headings = re.findall(r"^== Turn (\d+): .* to play ==$", out, re.M)
    assert headings == ["1", "2", "3", "4"]  # each turn once, in order
    first_hand = re.search(r"seat 0: line .*\n    hand: (.*)", out).group(1)
    final = table.sessions[0].game_state
    catalogue = final.state.catalogue
    names = {catalogue[card].name for card in final.cards.values()}
    assert first_hand != "-" and set(first_hand.split(", ")) <= names
    assert "result: draw (the turn limit was reached)" in out


def test_every_step_is_told_in_words_with_its_deck_work_folded_in(tmp_path, capsys):
    path, table = racer_log(tmp_path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert not JARGON.search(out), JARGON.search(out)
    steps = re.findall(r"^  seq (\d+): (.*)$", out, re.M)
    acts = [e.seq for e in table.sessions[0].log.events if e.type == "act"]
    told = {int(seq) for seq, _ in steps}
    assert set(acts) <= told  # every seat's action is a step of its own
    work = {e.seq for e in table.sessions[0].log.events if e.type in ("deck", "reveal")}
    for seq, line in steps:  # deck work is folded, but for the steps the table takes (the deal)
        assert int(seq) not in work or not re.match(r"p\d \(seat \d\): ", line), line
    # a draw is a move, and the deck work that lets its seat see the card is folded into it
    assert re.search(r"draws a card\n      with: let seat \d see the card it draws", out)


def test_an_unfinished_racer_log_shows_hands_as_counts_only(tmp_path, capsys):
    path, _ = racer_log(tmp_path, finished=False)
    assert main(["replay", str(path), "--at", "2"]) == 0
    out = capsys.readouterr().out
    assert "hands stay hidden" in out
    assert re.search(r"hand: \d+ cards", out) and "== Turn 2: " in out
    assert "== Turn 1: " not in out and "== Turn 3: " not in out
    assert main(["replay", str(path), "--at", "9"]) == 2
    assert "turns 1 to 4" in capsys.readouterr().err


def test_one_event_is_told_in_words_with_the_table_after_it(tmp_path, capsys):
    path, table = racer_log(tmp_path)
    events = table.sessions[0].log.events
    draw = next(
        e.seq
        for e in events
        if e.type == "act" and e.body["action"].startswith("keep-drawn") and e.seq > 60
    )
    release = draw - 1  # the deck work that let the drawing seat see its card
    assert events[release].type == "deck"
    assert main(["replay", str(path), "--event", str(release)]) == 0
    out = capsys.readouterr().out
    assert re.match(rf"seq {release}: p\d \(seat \d\): let seat \d see the card it draws\n", out)
    assert f"== after event #{release} ==" in out and not JARGON.search(out)
    assert main(["replay", str(path), "--event", str(len(events))]) == 2
