"""The replay page's data, without a browser: the story step by step and turn by turn, in the
live page's words with the deck work folded into the moves, retirements told (issues #26, #23)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from web_support import call

from creepnet.cli.web.app import build_replay_app
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from retired_logs import GONE, retired_racer_log  # noqa: E402

JARGON = re.compile(r"deck work|acts:|slot=|card=|target=|deck:\d|faceup|keep-drawn|release ")


def racer_log() -> bytes:
    table = SessionHarness(seats=2, kind="racer", options={"turn_limit": 3}, seed=4)
    table.run([seat_bot("racer", "heuristic", seat) for seat in range(2)])
    assert table.spectator.finished
    return table.spectator.log.to_bytes()


async def replay_of(tmp_path: Path, data: bytes) -> dict:
    path = tmp_path / "game.log"
    path.write_bytes(data)
    status, replay = await call(build_replay_app({"game": path}), "GET", "/api/replay/game")
    assert status == 200 and isinstance(replay, dict)
    return replay


async def test_the_steps_come_turn_by_turn_in_words_with_the_deck_work_folded_in(tmp_path):
    data = racer_log()
    replay = await replay_of(tmp_path, data)
    turns, steps, frames = replay["turns"], replay["steps"], replay["frames"]
    assert replay["verdict"]["valid"] and len(frames) == replay["verdict"]["events"]
    assert [t["title"] for t in turns[:2]] == ["Before the game", "Set-up"]
    numbered = [t["number"] for t in turns if t["number"] is not None]
    assert numbered == [1, 2, 3]
    for number, turn in zip(numbered, turns[2:], strict=True):
        assert re.fullmatch(rf"Turn {number}: p\d \(seat \d\) to play", turn["title"])
    # every step belongs to exactly one turn, in log order, and the turns cover them all
    assert [i for t in turns for i in t["steps"]] == list(range(len(steps)))
    assert all(steps[i]["turn"] == n for n, t in enumerate(turns) for i in t["steps"])
    assert [s["seq"] for s in steps] == sorted(s["seq"] for s in steps)
    # every event is folded into one step, and each frame says which
    assert all(0 <= f["step"] < len(steps) for f in frames)
    acts = [f["seq"] for f in frames if f["type"] == "act"]
    assert {s["seq"] for s in steps} >= set(acts)  # each seat action is a step of its own
    assert len(steps) < len(frames) / 2
    for step in steps:
        assert not JARGON.search(step["text"]), step["text"]
        assert all(not JARGON.search(work) for work in step["work"]), step["work"]
        assert step["board"] is None or 0 <= step["board"] < len(replay["boards"])
    draws = [s for s in steps if s["text"].endswith("draws a card")]
    assert draws and all(any("see the card it draws" in w for w in s["work"]) for s in draws)
    assert (
        steps[-1]["board"] is not None
        and "hand" in replay["boards"][steps[-1]["board"]]["players"][0]
    )


async def test_a_retirement_is_a_step_with_the_tables_work_for_the_retired_seat(tmp_path):
    replay = await replay_of(tmp_path, retired_racer_log())
    steps = replay["steps"]
    retired = [i for i, s in enumerate(steps) if "left the game or stopped answering" in s["text"]]
    assert len(retired) == 1
    step = steps[retired[0]]
    assert step["text"].startswith(f"p{GONE} (seat {GONE}) left the game")
    assert step["text"].endswith("the table plays on without them")
    assert step["work"] == [f"publish its shares of retired seat {GONE}'s keys (p0, p1)"]
    later = [w for s in steps[retired[0] + 1 :] for w in s["work"]]
    assert any(w.endswith(f"for retired seat {GONE} (p0)") for w in later)
    assert not any(JARGON.search(s["text"]) or any(map(JARGON.search, s["work"])) for s in steps)
    board = replay["boards"][steps[-1]["board"]]
    assert not board["players"][GONE]["active"]
    assert "retired by the table" in replay["verdict"]["text"]
    assert "escrow checked: 2 publications" in replay["verdict"]["text"]


async def test_once_the_game_is_over_the_table_names_nobody_to_play(tmp_path):
    """The last board is the end: no "Turn 3: p1's turn" headline, no "to play" on a seat."""
    replay = await replay_of(tmp_path, racer_log())
    tables = [board for board in replay["boards"] if board is not None]  # none while dealt
    assert any(table["turn"] is not None for table in tables)
    assert tables[-1]["turn"] is None
