"""Complaints in Creepy Racer (docs/ESCROW.md "How Creepy Racer uses it", step 2): a recipient
whose escrowed share does not open files `complain` in place of its next deck step, on its own
(the seat's private side does it); an upheld complaint ends the game void naming the dealer, a
false or late one is refused naming its author."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import one_owed, play_until  # noqa: E402

from creepnet.protocol.deck.escrowing import complaint_message  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, RacerGame, next_step  # noqa: E402
from creepnet.protocol.log import Rejection  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

OPTIONS = {"creeps_per_player": 3, "face_up_creeps": 1, "escrow": 1, "turn_limit": 12}


def _table(seats: int = 3, seed: int = 4) -> tuple[SessionHarness, list]:
    t = SessionHarness(seats=seats, kind="racer", options=OPTIONS, seed=seed)
    return t, [seat_bot("racer", "random", s) for s in range(seats)]


def _owes(session: Session, seat: int, op: str) -> bool:
    if not session.started or session.finished:
        return False
    step = next_step(session.game_state)
    return isinstance(step, DeckStep) and step.author == seat and step.op == op


def _log(session: Session) -> bytes:
    return b"".join(e.raw for e in session.log.events)


def _sent_to(game: RacerGame, seat: int, since: int) -> list:
    """The escrows kept from index ``since`` on of which ``seat`` is a recipient."""
    book = game.deck.escrow
    assert book is not None
    return [t for t, _ in book.kept[since:] if seat in t.recipients]


@pytest.mark.parametrize("seats", [3, 4])
def test_a_dealer_of_a_bad_share_is_convicted_by_the_recipients_own_complaint(seats: int) -> None:
    t, players = _table(seats)
    # The doctor: the first seat to lock a pool breaks its escrow of position 0 for its first
    # recipient (the box stays 48 bytes: the public check passes; only the recipient can tell).
    dealer = play_until(t, players, lambda s, seat: _owes(s, seat, "lock"))
    assert dealer is not None
    session = t.sessions[dealer]
    type_, body = session.private.owed(session.game_state, len(session.log))  # type: ignore[union-attr]
    first = body["escrow"][0]
    box = first["boxes"][0]
    broken = {**first, "boxes": [bytes([box[0] ^ 1]) + box[1:], *first["boxes"][1:]]}
    event = session.write(type_, {**body, "escrow": [broken, *body["escrow"][1:]]})
    t.broadcast(dealer, [event])
    t.pump()
    assert not t.rejections  # every replica accepts it: the bundle passes the public check
    victim = t.spectator.game_state.deck.escrow.kept[-len(body["escrow"])][0].recipients[0]
    play_until(t, players, lambda s, seat: False)  # honest play, nobody told to complain
    assert not t.rejections
    complaints = [e for e in t.spectator.log.events if e.body.get("op") == "complain"]
    assert len(complaints) == 1 and complaints[0].author == t.identities[victim].public_key
    assert complaints[-1] is t.spectator.log.events[-1]  # nothing more after it
    for s in (*t.sessions, t.spectator):
        result = s.result
        assert result is not None and result.culprit == dealer and result.winner is None
        assert result.reason.startswith(f"escrow: seat {dealer} dealt a bad share of its lock ")
        assert f"to seat {victim} (" in result.reason
    verdict = verify_log_bytes(_log(t.spectator))
    assert not verdict.valid and verdict.error is not None
    assert verdict.error.kind == "audit" and verdict.error.author == t.identities[dealer].public_key


def _owes_with_share_in_window(session: Session, seat: int) -> bool:
    """The seat owes a deck step, has made one already, and has a share sent since."""
    if not _owes(session, seat, "release"):
        return False
    game = session.game_state
    since = game.complaint_window(seat)
    return since > 0 and bool(_sent_to(game, seat, since)) and bool(_sent_to(game, seat, 0))


def test_a_false_or_late_complaint_is_refused_naming_its_author() -> None:
    t, players = _table()
    seat = play_until(t, players, _owes_with_share_in_window)
    assert seat is not None
    session = t.sessions[seat]
    game = session.game_state
    deck, keys = game.deck, session.private._me(game).keys  # type: ignore[union-attr]
    since = game.complaint_window(seat)
    before = session.state_digest()
    honest = _sent_to(game, seat, since)[0]
    false = complaint_message(deck, keys, seat, honest.dealer, honest.scalar)
    with pytest.raises(Rejection) as err:
        session.write("deck", false)
    assert err.value.author == t.identities[seat].public_key
    assert "false complaint" in err.value.reason
    late = _sent_to(game, seat, 0)[0]  # from before the window: its last deck step closed it
    assert late not in _sent_to(game, seat, since)
    with pytest.raises(Rejection) as err:  # about an escrow from before its last deck step
        session.write("deck", complaint_message(deck, keys, seat, late.dealer, late.scalar))
    assert err.value.author == t.identities[seat].public_key and "window" in err.value.reason
    assert session.state_digest() == before
    # Nor may another seat complain where this one owes the step: entitlement, its author named.
    other = next(s for s in range(t.seats) if s != seat and seat in honest.recipients)
    stranger = t.sessions[other]
    with pytest.raises(Rejection) as err:
        stranger.write("deck", false)
    assert err.value.author == t.identities[other].public_key and err.value.kind == "entitlement"
    # The honest step is still what the seat owes, and the game goes on.
    assert one_owed(session) is not None


def test_no_complaint_once_the_game_is_over_the_audit_rederives_every_escrow() -> None:
    t, players = _table(seed=2)
    seat = play_until(t, players, lambda s, seat: _owes(s, seat, "reveal"), rounds=20_000)
    assert seat is not None
    session = t.sessions[seat]
    game = session.game_state
    assert session.private.complaint(game) is None  # type: ignore[union-attr]
    sent = _sent_to(game, seat, 0)[-1]
    keys = session.private._me(game).keys  # type: ignore[union-attr]
    with pytest.raises(Rejection) as err:
        session.write("deck", complaint_message(game.deck, keys, seat, sent.dealer, sent.scalar))
    assert err.value.author == t.identities[seat].public_key and "over" in err.value.reason
