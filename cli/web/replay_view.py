"""A log file for the replay page: its story step by step and turn by turn (cli/replay_story.py,
the words `creepnet replay` prints too), the position after each step, and the verdict of
`creepnet verify` on the same bytes, rendered by the same code.

Positions are kept once each (``boards``; a step or frame names its board by index): most events
of a card game's log are deck work that leaves the table as it was.  A position is drawn after
the whole log is read, because a finished log may end with an audit that names every hidden
card, and the replay then shows every hand at every point.  What to keep and how to draw it is
the game's page record's (``keep``, ``position``).  ``frames`` (one per event, in words) are the
fine grain under the steps: each names the step it is folded into.
"""

from __future__ import annotations

from typing import Any

from creepnet.cli.commands.verify import render
from creepnet.cli.faces import page_of
from creepnet.cli.replay_story import Story, tell_log, work_summary
from creepnet.cli.web.views import page_labels, seats
from creepnet.protocol.session import Session
from creepnet.protocol.verify import verify_file_bytes


def frames(data: bytes) -> tuple[Story, list[dict[str, Any]], list[dict[str, Any] | None]]:
    """The log's story, a frame per good event, and the positions the frames name."""
    shown: list[dict[str, Any]] = []
    kept: list[Any] = []

    def watch(session: Session, index: int) -> None:
        page = page_of(session.kind)
        board = None
        if page is not None and page.keep is not None and session.game_state is not None:
            position = page.keep(session.game_state)
            if not kept or kept[-1] is not position and kept[-1] != position:
                kept.append(position)
            board = len(kept) - 1
        shown.append(
            {
                "seq": index,
                "type": session.log.events[index].type,
                "board": board,
            }
        )

    story = tell_log(data, watch)
    for frame, words, step, now in zip(
        shown, story.words, story.step_of, story.status, strict=True
    ):
        frame["text"], frame["step"], frame["status"] = words, step, now
    page = page_of(story.session.kind)
    if not kept or page is None or page.position is None:
        return story, shown, []
    draw = page.position
    final = story.session.game_state
    return story, shown, [draw(position, final) for position in kept]


def steps(story: Story, shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each step: who did what, the work folded into it, the position and status after it."""
    return [
        {
            "seq": step.seq,
            "first": step.first,
            "last": step.last,
            "turn": step.turn,
            "who": step.who,
            "text": step.line,
            "work": work_summary(step.work),
            "board": shown[step.last]["board"],
            "status": shown[step.last]["status"],
        }
        for step in story.steps
    ]


def replay_view(name: str, data: bytes) -> dict[str, Any]:
    story, shown, boards = frames(data)
    session = story.session
    verdict = verify_file_bytes(data)
    told = steps(story, shown)
    return {
        "file": name,
        "kind": session.kind,
        "page": page_labels(session.kind),
        "name": session.name,
        "seats": seats(session, None),
        "turns": [
            {
                "title": mark.title,
                "number": mark.number,
                "steps": [i for i, step in enumerate(told) if step["turn"] == index],
            }
            for index, mark in enumerate(story.turns)
        ],
        "steps": told,
        "frames": shown,
        "boards": boards,
        "outcome": session.outcome_text,
        "verdict": {**verdict.to_json(), "text": render(name, verdict, data)},
    }
