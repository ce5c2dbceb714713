"""Playing a Racer table one event at a time, so a test can stop (or doctor) a seat at the very
event it owes: ``Session.owed`` signs every automatic event a seat owes at once."""

from __future__ import annotations

from collections.abc import Callable

from creepnet.protocol.authoring import own_reveal
from creepnet.protocol.event import Event
from creepnet.protocol.session import Session
from creepnet.protocol.testing.sessions import SessionHarness

# (the seat's own session, the seat) -> True to stop before it signs its next event
Stop = Callable[[Session, int], bool]


def one_owed(session: Session) -> Event | None:
    """Sign and append the next automatic event the seat owes, if any (one only)."""
    turn = session.expected()
    if turn is None or turn.seat != session.local_seat:
        return None
    if "start" in turn.types:
        return session.write("start", {})
    if not turn.automatic:
        return None
    if "reveal" in turn.types:
        assert session.secrets is not None and session.game is not None
        body = own_reveal(
            session.game, session.secrets.onion_seed, session.onion_length, session.draws
        )
        return session.write("reveal", body)
    assert session.private is not None
    return session.write(*session.private.owed(session.game_state, len(session.log)))


def play_until(t: SessionHarness, players: list, stop: Stop, rounds: int = 5_000) -> int | None:
    """Every seat plays, one event at a time, until ``stop`` holds for a seat before it signs
    (that seat is returned, everything sent delivered) or the game ends (None)."""
    for _ in range(rounds):
        for seat, session in enumerate(t.sessions):
            while True:
                if stop(session, seat):
                    t.pump()
                    return seat
                event = one_owed(session)
                if event is None:
                    break
                t.broadcast(seat, [event])
            if session.my_turn() is not None:
                t.broadcast(seat, [session.play(players[seat](session))])
            t.pump()
        if t.spectator.finished:
            return None
    raise AssertionError("the game neither ended nor reached the stop")
