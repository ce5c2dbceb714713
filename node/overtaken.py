"""Our own move crossed our retirement: take the table's ``retire`` in its place.

A seat the table waits on for its ``retire_after`` seconds may still sign its move just as the
others complete its retirement at that position (its link was down, it moved in the last
second).  Its node then holds its own event at S and the table's ``retire`` (or ``abandon``)
of its seat at S, and with nothing else it would refuse the table's log for good: a game that
goes on without it, and a node that blames an honest seat for the retirement.

A complete retirement carries a signed vote of every other remaining seat for (S, P, us), and
an honest seat votes only while it holds no event of ours at S and never takes one after
(docs/PROTOCOL.md "Convergence"): so nobody honest took what we wrote from S on, and nothing of
it was played.  The node checks that first, cheaply (the votes' signatures, ``check_retire``),
so a forged retirement costs a few signature checks, never a replay.  Only then it replays the
log up to S with our secrets, takes the retirement there, keeps what it cuts off in
``log.cut`` (it is what we signed: evidence, whatever happens next) and goes on from there.
Everything from S must be ours: an event of another seat after ours means some seat took our
move, and then the retirement is not ours to take.
"""

from __future__ import annotations

import trio

from creepnet.node.game import GameRuntime, PassedOn
from creepnet.node.reporter import Reporter
from creepnet.node.retirement import RETIRED
from creepnet.protocol import retirement
from creepnet.protocol.event import Event
from creepnet.protocol.log import Rejection, parse_or_reject
from creepnet.protocol.rules import GameRuleError
from creepnet.protocol.session import Session


async def take_retirement(runtime: GameRuntime, raw: bytes, reporter: Reporter) -> Rejection | None:
    """Replace our events from the retirement's position with it; None when taken, else why
    not (a Rejection naming whom to blame).  Caller holds runtime.lock."""
    session = runtime.session
    event = parse_or_reject(raw)
    seq, ours = event.seq, session.local_seat
    assert ours is not None and session.identity is not None and session.game is not None
    mine = session.identity.public_key
    if any(later.author != mine for later in session.log.events[seq:]):
        return Rejection(seq, "chain", "conflicts with an accepted event")
    position = retirement.Position(session.game, seq, event.prev, ours)
    check = retirement.check_abandon if event.type == "abandon" else retirement.check_retire
    try:
        check(position, session.seat_keys, session.retired, event)
    except GameRuleError as exc:
        return Rejection(seq, "illegal", str(exc), event.author)
    except Rejection as exc:
        return exc
    kept = [logged.raw for logged in session.log.events[:seq]]
    try:
        fresh = await trio.to_thread.run_sync(_replayed, kept, session)
    except Rejection as exc:  # our own file holds only events we took: damage, said as such
        return Rejection(exc.seq, exc.kind, f"our own log no longer replays: {exc.reason}")
    receipt = fresh.receive(raw)
    if receipt.status != "accepted":
        return receipt.rejection or Rejection(seq, "illegal", "the retirement does not hold")
    cut = session.log.events[seq:]
    where = await trio.to_thread.run_sync(runtime.store.truncate_events, kept)
    session.adopt(fresh)
    runtime.stored = seq
    runtime.published = min(runtime.published, seq)
    runtime.passed_on, runtime.fetching, runtime.unusable = PassedOn(), None, {}
    if event.type == "abandon":
        text = (
            f"your opponent claimed the game abandoned at seq {seq} before your move reached "
            f"them: {_moves(cut)} not played ({where}); the game ends unfinished"
        )
    else:
        text = (
            f"the table retired you at seq {seq} before your move reached the others: "
            f"{_moves(cut)} not played ({where}); the table plays on, and you watch"
        )
    reporter.publish(RETIRED, text, runtime.game, data={"seq": seq, "cut": len(cut)})
    return None


def _replayed(raws: list[bytes], session: Session) -> Session:
    fresh = Session.from_log(raws, session.identity, session.secrets)
    fresh.pinned_host = session.pinned_host
    return fresh


def _moves(cut: list[Event]) -> str:
    return "your event was" if len(cut) == 1 else f"your {len(cut)} events were"



def our_tail(session: Session) -> int | None:
    """Where the run of our own events that ends the log starts, while we play: the position
    from which a peer's log may hold our retirement instead (None if the log does not end with
    an event of ours)."""
    events, me = session.log.events, session.identity
    if me is None or session.local_seat is None or session.local_seat in session.retired:
        return None
    start = len(events)
    while start > 0 and events[start - 1].author == me.public_key:
        start -= 1
    return start if 0 < start < len(events) else None
