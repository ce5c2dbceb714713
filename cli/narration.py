"""Games in words, for people: the same sentences in the terminal, in `replay` and on the page."""

from __future__ import annotations

import re

from creepnet.cli.faces import FACES
from creepnet.cli.text import printable
from creepnet.protocol.session import Session
from creepnet.protocol.verify import abandonment_text


def describe(session: Session, event_index: int) -> str:
    event = session.log.events[event_index]
    who = next(
        (session.seat_label(i) for i, key in enumerate(session.seat_keys) if key == event.author),
        event.author_fingerprint,
    )
    body = event.body
    session_words = {
        "genesis": lambda: f"hosts {body['kind']} game {body['name']!r} for {body['seats']} seats",
        "seat": lambda: f"seats {body['join']['player']} at seat {body['join']['seat']}",
        "start": lambda: "starts the game",
        "reveal": lambda: f"reveals randomness for draw {body['draw']}",
    }.get(event.type)
    if session_words is not None:
        what = session_words()
    else:  # the game's own events, in the words of its record
        narrate = FACES[session.kind].narrate if session.kind in FACES else None
        what = (narrate(event.type, body) if narrate is not None else None) or event.type
    return printable(f"seq {event.seq}: {who} {what}")


def unseated_news(text: str, connected: bool, started: bool) -> str:
    """A peer with no seat came or went: before the game starts it may still take a seat
    (the seat is announced then), afterwards it watches.  ``text`` is the node's "NAME
    (FINGERPRINT) at ADDRESS follows the game" (or "stopped following …"): other text is
    kept as it is."""
    found = re.fullmatch(r"(.+?) at \S+ (follows the game|stopped following the game).*", text)
    if found is None:
        return text
    who = found[1] if not found[1].startswith("(") else f"someone {found[1]}"  # no name given
    if not started:
        return f"{who} connected" if connected else f"{who} left"
    return f"{who} is watching" if connected else f"{who} stopped watching"


def status(session: Session) -> str:
    """One line: what the game is doing, from the local seat's point of view."""
    if session.halted is not None:
        return "GAME STOPPED: a player signed two different events at one position (proof kept)"
    if session.finished:
        return f"game over: {session.outcome_text}"
    if session.abandoned is not None:
        return f"game over: {abandonment_text(session)}"
    if not session.started:
        free = session.seat_count - len(session.seats)
        return f"waiting for {free} more player{'s' if free != 1 else ''} to join"
    waiting = session.waiting_for()
    if waiting is None:
        return "the game cannot continue"
    if waiting.seat == session.local_seat:
        if session.my_turn() is None:
            return "working…"
        side = session.rules.describe(session.game_state, waiting.seat) if session.rules else ""
        return f"your turn ({side})"
    return waiting.describe()
