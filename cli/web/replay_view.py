"""A log file for the replay page: one frame per event (what happened in words, the position
after it), and the verdict of `creepnet verify` on the same bytes, rendered by the same code.

Positions are kept once each (``boards``; a frame names its board by index): most events of a
Racer log are deck work that leaves the table as it was.  A position is drawn after the whole
log is read, because a finished Racer log ends with the audit that names every hidden card,
and the replay then shows every hand at every point.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from creepnet.cli.commands.verify import render
from creepnet.cli.narration import describe, status
from creepnet.cli.web import creeper_view, racer_view
from creepnet.cli.web.views import seats
from creepnet.protocol.log import Rejection, split_log
from creepnet.protocol.session import Session
from creepnet.protocol.verify import verify_file_bytes

Keep = Callable[[Any], Any]  # what to keep of the game after an event (it may change later)
Draw = Callable[[Any, Any], dict[str, Any] | None]  # (kept, the game at the end) -> a position


def _position(kept: Any, final: Any) -> dict[str, Any]:
    return kept  # type: ignore[no-any-return]


# Each game's positions for the page, by kind: public information, and the hidden cards the
# finished log itself makes known.
POSITION_VIEWS: dict[str, tuple[Keep, Draw]] = {
    "creeper": (creeper_view.position, _position),
    "racer": (lambda game: game.state, racer_view.replay_table),
}


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
        views = POSITION_VIEWS.get(session.kind)
        board = None
        if views is not None and session.game_state is not None:
            position = views[0](session.game_state)
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
    if not kept:
        return session, shown, []
    draw = POSITION_VIEWS[session.kind][1]
    return session, shown, [draw(position, session.game_state) for position in kept]


def replay_view(name: str, data: bytes) -> dict[str, Any]:
    session, shown, boards = frames(data)
    verdict = verify_file_bytes(data)
    return {
        "file": name,
        "kind": session.kind,
        "name": session.name,
        "seats": seats(session, None),
        "frames": shown,
        "boards": boards,
        "outcome": session.outcome_text,
        "verdict": {**verdict.to_json(), "text": render(name, verdict)},
    }
