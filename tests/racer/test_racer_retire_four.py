"""The four-seat runs of test_racer_retire.py, in a file of their own so that two test workers
share that file's work (xdist hands out whole files): one seat stops at each kind of owed step
and three finish, and a second departure leaves two who finish."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from racer_retire_support import (  # noqa: E402
    OPTIONS,
    STOPS,
    Forks,
    finish_without,
    later,
    one_log,
    play_until_owed,
    players,
    seat_stops_and_the_others_finish,
    stop_forks,
    undecoded,
)
from retirement_support import retire, run_without  # noqa: E402

from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

pytestmark = pytest.mark.usefixtures("memoized_proofs")  # tests/proof_memo.py


@pytest.fixture(scope="module")
def four_seat_stops() -> Forks[str]:
    return stop_forks(4)


@pytest.mark.parametrize("stop", list(STOPS))
def test_a_seat_that_stops_is_retired_and_three_finish(
    four_seat_stops: Forks[str], stop: str
) -> None:
    seat_stops_and_the_others_finish(four_seat_stops, stop)


def test_a_second_departure_at_four_seats_and_the_two_left_finish() -> None:
    t = SessionHarness(seats=4, kind="racer", options=OPTIONS, seed=5)
    table_players = players(4)
    play_until_owed(t, table_players, 3, later(STOPS["decision"], 2))
    run_without(t, table_players, {3})
    retire(t, 3)
    play_until_owed(t, table_players, 1, later(STOPS["private release"], 4))
    run_without(t, table_players, {1, 3})
    assert t.spectator.waiting_for().seat == 1  # type: ignore[union-attr]
    retire(t, 1)
    finish_without(t, table_players, {1, 3})
    assert not t.rejections
    verdict = verify_log_bytes(one_log(t, [0, 2]))
    assert verdict.valid and verdict.finished, verdict.error
    assert sum("retired by the table" in note for note in verdict.notes) == 2
    assert t.spectator.game_state.retired == (3, 1)
    # Seat 3's escrows dealt before seat 1 left had seat 1 as a recipient: lost with it, so the
    # cards under those scalars stay hidden — the unused Creeps (`box`) too, since seat 3's layer
    # there is never recovered (nobody strips it); every other card decodes and is checked.
    game = t.spectator.game_state
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result
    hidden = set(undecoded(game))
    assert set(game.state.box) <= hidden
    assert len(hidden - set(game.state.box)) < len(game.cards or {})
