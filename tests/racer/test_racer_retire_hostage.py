"""A seat retired during the hand-over of a Hostage Exchange it is part of (docs/spec-racer.md
§5.9): the exchange is cancelled — the card already handed over stays with its taker, the other
goes back to its giver — and the others finish with identical logs that verify valid and
finished, whether the retired seat was the asker or the target, owing the blind (the taker) or
the unblind (the giver)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import (  # noqa: E402
    OPTIONS,
    Forks,
    Held,
    Stop,
    one_log,
    players,
    stops_in_play,
)

from creepnet.engine.racer.state import HostageSwap  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, RacerGame, next_step  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

pytestmark = pytest.mark.usefixtures("memoized_proofs")  # tests/proof_memo.py


def _at_hand_over(game: RacerGame, role: str, op: str) -> int | None:
    """The seat that owes ``op`` of a Hostage hand-over as the exchange's ``role``, if one does."""
    step, stage = next_step(game), game.state.stage
    if not (isinstance(step, DeckStep) and step.op == op and isinstance(stage, HostageSwap)):
        return None
    seat = stage.asker if role == "asker" else stage.target
    return seat if step.seat == seat else None


def _owes_hand_over(session: Session, seat: int, role: str, op: str) -> bool:
    return session.started and _at_hand_over(session.game_state, role, op) == seat


CASES = [  # (seats, role, op): the taker owes the blind, the giver the unblind
    (3, "asker", "unblind"),  # 2nd hand-over: the asker has taken its card, gives its own
    (3, "target", "blind"),  # 2nd hand-over: the target has given its card, takes the asker's
    (4, "asker", "blind"),  # 1st hand-over: nothing handed over yet
    (4, "asker", "unblind"),
    (4, "target", "unblind"),  # 1st hand-over: the asker has blinded the target's card
    (4, "target", "blind"),
]


def hand_over_forks(seats: int) -> Forks[tuple[str, str]]:
    """Games of ``seats`` from seed 0 on (20 at most), each case's table copied where the first
    of them reaches it: what playing each case's seeds afresh until one reaches it would give."""

    def play() -> Iterator[Held]:
        left = {(role, op): _stop(role, op) for n, role, op in CASES if n == seats}
        for seed in range(20):
            t = SessionHarness(seats=seats, kind="racer", options=OPTIONS, seed=seed)
            table_players = players(seats)
            for key, seat in stops_in_play(t, table_players, dict(left)):
                del left[key]
                yield key, seat, t, table_players
                if not left:
                    return

    return Forks(play(), settle=lambda t: t.pump())  # play_until delivers what it had sent


def _stop(role: str, op: str) -> Stop:
    return lambda session, seat: _owes_hand_over(session, seat, role, op)


@pytest.fixture(scope="module")
def hand_overs() -> dict[int, Forks[tuple[str, str]]]:
    return {seats: hand_over_forks(seats) for seats in (3, 4)}


@pytest.mark.parametrize(("seats", "role", "op"), CASES)
def test_a_seat_retired_at_a_hostage_hand_over_and_the_others_finish(
    hand_overs: dict[int, Forks[tuple[str, str]]], seats: int, role: str, op: str
) -> None:
    t, players, gone = hand_overs[seats].take((role, op))
    game = t.spectator.game_state
    stage = game.state.stage
    assert isinstance(stage, HostageSwap) and _at_hand_over(game, role, op) == gone
    other = stage.target if role == "asker" else stage.asker
    taken_by_asker, taken_by_target = stage.picked
    handed_over = len(stage.to_learn) == 1  # the first card (the asker's take) is through
    run_without(t, players, {gone})
    assert t.spectator.waiting_for().seat == gone  # type: ignore[union-attr]
    retire(t, gone)
    after = t.spectator.game_state.state
    # Cancelled: nothing the deck has not handed over changes hands, on every replica alike.
    hand = after.players[other].hand
    if role == "asker":  # the other is the target: it gave taken_by_asker, was to take the other
        assert taken_by_target not in hand and (taken_by_asker in hand) != handed_over
    else:  # the other is the asker: it took taken_by_asker first, was to give taken_by_target
        assert taken_by_target in hand and (taken_by_asker in hand) == handed_over
    for slot in stage.picked:  # the engine's hands are the deck's holders
        name, j = t.spectator.game_state.where[slot]
        held = t.spectator.game_state.deck.pools[name].slots[j]
        assert (slot in hand) == (held.holder == other) and (slot in hand or held.holder == gone)
    assert not isinstance(after.stage, HostageSwap)
    left = [s for s in range(seats) if s != gone]
    run_without(t, players, {gone})
    for seat in left:
        assert t.sessions[seat].finished, t.sessions[seat].waiting_for()
    assert not [r for r in t.rejections if r[0] != gone]
    verdict = verify_log_bytes(one_log(t, left))
    assert verdict.valid and verdict.finished, verdict.error
    assert any("retired by the table" in note for note in verdict.notes)
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]
    # The full audit decodes every card, the cancelled exchange's included: each in one place.
    end = t.spectator.game_state
    assert all(end.cards.get(slot) is not None or slot in end.state.known for slot in stage.picked)
