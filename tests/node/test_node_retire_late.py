"""A seat's move that crosses its own retirement, over real loopback nodes.

Seat X is silent until the other two retire it at S; X's node, which heard nothing of it (its
link drops the table's events), then signs its move at S.  Before, the others refused that move
as a seat X did not hold ("not entitled") and charged X for it, and X's node refused the
table's ``retire`` for good the same way, blaming the honest seat that wrote it: the game went
on without X while X's node sat on a fork of its own.  Now the others say the move came late
and blame nobody, and answer X with the log from S; X's node checks the retirement, takes it in
place of its own event (kept in ``log.cut``) and watches the game to its end, and all three logs
are the same.  At two seats the same holds for a claimed abandonment."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from conftest import CATCHING_UP, FAST, until_guest_decides
from test_node_retire_objection import (
    ESCROW,
    TIMEOUT,
    News,
    clock,
    retirements,
    table,
    table_and_mallory,
    x_deciding,
)

from creepnet.node import messages, overtaken, updates
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol import retirement
from creepnet.protocol.event import Event, parse_event, sign_event
from creepnet.protocol.games import get_game
from creepnet.protocol.log import Rejection
from creepnet.protocol.receiving import Receipt
from creepnet.protocol.retirement import Position
from creepnet.protocol.verify import verify_log_bytes


@pytest.mark.parametrize("offline", [False, True], ids=["sent", "offline"])
async def test_a_move_that_crossed_its_retirement_is_late_and_its_node_takes_the_retirement(
    tmp_path, offline
):
    """``offline``: X's node sent its move to nobody (no link at all); when it asks again, the
    others' log goes on from the retirement, which its node finds and takes all the same.  A
    spectator that took X's move (it votes in nothing, so it holds no promise) takes the
    retirement in its place the same way."""
    with trio.fail_after(TIMEOUT):
        async with (
            table(tmp_path, ESCROW) as (nodes, game, news, _),
            Node.open(tmp_path / "spectator", timeouts=CATCHING_UP) as spectator,
            trio.open_nursery() as nursery,
        ):
            where, x, v, b = await x_deciding(nodes, game)
            late, x_key = nodes[x], nodes[x].identity.public_key
            watching = News()
            nursery.start_soon(watching.pump, spectator)
            await spectator.watch(late.address, game)
            # X's link drops the table's events from S until X has moved; so does the
            # spectator's until X's move has reached it
            deaf = {late: True, spectator: not offline}
            for node in deaf:
                real_keep_aside = retirements(node).keep_aside

                def keep_aside(runtime: Any, raw: bytes, node=node, real=real_keep_aside) -> bool:
                    event = parse_event(raw)
                    if deaf[node] and event.seq >= where.seq and event.author != x_key:
                        return True
                    return real(runtime, raw)

                retirements(node).keep_aside = keep_aside  # type: ignore[method-assign]
            for seat in (v, b):
                clock(nodes[seat]).hurry()
            for seat in (v, b):
                await nodes[seat].wait_for(game, lambda rt: x in rt.session.retired)
            assert nodes[v].session(game).log.events[where.seq].type == "retire"
            assert len(late.session(game).log) == where.seq  # X heard nothing of it

            view = late.session(game)
            bot = get_game(view.kind).make_bot("random", 3)
            runtime = late.games[game]
            followers = dict(runtime.followers)
            if offline:
                runtime.followers.clear()  # nobody to send the move to
            mine = await late.play(game, bot.choose(view.local_view(), x))
            assert mine.seq == where.seq
            deaf[late] = False
            if not offline:
                await spectator.wait_for(game, lambda rt: len(rt.session.log) > where.seq)
                assert spectator.session(game).log.events[where.seq].raw == mine.raw
                deaf[spectator] = False
            if offline:
                runtime.followers.update(followers)
                assert late._sync.ask_everyone(runtime)  # as its stall timer does

            # X's node takes the retirement in place of its move, and says so
            await late.wait_for(game, lambda rt: x in rt.session.retired)
            assert x in view.retired  # what a face held before sees it too (one session)
            said = await news[x].until(lambda u: "before your move reached the others" in u.text)
            assert said.data["seq"] == where.seq
            cut = tmp_path / f"n{x}" / "games" / game.hex() / "log.cut"
            assert cut.read_bytes() == mine.raw
            # the others: late, blamed on nobody (when it reached them at all)
            for seat in () if offline else (v, b):
                await news[seat].until(
                    lambda u: (
                        "came after the table retired them" in u.text
                        and f"seq {where.seq}" in u.text
                    )
                )

            if not offline:  # the spectator took the move: it takes the retirement instead
                await watching.until(lambda u: "before their move there reached it" in u.text)

            async with trio.open_nursery() as bots:
                for seat in (v, b):
                    bots.start_soon(run_bot, nodes[seat], game, "random", seat + 1)
            for node in [*nodes, spectator]:
                await node.wait_for(game, lambda rt: rt.session.finished)
                await node.wait_for(game, lambda rt: rt.stored == len(rt.session.log))
            final = nodes[v].session(game)
            assert final.retired == [x]
            logs = {node.home.game(game).log_path.read_bytes() for node in [*nodes, spectator]}
            assert logs == {final.log.to_bytes()}
            verdict = verify_log_bytes(final.log.to_bytes())
            assert verdict.valid and verdict.finished, verdict.error
            for said_by in [*news, watching]:
                assert not [u for u in said_by.seen if u.kind in (updates.REJECTED, updates.ERROR)]
            nursery.cancel_scope.cancel()


async def x_moved(nodes: list[Node], game: bytes) -> tuple[Position, int, int, int, Event]:
    """Once every node waits on one seat's decision (X), X's node makes a random move there:
    the position, X, the two others (V, B), and X's event."""
    where, x, v, b = await x_deciding(nodes, game)
    view = nodes[x].session(game)
    bot = get_game(view.kind).make_bot("random", 3)
    return where, x, v, b, await nodes[x].play(game, bot.choose(view.local_view(), x))


async def test_a_forged_retirement_of_our_seat_is_refused_unreplayed_and_our_move_stands(
    tmp_path, monkeypatch
):
    """Mallory passes X's node a ``retire`` of X at the position of X's own move, signed by
    the very seat that would write it but without the others' votes: X's node refuses it
    naming its signer, replays nothing (a forged retirement must not cost a replay of the
    log), and keeps its move."""
    replays: list[int] = []
    real_replayed = overtaken._replayed

    def counted(raws: list[bytes], session: Any) -> Any:
        replays.append(len(raws))
        return real_replayed(raws, session)

    monkeypatch.setattr(overtaken, "_replayed", counted)
    with trio.fail_after(TIMEOUT):
        async with table_and_mallory(tmp_path) as (nodes, game, news, mallory):
            where, x, _, _, mine = await x_moved(nodes, game)
            late = nodes[x]
            author = nodes[retirement.retire_author(3, [], x)].identity
            forged = sign_event(
                author,
                game=game,
                seq=where.seq,
                prev=where.prev,
                type="retire",
                body={"seat": x, "votes": []},
            )
            link = await mallory.connect(late.address)
            link.send(messages.events(game, where.seq, [forged.raw], where.seq + 1))
            refusal = await news[x].until(
                lambda u: u.kind == updates.REJECTED and u.data.get("seq") == where.seq
            )
            assert "missing" in refusal.text and author.fingerprint in refusal.text
            assert late.session(game).log.events[where.seq].raw == mine.raw
            assert x not in late.session(game).retired and not replays


async def test_a_move_that_crossed_a_claimed_abandonment_ends_the_game_on_both_nodes(tmp_path):
    """Two seats: the host claims the game abandoned at the guest's position while the guest,
    whose link drops the claim, makes its move.  The host says the move came after the claim
    and blames nobody; the guest's node takes the claim in place of its move, and both logs
    end, the same, unfinished: abandoned."""
    with trio.fail_after(TIMEOUT):
        async with (
            Node.open(tmp_path / "host", timeouts=FAST) as host,
            Node.open(tmp_path / "guest", timeouts=FAST) as guest,
            host.updates(buffer=4096) as host_news,
            guest.updates(buffer=4096) as guest_news,
        ):
            game = await host.host_game("creeper", "crossed", player="host")
            await guest.join(host.address, game, player="guest")
            await host.wait_for(game, lambda rt: rt.session.started)
            await until_guest_decides(host, game)
            await guest.wait_for(game, lambda rt: rt.session.my_turn() is not None)
            at = len(guest.session(game).log)
            ours = retirements(guest)
            real_keep_aside = ours.keep_aside
            deaf = [True]

            def keep_aside(runtime: Any, raw: bytes) -> bool:
                if deaf[0] and parse_event(raw).seq >= at:
                    return True
                return real_keep_aside(runtime, raw)

            ours.keep_aside = keep_aside  # type: ignore[method-assign]
            await host.claim(game)
            view = guest.session(game)
            bot = get_game("creeper").make_bot("random", 2)
            mine = await guest.play(game, bot.choose(view.local_view(), 1))
            assert mine.seq == at
            deaf[0] = False
            await guest.wait_for(game, lambda rt: rt.session.abandoned is not None)
            said = await _until(guest_news, lambda u: "claimed the game abandoned" in u.text)
            assert "before your move reached them" in said.text
            late = await _until(host_news, lambda u: "came after the game was claimed" in u.text)
            assert f"seq {at}" in late.text
            await guest.wait_for(game, lambda rt: rt.stored == len(rt.session.log))
            logs = {node.home.game(game).log_path.read_bytes() for node in (host, guest)}
            assert logs == {host.session(game).log.to_bytes()}
            verdict = verify_log_bytes(host.session(game).log.to_bytes())
            assert verdict.valid and not verdict.finished and "abandoned" in verdict.outcome


async def _until(stream: Any, test: Any) -> Any:
    async for update in stream:
        assert update.kind not in (updates.REJECTED, updates.ERROR), update
        if test(update):
            return update
    raise AssertionError("the update stream ended")


async def test_a_retirement_a_replay_refused_is_refused_again_without_another_replay(
    tmp_path, monkeypatch
):
    """A retirement of X at X's own move, with every other seat's valid vote, that the replay
    then refuses (the rules would not take it there): sent again and again, it cost a replay
    of the whole log each time, in a worker thread no CPU budget sees.  Now a replay refuses
    one retirement once."""
    replays: list[int] = []

    class Refusing:
        def receive(self, raw: bytes) -> Receipt:
            rejection = Rejection(parse_event(raw).seq, "illegal", "not here", None)
            return Receipt("rejected", rejections=[rejection])

    def refusing(raws: list[bytes], session: Any) -> Any:
        replays.append(len(raws))
        return Refusing()

    monkeypatch.setattr(overtaken, "_replayed", refusing)
    with trio.fail_after(TIMEOUT):
        async with table_and_mallory(tmp_path) as (nodes, game, news, mallory):
            where, x, v, b, _ = await x_moved(nodes, game)
            late = nodes[x]
            votes = [retirement.vote(nodes[s].identity, where, s) for s in sorted((v, b))]
            author = nodes[retirement.retire_author(3, [], x)].identity
            valid = sign_event(
                author,
                game=game,
                seq=where.seq,
                prev=where.prev,
                type="retire",
                body=retirement.retire_body(where, votes),
            )
            link = await mallory.connect(late.address)
            for sent in range(1, 4):
                start = len(news[x].seen)
                link.send(messages.events(game, where.seq, [valid.raw], where.seq + 1))
                await news[x].until(
                    lambda u: u.kind == updates.REJECTED and "not here" in u.text, start
                )
                assert len(replays) == 1, sent
            assert x not in late.session(game).retired
