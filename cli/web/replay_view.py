"""A log file for the replay page: one frame per event (what happened in words, the position
after it), and the verdict of `creepnet verify` on the same bytes, rendered by the same code.

Positions are kept once each (``boards``; a frame names its board by index): most events of a
card game's log are deck work that leaves the table as it was.  A position is drawn after the
whole log is read, because a finished log may end with an audit that names every hidden card,
and the replay then shows every hand at every point.  What to keep and how to draw it is the
game's page record's (``keep``, ``position``).
"""

from __future__ import annotations

from typing import Any

from creepnet.cli.commands.verify import render
from creepnet.cli.faces import page_of
from creepnet.cli.narration import describe, status
from creepnet.cli.web.views import page_labels, seats
from creepnet.protocol.log import Rejection, split_log
from creepnet.protocol.session import Session
from creepnet.protocol.verify import verify_file_bytes


def frames(data: bytes) -> tuple[Session, list[dict[str, Any]], list[dict[str, Any] | None]]:
    """The session after the last good event, a frame per event up to there, and the
    positions the frames name."""
    session = Session()
    shown: list[dict[str, Any]] = []
    kept: list[Any] = []
    try:
        items = split_log(data).items
    except Rejection:
        return session, shown, []
    for index, raw in enumerate(items):
        try:
            session.accept(raw)
        except Rejection:
            break
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
                "text": describe(session, index),
                "status": status(session),
                "board": board,
            }
        )
    page = page_of(session.kind)
    if not kept or page is None or page.position is None:
        return session, shown, []
    draw = page.position
    return session, shown, [draw(position, session.game_state) for position in kept]


def replay_view(name: str, data: bytes) -> dict[str, Any]:
    session, shown, boards = frames(data)
    verdict = verify_file_bytes(data)
    return {
        "file": name,
        "kind": session.kind,
        "page": page_labels(session.kind),
        "name": session.name,
        "seats": seats(session, None),
        "frames": shown,
        "boards": boards,
        "outcome": session.outcome_text,
        "verdict": {**verdict.to_json(), "text": render(name, verdict)},
    }
