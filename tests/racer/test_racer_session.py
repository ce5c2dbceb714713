"""Creepy Racer through the real session code (in memory): whole games, seat views, spectators."""

import pytest

from creepnet.engine import racer
from creepnet.protocol.games.racer import public_observation, seat_view
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot
from creepnet.protocol.verify import verify_log_bytes


def racer_table(seats: int, seed: int = 1, turn_limit: int = 30) -> SessionHarness:
    return SessionHarness(
        seats=seats, kind="racer", options={"turn_limit": turn_limit}, seed=seed, onion_length=512
    )


def bots(seats: int, name: str = "random") -> list:
    return [seat_bot("racer", name, seat) for seat in range(seats)]


def log_bytes(session) -> bytes:
    return b"".join(event.raw for event in session.log.events)


@pytest.mark.usefixtures("memoized_proofs")  # each of the 5 checks of a proof runs once for real
def test_a_whole_game_is_the_same_at_every_seat_and_verifies():
    table = racer_table(3, seed=2)
    table.run(bots(3))
    assert table.rejections == []
    data = log_bytes(table.sessions[0])
    assert all(log_bytes(s) == data for s in [*table.sessions[1:], table.spectator])
    verdict = verify_log_bytes(data)
    assert verdict.valid and verdict.finished, verdict.error
    game = table.spectator.game_state
    # After the audit every card of the game is known, hidden ones included.
    assert game.cards is not None
    assert racer.audit(game.state, {s: c for s, c in game.cards.items()}) == []


def play_until_turn(table: SessionHarness, turn: int) -> None:
    players = bots(table.seats)
    while True:
        state = table.sessions[0].game_state.state if table.sessions[0].started else None
        deciding = any(s.my_turn() for s in table.sessions)
        if state is not None and state.turn is not None and state.turn.number >= turn and deciding:
            return
        assert table.step(players), "the game stopped early"


def test_each_seat_sees_its_own_hand_and_the_spectator_sees_none():
    table = racer_table(2, seed=4)
    play_until_turn(table, 2)
    spectator = table.spectator
    assert seat_view(spectator) is None and spectator.private is None
    public = spectator.game_state.state.known
    for seat, session in enumerate(table.sessions):
        view = seat_view(session)
        assert view is not None and view.seat == seat
        hand = dict(view.observation.hand)
        held = set(view.state.players[seat].hand)
        # Every held card is decoded (between draws one may still wait for its keys).
        assert set(hand) == held if session.my_turn() else set(hand) <= held
        assert not set(hand) & set(public)  # none of them is known to the spectator
        other = table.sessions[1 - seat]
        assert not set(hand) & set(seat_view(other).state.known)  # nor to the other seat
        assert public_observation(spectator, seat).hand == ()
