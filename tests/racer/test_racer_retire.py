"""Creepy Racer plays on after a retirement (3-4 seats, a table made with escrow): one seat stops
at each kind of owed step, the others vote it out, recover its keys, re-deal their escrow, and
finish with identical logs that verify valid and finished."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

from creepnet.engine import racer  # noqa: E402
from creepnet.protocol.deck.escrowing import refresh_due  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, RacerGame, next_step  # noqa: E402
from creepnet.protocol.log import Rejection  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

OPTIONS = {"creeps_per_player": 3, "face_up_creeps": 1, "escrow": 1, "turn_limit": 12}
Predicate = Callable[[Session, int], bool]


def _deck_step(op: str, private: bool | None = None) -> Predicate:
    def owed(session: Session, seat: int) -> bool:
        if not session.started:
            return False
        step = next_step(session.game_state)
        return (
            isinstance(step, DeckStep)
            and step.seat == seat
            and step.op == op
            and (private is None or (step.to != -1) == private)
        )

    return owed


def _reveal(session: Session, seat: int) -> bool:
    turn = session.expected()
    return session.started and turn is not None and turn.seat == seat and "reveal" in turn.types


def _decision(session: Session, seat: int) -> bool:
    turn = session.expected()
    return session.started and turn is not None and turn.seat == seat and not turn.automatic


STOPS: dict[str, Predicate] = {
    "shuffle": _deck_step("shuffle"),
    "lock": _deck_step("lock"),
    "private release": _deck_step("release", private=True),
    "onion reveal": _reveal,
    "decision": _decision,
}


def _players(seats: int) -> list:
    return [seat_bot("racer", "random", s) for s in range(seats)]


def _play_until(t: SessionHarness, players: list, gone: int, stop: Predicate) -> None:
    """Every seat plays until ``gone`` owes the step ``stop`` names; then it is silent."""
    for _ in range(20_000):
        for seat, session in enumerate(t.sessions):
            if stop(t.spectator, gone):
                return
            owed = session.owed()
            if session.my_turn() is not None and not stop(t.spectator, gone):
                owed.append(session.play(players[seat](session)))
            t.broadcast(seat, owed)
            t.pump()
    raise AssertionError("the seat never owed that step")


def _finish_without(t: SessionHarness, players: list, gone: set[int]) -> None:
    run_without(t, players, gone)
    for seat in range(t.seats):
        if seat not in gone:
            assert t.sessions[seat].finished, t.sessions[seat].waiting_for()


def _one_log(t: SessionHarness, seats: list[int]) -> bytes:
    logs = {b"".join(e.raw for e in t.sessions[s].log.events) for s in seats}
    logs.add(b"".join(e.raw for e in t.spectator.log.events))
    assert len(logs) == 1
    return logs.pop()


@pytest.mark.parametrize("stop", list(STOPS))
def test_a_seat_that_stops_is_retired_and_the_others_finish(stop: str) -> None:
    seat_stops_and_the_others_finish(3, stop)  # four seats: test_racer_retire_four.py


def seat_stops_and_the_others_finish(seats: int, stop: str) -> None:
    gone = 1
    t = SessionHarness(seats=seats, kind="racer", options=OPTIONS, seed=seats)
    players = _players(seats)
    _play_until(t, players, gone, STOPS[stop])
    run_without(t, players, {gone})
    assert t.spectator.waiting_for().seat == gone  # type: ignore[union-attr]
    retire(t, gone)
    _finish_without(t, players, {gone})
    assert not t.rejections
    left = [s for s in range(seats) if s != gone]
    verdict = verify_log_bytes(_one_log(t, left))
    assert verdict.valid and verdict.finished, verdict.error
    assert any("retired by the table" in note for note in verdict.notes)
    # A real ending, not a void, and a full audit: the retired seat's cards decode from its
    # escrow (its hand and Draw Deck included), so every card is checked to be in one place.
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]
    game = t.spectator.game_state
    assert _undecoded(game) == []
    out = [*game.state.players[gone].hand, *game.state.players[gone].deck]
    assert out and all(slot in game.cards or slot in game.state.known for slot in out)
    assert not game.state.players[gone].active and game.retired == (gone,)
    book = game.deck.escrow
    ops = [e.body.get("op") for e in t.spectator.log.events if e.type == "deck"]
    assert all((gone, scalar) in book.recovered for scalar in game.to_recover[gone])
    # one round of recoveries (two when retired before the Deck Shift: its draw deck is known
    # only after it), each by every seat left
    rounds, rest = divmod(ops.count("recover"), len(left))
    assert rest == 0 and (rounds > 0) == bool(game.to_recover[gone]) and rounds <= 2
    assert not any(refresh_due(game.deck, s) for s in left)
    assert ops.count("refresh") <= (len(left) if seats == 4 else 0)


def _undecoded(game: RacerGame) -> list[int]:
    """Slots the end-of-game audit could not decode (none, once every escrow opened)."""
    state = game.state
    assert game.cards is not None
    return [s for _, s in racer.locations(state) if s not in state.known and s not in game.cards]


def _later(stop: Predicate, turns: int) -> Predicate:
    """``stop``, but only from turn ``turns`` on (mid-game, not in the set-up)."""

    def owed(session: Session, seat: int) -> bool:
        turn = session.started and session.game_state.state.turn
        return bool(turn) and turn.number >= turns and stop(session, seat)  # type: ignore[union-attr]

    return owed


@pytest.mark.parametrize("stop", ["private release", "onion reveal", "decision"])
def test_a_seat_that_stops_mid_game_is_retired_and_three_finish(stop: str) -> None:
    t = SessionHarness(seats=4, kind="racer", options=OPTIONS, seed=11)
    players = _players(4)
    _play_until(t, players, 2, _later(STOPS[stop], 3))
    run_without(t, players, {2})
    retire(t, 2)
    _finish_without(t, players, {2})
    assert not t.rejections
    verdict = verify_log_bytes(_one_log(t, [0, 1, 3]))
    assert verdict.valid and verdict.finished, verdict.error
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]


def test_a_bad_recovery_share_is_refused_with_its_author_named() -> None:
    t = SessionHarness(seats=3, kind="racer", options=OPTIONS, seed=3)
    players = _players(3)
    _play_until(t, players, 1, STOPS["decision"])
    run_without(t, players, {1})
    retire(t, 1)
    live = t.sessions[0]
    step = next_step(live.game_state)
    assert isinstance(step, DeckStep) and step.op == "recover" and step.author == 0
    kind, body = live.private.owed(live.game_state, len(live.log))  # type: ignore[union-attr]
    assert kind == "deck"
    body["shares"] = [body["shares"][1], body["shares"][0], *body["shares"][2:]]
    before = live.state_digest()
    with pytest.raises(Rejection) as err:
        live.write("deck", body)
    assert err.value.author == t.identities[0].public_key and "recover" in err.value.reason
    assert live.state_digest() == before
    wrong = dict(body, scalars=body["scalars"][1:], shares=body["shares"][1:])
    with pytest.raises(Rejection) as err:  # not the scalars the table needs
        live.write("deck", wrong)
    assert err.value.author == t.identities[0].public_key


def test_a_table_without_escrow_cannot_retire_and_old_logs_keep_their_plain_deck() -> None:
    options = {k: v for k, v in OPTIONS.items() if k != "escrow"}
    t = SessionHarness(seats=3, kind="racer", options=options, seed=3)
    t.step(_players(3))
    assert t.spectator.started and t.spectator.game_state.deck.escrow is None
    join = next(e for e in t.spectator.log.events if e.type == "deck")
    assert "escrow" not in join.body
