"""Events in words, for people: the same sentences in `creepnet replay` and on the page."""

from __future__ import annotations

from creepnet.protocol.session import Session


def describe(session: Session, event_index: int) -> str:
    event = session.log.events[event_index]
    who = next(
        (session.seat_label(i) for i, key in enumerate(session.seat_keys) if key == event.author),
        event.author_fingerprint,
    )
    body = event.body
    what = {
        "genesis": lambda: f"hosts {body['kind']} game {body['name']!r} for {body['seats']} seats",
        "seat": lambda: f"seats {body['join']['player']} at seat {body['join']['seat']}",
        "start": lambda: "starts the game",
        "reveal": lambda: f"reveals randomness for draw {body['draw']}",
        "move": lambda: (
            f"plays {body['move']}" + (" and offers a draw" if body.get("draw") else "")
        ),
        "resign": lambda: "resigns",
        "accept": lambda: "accepts the draw",
        "decline": lambda: "declines the draw",
    }.get(event.type, lambda: event.type)()
    return f"seq {event.seq}: {who} {what}"
