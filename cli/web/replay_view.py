"""A log file for the replay page: one frame per event (what happened in words, the position
after it), and the verdict of `creepnet verify` on the same bytes, rendered by the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from creepnet.cli.commands.verify import render
from creepnet.cli.narration import describe, status
from creepnet.cli.web import creeper_view
from creepnet.cli.web.views import seats
from creepnet.protocol.log import Rejection, split_log
from creepnet.protocol.session import Session
from creepnet.protocol.verify import verify_file_bytes

# Each game's position for the page, by kind (public information only).
POSITION_VIEWS: dict[str, Callable[[Any], dict[str, Any]]] = {"creeper": creeper_view.position}


def frames(data: bytes) -> tuple[Session, list[dict[str, Any]]]:
    """The session after the last good event, and a frame per event up to there."""
    session = Session()
    shown: list[dict[str, Any]] = []
    try:
        items = split_log(data).items
    except Rejection:
        return session, shown
    for index, raw in enumerate(items):
        try:
            session.accept(raw)
        except Rejection:
            break
        position = POSITION_VIEWS.get(session.kind)
        board = position(session.game_state) if position and session.game_state else None
        shown.append(
            {
                "seq": index,
                "type": session.log.events[index].type,
                "text": describe(session, index),
                "status": status(session),
                "board": board,
            }
        )
    return session, shown


def replay_view(name: str, data: bytes) -> dict[str, Any]:
    session, shown = frames(data)
    verdict = verify_file_bytes(data)
    return {
        "file": name,
        "kind": session.kind,
        "name": session.name,
        "seats": seats(session, None),
        "frames": shown,
        "outcome": session.outcome_text,
        "verdict": {**verdict.to_json(), "text": render(name, verdict)},
    }
