"""The race of PROTOCOL.md "Convergence" over real loopback nodes: one seat votes to retire X at
a position where the others already took X's event; their signed objection makes the voter take
it, and the game goes on.  Forged, replayed and late objections change nothing and name whom to
blame; a retirement the game's rules refuse is a refusal, never a dropped honest peer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio
from conftest import FAST

from creepnet.node import updates
from creepnet.node.bot import run_bot
from creepnet.node.game import hosted_active
from creepnet.node.node import Node
from creepnet.node.retirement import MAX_OBJECTIONS, Retirements, _objection_message
from creepnet.node.updates import Update
from creepnet.protocol import retirement
from creepnet.protocol.event import Event, parse_event, sign_event
from creepnet.protocol.games import get_game
from creepnet.protocol.identity import Identity
from creepnet.protocol.verify import verify_log_bytes

ESCROW = {"creeps_per_player": 3, "face_up_creeps": 1, "turn_limit": 4, "escrow": 1}
TIMEOUT = 240  # generous: these machines are slow and shared


class Clock:
    """A node's retirement clock.  ``hurry`` makes it run 1000 times faster until the node has
    voted (its timer fires: the others' do not); then it runs at the real pace again."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.fast = False

    def hurry(self) -> None:
        self.fast = True

    def __call__(self) -> float:
        if self.fast and any(self.node._retirements._voted_at.values()):
            self.fast = False
        now = trio.current_time()
        return now * 1000 if self.fast else now


class News:
    """Everything a node said on its update stream, and a wait for a line of it."""

    def __init__(self) -> None:
        self.seen: list[Update] = []
        self._changed = trio.Event()

    async def pump(self, node: Node) -> None:
        async with node.updates(buffer=4096) as stream:
            async for update in stream:
                self.seen.append(update)
                self._changed.set()
                self._changed = trio.Event()

    async def until(self, test: Callable[[Update], bool], start: int = 0) -> Update:
        while True:
            for update in self.seen[start:]:
                if test(update):
                    return update
            await self._changed.wait()


async def until(test: Callable[[], bool]) -> None:
    """Wait for a condition no update announces (a vote kept in a node's memory)."""
    while not test():
        await trio.sleep(0.02)


@asynccontextmanager
async def table(
    tmp_path: Any, options: dict[str, Any]
) -> AsyncIterator[tuple[list[Node], bytes, list[News], trio.Nursery]]:
    """Three seated nodes (seat i on nodes[i]) each with a retirement clock a test may hurry."""
    async with (
        Node.open(tmp_path / "n0", name="n0", timeouts=FAST) as n0,
        Node.open(tmp_path / "n1", name="n1", timeouts=FAST) as n1,
        Node.open(tmp_path / "n2", name="n2", timeouts=FAST) as n2,
        trio.open_nursery() as nursery,
    ):
        nodes = [n0, n1, n2]
        news = [News() for _ in nodes]
        for node, said in zip(nodes, news, strict=True):
            node._retirements.clock = Clock(node)
            nursery.start_soon(said.pump, node)
        game = await n0.host_game("racer", "race", seats=3, player="n0", options=options)
        await n1.join(n0.address, game, player="n1")
        await n2.join(n0.address, game, player="n2")
        yield nodes, game, news, nursery
        nursery.cancel_scope.cancel()


def clock(node: Node) -> Clock:
    assert isinstance(node._retirements.clock, Clock)
    return node._retirements.clock


def retirements(node: Node) -> Retirements:
    return node._retirements


async def at_a_decision(nodes: list[Node], game: bytes) -> retirement.Position:
    """Wait until every node waits on the same seat's decision; that position."""

    def deciding(rt: Any) -> bool:
        turn = rt.session.expected()
        return turn is not None and not turn.automatic

    for node in nodes:
        await node.wait_for(game, deciding)
    lengths = {len(node.session(game).log) for node in nodes}
    assert len(lengths) == 1, lengths
    session = nodes[0].session(game)
    turn = session.expected()
    assert turn is not None and session.log.head is not None
    return retirement.Position(game, len(session.log), session.log.head, turn.seat)


@asynccontextmanager
async def table_and_mallory(
    tmp_path: Any,
) -> AsyncIterator[tuple[list[Node], bytes, list[News], Node]]:
    """The escrow table, and mallory's node (seated nowhere) to send forged messages from."""
    async with (
        table(tmp_path, ESCROW) as (nodes, game, news, _),
        Node.open(tmp_path / "mallory", name="mallory", timeouts=FAST) as mallory,
    ):
        yield nodes, game, news, mallory


async def x_deciding(nodes: list[Node], game: bytes) -> tuple[retirement.Position, int, int, int]:
    """Once every node waits on one seat's decision: that position, the seat (X) and the two
    others (V, B) in seat order."""
    where = await at_a_decision(nodes, game)
    v, b = [s for s in range(3) if s != where.seat]
    return where, where.seat, v, b


def refused(seq: int, key: bytes) -> Callable[[Update], bool]:
    return lambda u: (
        u.kind == updates.REJECTED
        and u.data.get("kind") == "objection"
        and u.data.get("seq") == seq
        and u.data.get("key") == key
    )


async def test_a_voter_takes_the_late_event_on_an_objection_and_the_game_finishes(tmp_path):
    """Seat 1's node does not get seat 2's event at S in time (the test's link drops it) and its
    timer fires: it votes.  Seat 0 had taken the event, so it objects; seat 1 takes seat 2's
    event after the objection, the game plays out, and all three logs are the same."""
    with trio.fail_after(TIMEOUT):
        async with table(tmp_path, ESCROW) as (nodes, game, news, nursery):
            voter, x_key = nodes[1], nodes[2].identity.public_key
            ours = retirements(voter)
            real_keep_aside = ours.keep_aside
            target: list[int] = []

            def voted() -> bool:
                return bool(ours._voted_at.get(game))

            def keep_aside(runtime: Any, raw: bytes) -> bool:
                event = parse_event(raw)
                session = runtime.session
                at_head = event.seq == len(session.log)
                if not target and len(session.log) > 125 and event.author == x_key and at_head:
                    target.append(event.seq)
                    clock(voter).hurry()  # our timer fires
                if target and event.seq == target[0] and event.author == x_key and not voted():
                    return True  # the link drops it: it does not reach us in time
                return real_keep_aside(runtime, raw)

            ours.keep_aside = keep_aside  # type: ignore[method-assign]
            async with trio.open_nursery() as bots:
                for seat, node in enumerate(nodes):
                    bots.start_soon(run_bot, node, game, "random", seat + 1)
            for node in nodes:
                await node.wait_for(game, lambda rt: rt.stored == len(rt.session.log))
            seq = target[0]
            assert voted() and ours._voted_at[game][0].seq == seq
            # seat 0 objected, seat 1 took the event after it (both said so)
            await news[0].until(lambda u: "objected" in u.text and u.data.get("seq") == seq)
            await news[1].until(lambda u: "we took" in u.text and u.data.get("seq") == seq)
            final = nodes[0].session(game)
            assert final.finished and final.retired == []
            assert final.log.events[seq].author == x_key
            logs = {
                (tmp_path / f"n{i}" / "games" / game.hex() / "log").read_bytes() for i in range(3)
            }
            assert logs == {final.log.to_bytes()}
            verdict = verify_log_bytes(final.log.to_bytes())
            assert verdict.valid and verdict.finished, verdict.error
            assert not any(u.kind == updates.ERROR for said in news for u in said.seen)


def _event(identity: Identity, where: retirement.Position, seq: int | None = None) -> Event:
    """A signed event of identity at the position (legal or not: the checks before the session
    are what is tested)."""
    return sign_event(
        identity,
        game=where.game,
        seq=where.seq if seq is None else seq,
        prev=where.prev,
        type="act",
        body={"act": "nonsense"},
    )


def _objection(
    identity: Identity, where: retirement.Position, objector: int, event: Event
) -> dict[str, Any]:
    signature = retirement.objection(identity, where, objector, event.id)
    return _objection_message(where, objector, event.raw, signature)


async def test_forged_objections_are_refused_naming_the_culprit_and_the_real_one_wins(tmp_path):
    """Seat V voted before X decided.  Forged objections (a wrong signer, X objecting for
    itself, the wrong event, an event of another position or author) leave V's promise standing
    and name the sender, or the objector once its signature holds; a flood of them keeps a few
    positions at most.  Then X decides, the third seat objects, V takes X's event, a replay of
    that objection is ignored, and the game finishes."""
    with trio.fail_after(TIMEOUT):
        async with table_and_mallory(tmp_path) as (nodes, game, news, mallory):
            where, x, v, b = await x_deciding(nodes, game)
            voter, objector, late = nodes[v], nodes[b], nodes[x]
            clock(voter).hurry()
            await until(lambda: where in retirements(voter)._voted_at.get(game, []))
            said = news[v]
            link = await mallory.connect(voter.address)
            forger = mallory.identity
            b_id, x_id = objector.identity, late.identity
            x_event = _event(x_id, where)
            earlier = next(
                e for e in reversed(voter.session(game).log.events) if e.author == x_id.public_key
            )

            # signed by mallory, claiming seat b: the sender is to blame
            link.send(_objection(forger, where, b, x_event))
            await said.until(refused(where.seq, forger.public_key))
            # X objecting to its own retirement: no such objection exists
            link.send(_objection(x_id, where, x, x_event))
            # b's signature, but over another event than the one carried
            forged = _objection(b_id, where, b, x_event)
            forged["event"] = _event(x_id, where, seq=where.seq).raw.replace(
                b"nonsense", b"nonsensf"
            )
            link.send(forged)
            # X's earlier event, under b's signature: b is to blame
            link.send(_objection(b_id, where, b, earlier))
            refusal = await said.until(refused(where.seq, b_id.public_key))
            assert "not the one at seq" in refusal.text
            # b's own event, not X's
            start = len(said.seen)
            link.send(_objection(b_id, where, b, _event(b_id, where)))
            refusal = await said.until(refused(where.seq, b_id.public_key), start)
            assert f"not seat {x}'s" in refusal.text
            # a flood of positions: a few kept at most, nothing taken
            for step in range(1, 40):
                ahead = retirement.Position(game, where.seq + step, where.prev, x)
                link.send(_objection(b_id, ahead, b, _event(x_id, ahead)))
            start = len(said.seen)
            link.send(_objection(forger, where, b, x_event))
            await said.until(refused(where.seq, forger.public_key), start)
            assert len(retirements(voter)._objections.get(game, {})) <= MAX_OBJECTIONS
            wrong_sender = [u for u in said.seen if refused(where.seq, forger.public_key)(u)]
            # mallory's two, X's own objection and the one over another event (all sent by it)
            assert len(wrong_sender) == 4
            assert len(voter.session(game).log) == where.seq  # the promise stands

            # X decides: b holds it, objects, and V takes it
            view = late.session(game)
            bot = get_game(view.kind).make_bot("random", 3)
            played = await late.play(game, bot.choose(view.local_view(), x))
            await voter.wait_for(game, lambda rt: len(rt.session.log) > where.seq)
            assert voter.session(game).log.events[where.seq].raw == played.raw
            took = await said.until(lambda u: "we took" in u.text)
            assert took.data["seq"] == where.seq
            real = retirements(objector)._objections[game][where][b].message
            # a replay changes nothing: the next refusal on the same link comes with no other news
            start = len(said.seen)
            link.send(real)
            head = voter.session(game)
            here = retirement.Position(game, len(head.log), head.log.head, x)
            link.send(_objection(forger, here, b, x_event))
            await said.until(lambda u: u.data.get("key") == forger.public_key, start)
            assert not [u for u in said.seen[start:] if "we took" in u.text]

            async with trio.open_nursery() as bots:
                for seat, node in enumerate(nodes):
                    bots.start_soon(run_bot, node, game, "random", seat + 1)
            for node in nodes:
                await node.wait_for(game, lambda rt: rt.stored == len(rt.session.log))
            final = nodes[0].session(game)
            assert final.finished and final.retired == []
            logs = {
                (tmp_path / f"n{i}" / "games" / game.hex() / "log").read_bytes() for i in range(3)
            }
            assert logs == {final.log.to_bytes()}
            assert not link.close_reason  # refused messages are not a protocol violation


async def test_an_objection_after_the_retirement_changes_nothing_and_names_the_equivocator(
    tmp_path,
):
    """Both other seats voted and X was retired.  Then one of them signs an objection for the
    same position: the retirement stands (it was appended first) and the seat that signed both
    is named."""
    with trio.fail_after(TIMEOUT):
        async with table_and_mallory(tmp_path) as (nodes, game, news, mallory):
            where, x, v, b = await x_deciding(nodes, game)
            for seat in (v, b):
                clock(nodes[seat]).hurry()
            for node in nodes:
                await node.wait_for(game, lambda rt: x in rt.session.retired)
            retired_log = nodes[v].session(game).log
            assert retired_log.events[where.seq].type == "retire"
            length = len(retired_log)
            x_event = _event(nodes[x].identity, where)
            link = await mallory.connect(nodes[v].address)
            link.send(_objection(nodes[b].identity, where, b, x_event))
            named = await news[v].until(lambda u: u.data.get("kind") == "retire-equivocation")
            assert named.data["seat"] == b and named.data["key"] == nodes[b].identity.public_key
            assert "equivocated" in named.text
            session = nodes[v].session(game)
            assert session.log.events[where.seq].type == "retire" and len(session.log) >= length
            assert x in session.retired


async def test_a_retirement_without_escrow_ends_the_game_abandoned_and_keeps_the_voter(tmp_path):
    """A Racer table without escrow cannot play on without a seat: when the last vote comes from
    a peer, the author's ``retire`` ends the game, abandoned by that seat (before, the session
    refused it and the table waited for ever; and before that, the Rejection escaped the
    message path and the node dropped the honest voter as an internal error)."""
    with trio.fail_after(TIMEOUT):
        plain = {k: v for k, v in ESCROW.items() if k != "escrow"}
        async with table(tmp_path, plain) as (nodes, game, news, nursery):
            where, x, _, _ = await x_deciding(nodes, game)
            session = nodes[0].session(game)
            author = retirement.retire_author(3, session.retired, x)
            other = next(s for s in range(3) if s not in (x, author))
            ours = retirements(nodes[author])
            runtime = nodes[author].games[game]
            ours._ballot(runtime, where).cast(nodes[author].identity, author)
            vote = retirement.vote(nodes[other].identity, where, other)
            link = nodes[other].peers[nodes[author].identity.public_key]
            link.send(
                {
                    "type": "retire-vote",
                    "game": game,
                    "seq": where.seq,
                    "prev": where.prev,
                    "seat": x,
                    "vote": vote,
                }
            )
            mine = nodes[author].session(game)
            await nodes[author].wait_for(game, lambda _: mine.abandoned is not None)
            assert mine.log.events[where.seq].type == "retire"
            gone = mine.abandoned
            assert gone is not None and (gone.seat, gone.claimant) == (x, author)
            theirs = nodes[other].session(game)
            await nodes[other].wait_for(game, lambda _: theirs.abandoned is not None)
            # over: no longer advertised, redialled or offered to resume as "playing"
            assert {nodes[s].games[game].state for s in (author, other)} == {"abandoned"}
            assert game not in {rt.game for rt in hosted_active(nodes[0].games)}
            assert not any(u.kind == updates.ERROR for u in news[author].seen)
            assert not link.close_reason
            assert nodes[other].identity.public_key in nodes[author].peers
