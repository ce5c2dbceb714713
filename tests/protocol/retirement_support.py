"""Driving a retirement through in-memory sessions (protocol/testing/sessions.py): the seats
left vote, the deterministic author appends ``retire``, everyone else receives it."""

from __future__ import annotations

from creepnet.protocol import retirement
from creepnet.protocol.event import Event
from creepnet.protocol.session import Session
from creepnet.protocol.testing.sessions import SessionHarness


def position(session: Session, seat: int) -> retirement.Position:
    assert session.game is not None and session.log.head is not None
    return retirement.Position(session.game, len(session.log), session.log.head, seat)


def votes(t: SessionHarness, seat: int, voters: list[int] | None = None) -> list[list]:
    """Every remaining seat's vote (or those of ``voters``) to retire ``seat`` now."""
    live = t.sessions[author_hint(t, seat)]
    where = position(live, seat)
    chosen = voters if voters is not None else [s for s in live.remaining if s != seat]
    return [retirement.vote(t.identities[v], where, v) for v in chosen]


def retire(t: SessionHarness, seat: int) -> Event:
    """The table retires ``seat`` at the position it owes; returns the event."""
    author = retirement.retire_author(t.seats, t.sessions[author_hint(t, seat)].retired, seat)
    session = t.sessions[author]
    event = session.write("retire", retirement.retire_body(position(session, seat), votes(t, seat)))
    t.broadcast(author, [event])
    t.pump()
    return event


def author_hint(t: SessionHarness, seat: int) -> int:
    """A seat still playing other than ``seat``, whose replica says who is retired."""
    retired = t.spectator.retired
    return next(s for s in range(t.seats) if s != seat and s not in retired)


def run_without(
    t: SessionHarness, players: list, gone: set[int], max_rounds: int = 100_000
) -> None:
    """Play on with the seats in ``gone`` silent once the game has started (a seat can only be
    retired from a game under way), until the game waits on one of them or ends."""
    for _ in range(max_rounds):
        progressed = False
        for seat, session in enumerate(t.sessions):
            if seat in gone and t.spectator.started:
                continue
            owed = session.owed()
            if session.my_turn() is not None:
                owed.append(session.play(players[seat](session)))
            if owed:
                t.broadcast(seat, owed)
                progressed = True
        if t.pump() == 0 and not progressed:
            return
