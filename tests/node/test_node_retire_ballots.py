"""A table's ballot to retire a stalled seat must survive whatever a peer sends about other
positions: a node keeps the votes of a few positions only, and it used to make room for a
vote's position before it checked the vote."""

from __future__ import annotations

import secrets
from types import SimpleNamespace

import pytest

from creepnet.node.game import GameRuntime
from creepnet.node.reporter import Reporter
from creepnet.node.retirement import MAX_BALLOTS, Retirements, _vote_message
from creepnet.node.storage import Home
from creepnet.node.updates import Broadcaster
from creepnet.protocol import retirement
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot


@pytest.fixture(scope="module")
def table():
    """A 3-seat Racer table in memory, stopped where seat 0's node waits on another seat's
    decision."""
    harness = SessionHarness(seats=3, kind="racer")
    bots = [seat_bot("racer", "random", seed) for seed in range(3)]
    session = harness.sessions[0]
    for _ in range(200):
        turn = session.expected()
        if session.started and turn is not None and not turn.automatic and turn.seat != 0:
            return harness
        harness.step(bots)
    raise AssertionError("seat 0 never waited on another seat's decision")


async def test_votes_about_other_positions_cannot_push_the_real_ballot_out(table, tmp_path):
    harness = table
    session = harness.sessions[0]
    game = session.game
    stalled = session.waiting_for().seat
    voter = next(seat for seat in range(3) if seat not in (0, stalled))
    runtime = GameRuntime(session=session, store=Home(tmp_path).game(game))
    node = Retirements({game: runtime}, None, Reporter(Broadcaster()), harness.identities[0])
    peer = SimpleNamespace(key=harness.identities[voter].public_key)
    here = retirement.Position(game, len(session.log), session.log.head, stalled)
    honest = retirement.vote(harness.identities[voter], here, voter)
    await node.on_message(runtime, peer, _vote_message(here, honest))

    junk = []
    for _ in range(2 * MAX_BALLOTS):  # unsigned votes for made-up positions
        made_up = retirement.Position(game, len(session.log), secrets.token_bytes(32), stalled)
        junk.append(_vote_message(made_up, [voter, bytes(64)]))
    # and votes the stalled seat signed itself: to retire another seat here, or one ahead
    other = retirement.Position(game, len(session.log), session.log.head, voter)
    junk.append(_vote_message(other, retirement.vote(harness.identities[stalled], other, stalled)))
    for _ in range(2 * MAX_BALLOTS):
        ahead = retirement.Position(game, len(session.log) + 1, secrets.token_bytes(32), voter)
        junk.append(
            _vote_message(ahead, retirement.vote(harness.identities[stalled], ahead, stalled))
        )
    for message in junk:
        await node.on_message(runtime, peer, message)

    ballots = node._ballots[game]
    assert here in ballots and list(ballots[here].votes) == [voter]  # the honest vote is kept
    assert other not in ballots  # a vote here for a seat the game does not wait on
    assert len(ballots) <= MAX_BALLOTS
