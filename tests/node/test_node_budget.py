"""A CPU budget per peer (issue 21.5): a peer whose refused events cost us more CPU than its
budget is cut off mid-batch and shunned, however it reconnects; honest play goes on.

Checking an expensive invalid proof is what the budget bounds; the test makes each refused
event of Mallory's cost 10 ms on the budget's own clock (no real seconds of CPU needed).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import FAST, next_update, raw_peer

from creepnet.node import updates
from creepnet.node.bot import run_bot
from creepnet.node.budget import CpuBudget
from creepnet.node.framing import FrameError
from creepnet.node.handshake import HandshakeError
from creepnet.node.node import Node
from creepnet.node.sync import MAX_REJECTIONS
from creepnet.node.transport import TransportError
from creepnet.protocol.identity import Identity
from creepnet.protocol.session import Session

MALLORY = Identity.from_seed(b"\x71" * 32)
COST = 0.010  # seconds of CPU each of Mallory's refused events "costs"


@contextlib.asynccontextmanager
async def alice_and_bob(tmp_path: Path) -> AsyncIterator[tuple[Node, Node, Any]]:
    """Two nodes on loopback, alice's updates followed: a host, a player, what the host says."""
    async with (
        Node.open(tmp_path / "alice", timeouts=FAST) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        alice.updates() as news,
    ):
        yield alice, bob, news


async def flood(mallory: Any, messages: list[dict[str, Any]]) -> None:
    """Send them all, or as many as go before the node hangs up."""
    with contextlib.suppress(TransportError):
        for message in messages:
            await mallory.send(message)


async def hung_up_for_refusals(news: Any) -> None:
    gone = await next_update(
        news, lambda u: u.kind == updates.PEER_DISCONNECTED and MALLORY.fingerprint in u.text
    )
    assert "refused" in gone.text


def join_request(game: bytes, n: int) -> dict[str, Any]:
    return {"type": "join", "game": game, "request": bytes([n])}


def test_the_bucket_refills_at_its_rate_up_to_its_burst():
    now = [0.0]
    budget = CpuBudget(rate=0.1, burst=0.5, clock=lambda: 0.0, now=lambda: now[0])
    assert not budget.charge(b"k", 0.5)  # the whole burst, not more
    assert budget.charge(b"k", 0.01)
    now[0] += 1.0  # 0.1 s back
    assert not budget.charge(b"k", 0.08) and budget.spent(b"k") == pytest.approx(0.49)
    now[0] += 100.0
    assert budget.spent(b"k") == pytest.approx(0.49)  # refilled only when charged again
    assert not budget.charge(b"k", 0.0) and budget.spent(b"k") == 0.0  # capped at the burst
    assert budget.spent(b"other") == 0.0


async def test_a_peer_over_its_cpu_budget_is_cut_off_mid_batch_and_shunned(tmp_path, monkeypatch):
    cpu = [0.0]  # the budget's clock: only Mallory's refused events move it
    checked: list[bytes] = []
    receive = Session.receive

    def costly(self, raw, sender=None):
        if sender == MALLORY.public_key:
            checked.append(raw)
            cpu[0] += COST  # as an expensive, invalid proof would
        return receive(self, raw, sender=sender)

    monkeypatch.setattr(Session, "receive", costly)
    with trio.fail_after(60):
        async with alice_and_bob(tmp_path) as (alice, bob, news):
            budget = alice._sync.budget = CpuBudget(
                rate=0.0, burst=5 * COST + COST / 2, shun=600, clock=lambda: cpu[0]
            )
            game = await alice.host_game(
                "creeper", "cpu", player="alice", options={"max_plies": 40}
            )
            await bob.join(alice.address, game, player="bob")
            mallory = await raw_peer(alice.address, MALLORY)
            junk = [bytes([0x80, n]) for n in range(12)]  # each refused, each "costly"
            stored = alice.games[game].stored
            await mallory.send(
                {"type": "events", "game": game, "from": stored, "items": junk, "length": 99}
            )
            cut = await next_update(news, lambda u: u.kind == updates.ERROR and "cut off" in u.text)
            assert cut.data["key"] == MALLORY.public_key and "CPU" in cut.text
            # Cut off at the event that overdrew the budget: the rest of the batch is unread.
            assert len(checked) == 6 < len(junk) and MAX_REJECTIONS > 6
            assert budget.spent(MALLORY.public_key) > budget.burst
            said = []
            with pytest.raises(FrameError):
                while True:
                    said.append(await mallory.receive())
            assert any("CPU" in m.get("reason", "") for m in said), said

            # Reconnecting does not renew the allowance: the key is refused at its hello.
            with pytest.raises(HandshakeError, match="CPU"):
                await raw_peer(alice.address, MALLORY)
            assert len(checked) == 6
            # Everyone else goes on: another key is served, and the game plays to its end.
            stranger = await raw_peer(alice.address, Identity.generate())
            await stranger.send({"type": "list"})
            while (await stranger.receive())["type"] != "games":  # after its `have`s
                pass
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, "random", 1)
                nursery.start_soon(run_bot, bob, game, "random", 2)
            assert alice.session(game).finished and bob.session(game).finished


async def test_events_passed_on_by_a_relay_are_charged_to_their_author_not_the_relay(
    tmp_path, monkeypatch
):
    """A host passes the owed seat's events on before checking them: an honest relay of a
    cheater's bad events must not be what its followers cut off."""
    from creepnet.protocol.event import sign_event

    cpu = [0.0]
    forged: set[bytes] = set()
    receive = Session.receive

    def costly(self, raw, sender=None):
        if raw in forged:
            cpu[0] += COST
        return receive(self, raw, sender=sender)

    monkeypatch.setattr(Session, "receive", costly)
    relay_key = Identity.generate()
    with trio.fail_after(60):
        async with Node.open(tmp_path / "alice", timeouts=FAST) as alice, alice.updates() as news:
            alice._sync.budget = CpuBudget(
                rate=0.0, burst=5 * COST + COST / 2, shun=600, clock=lambda: cpu[0]
            )
            game = await alice.host_game("creeper", "relayed", player="alice")
            session = alice.session(game)
            seq, head = len(session.log), session.log.head
            signed = [
                sign_event(MALLORY, game=game, seq=seq, prev=head, type="move", body={"move": m})
                for m in ("a1-b2", "a1-b3", "a1-b4", "a1-b5", "a1-b6", "a1-b7", "a1-b8", "a1-b9")
            ]
            forged.update(event.raw for event in signed)
            relay = await raw_peer(alice.address, relay_key)
            await relay.send(
                {
                    "type": "events",
                    "game": game,
                    "from": seq,
                    "items": [event.raw for event in signed],
                    "length": seq + 1,
                }
            )
            cut = await next_update(news, lambda u: u.kind == updates.ERROR and "cut off" in u.text)
            assert cut.data["key"] == MALLORY.public_key and "passed on by" in cut.text
            assert MALLORY.fingerprint in cut.text and relay_key.public_key in alice.peers
            with pytest.raises(HandshakeError, match="CPU"):
                await raw_peer(alice.address, MALLORY)
            await relay.send({"type": "list"})  # the relay is still served
            while (await relay.receive())["type"] != "games":
                pass


async def test_a_seated_player_resending_refused_events_is_cut_off_by_real_cpu_time(tmp_path):
    """No hook: the budget's real clock (thread CPU time) and a burst of 0.25 ms, against a
    seated player's signed events that the session refuses (each costs at least one signature
    check, ~0.05 ms: benchmarks/rejection_cost.py)."""
    from creepnet.protocol.event import sign_event

    with trio.fail_after(60):
        async with Node.open(tmp_path / "alice", timeouts=FAST) as alice, alice.updates() as news:
            game = await alice.host_game("creeper", "real", player="alice")
            async with Node.open(tmp_path / "bob", timeouts=FAST) as bob:
                await bob.join(alice.address, game, player="bob")
                cheat = bob.identity  # bob's node goes; his key comes back to cheat
            await until_gone(alice, cheat.public_key)
            alice._sync.budget = CpuBudget(rate=0.0, burst=0.00025, shun=600)
            session = alice.session(game)
            seq, head = len(session.log), session.log.head
            bad = [
                sign_event(cheat, game=game, seq=seq, prev=head, type="move", body={"move": m})
                for m in (f"a{n}-z9" for n in range(20))
            ]
            cheater = await raw_peer(alice.address, cheat)
            await cheater.send(
                {"type": "events", "game": game, "from": seq, "items": [e.raw for e in bad],
                 "length": seq + 1}
            )  # fmt: skip
            refused = 0
            while True:
                update = await next_update(
                    news, lambda u: u.kind == updates.REJECTED or "cut off" in u.text
                )
                if update.kind != updates.REJECTED:
                    break
                refused += 1
            assert update.data["key"] == cheat.public_key
            assert 0 < refused < len(bad) and refused <= MAX_REJECTIONS
            with pytest.raises(HandshakeError, match="CPU"):
                await raw_peer(alice.address, cheat)


async def until_gone(node: Node, key: bytes) -> None:
    while key in node.peers:
        await node.peers[key].closed.wait()


def forged(kind: str, session: Session) -> dict:
    """A validly shaped `kind` message about session's game whose signature is nobody's: the
    node must check one Ed25519 signature to refuse it."""
    game, seq, head = session.game, len(session.log), session.log.head
    waited = session.waiting_for().seat
    if kind == "retire-vote":  # where the game waits, "by" the other seat
        where = {"seq": seq, "prev": head, "seat": waited}
        return {"type": kind, "game": game, **where, "vote": [1 - waited, bytes(64)]}
    if kind == "retire-objection":  # "by" bob (alice is seat 0: she never hears her own)
        where = {"seq": seq, "prev": head, "seat": 0}
        event = session.log.events[-1].raw  # an event that parses: the signature is checked
        return {"type": kind, "game": game, **where, "objector": 1, "event": event,
                "signature": bytes(64)}  # fmt: skip
    return {"type": kind, "game": game, "seat": 1, "signature": bytes(64)}


@pytest.mark.parametrize("kind", ["retire-vote", "retire-objection", "leave"])
async def test_a_peer_flooding_forged_signed_messages_is_cut_off_and_shunned(
    tmp_path, monkeypatch, kind
):
    """Votes, objections and leave notices carry signatures anyone who knows the game id may
    make us check; the refused ones were free, so one peer could keep a node verifying
    Ed25519 signatures for ever.  Each check here "costs" 10 ms on the budget's clock."""
    from creepnet.protocol import retirement

    cpu = [0.0]
    checked: list[bytes] = []
    verify = retirement.verify_signature

    def costly(key, message, signature):
        checked.append(message)
        cpu[0] += COST  # as a verification costs
        return verify(key, message, signature)

    monkeypatch.setattr(retirement, "verify_signature", costly)
    with trio.fail_after(60):
        async with alice_and_bob(tmp_path) as (alice, bob, news):
            budget = alice._sync.budget = CpuBudget(
                rate=0.0, burst=5 * COST + COST / 2, shun=600, clock=lambda: cpu[0]
            )
            game = await alice.host_game("creeper", "votes", player="alice")
            await bob.join(alice.address, game, player="bob")
            await alice.wait_for(game, lambda rt: rt.session.started, timeout=10)
            mallory = await raw_peer(alice.address, MALLORY)
            message = forged(kind, alice.session(game))
            await flood(mallory, [message] * 12)
            cut = await next_update(news, lambda u: u.kind == updates.ERROR and "cut off" in u.text)
            assert cut.data["key"] == MALLORY.public_key and "CPU" in cut.text
            assert len(checked) == 6  # cut off at the check that overdrew it; the rest unread
            assert budget.spent(MALLORY.public_key) > budget.burst
            await until_gone(alice, MALLORY.public_key)
            with pytest.raises(HandshakeError, match="CPU"):
                await raw_peer(alice.address, MALLORY)
            # The players were charged nothing, and their game plays to its end.
            assert budget.spent(bob.identity.public_key) == 0.0
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, alice, game, "random", 1)
                nursery.start_soon(run_bot, bob, game, "random", 2)
            assert alice.session(game).finished and bob.session(game).finished


@pytest.mark.parametrize("kind", ["retire-vote", "retire-objection", "leave"])
async def test_forged_signed_messages_count_as_refused_on_their_connection(
    tmp_path, monkeypatch, kind
):
    """The CPU budget is per key, and a fresh key costs one handshake: for forged votes,
    objections and leave notices the budget alone let every connection of a stranger make us
    verify ~10,000 signatures (a second of CPU) before it was cut off, for ~1 MB sent.  Events
    a connection sends that are refused are bounded by 16 per connection; now its forged
    signed messages count among them."""
    from creepnet.protocol import retirement

    checked: list[bytes] = []
    verify = retirement.verify_signature

    def counted(key, message, signature):
        checked.append(message)
        return verify(key, message, signature)

    monkeypatch.setattr(retirement, "verify_signature", counted)
    with trio.fail_after(60):
        async with alice_and_bob(tmp_path) as (alice, bob, news):
            game = await alice.host_game("creeper", "votes", player="alice")
            await bob.join(alice.address, game, player="bob")
            await alice.wait_for(game, lambda rt: rt.session.started, timeout=10)
            mallory = await raw_peer(alice.address, MALLORY)
            message = forged(kind, alice.session(game))
            await flood(mallory, [message] * 200)
            await hung_up_for_refusals(news)
            assert len(checked) == MAX_REJECTIONS + 1  # the rest unread
            await mallory.aclose()


async def test_a_stranger_flooding_refused_join_requests_is_cut_off_and_the_lobby_stays_open(
    tmp_path, monkeypatch
):
    """A host signs a seat event for every join request and checks it (its signature, and a
    key proof in a Racer lobby); anyone may ask, and refused asks were free."""
    cpu = [0.0]
    admit = Session.admit

    def costly(self, request):
        cpu[0] += COST  # as signing the seat and checking the request costs
        return admit(self, request)

    monkeypatch.setattr(Session, "admit", costly)
    with trio.fail_after(60):
        async with alice_and_bob(tmp_path) as (alice, bob, news):
            budget = alice._sync.budget = CpuBudget(
                rate=0.0, burst=5 * COST + COST / 2, shun=600, clock=lambda: cpu[0]
            )
            game = await alice.host_game("creeper", "lobby", player="alice")
            mallory = await raw_peer(alice.address, MALLORY)
            await flood(mallory, [join_request(game, n) for n in range(12)])
            cut = await next_update(news, lambda u: u.kind == updates.ERROR and "cut off" in u.text)
            assert cut.data["key"] == MALLORY.public_key and "CPU" in cut.text
            assert cpu[0] == pytest.approx(6 * COST)  # the rest unread
            await until_gone(alice, MALLORY.public_key)
            with pytest.raises(HandshakeError, match="CPU"):
                await raw_peer(alice.address, MALLORY)
            await bob.join(alice.address, game, player="bob")  # the seat is still there
            assert alice.session(game).seat_keys[1] == bob.identity.public_key
            assert budget.spent(bob.identity.public_key) == 0.0


async def test_refused_join_requests_count_as_refused_on_their_connection(tmp_path, monkeypatch):
    """As forged retirement messages: a stranger's join requests the host refuses were bounded
    by its key's budget alone (a second of checks and seat signatures per fresh key)."""
    asked = []
    admit = Session.admit

    def counted(self, request):
        asked.append(request)
        return admit(self, request)

    monkeypatch.setattr(Session, "admit", counted)
    with trio.fail_after(60):
        async with alice_and_bob(tmp_path) as (alice, bob, news):
            game = await alice.host_game("creeper", "lobby", player="alice")
            mallory = await raw_peer(alice.address, MALLORY)
            await flood(mallory, [join_request(game, n) for n in range(200)])
            await hung_up_for_refusals(news)
            assert len(asked) == MAX_REJECTIONS + 1  # the rest unread
            await mallory.aclose()
            await bob.join(alice.address, game, player="bob")  # the seat is still there
