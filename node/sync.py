"""Game sync: what the node does with each message a peer sends after the handshake.

Gossip and catch-up: any message about a game we hold makes its sender a follower of that game;
``have {length}`` answers with one ``events`` batch when the sender is behind, or a ``get`` when
it is ahead; an ``events`` batch goes to the session untouched (the node never judges an event)
and, once stored by the ledger, is acknowledged with ``have``; the owed author's next events in
it are passed on to the other followers first (``_pass_on``).  The host admits ``join``
requests; ``list`` is answered with the games we hold.  A peer whose events keep being refused
is cut off; a lying ``length`` cannot start a loop (we ask for more only after a batch that
taught us something), nor can an event we must not take (kept aside after a retirement vote):
the peers that sent it hold it for good and are not asked from there again, so a node stuck at one
position does not pull the growing tail after it from every peer at every ``have`` and every
stall probe (each copy charged to that honest peer's allowance, protocol/pending.py).
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import trio

from creepnet.node import messages, updates
from creepnet.node.budget import CpuBudget
from creepnet.node.errors import JoinRefused, NodeError
from creepnet.node.game import Fetch, GameRuntime, PassedOn
from creepnet.node.ledger import Ledger
from creepnet.node.mesh import Mesh
from creepnet.node.overtaken import last_run, take_retirement
from creepnet.node.peer import Peer
from creepnet.node.reporter import Reporter
from creepnet.node.retirement import RETIRING, Retirements
from creepnet.node.transport import TransportError
from creepnet.node.wan.invite import WAN_PREFIX, ticket_for
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.lobby import GAME_NONCE_SIZE, derive_game_id
from creepnet.protocol.log import EquivocationProof, Rejection, parse_or_reject
from creepnet.protocol.receiving import Receipt

MAX_REJECTIONS = 16  # refused events from one peer before we hang up on it
PASS_ON_WAIT = 0.01  # seconds to let passed-on events reach the wire before our check starts
SLICE = 0.05  # seconds of checking a batch before the node's other tasks get a turn
FETCH_PATIENCE = 1.0  # seconds one peer has to answer our `get` before we ask another
# Followers that left, remembered per game so one that comes back is reported as back; the
# oldest are forgotten first, as anyone can follow with a fresh key on every connection.
MAX_DEPARTED = 256


class GameSync:
    def __init__(
        self,
        games: dict[bytes, GameRuntime],
        ledger: Ledger,
        reporter: Reporter,
        reply_timeout: float,
    ) -> None:
        self.games = games
        self.ledger = ledger
        self.reporter = reporter
        self.reply_timeout = reply_timeout
        self.budget = CpuBudget()  # what a peer's refused events may cost us (budget.py)
        self.shun: Callable[[bytes, float], None] = lambda key, seconds: None  # Connections.shun
        self.mesh: Mesh | None = None  # hears `listen` and `addresses` (mesh.py)
        self.retirements: Retirements | None = None  # votes and leave notices (retirement.py)
        # While the internet carrier runs (node/wan/attach.py), the key of our games' tickets:
        # a join that came over the carrier must carry its game's (node/wan/invite.py).
        self.ticket_key: bytes | None = None
        # Per game, the seats whose chain we passed on and then refused an event of (_pass_on):
        # their chains are checked before anyone else gets them (bounded by the seats).
        self.unrelayed: dict[bytes, set[bytes]] = {}

    def greet(self, peer: Peer) -> None:
        """Announce what we hold to a peer that may hear of it: one that follows a game
        subscribes us and catches up."""
        for runtime in self.games.values():
            _tell(runtime, peer)

    def announce(self, runtime: GameRuntime, peers: dict[bytes, Peer]) -> None:
        """A game we now hold, told to the connected peers that may hear of it."""
        for peer in peers.values():
            _tell(runtime, peer)

    def follow(self, runtime: GameRuntime, peer: Peer) -> None:
        """Start following runtime's game through peer (we joined or watch it there)."""
        self.add_follower(runtime, peer)
        peer.send(messages.have(runtime.game, runtime.stored))

    def add_follower(self, runtime: GameRuntime, peer: Peer) -> bool:
        """peer follows runtime's game from now on.  True when that is news (a new follower, or
        one back on a new connection): waiters wake and the update stream says who came."""
        old = runtime.followers.get(peer.key)
        if old is peer:
            return False
        runtime.followers[peer.key] = peer
        back = old is not None or peer.key in runtime.departed
        runtime.departed.pop(peer.key, None)
        runtime.notify()  # e.g. wait_synced now waits for this peer too
        text = f"{peer.label} follows the game{' again' if back else ''}"
        self.reporter.publish(updates.FOLLOWER_ARRIVED, text, runtime.game, peer, {"back": back})
        return True

    def forget(self, peer: Peer) -> None:
        """peer disconnected: it follows nothing any more."""
        for runtime in self.games.values():
            if runtime.followers.get(peer.key) is peer:
                del runtime.followers[peer.key]
                # Nothing kept per key beyond bounds: a seat's acknowledgements say what it
                # holds (delivered, catch-up); anyone else's are asked again when it is back.
                if peer.key not in runtime.session.seat_keys:
                    runtime.acked.pop(peer.key, None)
                runtime.departed[peer.key] = None
                while len(runtime.departed) > MAX_DEPARTED:
                    del runtime.departed[next(iter(runtime.departed))]
                runtime.notify()  # e.g. wait_synced no longer waits for this peer
                text = f"{peer.label} stopped following the game: {peer.close_reason}"
                self.reporter.publish(updates.FOLLOWER_LEFT, text, runtime.game, peer)

    # ----- incoming messages ----------------------------------------------------------------

    async def dispatch(self, peer: Peer, message: dict[str, Any]) -> None:
        message = messages.check(message)
        kind = message["type"]
        if kind == "list":
            items = [runtime.describe() for runtime in self.games.values()]
            peer.send({"type": "games", "items": items})
            return
        if kind == "games":
            peer.deliver_reply(message)
            return
        if kind == "listen":
            if self.mesh is not None:
                self.mesh.on_listen(peer, message["port"])
            return
        runtime = self.games.get(message["game"])
        if runtime is None:
            return  # a game we do not hold: nothing to say about it
        if kind == "addresses":  # about the seats, not a subscription to the game
            if self.mesh is not None:
                self.mesh.on_addresses(runtime, peer, message["items"])
            return
        # A new follower hears what we hold, whatever it said first: a `have` too, so that it
        # learns how far we are even when our lengths are equal (its wait_synced counts on it).
        if kind != "join-refused" and self.add_follower(runtime, peer):
            peer.send(messages.have(runtime.game, runtime.stored))
            if self.mesh is not None:
                self.mesh.refresh()  # a seat: where we listen, and where the other seats are
        if kind == "have":
            await self._on_have(runtime, peer, message)
        elif kind == "get":
            self._send_from(runtime, peer, message["from"])
        elif kind == "events":
            await self._on_events(runtime, peer, message)
        elif kind == "join":
            await self._on_join(runtime, peer, message)
        elif kind in ("retire-vote", "retire-objection", "leave") and self.retirements is not None:
            await self.retirements.on_message(runtime, peer, message)
        elif kind == "join-refused":
            # Only the host seats, so only the host can refuse: anyone else's would end our
            # join (the game id is public).
            if peer.key != (runtime.host_key or runtime.session.pinned_host):
                return
            runtime.join_refused = message["reason"][:300]
            self.reporter.publish(updates.JOIN_REFUSED, runtime.join_refused, runtime.game, peer)
            runtime.notify()

    async def _on_have(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        theirs = message["length"]
        if theirs > runtime.acked.get(peer.key, -1):
            runtime.acked[peer.key] = theirs
            runtime.notify()
        if theirs < runtime.stored:
            # A seat behind us pulls (`get`) from whoever told it first: in a mesh every seat
            # is told, and all pushing would send it one copy each.  Spectators and joiners are
            # pushed to, but not what is already on its way (it asks with `get` if it lost any).
            if peer.key not in runtime.session.seat_keys:
                self._send_from(runtime, peer, max(theirs, peer.sent.get(runtime.game, 0)))
        elif (
            # Not for events we passed on and are still checking: they are on their way here.
            theirs > max(len(runtime.session.log), runtime.passed_on.end)
            and runtime.session.halted is None
        ):
            self._fetch(runtime, peer, len(runtime.session.log))

    def _fetch(self, runtime: GameRuntime, peer: Peer, start: int) -> None:
        """Ask peer for the events from start, unless they are already coming: a batch being
        checked holds them, or another peer was asked for them and has not yet had
        FETCH_PATIENCE to answer.  So a node behind a mesh of N seats fetches once, not N times.
        An ask to a peer with no seat never holds back asking a seat: anyone may claim to be
        ahead, and a stranger repeating the claim would otherwise keep us waiting on it."""
        asked, now = runtime.fetching, trio.current_time()
        seats = runtime.session.seat_keys
        if (
            runtime.gave_unusable(peer.key)
            or runtime.covered(start)
            or (
                asked is not None
                and asked.start == start
                and asked.key in runtime.followers
                and now < asked.until
                and (asked.key in seats or peer.key not in seats)
            )
        ):
            return
        runtime.fetching = Fetch(start, peer.key, now + FETCH_PATIENCE)
        peer.send(messages.get(runtime.game, start))

    def ask_everyone(self, runtime: GameRuntime) -> int:
        """Ask every peer of the game for what follows our log (stalls.py); how many.  Not
        a peer that already sent us the event we wait for and we could not take it: it would
        answer with the same tail, every round, and its allowance would pay for our wait."""
        start = len(runtime.session.log)
        for follower in runtime.followers.values():
            if not runtime.gave_unusable(follower.key):
                follower.send(messages.get(runtime.game, start))
        return len(runtime.followers)

    def _send_from(self, runtime: GameRuntime, peer: Peer, start: int) -> None:
        """One batch of stored events from start; the peer asks again for more."""
        stored = runtime.stored
        if 0 <= start < stored:
            # Only the window one batch may hold: a `get` costs a batch, not the whole log.
            window = runtime.session.log.events[start : min(stored, start + messages.MAX_BATCH)]
            chunk = messages.batch([event.raw for event in window], 0)
            peer.send(messages.events(runtime.game, start, chunk, runtime.stored))
            peer.queued_events(runtime.game, start + len(chunk))

    async def _on_events(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        # While it waits for the lock and is checked, this batch is what a `have` crossing it
        # would make us fetch again from someone else.
        span = (message["from"], message["from"] + len(message["items"]))
        runtime.incoming.append(span)
        try:
            before, after = await self._check_events(runtime, peer, message)
        finally:
            runtime.incoming.remove(span)
        if not peer.close_reason:  # not a peer we are hanging up on
            self._catch_up(runtime, peer, message, before, after)

    async def _check_events(
        self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]
    ) -> tuple[int, int]:
        """Check and settle one batch; the log's length before and after it."""
        session = runtime.session
        async with runtime.lock:
            before = len(session.log)
            owed = session.owed_author()  # whose chain _pass_on may pass on
            passed_to = self._pass_on(runtime, peer, message)
            with trio.move_on_after(PASS_ON_WAIT):  # on the wire before our check holds the loop
                for follower in passed_to:
                    await follower.wait_written(follower.queued)
            slice_ends = time.monotonic() + SLICE
            over_budget: bytes | None = None  # the key whose refused events overdrew its budget
            refetch: int | None = None  # where to ask this peer from again (node/overtaken.py)
            kept_aside_at = -1  # the seq of the last event kept aside (its sender's chain)
            owed_refused = False  # whether we refused an event the owed seat signed
            for index, raw in enumerate(message["items"]):
                if time.monotonic() > slice_ends:
                    # A catch-up batch of proven Racer events takes seconds to check: let
                    # pings, other peers and the page run meanwhile (this game stays locked).
                    await trio.lowlevel.checkpoint()
                    slice_ends = time.monotonic() + SLICE
                if self.retirements is not None and self.retirements.keep_aside(runtime, raw):
                    kept_aside_at = message["from"] + index
                    continue  # a late event of a seat we voted to retire: evidence only
                started = self.budget.clock()
                receipt = session.receive(raw, sender=peer.key)
                if receipt.status == "overtaken":
                    refusal = await take_retirement(runtime, raw, self.reporter)
                    if refusal is None:
                        session = runtime.session
                        before = min(before, len(session.log) - 1)
                        continue
                    receipt = Receipt("rejected", rejections=[refusal])
                if receipt.status == "late":
                    self._late(runtime, peer, raw, receipt)
                    continue
                rejection = receipt.rejection
                chain = rejection is not None and rejection.kind == "chain"
                tail = last_run(session) if chain else None  # not for every event taken
                if rejection is not None and tail is not None and (rejection.seq or 0) >= tail:
                    # Their log goes another way where ours ends with one seat's moves: they may
                    # hold that seat's retirement there.  Not their fault: ask from where those
                    # moves start (node/overtaken.py takes a retirement found there).
                    refetch = tail
                    # Said for ever, it is a refusal all the same: counted, and its checks paid.
                    peer.rejections += 1
                    if self.budget.charge(peer.key, self.budget.clock() - started):
                        over_budget = peer.key
                    break
                if receipt.status == "rejected":
                    owed_refused |= any(r.author == owed for r in receipt.rejections)
                    # Another signer's event, relayed: its author pays, not the relay.
                    payer = _blamed_author(receipt.rejections, peer.key) or peer.key
                    if self.budget.charge(payer, self.budget.clock() - started):
                        over_budget = payer
                for rejection in receipt.rejections:
                    if receipt.status == "equivocation":
                        continue
                    data = {"kind": rejection.kind, "seq": rejection.seq}
                    if receipt.status == "rejected":
                        peer.rejections += 1
                        # Another signer's event, relayed: the fault is its author's (named).
                        how = "passed on by" if rejection.author not in (None, peer.key) else "from"
                        text = f"rejected event {how} peer {peer.label}: {rejection.describe()}"
                        self.reporter.publish(updates.REJECTED, text, runtime.game, peer, data)
                    else:
                        # A buffered event that failed once its turn came: it arrived earlier,
                        # maybe from another peer, so this peer is not to blame for it.
                        text = f"rejected a held event: {rejection.describe()}"
                        self.reporter.publish(updates.REJECTED, text, runtime.game, None, data)
                if receipt.status == "equivocation" and receipt.proof is not None:
                    await self._on_equivocation(runtime, receipt.proof, raw)
                if session.halted is not None or over_budget is not None:
                    break
                if peer.rejections > MAX_REJECTIONS:
                    break  # cut off below: the rest is not read (nor a `rejected` update each)
            told = await self.ledger.settle(runtime, source=peer, received=set(message["items"]))
            after = len(session.log)
            if passed_to and after < runtime.passed_on.end:
                # Checked and refused from `after` on: those are no longer on their way here,
                # so a `have` reaching past them must fetch again (sync._on_have).
                runtime.passed_on = replace(
                    runtime.passed_on, raws=runtime.passed_on.raws[: after - before]
                )
                if owed is not None and owed_refused:
                    # Its author signed what we refused: each follower refused it too and held
                    # (or deferred) the rest of the chain, every one charged to *our*
                    # allowance there (protocol/pending.py).  A seat signing a batch of bogus
                    # links at each turn so used it up in five turns, and our spectators then
                    # refused all we sent as a flood.  Its chains now wait for our check.
                    self.unrelayed.setdefault(runtime.game, set()).add(owed)
            if after == before == kept_aside_at:
                # It holds the late event we promised not to take, for good: it has no other.
                # (Only current followers at this position are kept: bounded by the peers.)
                runtime.unusable = {
                    key: seq
                    for key, seq in runtime.unusable.items()
                    if seq == before and key in runtime.followers
                }
                runtime.unusable[peer.key] = before
        if refetch is not None:
            self._fetch(runtime, peer, refetch)
        if over_budget is not None:
            self._cut_off(runtime, peer, over_budget)
            if over_budget == peer.key:
                return before, after
        if _hung_up_for_refusals(peer):
            return before, after
        # The sender has stored everything it sent us: that is its acknowledgement.
        claimed = min(message["length"], runtime.stored)
        if claimed > runtime.acked.get(peer.key, 0):
            runtime.acked[peer.key] = claimed
            runtime.notify()  # wait_synced waits on acknowledgements, this one included
        if after > before and not told:
            # Acknowledge what is now on our disk, so the sender knows we are caught up
            # (a finished player's node waits for this before it goes away); our answer, when
            # we sent one, carried the same length.
            peer.send(messages.have(runtime.game, runtime.stored))
        return before, after

    def _late(self, runtime: GameRuntime, peer: Peer, raw: bytes, receipt: Receipt) -> None:
        """A seat's own move that crossed its retirement: said once, blamed on nobody (the
        sender's allowance paid for it, as for a duplicate).  Sent by that seat itself, it is
        answered with the log from there, once per position, so its node learns of the
        retirement and takes it (node/overtaken.py); if that answer is lost, its node's next
        catch-up finds the retirement all the same (``last_run``)."""
        rejection = receipt.rejections[0]
        seq = rejection.seq
        assert seq is not None
        author = parse_or_reject(raw).author
        keys = runtime.session.seat_keys
        name = runtime.session.seat_label(keys.index(author))
        ended = runtime.session.log.events[seq].type == "abandon"
        after = "the game was claimed abandoned" if ended else "the table retired them"
        text = f"{name}'s move at seq {seq} came after {after}: not played"
        self.reporter.note(runtime, f"late-{seq}", text, RETIRING)
        if peer.key == author and seq not in runtime.late_answered:
            runtime.late_answered.add(seq)
            self._send_from(runtime, peer, seq)

    def _catch_up(
        self, runtime: GameRuntime, peer: Peer, message: dict[str, Any], before: int, after: int
    ) -> None:
        """After a batch: ask for the rest when the sender has more and this batch moved us
        (or showed a gap); else, if it moved us, from the seat that says it has the most.
        Never on a batch that taught us nothing, so a lying `length` cannot start a loop."""
        session = runtime.session
        if session.halted is not None or len(session.log) != after:
            return  # halted, or another batch moved us meanwhile (it asks for itself)
        gap = bool(message["items"]) and message["from"] > before  # held for later: more exists
        if message["length"] > after and (after > before or gap):
            self._fetch(runtime, peer, after)
            return
        ahead = [
            (runtime.acked.get(key, 0), key)
            for key in runtime.followers
            if key in session.seat_keys and runtime.acked.get(key, 0) > after
        ]
        if ahead and after > before:
            self._fetch(runtime, runtime.followers[max(ahead)[1]], after)

    # ----- the CPU budget, for the signed messages others check (budget.Meter) ----------------

    def clock(self) -> float:
        return self.budget.clock()

    def refused(
        self,
        runtime: GameRuntime,
        peer: Peer,
        payer: bytes,
        seconds: float,
        *,
        forged: bool = False,
    ) -> None:
        """A refused join request, vote, objection or leave notice (retirement.py) is charged
        as a refused event is: to payer, cut off once over its budget.  ``forged``, the
        sender's own fault (a signature that is nobody's, a join request the session
        refuses), also counts among its connection's refused events: the budget is per key,
        and a fresh key's is a whole second of CPU for the price of a handshake."""
        if self.budget.charge(payer, seconds):
            self._cut_off(runtime, peer, payer)
        elif forged:
            peer.rejections += 1
            _hung_up_for_refusals(peer)

    def _cut_off(self, runtime: GameRuntime, peer: Peer, key: bytes) -> None:
        """key's refused events or messages (sent by peer, or signed by key and passed on by
        peer) cost more CPU than its budget: shun key, and hang up on its connection."""
        budget = self.budget
        reason = (
            f"what we refused of it cost {budget.spent(key) * 1000:.0f} ms of CPU, over the "
            f"budget of {budget.burst * 1000:.0f} ms (+{budget.rate * 1000:.0f} ms/s); "
            f"refused for {budget.shun:g}s"
        )
        self.shun(key, budget.shun)
        via = "" if key == peer.key else f", passed on by {peer.label}"
        self.reporter.publish(
            updates.ERROR,
            f"cut off {fingerprint(key)}{via}: {reason}",
            runtime.game,
            peer if key == peer.key else None,
            {"key": key},
        )
        author = peer if key == peer.key else runtime.followers.get(key)
        if author is not None:
            author.close(reason, tell=True)

    def _pass_on(self, runtime: GameRuntime, source: Peer, message: dict[str, Any]) -> list[Peer]:
        """Relay the owed author's next events to the other followers before checking them.

        On a LAN each node checks on its own CPU: the next author then checks while we do,
        instead of after us (a guest-to-guest hop held two checks in series).  Only a signed
        chain from our head by the seat owed it (Session.passable), once per position, so a
        forger cannot use us to flood; every receiver checks it in full and names a faulty
        author.  Its `length` stays what we stored: nothing unchecked is acknowledged."""
        session, start = runtime.session, message["from"]
        # Seats have the author's events from the author (the mesh); spectators only from us.
        seats = session.seat_keys
        others = [p for p in runtime.followers.values() if p is not source and p.key not in seats]
        if (
            not others
            or start != len(session.log)
            or runtime.stored != start
            or runtime.passed_on.start == start  # once per position
            or session.owed_author() in self.unrelayed.get(runtime.game, ())  # a cheat's chain
        ):
            return []
        # Within our own batch limit, as the ledger sends: a sender's frame near the size limit,
        # re-framed with our `length`, could otherwise outgrow it and break our writers.
        items = messages.batch(message["items"][: session.passable(message["items"])], 0)
        if not items:
            return []
        for follower in others:
            follower.send(messages.events(runtime.game, start, items, runtime.stored))
        runtime.passed_on = PassedOn(start, tuple(items), frozenset(p.key for p in others))
        return others

    async def _on_join(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        async with runtime.lock:
            session = runtime.session
            if not runtime.hosted or session.next_free_seat is None:
                reason = "this node is not the host of an open lobby for that game"
            elif runtime.reserved_for and peer.key not in runtime.reserved_for:
                reason = "its seats are kept for the players of the last game (a rematch)"
            elif not runtime.reserved_for and not self._ticket_fits(runtime, peer, message):
                reason = (
                    "over the internet this game seats only players with its invite: "
                    "paste the host's whole invite (creepnet:…), as it printed it"
                )
            else:
                started = self.budget.clock()
                try:
                    session.admit(message["request"])
                except Rejection as exc:
                    reason = exc.reason
                    # Signing the seat and checking the request (its signature, a key proof)
                    # was done for nothing: anyone may ask, so a refused ask is charged, and
                    # counted on the asker's connection (an honest one races for a seat a
                    # few times at most).
                    seconds = self.budget.clock() - started
                    self.refused(runtime, peer, peer.key, seconds, forged=True)
                else:
                    await self.ledger.settle(runtime)
                    return
        peer.send({"type": "join-refused", "game": runtime.game, "reason": reason})

    def _ticket_fits(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> bool:
        """A join off the internet carrier, or one that carries the game's ticket."""
        if not peer.conn.label.startswith(WAN_PREFIX):
            return True  # on the LAN anyone may join an open game, as always
        if self.ticket_key is None:
            return False
        expected = ticket_for(self.ticket_key, runtime.game)
        return hmac.compare_digest(message.get("ticket", b""), expected)

    async def _on_equivocation(
        self, runtime: GameRuntime, proof: EquivocationProof, raw: bytes
    ) -> None:
        author = fingerprint(proof.author)
        path = runtime.store.folder / "equivocation"
        try:
            await trio.to_thread.run_sync(path.write_bytes, proof.to_bytes())
        except OSError as exc:
            self.reporter.publish(
                updates.STORAGE_ERROR, f"cannot store the proof: {exc}", runtime.game
            )
        self.reporter.publish(
            updates.HALTED,
            f"game stopped: {author} signed two different events at one position (proof stored)",
            runtime.game,
            data={"author": proof.author},
        )
        # Pass the conflicting event on, so every honest peer sees the proof and stops too.
        seq = len(runtime.session.log.events) - 1
        for follower in runtime.followers.values():
            follower.send(messages.events(runtime.game, seq, [proof.second], runtime.stored))

    # ----- remote game lists ------------------------------------------------------------------

    def check_host(self, peer: Peer, item: dict[str, Any], advertised: str | None) -> None:
        """Raise JoinRefused unless peer proves it hosts the listed game: its key is the one
        the advert names (``advertised``, a fingerprint), and the game id commits to its key
        (id = H(key, genesis nonce), PROTOCOL.md 5.1).  Called before anything about the game
        is sent to peer, so a forged advert learns nothing from us but a `list`."""
        game, nonce = item["game"], item.get("nonce")
        address = peer.dialed or peer.conn.label
        where = f"the node at {address} ({peer.fingerprint})"
        if advertised is not None and peer.fingerprint != advertised:
            reason = f"{where} is not {advertised}, the host its advert names"
        elif not (
            isinstance(nonce, bytes)
            and len(nonce) == GAME_NONCE_SIZE
            and derive_game_id(peer.key, nonce) == game
        ):
            reason = f"{where} lists game {game.hex()[:8]} but does not prove it hosts it"
        else:
            return
        self.reporter.publish(
            updates.ADVERT_REFUSED,
            f"not joining: {reason}",
            game,
            peer,
            data={"address": address, "key": peer.key},
        )
        raise JoinRefused(f"not joining: {reason}")

    async def list_remote(self, peer: Peer) -> list[dict[str, Any]]:
        """The games peer holds (its `games` reply, entries of the wrong shape left out)."""
        peer.send({"type": "list"})
        try:
            with trio.fail_after(self.reply_timeout):
                reply = await peer.next_reply()
        except TransportError as exc:
            raise NodeError(str(exc)) from None
        except trio.TooSlowError:
            raise NodeError(f"{peer.label} did not list its games") from None
        items = []
        for item in reply["items"]:
            if (
                isinstance(item, dict)
                and isinstance(item.get("game"), bytes)
                and len(item["game"]) == 16
                and type(item.get("length")) is int
                and all(isinstance(item.get(k), str) for k in ("kind", "name", "state"))
                and all(type(item.get(k)) is int for k in ("seats", "taken"))
            ):
                items.append(item)
        return items

    async def pick_remote_game(
        self,
        peer: Peer,
        game: bytes | str | None,
        lobby: bool,
        items: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The one game at peer that game (id, hex prefix, or None: the only open one) names,
        among ``items`` when peer's listing is already at hand."""
        items = await self.list_remote(peer) if items is None else items
        if isinstance(game, bytes):
            chosen = [item for item in items if item["game"] == game]
        elif isinstance(game, str):
            chosen = [item for item in items if item["game"].hex().startswith(game.lower())]
        else:
            chosen = [
                item
                for item in items
                if item["state"] == "lobby" or (not lobby and item["state"] == "playing")
            ]
        if len(chosen) != 1:
            listing = (
                ", ".join(f"{i['game'].hex()[:8]} {i['name']!r} ({i['state']})" for i in items)
                or "none"
            )
            what = "no" if not chosen else "more than one"
            raise NodeError(f"{what} matching game at {peer.conn.label}; it holds: {listing}")
        return chosen[0]


def _hung_up_for_refusals(peer: Peer) -> bool:
    """Whether peer's refused events and messages are past the limit: then it is hung up on."""
    if peer.rejections <= MAX_REJECTIONS:
        return False
    peer.close(f"sent {peer.rejections} events or messages that were refused")
    return True


def _blamed_author(rejections: list[Rejection], sender: bytes) -> bytes | None:
    """The signer a rejection names, when it is not the sender (a relayed event)."""
    return next((r.author for r in rejections if r.author not in (None, sender)), None)


def _tell(runtime: GameRuntime, peer: Peer) -> None:
    if may_hear_of(runtime, peer):
        peer.send(messages.have(runtime.game, runtime.stored))


def may_hear_of(runtime: GameRuntime, peer: Peer) -> bool:
    """Whether we tell peer unasked that we hold runtime's game.  A host's games are public
    (it lists them to anyone); a follower speaks of a game only to the key that hosts it or
    to its players, never to whoever answers at an address.  A game whose host we do not
    know yet is told only to the address we dialled for it."""
    session = runtime.session
    if runtime.hosted or peer.key in session.seat_keys:
        return True
    host = runtime.host_key or session.pinned_host
    if host is not None:
        return peer.key == host
    return peer.dialed is not None and peer.dialed in runtime.dial
