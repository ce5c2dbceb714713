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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from creepnet.node.game import GameRuntime
from creepnet.node.ledger import Ledger
from creepnet.node.peer import Peer
from creepnet.node.reporter import Reporter
from creepnet.protocol import retirement
from creepnet.protocol.identity import Identity
from creepnet.protocol.log import Rejection, parse_or_reject
from creepnet.protocol.session import Phase, Session

TICK = 0.25  # seconds between looks at the clock
MAX_BALLOTS = 4  # positions per game whose votes we keep (only the next one matters)
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
    ) -> None:
        self.games = games
        self.ledger = ledger
        self.reporter = reporter
        self.identity = identity
        self.clock = clock
        self._ballots: dict[bytes, dict[retirement.Position, retirement.Ballot]] = {}
        self._since: dict[bytes, tuple[int, float]] = {}  # game -> (log length, since when)
        self._leaving: dict[bytes, set[int]] = {}
        self._told: dict[bytes, int] = {}  # retirements already announced, per game
        self._said: dict[bytes, tuple[retirement.Position, int]] = {}  # the last countdown

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
        me, waiting = session.local_seat, session.waiting_for()
        if session.phase is not Phase.PLAYING or me is None or me in session.retired:
            return None
        if waiting is None or waiting.seat == me or session.log.head is None:
            return None
        return retirement.Position(runtime.game, len(session.log), session.log.head, waiting.seat)

    async def check(self, runtime: GameRuntime) -> None:
        retired = runtime.session.retired
        told = self._told.get(runtime.game, 0)
        for seat in retired[told:]:
            self.announce(runtime, seat)
        self._told[runtime.game] = len(retired)
        if runtime.session.local_seat in retired:  # we came back too late: we watch
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
        if len(session.remaining) == 2:
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
            self._gossip(runtime, _vote_message(where, vote), None)
        await self._author(runtime, ballot)

    def _ballot(self, runtime: GameRuntime, where: retirement.Position) -> retirement.Ballot:
        ballots = self._ballots.setdefault(runtime.game, {})
        for old in [p for p in ballots if p.seq < len(runtime.session.log)]:
            del ballots[old]  # a position already filled
        if where not in ballots:
            while len(ballots) >= MAX_BALLOTS:
                del ballots[next(iter(ballots))]
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
            session.write("retire", ballot.body())
            await self.ledger.settle(runtime)

    def announce(self, runtime: GameRuntime, seat: int) -> None:
        name = _name(runtime.session, seat)
        text = f"{name} left the game; the table plays on without them"
        self.reporter.publish(RETIRED, text, runtime.game, None, {"seat": seat})

    # ----- messages -----------------------------------------------------------------------

    async def on_message(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        """A ``retire-vote`` or ``leave`` from a peer: checked, kept, passed on; never raises."""
        session = runtime.session
        if message["type"] == "leave":
            seat, signature = message["seat"], message["signature"]
            leaving = self._leaving.setdefault(runtime.game, set())
            keys = session.seat_keys
            if seat in leaving or not retirement.check_leave(runtime.game, keys, seat, signature):
                return
            leaving.add(seat)
            self._gossip(runtime, message, peer)
            return
        where = retirement.Position(runtime.game, message["seq"], message["prev"], message["seat"])
        if where.seq < len(session.log) or where.seq > len(session.log) + 1:
            return  # a filled position, or one too far ahead to matter
        ballot = self._ballot(runtime, where)
        if ballot.add(message["vote"]):
            self._gossip(runtime, message, peer)
            await self._author(runtime, ballot)

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
        keys = runtime.session.seat_keys
        seat = keys.index(event.author) if event.author in keys else None
        for ballot in ballots.values():
            if ballot.blocks(event.seq, seat):
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


def _vote_message(where: retirement.Position, vote: list[Any]) -> dict[str, Any]:
    return {
        "type": "retire-vote",
        "game": where.game,
        "seq": where.seq,
        "prev": where.prev,
        "seat": where.seat,
        "vote": vote,
    }
