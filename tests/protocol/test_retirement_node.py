"""The node's retirement timer (node/retirement.py), driven by a fake clock over in-memory sessions:
the countdown, the vote once the table's retire_after has passed, the author appending `retire`
when the last vote comes in, and the voter's promise (the late event of the seat it voted out is
kept aside as evidence, never played)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import trio
from retirement_support import run_without
from test_retirement import KIND, PLAYERS, RollCall

from creepnet.node.game import GameRuntime
from creepnet.node.retirement import RETIRED, RETIRING, Retirements
from creepnet.protocol.games import GAMES, Game
from creepnet.protocol.testing.sessions import SessionHarness


@pytest.fixture(autouse=True)
def rollcall() -> Iterator[None]:
    GAMES[KIND] = Game(RollCall(), {})
    yield
    GAMES.pop(KIND, None)


class Said:
    def __init__(self) -> None:
        self.updates: list[tuple[str, str]] = []

    def publish(self, kind: str, text: str, *args: Any) -> None:
        self.updates.append((kind, text))

    def note(self, runtime: Any, key: str, text: str, kind: str) -> None:
        self.updates.append((kind, text))


class Settled:
    async def settle(self, runtime: GameRuntime) -> None:
        self.runtime = runtime


class Wire:
    key = b"peer"

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def _node(
    t: SessionHarness, seat: int, clock: list[float]
) -> tuple[Retirements, GameRuntime, Wire, Said]:
    session = t.sessions[seat]
    runtime = GameRuntime(session, None)  # type: ignore[arg-type]
    wire, said = Wire(), Said()
    runtime.followers[wire.key] = wire  # type: ignore[assignment]
    node = Retirements(
        {runtime.game: runtime},
        Settled(),  # type: ignore[arg-type]
        said,  # type: ignore[arg-type]
        t.identities[seat],
        clock=lambda: clock[0],
    )
    return node, runtime, wire, said


@pytest.mark.parametrize("left", [False, True])
def test_the_timer_counts_down_votes_and_the_author_appends_the_retirement(left: bool) -> None:
    """``left``: seat 2 had sent its leave notice (lost on the way): it is told its retirement
    in its own words, never as a stranger who "stopped answering"."""
    t = SessionHarness(seats=3, kind=KIND, options={"retire_after": 10})
    run_without(t, PLAYERS, {2})
    clock = [100.0]
    zero, zero_rt, zero_wire, zero_said = _node(t, 0, clock)
    one, one_rt, one_wire, _ = _node(t, 1, clock)

    async def scenario() -> None:
        await zero.check(zero_rt)  # starts the clock
        clock[0] = 104.0
        await zero.check(zero_rt)
        assert (RETIRING, "waiting for p2: no word for 4 s, they will be retired in 6 s") in (
            zero_said.updates
        )
        assert zero_wire.sent == []
        clock[0] = 111.0
        await one.check(one_rt)  # one's clock started late: not yet
        assert one_wire.sent == []
        await one.check(one_rt)
        await zero.check(zero_rt)  # seat 0 votes; it is the author, but seat 1's vote is missing
        vote = zero_wire.sent[-1]
        assert vote["type"] == "retire-vote" and vote["seat"] == 2 and vote["vote"][0] == 0
        assert t.sessions[0].retired == []
        # seat 0's vote reaches seat 1, which has not timed out yet: kept, passed on, no vote
        await one.on_message(one_rt, zero_wire, vote)  # type: ignore[arg-type]
        assert one_wire.sent == [vote]
        clock[0] = 125.0
        await one.check(one_rt)  # now it votes
        await zero.on_message(zero_rt, one_wire, one_wire.sent[-1])  # type: ignore[arg-type]
        assert t.sessions[0].retired == [2]
        await zero.check(zero_rt)
        said = "p2 stopped answering and was retired; the table plays on without them"
        assert (RETIRED, said) in zero_said.updates  # it sent no leave notice
        two, two_rt, two_wire, two_said = _node(t, 2, clock)  # seat 2 comes back, too late
        if left:
            two.leave(two_rt)
            assert [m["type"] for m in two_wire.sent] == ["leave"]
            two_wire.sent.clear()
        for event in t.sessions[0].log.events[len(t.sessions[2].log) :]:
            t.sessions[2].receive(event.raw)  # it catches up: its own retirement
        await two.check(two_rt)
        ours = (
            "you left the game; the table retired your seat and plays on without you"
            if left
            else "the table retired you from this game; it plays on, and you watch"
        )
        assert (RETIRED, ours) in two_said.updates
        assert not any("p2 " in text for _, text in two_said.updates)  # not as a stranger
        assert two_wire.sent == []  # and it votes for nothing

    trio.run(scenario)


def test_a_voter_keeps_the_late_event_aside_as_evidence() -> None:
    t = SessionHarness(seats=3, kind=KIND, options={"retire_after": 5})
    run_without(t, PLAYERS, {2})
    late = t.sessions[2].owed()  # seat 2's reveal, signed late, not yet delivered
    assert late
    clock = [0.0]
    zero, zero_rt, _, said = _node(t, 0, clock)

    async def scenario() -> None:
        assert not zero.keep_aside(zero_rt, late[0].raw)  # before a vote: a normal event
        await zero.check(zero_rt)
        clock[0] = 6.0
        await zero.check(zero_rt)
        assert zero.keep_aside(zero_rt, late[0].raw)
        assert any("kept as evidence" in text for _, text in said.updates)

    trio.run(scenario)
