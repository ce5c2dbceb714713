"""A node's games as JSON for the page: seats, whose turn, what the game waits for, the feed in
words, and the game's own board view and script (its record's page, found by the game's kind,
as the terminal consoles are).
"""

from __future__ import annotations

from typing import Any

from creepnet.cli.faces import PageFace, Story, page_of
from creepnet.cli.narration import describe, status
from creepnet.node.game import GameRuntime
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.session import Session
from creepnet.protocol.verify import abandonment_text

FEED_LENGTH = 40
# The page of a game without a page in its record: seats, feed and typed actions only.
NO_PAGE: dict[str, Any] = {
    "module": None,
    "script": None,
    "styles": [],
    "words": {},
    "draw_offers": False,
    "resign": False,
}


def page_labels(kind: str) -> dict[str, Any]:
    """What the page's shared script needs of this game: its view script and its words."""
    page = page_of(kind)
    return page.labels(kind) if page is not None else dict(NO_PAGE)


def seats(session: Session, runtime: GameRuntime | None) -> list[dict[str, Any]]:
    """Who plays; ``connected`` only where this node can know it: a player's node talks to
    every other seat (guests through the host), a spectator's only to the host.  ``presence``
    says the same in one word for the page's dot beside the name: ``connected``, ``silent``
    (not connected now), ``retired`` (the table plays on without them), or None (unknown)."""
    connected = set(runtime.followers) if runtime is not None else set()
    knows = runtime is not None and session.local_seat is not None
    rows = []
    for index, seat in enumerate(session.seats):
        you = index == session.local_seat
        connected_now = you or seat.key in connected if knows else None
        rows.append(
            {
                "seat": index,
                "player": seat.player,
                "fingerprint": fingerprint(seat.key),
                "side": (
                    session.rules.describe(session.game_state, index)
                    if session.started and session.rules is not None
                    else None
                ),
                "you": you,
                "connected": connected_now,
                "retired": index in session.retired,
                "presence": presence(index in session.retired, connected_now),
            }
        )
    return rows


def presence(retired: bool, connected: bool | None) -> str | None:
    if retired:
        return "retired"
    if connected is None:
        return None
    return "connected" if connected else "silent"


def feed(session: Session, length: int = FEED_LENGTH) -> list[str]:
    """The last events in words, oldest first (reveals are folded away: they are automatic)."""
    lines = [
        describe(session, index)
        for index in range(len(session.log.events))
        if session.log.events[index].type != "reveal"
    ]
    return lines[-length:]


def game_view(
    session: Session, runtime: GameRuntime | None = None, story: Story | None = None
) -> dict[str, Any]:
    waiting = session.waiting_for()
    turn = session.my_turn()
    page: PageFace | None = page_of(session.kind)
    ready = session.started and session.game_state is not None
    board = page.view(session) if ready and page is not None else None
    return {
        "game": session.game.hex() if session.game else None,
        "kind": session.kind,
        "name": session.name,
        "state": runtime.state if runtime is not None else None,
        "started": session.started,
        "finished": session.finished,
        "halted": session.halted is not None,
        "outcome": session.outcome_text,
        "seat_count": session.seat_count,
        "seats": seats(session, runtime),
        "you": session.local_seat,
        "spectator": session.local_seat is None,
        "waiting": (
            {
                "seat": waiting.seat,
                "player": waiting.player,
                "fingerprint": fingerprint(waiting.key),
                "what": waiting.what,
            }
            if waiting is not None and not session.finished
            else None
        ),
        "my_turn": sorted(turn.types) if turn is not None else [],
        # The game's view may word the line for what it asks now (a defence is no turn).
        "status": (board or {}).get("status") or status(session),
        "feed": list(story())[-FEED_LENGTH:] if story is not None else feed(session),
        "board": board,
        "page": page_labels(session.kind),
        "events": len(session.log),
    }


def game_summary(runtime: GameRuntime) -> dict[str, Any]:
    """A game this node holds, for the lobby's "your games" list."""
    session = runtime.session
    return {
        "game": runtime.game.hex(),
        "kind": session.kind,
        "name": session.name,
        "state": runtime.state,
        "seats": f"{len(session.seats)}/{session.seat_count}",
        "role": "spectator" if session.local_seat is None else "player",
        # a game claimed abandoned has no result: its abandonment says how it ended
        "outcome": session.outcome_text or abandonment_text(session),
        "hosted": runtime.hosted,
    }
