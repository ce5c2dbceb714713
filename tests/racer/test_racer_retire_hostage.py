"""A seat retired during the hand-over of a Hostage Exchange it is part of (docs/spec-racer.md
§5.9): the exchange is cancelled — the card already handed over stays with its taker, the other
goes back to its giver — and the others finish with identical logs that verify valid and
finished, whether the retired seat was the asker or the target, owing the blind (the taker) or
the unblind (the giver)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import play_until  # noqa: E402

from creepnet.engine.racer.state import HostageSwap  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, RacerGame, next_step  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

OPTIONS = {"creeps_per_player": 3, "face_up_creeps": 1, "escrow": 1, "turn_limit": 12}


def _at_hand_over(game: RacerGame, role: str, op: str) -> int | None:
    """The seat that owes ``op`` of a Hostage hand-over as the exchange's ``role``, if one does."""
    step, stage = next_step(game), game.state.stage
    if not (isinstance(step, DeckStep) and step.op == op and isinstance(stage, HostageSwap)):
        return None
    seat = stage.asker if role == "asker" else stage.target
    return seat if step.seat == seat else None


def _owes_hand_over(session: Session, seat: int, role: str, op: str) -> bool:
    return session.started and _at_hand_over(session.game_state, role, op) == seat


def _one_log(t: SessionHarness, seats: list[int]) -> bytes:
    logs = {b"".join(e.raw for e in t.sessions[s].log.events) for s in seats}
    logs.add(b"".join(e.raw for e in t.spectator.log.events))
    assert len(logs) == 1
    return logs.pop()


CASES = [  # (seats, role, op): the taker owes the blind, the giver the unblind
    (3, "asker", "unblind"),  # 2nd hand-over: the asker has taken its card, gives its own
    (3, "target", "blind"),  # 2nd hand-over: the target has given its card, takes the asker's
    (4, "asker", "blind"),  # 1st hand-over: nothing handed over yet
    (4, "asker", "unblind"),
    (4, "target", "unblind"),  # 1st hand-over: the asker has blinded the target's card
    (4, "target", "blind"),
]


@pytest.mark.parametrize(("seats", "role", "op"), CASES)
def test_a_seat_retired_at_a_hostage_hand_over_and_the_others_finish(
    seats: int, role: str, op: str
) -> None:
    for seed in range(20):
        t = SessionHarness(seats=seats, kind="racer", options=OPTIONS, seed=seed)
        players = [seat_bot("racer", "random", s) for s in range(seats)]
        gone = play_until(t, players, lambda s, seat: _owes_hand_over(s, seat, role, op))
        if gone is not None:
            break
    else:
        raise AssertionError(f"no game of 20 reached a {op} owed by the {role}")
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
    verdict = verify_log_bytes(_one_log(t, left))
    assert verdict.valid and verdict.finished, verdict.error
    assert any("retired by the table" in note for note in verdict.notes)
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]
    # The full audit decodes every card, the cancelled exchange's included: each in one place.
    end = t.spectator.game_state
    assert all(end.cards.get(slot) is not None or slot in end.state.known for slot in stage.picked)
