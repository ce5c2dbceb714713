"""Logs with a seat that left, for the replay tests: a Racer table of three (escrow) that retires
a silent seat mid-game and plays on, and a Creeper game its last other player claims abandoned.
Built through in-memory sessions (protocol/testing), once per test process."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
sys.path.insert(0, str(Path(__file__).parent.parent))
from proof_memo import memoized_proofs  # noqa: E402
from retirement_support import retire, run_without  # noqa: E402

from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot, seat_bot  # noqa: E402

RACER = {"creeps_per_player": 3, "face_up_creeps": 1, "escrow": 1, "turn_limit": 8}
GONE = 2  # the seat that stops answering


@cache
def retired_racer_log() -> bytes:
    """Seat 2 stops at its first decision of turn 3; seats 0 and 1 retire it and finish.  Built
    with the proof memo (tests/proof_memo.py: a repeat of a check another replica passed is not
    run again); the replays under test check the log's every proof for real."""
    with memoized_proofs():
        return _retired_racer_log()


def _retired_racer_log() -> bytes:
    t = SessionHarness(seats=3, kind="racer", options=RACER, seed=11)
    players = [seat_bot("racer", "random", s) for s in range(3)]
    for _ in range(20_000):
        if _owes_a_decision(t):
            break
        for seat, session in enumerate(t.sessions):
            if _owes_a_decision(t):
                break
            owed = session.owed()
            if session.my_turn() is not None:
                owed.append(session.play(players[seat](session)))
            t.broadcast(seat, owed)
            t.pump()
    run_without(t, players, {GONE})
    retire(t, GONE)
    run_without(t, players, {GONE})
    assert t.spectator.finished and list(t.spectator.retired) == [GONE]
    return b"".join(e.raw for e in t.spectator.log.events)


def _owes_a_decision(t: SessionHarness) -> bool:
    """Seat GONE owes a decision of its own, from turn 3 on."""
    session = t.spectator
    turn = session.expected()
    state = session.game_state.state if session.started else None
    return (
        state is not None
        and state.turn is not None
        and state.turn.number >= 3
        and turn is not None
        and turn.seat == GONE
        and not turn.automatic
    )


@cache
def abandoned_creeper_log() -> bytes:
    """Four plies, then seat 0 claims the game abandoned by seat 1, which owes the next move."""
    t = SessionHarness(seed=5, options={"max_plies": 20})
    players = [creeper_bot("random", 1), creeper_bot("random", 2)]
    for _ in range(100):
        if t.spectator.started and len(t.spectator.log) >= 9:
            waiting = t.spectator.waiting_for()
            if waiting is not None and waiting.seat == 1:
                break
        t.step(players)
    event = t.sessions[0].write("abandon", {"seat": 1})
    t.broadcast(0, [event])
    t.pump()
    assert t.spectator.abandoned is not None
    return t.spectator.log.to_bytes()
