"""A seat cannot stall the table by declaring and withdrawing for ever (spec-racer.md §2, §5.5).

A withdrawal uses no move and every event resets the table's patience, so under the old rule
one seat could write declare/withdraw pairs for as long as it liked and never be retired. The
genesis option ``withdrawals_per_turn`` caps the withdrawals of a turn; games hosted by the
CLI and the page are written with it. Logs without it keep the old rule and verify as before.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from racer_retire_support import play_until, players  # noqa: E402

from creepnet.engine.racer import (  # noqa: E402
    Decide,
    DeclareAttack,
    IllegalAction,
    Options,
    Pass,
    Withdraw,
    apply,
    crafted_position,
    legal_actions,
    observation_of_view,
    pending,
    slot_of,
)
from creepnet.protocol.games.racer.adapter import RacerRules  # noqa: E402
from creepnet.protocol.log import Rejection  # noqa: E402
from creepnet.protocol.rules import GameRuleError  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402

LINES = {0: ["Grimy Gus", "Slime Sally"], 1: ["Nitro Nosferatu", "Exhaust Ed"]}


def position(limit: int | None, turn: int = 0):
    options = Options(players=2, withdrawals_per_turn=limit)
    hands = {0: ["Flat Tire"], 1: ["Flat Tire"]}
    return crafted_position(lines=LINES, hands=hands, options=options, turn=turn)


def declare_and_withdraw(state, times: int):
    target = DeclareAttack(slot_of(state, "Nitro Nosferatu"))
    for _ in range(times):
        state = apply(apply(state, target), Withdraw())
    return state


def declarations(state) -> list[DeclareAttack]:
    return [a for a in legal_actions(state) if isinstance(a, DeclareAttack)]


def test_without_the_option_a_seat_may_declare_and_withdraw_without_end():
    """The old rule, kept for the logs made under it: fifty pairs, still its turn, no move used."""
    state = declare_and_withdraw(position(None), 50)
    assert pending(state) == Decide(0, "move") and state.turn.moves_left == 2
    assert declarations(state)


def test_the_turns_withdrawals_spent_no_declaration_is_offered_or_taken():
    state = declare_and_withdraw(position(2), 2)
    assert pending(state) == Decide(0, "move") and state.turn.moves_left == 2
    assert declarations(state) == []
    assert Pass() in legal_actions(state)  # the seat still moves or passes, as ever
    with pytest.raises(IllegalAction, match="withdrawals are spent"):
        apply(state, DeclareAttack(slot_of(state, "Exhaust Ed")))


def test_a_declaration_launched_is_not_counted_and_the_next_turn_starts_afresh():
    state = declare_and_withdraw(position(1), 1)
    assert declarations(state) == []
    state = apply(state, Pass())
    while pending(state) != Decide(1, "move"):  # discards and the next turn's draws
        legal = legal_actions(state)
        assert legal, f"stuck at {pending(state)}"
        state = apply(state, legal[0])
    assert state.turn.withdrawn == 0 and declarations(state)


@pytest.mark.parametrize("value", [0, -1, True, 10_001])
def test_a_genesis_limit_that_is_not_a_positive_integer_is_refused(value):
    with pytest.raises(GameRuleError):
        RacerRules().check_options({"withdrawals_per_turn": value}, 2)


def test_a_genesis_may_set_the_limit():
    RacerRules().check_options({"withdrawals_per_turn": 3, "release_ahead": 1}, 2)


# --- at a table: the log refuses the stall ------------------------------------------------------


def test_at_a_table_with_the_option_a_declaration_past_the_limit_is_illegal_and_changes_nothing():
    def may_attack(session, seat) -> bool:
        turn = session.expected()
        if not session.started or turn is None or turn.seat != seat or turn.automatic:
            return False
        state = session.engine_state
        return pending(state) == Decide(seat, "move") and bool(declarations(state))

    t = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 10, "withdrawals_per_turn": 2}, seed=3
    )
    seat = play_until(t, players(2), may_attack)
    assert seat is not None, "no turn with an attack to declare"
    session = t.sessions[seat]
    target = declarations(session.engine_state)[0].target
    declare = {"action": f"declare-attack target={target}"}
    for _ in range(2):  # the turn's two withdrawals: taken as ever
        t.broadcast(seat, [session.write("act", declare)])
        t.broadcast(seat, [session.write("act", {"action": "withdraw"})])
    t.pump()
    before = session.state_digest()
    with pytest.raises(Rejection) as err:
        session.write("act", declare)
    assert err.value.kind == "illegal" and "withdrawals are spent" in err.value.reason
    assert session.state_digest() == before
    assert observation_of_view(session.engine_state, seat).moves_left == 2  # it must move on
