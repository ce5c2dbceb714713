"""Creepy Racer plays on after a retirement (3-4 seats, a table made with escrow): one seat stops
at each kind of owed step, the others vote it out, recover its keys, re-deal their escrow, and
finish with identical logs that verify valid and finished."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import (  # noqa: E402
    OPTIONS,
    STOPS,
    Forks,
    at_table,
    finish_without,
    later,
    one_log,
    owed_in_play,
    play_until_owed,
    players,
    seat_stops_and_the_others_finish,
    stop_forks,
)

from creepnet.protocol.games.racer.schedule import DeckStep, next_step  # noqa: E402
from creepnet.protocol.log import Rejection  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

# the whole games run with the proof memo (tests/proof_memo.py); the refusals without it
memoized = pytest.mark.usefixtures("memoized_proofs")


@pytest.fixture(scope="module")
def three_seat_stops() -> Forks[str]:
    return stop_forks(3)


@memoized
@pytest.mark.parametrize("stop", list(STOPS))
def test_a_seat_that_stops_is_retired_and_the_others_finish(
    three_seat_stops: Forks[str], stop: str
) -> None:
    seat_stops_and_the_others_finish(three_seat_stops, stop)  # 4 seats: test_racer_retire_four.py


def test_a_fork_is_a_table_of_its_own_that_goes_on_as_a_game_played_afresh(
    three_seat_stops: Forks[str],
) -> None:
    first, first_players, gone = three_seat_stops.take("shuffle")
    second, _, _ = three_seat_stops.take("shuffle")
    before = [session.state_digest() for _, session in second.everyone]
    play_until_owed(first, first_players, gone, STOPS["lock"])
    assert len(first.spectator.log) > len(second.spectator.log)
    assert [session.state_digest() for _, session in second.everyone] == before  # none shared
    lock, _, _ = three_seat_stops.take("lock")
    fresh = SessionHarness(seats=3, kind="racer", options=OPTIONS, seed=3)
    play_until_owed(fresh, players(3), gone, STOPS["lock"])

    def moves(t: SessionHarness) -> list:  # the proofs' nonces are fresh in every game
        return [
            (e.type, e.author, e.body.get("action"), e.body.get("op"))
            for e in t.spectator.log.events
        ]

    assert moves(first) == moves(lock) == moves(fresh)
    assert (
        first.spectator.game_state.state
        == lock.spectator.game_state.state
        == fresh.spectator.game_state.state
    )


MID_GAME = ["private release", "onion reveal", "decision"]


@pytest.fixture(scope="module")
def mid_game_stops() -> Forks[str]:
    """One four-seat game copied where seat 2 first owes each step of MID_GAME from turn 3 on."""
    t = SessionHarness(seats=4, kind="racer", options=OPTIONS, seed=11)
    table_players = players(4)
    stops = {name: later(STOPS[name], 3) for name in MID_GAME}
    return Forks(at_table(t, table_players, owed_in_play(t, table_players, 2, stops)))


@memoized
@pytest.mark.parametrize("stop", MID_GAME)
def test_a_seat_that_stops_mid_game_is_retired_and_three_finish(
    mid_game_stops: Forks[str], stop: str
) -> None:
    t, players, gone = mid_game_stops.take(stop)
    assert gone == 2
    run_without(t, players, {2})
    retire(t, 2)
    finish_without(t, players, {2})
    assert not t.rejections
    verdict = verify_log_bytes(one_log(t, [0, 1, 3]))
    assert verdict.valid and verdict.finished, verdict.error
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]


def test_a_bad_recovery_share_is_refused_with_its_author_named(
    three_seat_stops: Forks[str],
) -> None:
    t, players, _ = three_seat_stops.take("decision")  # seat 1 owes a decision
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
    t.step(players(3))
    assert t.spectator.started and t.spectator.game_state.deck.escrow is None
    join = next(e for e in t.spectator.log.events if e.type == "deck")
    assert "escrow" not in join.body
