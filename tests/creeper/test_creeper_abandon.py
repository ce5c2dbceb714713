"""Two seats: no escrow, no retirement; the remaining player may claim an abandonment at the
position the other owes (protocol/retirement.py).  The log verifies as unfinished, abandoned."""

from __future__ import annotations

import pytest

from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Phase
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot
from creepnet.protocol.verify import verify_log_bytes


def _stalled(kind: str, gone: int, options: dict | None = None) -> SessionHarness:
    """Play until the table waits on seat ``gone`` for a decision, after a few moves."""
    t = SessionHarness(seats=2, kind=kind, options=options or {}, seed=3)
    players = [seat_bot(kind, "random", s) for s in range(2)]
    for _ in range(10_000):
        waiting = t.spectator.waiting_for()
        turn = t.spectator.expected()
        stalled = waiting is not None and waiting.seat == gone and len(t.spectator.log) > 8
        if stalled and turn is not None and not turn.automatic:
            return t
        t.step(players)
    raise AssertionError("the game never waited on that seat")


@pytest.mark.parametrize(
    ("kind", "options"),
    [("creeper", {}), ("racer", {"creeps_per_player": 3, "face_up_creeps": 1})],
)
@pytest.mark.parametrize("gone", [0, 1])
def test_the_remaining_player_claims_an_abandonment(kind: str, options: dict, gone: int) -> None:
    t = _stalled(kind, gone, options)
    claimant = 1 - gone
    seq = len(t.sessions[claimant].log)
    event = t.sessions[claimant].write("abandon", {"seat": gone})
    t.broadcast(claimant, [event])
    t.pump()
    assert not t.rejections
    for session in (t.sessions[gone], t.spectator):
        assert session.phase is Phase.ABANDONED and not session.finished
        assert session.waiting_for() is None
    verdict = verify_log_bytes(b"".join(e.raw for e in t.spectator.log.events))
    assert verdict.valid and not verdict.finished
    assert (
        verdict.outcome
        == f"unfinished: abandoned by seat {gone}, claimed by seat {claimant} at seq {seq}"
    )
    # nothing follows a claim: not the late move, not a second claim
    with pytest.raises(Rejection):
        t.sessions[claimant].write("abandon", {"seat": gone})


def test_only_the_other_seat_may_claim_and_only_while_waited_on() -> None:
    t = _stalled("creeper", 1)
    with pytest.raises(Rejection) as err:  # seat 1 cannot claim its own abandonment
        t.sessions[1].write("abandon", {"seat": 1})
    assert err.value.kind == "entitlement"
    with pytest.raises(Rejection) as err:  # seat 0 is not waited on
        t.sessions[1].write("abandon", {"seat": 0})
    assert err.value.author == t.identities[1].public_key
    with pytest.raises(Rejection):  # the body names the seat and nothing else
        t.sessions[0].write("abandon", {"seat": 1, "why": "slow"})
    with pytest.raises(Rejection) as err:  # a 2-seat game cannot retire
        t.sessions[0].write("retire", {"seat": 1, "votes": []})
    assert "abandonment" in err.value.reason
    assert t.spectator.phase is Phase.PLAYING
