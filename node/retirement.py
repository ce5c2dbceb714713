"""The node's side of retirement (protocol/retirement.py): the timer, votes and leave notices as
node messages, and the one deterministic author who appends ``retire``.

Every ``TICK`` the node looks at each game it plays: when the session waits on another seat X
and the log has not grown for the game's ``retire_after`` seconds (or X sent its signed leave
notice), the node votes, once per position, and gossips the vote to every follower; votes it
receives are checked, kept (a few positions at most) and passed on, so a guest's vote reaches the
other guests through the host while there is no direct link.  The lowest remaining seat other
than X appends ``retire`` once every vote is in.  Having voted, the node keeps X's late event at
that position aside as evidence (``keep_aside``, the promise that makes honest nodes converge).
Two seats left: the node only offers the player ``claim`` (``Node.claim``), never claims itself.

**Objections** (the race of PROTOCOL.md "Convergence").  A seat B whose log holds X's event at S
(after P) never votes there; when a valid vote for (S, P, X) reaches it — as a message, or kept
in a ballot while B was still checking X's event — B signs one objection for that position and
gossips ``retire-objection`` with X's event (to a voter that asks again, at most once per peer).
A node that gets one believes it only after checking it: B's signature over the position and the
carried event's id, B a remaining seat other than X and other than us, the event X's own validly
signed one at S after P.  Then its ballot is void (``Ballot.object``), the event is no longer
kept aside (``GameRuntime.unusable`` cleared at S), the session takes the event and the objection
goes on to the other followers.  A forged one is refused naming whoever is to blame: the sender
for a bad signature, the objector for a signed objection carrying the wrong event.  One per
objector and position is kept (a few positions per game), so replays and floods cost one
signature check each and no memory.  An objection for a position already filled by ``retire``
changes nothing (the retirement wins); if its objector's vote is in that retirement, or in our
ballot, the seat signed both: the node names it and keeps its promise.

**What checking costs** (node/budget.py).  Anyone who knows a game's id may send these messages,
and each check is an Ed25519 verification at least (an objection's event, a session check).  So
a refused one is charged to the CPU budget the node keeps per key for refused events: to the
sender for a bad signature, to the signer for a signed message that is wrong, and to the
signer for a valid one that changes nothing here — a vote for a position ahead of us, an
objection for a position we have filled (ballots and objections are kept for a few positions,
so a seat's valid messages about many made-up or past positions, replayed in turn, would
otherwise be checked and passed on again each time); over the budget the payer is cut off and
shunned.  A replay of what we hold costs nothing: a vote already in its ballot, a leave notice
already heard, an objection already kept, a vote we already answered for that peer are dropped
before any check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from creepnet.node import updates
from creepnet.node.budget import Meter, Unmetered
from creepnet.node.game import GameRuntime
from creepnet.node.ledger import Ledger
from creepnet.node.peer import Peer
from creepnet.node.reporter import Reporter
from creepnet.protocol import retirement
from creepnet.protocol.event import Event
from creepnet.protocol.identity import Identity, fingerprint
from creepnet.protocol.log import Rejection, parse_or_reject
from creepnet.protocol.rules import GameRuleError
from creepnet.protocol.session import Phase, Session

TICK = 0.25  # seconds between looks at the clock
MAX_BALLOTS = 4  # positions per game whose votes we keep (only the next one matters)
MAX_OBJECTIONS = 4  # positions per game whose objections by others we keep
OBJECTION_WINDOW = 64  # how far behind our head a vote or an objection is still answered
RETIRING = "retiring"  # update kinds: a seat is about to be retired / has been
RETIRED = "retired"
CLAIMABLE = "claimable"


def _name(session: Session, seat: int) -> str:
    return session.seats[seat].player


class Retirements:
    def __init__(
        self,
        games: dict[bytes, GameRuntime],
        ledger: Ledger,
        reporter: Reporter,
        identity: Identity,
        clock: Callable[[], float] = trio.current_time,
        meter: Meter | None = None,
    ) -> None:
        self.games = games
        self.ledger = ledger
        self.reporter = reporter
        self.identity = identity
        self.clock = clock
        self.meter: Meter = meter or Unmetered()  # what a refused check costs its payer
        self._ballots: dict[bytes, dict[retirement.Position, retirement.Ballot]] = {}
        self._since: dict[bytes, tuple[int, float]] = {}  # game -> (log length, since when)
        self._leaving: dict[bytes, set[int]] = {}
        self._told: dict[bytes, int] = {}  # retirements already announced, per game
        self._said: dict[bytes, tuple[retirement.Position, int]] = {}  # the last countdown
        self._voted_at: dict[bytes, list[retirement.Position]] = {}  # we never also object there
        # game -> position -> objector -> the valid objection (ours or a peer's) and the peers
        # we sent it to (a voter that asks again gets ours once more, once)
        self._objections: dict[bytes, dict[retirement.Position, dict[int, _Kept]]] = {}
        # game -> seq -> objectors whose valid objection there we checked, for the whole
        # window (an honest seat signs one per seq): a replay is dropped unchecked whoever
        # sends it, though the messages are kept for a few positions only.  Else anyone could
        # replay a seat's objections in turn and have each one charged to it again (a valid
        # objection about a filled position is its signer's cost) until it was cut off.
        self._checked: dict[bytes, dict[int, set[int]]] = {}

    async def run(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        while True:
            for runtime in list(self.games.values()):
                try:
                    await self.check(runtime)
                except Rejection as exc:  # e.g. the game cannot retire the seat at this step
                    text = f"cannot retire the seat waited on yet: {exc.reason}"
                    self.reporter.note(runtime, "retire-refused", text, RETIRING)
            await trio.sleep(TICK)

    # ----- the timer ----------------------------------------------------------------------

    def _waiting(self, runtime: GameRuntime) -> retirement.Position | None:
        """The position where this node waits on another seat, if it plays this game."""
        session = runtime.session
        me = session.local_seat
        if session.phase is not Phase.PLAYING or me is None or me in session.retired:
            return None
        where = _current(runtime)
        return None if where is None or where.seat == me else where

    async def check(self, runtime: GameRuntime) -> None:
        retired = runtime.session.retired
        told = self._told.get(runtime.game, 0)
        me = runtime.session.local_seat
        for seat in retired[told:]:
            if seat != me:  # ours is told to us below, in our words, not as a stranger's
                self.announce(runtime, seat)
        self._told[runtime.game] = len(retired)
        self._answer_filled(runtime)
        if me in retired:
            if me in self._leaving.get(runtime.game, set()):
                text = "you left the game; the table retired your seat and plays on without you"
            else:  # we came back too late: we watch
                text = "the table retired you from this game; it plays on, and you watch"
            self.reporter.note(runtime, "retiring", text, RETIRED)
        where = self._waiting(runtime)
        if where is None:
            return
        session, now = runtime.session, self.clock()
        length, since = self._since.get(runtime.game, (-1, now))
        if length != where.seq:
            self._since[runtime.game] = (where.seq, now)
            since = now
        silent, limit = now - since, session.retire_after
        name = _name(session, where.seat)
        gone = where.seat in self._leaving.get(runtime.game, set())
        if not session.retires_a_silence:
            if silent >= limit or gone:
                text = f"{name} is gone: you may claim the game abandoned (claim)"
                self.reporter.note(runtime, "retiring", text, CLAIMABLE)
            return
        if silent < limit and not gone:
            if silent >= 1 and self._said.get(runtime.game) != (where, int(silent)):
                self._said[runtime.game] = (where, int(silent))  # once a second, not a tick
                text = (
                    f"waiting for {name}: no word for {silent:.0f} s, they will be retired in "
                    f"{limit - silent:.0f} s"
                )
                self.reporter.publish(RETIRING, text, runtime.game, None, {"seat": where.seat})
            return
        ballot = self._ballot(runtime, where)
        if not ballot.voted:
            me = session.local_seat
            assert me is not None
            vote = ballot.cast(self.identity, me)
            voted_at = self._voted_at.setdefault(runtime.game, [])
            voted_at[:] = [*voted_at[-(MAX_BALLOTS - 1) :], where]
            self._gossip(runtime, _vote_message(where, vote), None)
        await self._author(runtime, ballot)

    def _ballot(self, runtime: GameRuntime, where: retirement.Position) -> retirement.Ballot:
        ballots = self._ballots.setdefault(runtime.game, {})
        for old in [p for p in ballots if p.seq < len(runtime.session.log)]:
            del ballots[old]  # a position already filled
        if where not in ballots:
            # Room is made among the others: the ballot where the game waits now is the one
            # that can complete, and a seat may sign votes for made-up positions ahead.
            current = _current(runtime)
            while len(ballots) >= MAX_BALLOTS:
                del ballots[next(p for p in ballots if p != current)]
            session = runtime.session
            ballots[where] = retirement.Ballot(where, session.seat_keys, session.retired)
        return ballots[where]

    async def _author(self, runtime: GameRuntime, ballot: retirement.Ballot) -> None:
        session = runtime.session
        where = ballot.position
        author = retirement.retire_author(len(session.seats), session.retired, where.seat)
        if not (ballot.voted and ballot.complete and session.local_seat == author):
            return
        async with runtime.lock:
            if self._waiting(runtime) != where:
                return  # the log moved meanwhile
            try:
                session.write("retire", ballot.body())
            except Rejection as exc:  # e.g. the game's rules cannot retire the seat at this step
                text = f"cannot retire the seat waited on yet: {exc.reason}"
                self.reporter.note(runtime, "retire-refused", text, RETIRING)
                return
            await self.ledger.settle(runtime)

    def _charge(
        self,
        runtime: GameRuntime,
        peer: Peer,
        payer: bytes,
        started: float,
        *,
        forged: bool = False,
    ) -> None:
        """payer pays for a check of peer's message begun at ``started`` (the meter's clock);
        ``forged``: a signature that is nobody's, the sender's own fault (budget.Meter)."""
        self.meter.refused(runtime, peer, payer, self.meter.clock() - started, forged=forged)

    def announce(self, runtime: GameRuntime, seat: int) -> None:
        name = _name(runtime.session, seat)
        if seat in self._leaving.get(runtime.game, set()):
            text = f"{name} left the game; the table plays on without them"
        else:  # voted out for silence: nobody heard them say they were going
            text = f"{name} stopped answering and was retired; the table plays on without them"
        self.reporter.publish(RETIRED, text, runtime.game, None, {"seat": seat})

    # ----- messages -----------------------------------------------------------------------

    async def on_message(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        """A ``retire-vote``, ``retire-objection`` or ``leave`` from a peer: checked, kept, passed
        on; never raises for what a peer sent."""
        session = runtime.session
        if message["type"] == "leave":
            seat, signature = message["seat"], message["signature"]
            leaving = self._leaving.setdefault(runtime.game, set())
            if seat in leaving:
                return  # heard already: nothing to check
            started = self.meter.clock()
            if not retirement.check_leave(runtime.game, session.seat_keys, seat, signature):
                self._charge(runtime, peer, peer.key, started, forged=True)
                return
            leaving.add(seat)
            self._gossip(runtime, message, peer)
            return
        where = retirement.Position(runtime.game, message["seq"], message["prev"], message["seat"])
        if message["type"] == "retire-objection":
            await self._on_objection(runtime, peer, where, message)
            return
        if where.seq < len(session.log):
            self._answer_vote(runtime, peer, where, message["vote"])
            return
        if where.seq > len(session.log) + 1:
            return  # too far ahead to matter
        if where.seq == len(session.log) and where != _current(runtime):
            return  # not where this game waits: such a ballot could never complete here
        vote = message["vote"]
        held = self._ballots.get(runtime.game, {}).get(where)
        if held is not None and vote and type(vote[0]) is int and vote[0] in held.votes:
            return  # a replay, or another "vote" of a voter we hold: nothing to check
        started = self.meter.clock()
        try:  # before a ballot is made for it: ballots are few, junk must not push one out
            voter = retirement.check_vote(where, session.seat_keys, vote)
        except GameRuleError:
            self._charge(runtime, peer, peer.key, started, forged=True)
            return
        ballot = self._ballot(runtime, where)
        added = ballot.add(vote)
        if where.seq > len(session.log):  # ahead of us: nothing to act on yet, its signer pays
            self._charge(runtime, peer, session.seat_keys[voter], started)
        if added:
            if voter in self._objections.get(runtime.game, {}).get(where, {}):
                self._equivocated(runtime, where, voter)
            self._gossip(runtime, message, peer)
            await self._author(runtime, ballot)

    # ----- objections -----------------------------------------------------------------------

    def _x_event(self, runtime: GameRuntime, where: retirement.Position) -> Event | None:
        """X's event in our log at the position (after its prev), if we hold it."""
        session = runtime.session
        if not len(session.log) - OBJECTION_WINDOW <= where.seq < len(session.log):
            return None
        event = session.log.events[where.seq]
        keys = session.seat_keys
        if event.prev != where.prev or not 0 <= where.seat < len(keys):
            return None
        return event if event.author == keys[where.seat] else None

    def _answer_vote(
        self, runtime: GameRuntime, peer: Peer, where: retirement.Position, vote: object
    ) -> None:
        """A vote for a position our log has filled with X's event: we object (once)."""
        event = self._x_event(runtime, where)
        if event is None or not self._may_object(runtime, where):
            return
        me = runtime.session.local_seat
        ours = (
            self._objections.get(runtime.game, {}).get(where, {}).get(me)
            if me is not None
            else None
        )
        if ours is not None and peer.key in ours.sent:
            return  # it has our objection: asking again changes nothing
        started = self.meter.clock()
        try:
            retirement.check_vote(where, runtime.session.seat_keys, vote)
        except GameRuleError:  # a forged vote asks nothing of us, and costs its sender
            self._charge(runtime, peer, peer.key, started, forged=True)
            return
        self._object(runtime, where, event, peer)

    def _answer_filled(self, runtime: GameRuntime) -> None:
        """Votes that reached us while X's event was on its way: the ballot's position is now
        filled with X's event, and the voters wait on an objection (ours)."""
        for where, ballot in list(self._ballots.get(runtime.game, {}).items()):
            if where.seq < len(runtime.session.log) and ballot.votes and not ballot.voted:
                event = self._x_event(runtime, where)
                if event is not None and self._may_object(runtime, where):
                    self._object(runtime, where, event, None)

    def _may_object(self, runtime: GameRuntime, where: retirement.Position) -> bool:
        session = runtime.session
        me = session.local_seat
        return (
            me is not None
            and me != where.seat
            and me not in session.retired
            and where not in self._voted_at.get(runtime.game, [])  # a vote and an objection:
        )  # that would be an equivocation of ours

    def _kept(self, runtime: GameRuntime, where: retirement.Position) -> dict[int, _Kept]:
        """The objections kept at a position: others' for a few positions, ours for the whole
        window, so a seat's votes replayed in turn never make us sign and send ours again (each
        copy would be charged to our key by whoever checks it)."""
        positions = self._objections.setdefault(runtime.game, {})
        if where not in positions:
            oldest, me = len(runtime.session.log) - OBJECTION_WINDOW, runtime.session.local_seat
            for old in [p for p in positions if p.seq < oldest]:
                del positions[old]
            others = [p for p, kept in positions.items() if me not in kept]
            while len(others) >= MAX_OBJECTIONS:
                del positions[others.pop(0)]
            positions[where] = {}
        return positions[where]

    def _checked_at(self, runtime: GameRuntime, seq: int) -> set[int]:
        """The objectors whose valid objection at seq we checked (seqs out of the window go)."""
        checked = self._checked.setdefault(runtime.game, {})
        oldest = len(runtime.session.log) - OBJECTION_WINDOW
        for old in [s for s in checked if s < oldest]:
            del checked[old]
        return checked.setdefault(seq, set())

    def _object(
        self, runtime: GameRuntime, where: retirement.Position, event: Event, to: Peer | None
    ) -> None:
        """Sign our objection once per position and gossip it; to a voter asking again, resend
        it (once per peer)."""
        me = runtime.session.local_seat
        assert me is not None
        kept = self._kept(runtime, where)
        ours = kept.get(me)
        if ours is None:
            signature = retirement.objection(self.identity, where, me, event.id)
            ours = kept[me] = _Kept(_objection_message(where, me, event.raw, signature))
            self._gossip(runtime, ours.message, None)
            ours.sent.update(runtime.followers)
            name = _name(runtime.session, where.seat)
            text = (
                f"we hold {name}'s event at seq {where.seq}, which another seat voted to retire "
                "them for: objected (no retirement can complete there)"
            )
            self.reporter.publish(RETIRING, text, runtime.game, None, {"seq": where.seq})
        elif to is not None and to.key not in ours.sent:
            ours.sent.add(to.key)
            to.send(ours.message)

    async def _on_objection(
        self, runtime: GameRuntime, peer: Peer, where: retirement.Position, message: dict[str, Any]
    ) -> None:
        session = runtime.session
        objector, raw = message["objector"], message["event"]
        if not len(session.log) - OBJECTION_WINDOW <= where.seq <= len(session.log):
            return  # long filled, or ahead of us: nothing we could check it against
        if objector == session.local_seat:
            return  # our own, come back
        if objector in self._checked_at(runtime, where.seq):
            return  # one per objector and seq: a replay, or a second one
        started = self.meter.clock()
        blame = self._check_objection(runtime, where, objector, raw, message["signature"])
        if blame is not None:
            key, reason = blame
            self._refuse(runtime, peer, where, key, reason)
            self._charge(runtime, peer, key or peer.key, started, forged=not key)
            return
        self._checked_at(runtime, where.seq).add(objector)
        self._kept(runtime, where)[objector] = _Kept(message, {peer.key})
        ballot = self._ballots.get(runtime.game, {}).get(where)
        if where.seq < len(session.log):
            # Valid, about a position we have filled: nothing to act on here, and objections
            # for a few positions only are kept (one signer's, for many past positions, would
            # be checked and passed on again each time round): its signer pays.
            self._charge(runtime, peer, session.seat_keys[objector], started)
            ours = session.log.events[where.seq]
            if ours.raw == raw:
                self._pass_on(runtime, message, peer)
            elif ours.type == "retire" and ours.prev == where.prev and objector in _voters(ours):
                self._equivocated(runtime, where, objector)  # the retirement stands
            return
        if ballot is not None and objector in ballot.votes:
            self._equivocated(runtime, where, objector)  # its vote counts: our promise stands
            return
        async with runtime.lock:
            if len(session.log) != where.seq or session.log.head != where.prev:
                return  # the log moved meanwhile (a retirement, say: it wins)
            started = self.meter.clock()
            receipt = session.receive(raw)
            seconds = self.meter.clock() - started
            await self.ledger.settle(runtime)
        if receipt.status != "accepted":
            reason = receipt.rejection.describe() if receipt.rejection else receipt.status
            key = session.seat_keys[objector]
            self._refuse(runtime, peer, where, key, f"carries an event we refuse: {reason}")
            self.meter.refused(runtime, peer, key, seconds)
            return
        if ballot is not None:
            ballot.object()
        runtime.unusable = {k: s for k, s in runtime.unusable.items() if s != where.seq}
        self._pass_on(runtime, message, peer)
        who, name = _name(session, objector), _name(session, where.seat)
        text = (
            f"{who} holds {name}'s event at seq {where.seq} (a signed objection): no retirement "
            f"there, and we took {name}'s event"
        )
        self.reporter.publish(RETIRING, text, runtime.game, None, {"seq": where.seq})

    def _check_objection(
        self,
        runtime: GameRuntime,
        where: retirement.Position,
        objector: int,
        raw: bytes,
        signature: bytes,
    ) -> tuple[bytes, str] | None:
        """Who is to blame for a wrong objection, and why (None: it is right).  Until its
        signature is checked nobody but the sender is: anyone can put a seat's number on it."""
        session = runtime.session
        keys = session.seat_keys
        try:
            event = parse_or_reject(raw)
        except Rejection as exc:
            return b"", f"its event is malformed ({exc.reason})"
        if not retirement.check_objection(where, keys, objector, event.id, signature):
            return b"", (
                f"it is not seat {objector}'s signature for that event (or seat {objector} "
                f"may not object there: it is no seat, or the seat waited on)"
            )
        key = keys[objector]
        if objector not in session.remaining:
            return key, f"seat {objector} does not play any more"
        if event.game != runtime.game or event.seq != where.seq or event.prev != where.prev:
            return key, f"it carries the event at seq {event.seq}, not the one at seq {where.seq}"
        if event.author != keys[where.seat]:
            return (
                key,
                f"it carries an event by {fingerprint(event.author)}, not seat {where.seat}'s",
            )
        if not event.signature_valid():
            return key, f"it carries an event without seat {where.seat}'s valid signature"
        return None

    def _refuse(
        self,
        runtime: GameRuntime,
        peer: Peer,
        where: retirement.Position,
        key: bytes,
        reason: str,
    ) -> None:
        """A refused objection, naming the one to blame: the objector once its signature is
        checked (key), else the peer that sent it."""
        who = f"signed by {fingerprint(key)}" if key else f"from peer {peer.label}"
        text = f"refused an objection at seq {where.seq} {who}: {reason}"
        data = {"kind": "objection", "seq": where.seq, "key": key or peer.key}
        self.reporter.publish(updates.REJECTED, text, runtime.game, peer, data)

    def _equivocated(self, runtime: GameRuntime, where: retirement.Position, seat: int) -> None:
        key = runtime.session.seat_keys[seat]
        text = (
            f"{_name(runtime.session, seat)} ({fingerprint(key)}) signed both a vote and an "
            f"objection for seat {where.seat} at seq {where.seq}: it equivocated"
        )
        data = {"kind": "retire-equivocation", "seq": where.seq, "seat": seat, "key": key}
        self.reporter.publish(updates.REJECTED, text, runtime.game, None, data)

    def _pass_on(self, runtime: GameRuntime, message: dict[str, Any], source: Peer) -> None:
        kept = (
            self._objections.get(runtime.game, {})
            .get(
                retirement.Position(runtime.game, message["seq"], message["prev"], message["seat"]),
                {},
            )
            .get(message["objector"])
        )
        targets = [p for p in runtime.followers.values() if p is not source]
        for follower in targets:
            if kept is None or follower.key not in kept.sent:
                follower.send(message)
                if kept is not None:
                    kept.sent.add(follower.key)

    def _gossip(self, runtime: GameRuntime, message: dict[str, Any], source: Peer | None) -> None:
        for peer in list(runtime.followers.values()):
            if peer is not source:
                peer.send(message)

    def keep_aside(self, runtime: GameRuntime, raw: bytes) -> bool:
        """Whether an incoming event is a late one of a seat we voted to retire at its position:
        kept as evidence, not given to the session (the voters' promise)."""
        ballots = self._ballots.get(runtime.game)
        if not ballots:
            return False
        try:
            event = parse_or_reject(raw)
        except Rejection:
            return False
        if event.seq < len(runtime.session.log):
            return False  # its position is filled: the session says whether it came late
        keys = runtime.session.seat_keys
        seat = keys.index(event.author) if event.author in keys else None
        for ballot in ballots.values():
            if ballot.blocks(event.seq, seat):
                if not event.signature_valid():
                    return False  # not X's: the session refuses it, naming whoever sent it
                if raw not in ballot.evidence and len(ballot.evidence) < 4:
                    ballot.evidence.append(raw)
                    name = _name(runtime.session, ballot.position.seat)
                    text = (
                        f"{name}'s late event at seq {event.seq} came after we voted to retire "
                        "them: kept as evidence, not played"
                    )
                    self.reporter.publish(RETIRING, text, runtime.game, None, {"seq": event.seq})
                return True
        return False

    # ----- the local player -----------------------------------------------------------------

    def leave(self, runtime: GameRuntime) -> None:
        """Send our signed leave notice: the others may retire us at once."""
        me = runtime.session.local_seat
        if me is None:
            raise ValueError("only a seated player can leave")
        signature = retirement.leave_notice(self.identity, runtime.game, me)
        self._leaving.setdefault(runtime.game, set()).add(me)  # our retirement is no silence
        notice = {"type": "leave", "game": runtime.game, "seat": me, "signature": signature}
        self._gossip(runtime, notice, None)

    async def claim(self, runtime: GameRuntime) -> None:
        """Two seats left: claim that the other abandoned the game at the position it owes."""
        where = self._waiting(runtime)
        if where is None:
            raise ValueError("the game is not waiting on the other player")
        async with runtime.lock:
            runtime.session.write("abandon", {"seat": where.seat})
            await self.ledger.settle(runtime)


@dataclass
class _Kept:
    """A valid objection we hold, and the peers it went to."""

    message: dict[str, Any]
    sent: set[bytes] = field(default_factory=set)


def _voters(event: Event) -> list[int]:
    votes = event.body.get("votes")
    return [v[0] for v in votes if isinstance(v, list) and v] if isinstance(votes, list) else []


def _objection_message(
    where: retirement.Position, objector: int, raw: bytes, signature: bytes
) -> dict[str, Any]:
    return {
        "type": "retire-objection",
        "game": where.game,
        "seq": where.seq,
        "prev": where.prev,
        "seat": where.seat,
        "objector": objector,
        "event": raw,
        "signature": signature,
    }


def _current(runtime: GameRuntime) -> retirement.Position | None:
    """The position where the game waits on a seat now (for anyone: seat or spectator)."""
    session, waiting = runtime.session, runtime.session.waiting_for()
    if waiting is None or session.log.head is None:
        return None
    return retirement.Position(runtime.game, len(session.log), session.log.head, waiting.seat)


def _vote_message(where: retirement.Position, vote: list[Any]) -> dict[str, Any]:
    return {
        "type": "retire-vote",
        "game": where.game,
        "seq": where.seq,
        "prev": where.prev,
        "seat": where.seat,
        "vote": vote,
    }
