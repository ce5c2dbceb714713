"""Retirement votes and the ``retire`` event (protocol/retirement.py) through real sessions, on a
throw-away 3-4 seat game that can play on without a seat (``rules.Retiring``): every roll is a
draw of every remaining seat's onion reveals, so retiring mid-draw is exercised too."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from retirement_support import position, retire, run_without, votes

from creepnet.protocol import retirement
from creepnet.protocol.games import GAMES, Game
from creepnet.protocol.log import Rejection
from creepnet.protocol.rules import GameRuleError, NeedRandom, Result, Seating, Turn, expect_keys
from creepnet.protocol.session import ALLOWED, Phase
from creepnet.protocol.testing.sessions import SessionHarness
from creepnet.protocol.verify import verify_log_bytes

KIND = "rollcall"


@dataclass(frozen=True)
class Roll:
    seats: int
    to_move: int = 0
    rolling: bool = False
    rolls: tuple[tuple[int, int], ...] = ()
    out: frozenset[int] = frozenset()
    turns: int = 6


class RollCall:
    """Seats roll in turn; after ``turns`` rolls the highest total wins.  Retiring a seat takes
    it out of the rotation (and a roll it was waiting for is not rolled)."""

    kind, min_seats, max_seats = KIND, 2, 4

    def check_options(self, options: dict[str, Any], seats: int) -> None:
        expect_keys(options, set())

    def start(self, seats: int, options: dict[str, Any], seating: Seating) -> Roll:
        return Roll(seats)

    def next(self, game: Roll) -> Turn | NeedRandom | None:
        if len(game.rolls) >= game.turns:
            return None
        if game.rolling:
            return NeedRandom(6, "die")
        return Turn(game.to_move, frozenset({"roll"}), "roll")

    def apply(self, game: Roll, seat: int, type: str, body: dict[str, Any], seq: int) -> Roll:
        expect_keys(body, set())
        if type != "roll" or game.rolling:
            raise GameRuleError("not now")
        return replace(game, rolling=True)

    def apply_random(self, game: Roll, value: int) -> Roll:
        rolls = (*game.rolls, (game.to_move, value + 1))
        return replace(game, rolling=False, rolls=rolls, to_move=self._after(game, game.to_move))

    def retire(self, game: Roll, seat: int) -> Roll:
        game = replace(game, out=game.out | {seat})
        if game.to_move == seat:
            game = replace(game, to_move=self._after(game, seat), rolling=False)
        return game

    @staticmethod
    def _after(game: Roll, seat: int) -> int:
        return next(
            s for k in range(1, game.seats + 1) if (s := (seat + k) % game.seats) not in game.out
        )

    def result(self, game: Roll) -> Result | None:
        if len(game.rolls) < game.turns:
            return None
        totals = {s: 0 for s in range(game.seats) if s not in game.out}
        for seat, value in game.rolls:
            if seat in totals:
                totals[seat] += value
        best = max(totals.values())
        leaders = [s for s, v in totals.items() if v == best]
        return Result(leaders[0] if len(leaders) == 1 else None, "the highest total")

    def action(self, game: Roll, seat: int, text: str) -> tuple[str, dict[str, Any]]:
        return "roll", {}

    def describe(self, game: Roll, seat: int) -> str:
        return "out" if seat in game.out else "rolling"


@pytest.fixture(autouse=True)
def rollcall() -> Iterator[None]:
    GAMES[KIND] = Game(RollCall(), {})
    yield
    GAMES.pop(KIND, None)


PLAYERS = [lambda session: "roll"] * 4


def _table(seats: int = 3) -> SessionHarness:
    return SessionHarness(seats=seats, kind=KIND)


def _logs(t: SessionHarness, seats: list[int]) -> set[bytes]:
    return {b"".join(e.raw for e in t.sessions[s].log.events) for s in seats}


def _stall(t: SessionHarness, gone: int) -> None:
    """Play until the table waits on ``gone``."""
    run_without(t, PLAYERS, {gone})
    waiting = t.sessions[0 if gone else 1].waiting_for()
    assert waiting is not None and waiting.seat == gone


def test_the_phase_table_allows_retire_and_abandon_while_playing_only() -> None:
    assert {"retire", "abandon"} <= ALLOWED[Phase.PLAYING]
    assert ALLOWED[Phase.ABANDONED] == frozenset()
    assert not {"retire", "abandon"} & (ALLOWED[Phase.LOBBY] | ALLOWED[Phase.FINISHED])


@pytest.mark.parametrize("gone", [0, 1, 2])
def test_three_seats_retire_the_one_who_stops_and_finish_with_identical_valid_logs(
    gone: int,
) -> None:
    t = _table(3)
    _stall(t, gone)
    event = retire(t, gone)
    assert event.author == t.identities[min(s for s in range(3) if s != gone)].public_key
    left = [s for s in range(3) if s != gone]
    run_without(t, PLAYERS, {gone})
    assert all(t.sessions[s].finished for s in left) and t.spectator.finished
    assert len(_logs(t, left)) == 1 and not t.rejections
    verdict = verify_log_bytes(_logs(t, left).pop())
    assert verdict.valid and verdict.finished
    assert any(f"seat {gone}" in note and "retired" in note for note in verdict.notes)
    assert t.spectator.retired == [gone]


def test_a_seat_retired_mid_draw_the_draw_completes_among_the_others() -> None:
    """Seat 2 stops at its onion reveal (seats 0 and 1 have revealed): after its retirement the
    draw is done with the two preimages in, and nobody reveals again for it."""
    t = _table(3)
    run_without(t, PLAYERS, {2})
    live = t.sessions[0]
    assert live.expected().types == frozenset({"reveal"})  # type: ignore[union-attr]
    assert len(live.reveals) == 2 and live.draws == 0
    retire(t, 2)
    assert live.draws == 1 and live.reveals == []


def test_a_second_departure_at_four_seats_then_two_left_may_only_abandon() -> None:
    t = _table(4)
    _stall(t, 3)
    retire(t, 3)
    _stall(t, 1)
    retire(t, 1)
    assert t.spectator.retired == [3, 1] and t.spectator.remaining == (0, 2)
    _stall(t, 2)
    live = t.sessions[0]
    where = position(live, 2)
    with pytest.raises(Rejection) as err:  # two left: a retirement is no longer possible
        live.write("retire", retirement.retire_body(where, votes(t, 2)))
    assert "abandonment" in err.value.reason
    live.write("abandon", {"seat": 2})
    assert live.phase is Phase.ABANDONED and not live.finished
    verdict = verify_log_bytes(b"".join(e.raw for e in live.log.events))
    assert verdict.valid and not verdict.finished
    assert (
        verdict.outcome == f"unfinished: abandoned by seat 2, claimed by seat 0 at seq {where.seq}"
    )


def _forged(t: SessionHarness, gone: int, body: dict, author: int | None = None) -> Rejection:
    """A retirement every replica refuses, naming its author, with nothing changed."""
    author = author if author is not None else min(s for s in range(t.seats) if s != gone)
    signer = t.sessions[author]
    event = signer._sign("retire", body)
    for _, session in t.everyone:
        before = session.state_digest()
        receipt = session.receive(event.raw)
        assert receipt.status == "rejected", receipt
        assert session.state_digest() == before
        rejection = receipt.rejection
        assert rejection is not None and rejection.author == t.identities[author].public_key
    return rejection


def test_forged_retirements_are_refused_with_their_author_named() -> None:
    t = _table(4)
    _stall(t, 2)
    live = t.sessions[0]
    where = position(live, 2)
    good = votes(t, 2)  # seats 0, 1, 3
    body = retirement.retire_body
    missing = _forged(t, 2, body(where, good[:2]))
    assert "missing" in missing.reason
    assert "twice" in _forged(t, 2, body(where, [good[0], good[0], good[1], good[2]])).reason
    by_x = retirement.vote(t.identities[2], where, 0)  # X signs seat 0's vote
    assert "not its signature" in _forged(t, 2, body(where, [by_x, good[1], good[2]])).reason
    x_votes = [2, t.identities[2].sign(where.vote_message(2))]
    assert "seat being retired" in _forged(t, 2, body(where, [*good, x_votes])).reason
    outsider = [7, bytes(64)]
    assert "no seat" in _forged(t, 2, body(where, [*good, outsider])).reason
    elsewhere = replace(where, seq=where.seq + 1)
    later = [retirement.vote(t.identities[v], elsewhere, v) for v in (0, 1, 3)]
    assert "not its signature" in _forged(t, 2, body(where, later)).reason
    other_branch = replace(where, prev=bytes(32))
    branch = [retirement.vote(t.identities[v], other_branch, v) for v in (0, 1, 3)]
    assert "not its signature" in _forged(t, 2, body(where, branch)).reason
    someone_else = body(replace(where, seat=3), good)
    assert "waits on seat 2" in _forged(t, 2, someone_else).reason
    assert _forged(t, 2, body(where, good), author=1).kind == "entitlement"
    assert _forged(t, 2, {"seat": 2, "votes": good, "extra": 1}).kind == "illegal"
    # and the honest one is accepted
    retire(t, 2)
    assert t.spectator.retired == [2]


def test_a_game_that_cannot_play_on_without_a_seat_ends_abandoned_when_the_table_retires_it() -> (
    None
):
    t = SessionHarness(seats=3, kind="racer", options={"creeps_per_player": 3, "face_up_creeps": 1})
    run_without(t, [lambda s: "pass"] * 3, {1})
    live = t.sessions[0]
    assert live.waiting_for().seat == 1  # type: ignore[union-attr]
    live.write("retire", retirement.retire_body(position(live, 1), votes(t, 1)))
    assert live.phase is Phase.ABANDONED and live.retired == []
    assert live.abandoned == retirement.Abandonment(1, 0, len(live.log) - 1)
    verdict = verify_log_bytes(b"".join(e.raw for e in live.log.events))
    assert verdict.valid and not verdict.finished
    assert (
        verdict.outcome
        == f"unfinished: abandoned by seat 1, claimed by seat 0 at seq {len(live.log) - 1}"
    )


def test_retire_after_is_a_genesis_option_of_every_game() -> None:
    t = SessionHarness(seats=3, kind=KIND, options={"retire_after": 45})
    assert t.spectator.retire_after == 45 and t.spectator.options == {}
    assert SessionHarness(seats=2, kind="creeper").spectator.retire_after == 120
    for bad in (0, -1, "45", True, 86_401):
        with pytest.raises(Rejection):
            SessionHarness(seats=2, kind="creeper", options={"retire_after": bad})


def test_a_ballot_collects_votes_and_keeps_its_promise() -> None:
    t = _table(3)
    _stall(t, 2)
    live = t.sessions[0]
    where = position(live, 2)
    ballot = retirement.Ballot(where, live.seat_keys, live.retired)
    assert not ballot.blocks(where.seq, 2)
    ballot.cast(t.identities[0], 0)
    assert ballot.blocks(where.seq, 2) and not ballot.blocks(where.seq, 1)
    assert not ballot.add([0, bytes(64)]) and not ballot.add("junk")
    assert not ballot.complete
    assert ballot.add(votes(t, 2, [1])[0])
    assert ballot.complete
    expected = votes(t, 2)
    event = live.write("retire", ballot.body())
    assert event.body["votes"] == expected


def test_an_objection_voids_the_promise_and_a_leave_notice_is_checked() -> None:
    t = _table(3)
    _stall(t, 2)
    live = t.sessions[0]
    where = position(live, 2)
    ballot = retirement.Ballot(where, live.seat_keys, live.retired)
    ballot.cast(t.identities[0], 0)
    late = bytes(32)
    signature = retirement.objection(t.identities[1], where, 1, late)
    assert retirement.check_objection(where, live.seat_keys, 1, late, signature)
    assert not retirement.check_objection(where, live.seat_keys, 1, bytes([1]) * 32, signature)
    ballot.object()
    assert not ballot.blocks(where.seq, 2) and not ballot.complete
    game = live.game
    assert game is not None
    notice = retirement.leave_notice(t.identities[2], game, 2)
    assert retirement.check_leave(game, live.seat_keys, 2, notice)
    assert not retirement.check_leave(game, live.seat_keys, 1, notice)


def test_an_abandonment_needs_two_seats_left_and_the_other_seat() -> None:
    t = _table(3)
    _stall(t, 2)
    with pytest.raises(Rejection) as err:
        t.sessions[0].write("abandon", {"seat": 2})
    assert "retired, not abandoned" in err.value.reason


def test_a_draw_whose_purpose_leaves_with_the_seat_is_spent_and_later_seats_skip_a_layer() -> None:
    """Seat 1 rolled its own die and stops at its reveal (seat 0 has revealed, seat 2 not): its
    roll is not rolled, the draw is spent unused, and seat 2's next reveal hashes through the
    layer it never revealed; the game still finishes with valid logs."""
    t = _table(3)
    for _ in range(1000):
        spectator = t.spectator
        game, turn = spectator.game_state, spectator.expected()
        if spectator.started and game.to_move == 1 and game.rolling and turn.seat == 1:  # type: ignore[union-attr]
            break
        t.step(PLAYERS)
    live = t.sessions[0]
    draws = live.draws
    assert len(live.reveals) == 1
    retire(t, 1)
    assert live.draws == draws + 1 and live.reveals == [] and live.skipped == {2: 1}
    run_without(t, PLAYERS, {1})
    assert live.finished and not t.rejections and live.skipped == {}
    verdict = verify_log_bytes(_logs(t, [0, 2]).pop())
    assert verdict.valid and verdict.finished


def test_a_draw_whose_purpose_leaves_with_its_last_revealer_is_spent_not_completed() -> None:
    """Seat 2 rolled its own die and stops at the last reveal (seats 0 and 1 have revealed):
    the next step after its retirement is no draw, so the draw is spent unused, not completed
    with the two preimages in (PROTOCOL.md §5.5: the next step alone decides), and nobody
    skips a layer (everyone left had revealed)."""
    t = _table(3)
    for _ in range(1000):
        spectator = t.spectator
        game, turn = spectator.game_state, spectator.expected()
        if spectator.started and game.to_move == 2 and game.rolling and turn.seat == 2:  # type: ignore[union-attr]
            break
        t.step(PLAYERS)
    live = t.sessions[0]
    draws, rolls = live.draws, live.game_state.rolls
    assert len(live.reveals) == 2
    retire(t, 2)
    assert live.draws == draws + 1 and live.reveals == [] and live.skipped == {}
    assert live.game_state.rolls == rolls  # no value reached the game
    run_without(t, PLAYERS, {2})
    assert live.finished and not t.rejections
    assert verify_log_bytes(_logs(t, [0, 1]).pop()).valid


def test_a_vote_or_objection_for_a_position_past_the_frame_is_refused_not_a_crash() -> None:
    # A node message may carry any msgpack integer; the frame's integers are signed 8 bytes.
    keys = [bytes([i]) * 32 for i in range(3)]
    far = retirement.Position(b"g" * 16, 1 << 63, b"p" * 32, 0)
    with pytest.raises(GameRuleError, match="no log can have"):
        retirement.check_vote(far, keys, [1, b"s" * 64])
    assert not retirement.check_objection(far, keys, 1, b"e" * 32, b"s" * 64)
    seat_far = retirement.Position(b"g" * 16, 5, b"p" * 32, 1 << 64)
    assert not retirement.check_objection(seat_far, keys, 1, b"e" * 32, b"s" * 64)


def test_a_retire_repeating_a_valid_vote_is_refused_after_a_table_s_worth_of_signatures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One valid vote repeated to fill an event (~14,000 copies in 1 MiB) was checked copy by
    copy before the count was: ~0.9 s of signature checks for one event.  A list longer than
    the votes wanted fails at step 5 whatever the signatures, so no more are checked."""
    t = _table(4)
    _stall(t, 2)
    good = votes(t, 2)  # seats 0, 1, 3
    checked = []
    real = retirement.verify_signature
    monkeypatch.setattr(
        retirement, "verify_signature", lambda *args: checked.append(1) or real(*args)
    )
    flood = _forged(t, 2, retirement.retire_body(position(t.sessions[0], 2), [good[0]] * 1000))
    assert flood.kind == "illegal" and "twice" in flood.reason
    assert len(checked) <= len(t.everyone) * (len(good) + 1)  # a table's worth at each replica
