"""A seat's move that crossed its retirement: take the table's ``retire`` in its place.

A seat X the table waits on for its ``retire_after`` seconds may still sign its move just as
the others complete its retirement at that position (its link was down, it moved in the last
second).  A node that took X's move there — X's own, or a spectator's, which votes in nothing
— then meets the table's ``retire`` (or ``abandon``) of X at S, and with nothing else it would
refuse the table's log for good: a game that goes on without it, and a node that blames an
honest seat for the retirement.

A complete retirement carries a signed vote of every other remaining seat for (S, P, X), and an
honest seat votes only while it holds no event of X at S and never takes one after
(docs/PROTOCOL.md "Convergence"): so no remaining seat took what X wrote from S on, and nothing
of it was played.  The node checks that first, cheaply (the votes' signatures,
``check_retire``), so a forged retirement costs a few signature checks, never a replay.  Only
then it replays the log up to S (with our secrets, if we hold a seat), takes the retirement
there, keeps what it cuts off in ``log.cut`` (signed events: evidence, whatever happens next)
and goes on from there.  Everything from S must be X's: an event of another seat after it
means some seat built on X's move, and then the retirement is not one to take.
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

# Retirements with valid votes that a replay refused, remembered per game: only every other
# seat together can sign one, so a few are all an honest table ever sees.
MAX_REFUSED = 16


async def take_retirement(runtime: GameRuntime, raw: bytes, reporter: Reporter) -> Rejection | None:
    """Replace the retired seat's events from the retirement's position with it; None when
    taken, else why not (a Rejection naming whom to blame).  Caller holds runtime.lock."""
    session = runtime.session
    event = parse_or_reject(raw)
    seq = event.seq
    assert session.game is not None and seq < len(session.log)
    x_key = session.log.events[seq].author
    if any(later.author != x_key for later in session.log.events[seq:]):
        return Rejection(seq, "chain", "conflicts with an accepted event")
    seat = session.seat_keys.index(x_key)
    position = retirement.Position(session.game, seq, event.prev, seat)
    check = retirement.check_abandon if event.type == "abandon" else retirement.check_retire
    try:
        check(position, session.seat_keys, session.retired, event)
    except GameRuleError as exc:
        return Rejection(seq, "illegal", str(exc), event.author)
    except Rejection as exc:
        return exc
    refused = runtime.overtakers_refused
    if event.id in refused:  # a replay runs in a worker thread, which no CPU budget sees
        return refused[event.id]
    kept = [logged.raw for logged in session.log.events[:seq]]
    try:
        fresh = await trio.to_thread.run_sync(_replayed, kept, session)
    except Rejection as exc:  # our own file holds only events we took: damage, said as such
        return Rejection(exc.seq, exc.kind, f"our own log no longer replays: {exc.reason}")
    receipt = fresh.receive(raw)
    if receipt.status != "accepted":
        why = receipt.rejection or Rejection(seq, "illegal", "the retirement does not hold")
        if len(refused) < MAX_REFUSED:
            refused[event.id] = why
        return why
    cut = session.log.events[seq:]
    where = await trio.to_thread.run_sync(runtime.store.truncate_events, kept)
    ours = session.local_seat == seat
    session.adopt(fresh)
    runtime.stored = seq
    runtime.published = min(runtime.published, seq)
    runtime.passed_on, runtime.fetching, runtime.unusable = PassedOn(), None, {}
    text = _told(session, event, seat, ours, f"{_events(cut, ours)} not played ({where})")
    reporter.publish(RETIRED, text, runtime.game, data={"seq": seq, "seat": seat, "cut": len(cut)})
    return None


def _told(session: Session, event: Event, seat: int, ours: bool, cut: str) -> str:
    seq = event.seq
    if ours and event.type == "abandon":
        return (
            f"your opponent claimed the game abandoned at seq {seq} before your move reached "
            f"them: {cut}; the game ends unfinished"
        )
    if ours:
        return (
            f"the table retired you at seq {seq} before your move reached the others: {cut}; "
            "the table plays on, and you watch"
        )
    name = session.seat_label(seat)
    if event.type == "abandon":
        return f"the game was claimed abandoned at seq {seq} before {name}'s move there: {cut}"
    return f"the table retired {name} at seq {seq} before their move there reached it: {cut}"


def _replayed(raws: list[bytes], session: Session) -> Session:
    fresh = Session.from_log(raws, session.identity, session.secrets)
    fresh.pinned_host = session.pinned_host
    return fresh


def _events(cut: list[Event], ours: bool) -> str:
    whose = "your" if ours else "its"
    return f"{whose} event was" if len(cut) == 1 else f"{whose} {len(cut)} events were"


def last_run(session: Session) -> int | None:
    """Where the run of one seat's events that ends the log starts, once the game is under
    way: the position from which a peer's log may hold that seat's retirement instead (None
    when the run is the whole log)."""
    events = session.log.events
    if not session.started or not events:
        return None
    author, start = events[-1].author, len(events)
    while start > 0 and events[start - 1].author == author:
        start -= 1
    return start if start > 0 and author in session.seat_keys else None
