"""What checking a retirement message costs, and who pays (node/retirement.py, "What checking
costs").  A table's node keeps ballots and objections for a few positions only; a seat's
*valid* votes about made-up positions ahead, or objections about positions long filled, pushed
the older ones out and, replayed in turn, were checked (two Ed25519 verifications each) and
passed on again every time, for free.  Now each such check is charged to its signer, a forged
one to its sender, and a replay of what is held costs nothing.  A valid objection is checked
once per objector and seq in the window, whoever replays it: charged on every replay, an honest
seat's objections were a way for anyone to get it cut off.  And our own objection is signed
once per position, however often a seat's votes ask for it."""

from __future__ import annotations

import secrets
from types import SimpleNamespace

import pytest

from creepnet.node.game import GameRuntime
from creepnet.node.messages import events
from creepnet.node.peer import ProtocolViolation
from creepnet.node.reporter import Reporter
from creepnet.node.retirement import (
    MAX_BALLOTS,
    MAX_OBJECTIONS,
    Retirements,
    _current,
    _objection_message,
    _vote_message,
)
from creepnet.node.storage import Home
from creepnet.node.sync import GameSync
from creepnet.node.updates import Broadcaster
from creepnet.protocol import codec, retirement
from creepnet.protocol.event import PROTOCOL_VERSION, parse_event, sign_event
from creepnet.protocol.log import Rejection
from creepnet.protocol.receiving import Receipt
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

X, MALLORY = 1, 2  # the seat the objections are about, and the seat that signs them


@pytest.fixture(scope="module")
def table():
    """A 3-seat Racer table in memory, where seat 0's node waits on another seat's decision
    and X has authored a few events within the objection window."""
    harness = SessionHarness(seats=3, kind="racer")
    bots = [seat_bot("racer", "random", seed) for seed in range(3)]
    session = harness.sessions[0]
    for _ in range(2000):
        turn = session.expected()
        authored = [e for e in session.log.events[-60:] if e.author == session.seat_keys[X]]
        waiting = session.started and turn is not None and not turn.automatic
        if waiting and turn.seat != 0 and len(authored) > MAX_OBJECTIONS + 1:
            return harness
        harness.step(bots)
    raise AssertionError("no position with enough of X's events before seat 0 waits")


class Meter:
    """Records who is charged; its clock moves one 'second' per reading."""

    def __init__(self) -> None:
        self.now = 0.0
        self.charged: list[bytes] = []

    def clock(self) -> float:
        self.now += 1.0
        return self.now

    def refused(self, runtime, peer, payer: bytes, seconds: float, *, forged=False) -> None:
        assert seconds > 0
        self.charged.append(payer)


def node_of(harness: SessionHarness, tmp_path) -> tuple[Retirements, GameRuntime, Meter]:
    session = harness.sessions[0]
    runtime = GameRuntime(session=session, store=Home(tmp_path).game(session.game))
    meter = Meter()
    node = Retirements(
        {session.game: runtime}, None, Reporter(Broadcaster()), harness.identities[0], meter=meter
    )
    return node, runtime, meter


async def test_valid_objections_about_filled_positions_are_paid_by_their_signer_once(
    table, tmp_path, monkeypatch
):
    node, runtime, meter = node_of(table, tmp_path)
    session, signer = runtime.session, table.identities[MALLORY]
    messages = objections_by(table, MALLORY, MAX_OBJECTIONS + 2)
    checks = []
    verify = retirement.verify_signature

    def counted(key, message, signature):
        checks.append(key)
        return verify(key, message, signature)

    monkeypatch.setattr(retirement, "verify_signature", counted)
    peer = SimpleNamespace(key=signer.public_key)
    for message in messages:
        await node.on_message(runtime, peer, message)
    assert meter.charged == [signer.public_key] * len(messages)
    done = len(checks)
    for _ in range(2):  # round and round: more positions than their messages are kept for
        for message in messages:
            await node.on_message(runtime, peer, message)
    assert len(checks) == done and meter.charged == [signer.public_key] * len(messages)
    kept = node._objections[session.game]
    assert len(kept) == MAX_OBJECTIONS  # the last few messages, each once


async def test_valid_votes_about_made_up_positions_ahead_are_paid_by_their_signer(table, tmp_path):
    node, runtime, meter = node_of(table, tmp_path)
    session, signer = runtime.session, table.identities[MALLORY]
    ahead = [
        retirement.Position(session.game, len(session.log) + 1, secrets.token_bytes(32), X)
        for _ in range(MAX_BALLOTS + 2)
    ]
    messages = [_vote_message(p, retirement.vote(signer, p, MALLORY)) for p in ahead]
    relay = SimpleNamespace(key=table.identities[0].public_key)  # an honest seat passing them on
    for _ in range(2):
        for message in messages:
            await node.on_message(runtime, relay, message)
    assert meter.charged == [signer.public_key] * (2 * len(messages))  # never the relay


async def test_a_forged_vote_costs_its_sender_and_a_held_vote_replayed_costs_nothing(
    table, tmp_path, monkeypatch
):
    node, runtime, meter = node_of(table, tmp_path)
    session = runtime.session
    checks = []
    verify = retirement.verify_signature

    def counted(key, message, signature):
        checks.append(key)
        return verify(key, message, signature)

    monkeypatch.setattr(retirement, "verify_signature", counted)
    stalled = session.waiting_for().seat
    voter = next(seat for seat in range(3) if seat not in (0, stalled))
    here = retirement.Position(session.game, len(session.log), session.log.head, stalled)
    honest = _vote_message(here, retirement.vote(table.identities[voter], here, voter))
    sender = SimpleNamespace(key=b"s" * 32)
    await node.on_message(runtime, sender, honest)
    assert node._ballots[session.game][here].votes.keys() == {voter} and meter.charged == []
    done = len(checks)
    for _ in range(10):
        await node.on_message(runtime, sender, honest)
    assert len(checks) == done and meter.charged == []  # held: never checked again
    forged = _vote_message(here, [0, bytes(64)])  # "by" our own seat, which has not voted
    await node.on_message(runtime, sender, forged)
    assert meter.charged == [sender.key]


def objections_by(harness: SessionHarness, signer_seat: int, count: int) -> list[dict]:
    """Valid objections signed by signer_seat about X's events in the window of seat 0's log."""
    session, signer = harness.sessions[0], harness.identities[signer_seat]
    x_key = session.seat_keys[X]
    theirs = [e for e in session.log.events[-60:] if e.author == x_key][:count]
    out = []
    for event in theirs:
        where = retirement.Position(session.game, event.seq, event.prev, X)
        signature = retirement.objection(signer, where, signer_seat, event.id)
        out.append(_objection_message(where, signer_seat, event.raw, signature))
    return out


async def test_an_honest_seats_objections_replayed_by_another_peer_cost_it_once_each(
    table, tmp_path
):
    """Seat 2 objected honestly at a few filled positions.  A third peer that replays those
    objections in turn, round after round, used to get each one checked again and charged to
    seat 2 (kept for a few positions only), until seat 2 was cut off and shunned: an honest
    seat framed with its own signatures."""
    node, runtime, meter = node_of(table, tmp_path)
    honest = table.identities[MALLORY].public_key
    messages = objections_by(table, MALLORY, MAX_OBJECTIONS + 2)
    replayer = SimpleNamespace(key=b"r" * 32, label="replayer")
    for _ in range(5):
        for message in messages:
            await node.on_message(runtime, replayer, message)
    assert meter.charged == [honest] * len(messages)  # each checked once, replays free


class Follower:
    """A connected peer of the game that records what it is sent."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.label = key.hex()[:8]
        self.sent: list[dict] = []

    def send(self, message: dict) -> None:
        self.sent.append(message)


async def test_a_seats_votes_about_filled_positions_replayed_in_turn_make_us_object_once_each(
    table, tmp_path, monkeypatch
):
    """A seat's valid votes for positions we filled with X's event make us sign an objection
    and send it to every follower.  Replayed in turn over more positions than are kept, they
    made us sign and send again every round: each copy then charged to *our* key by every
    follower that checks it (an objection about a filled position is its signer's cost)."""
    node, runtime, meter = node_of(table, tmp_path)
    session, voter = runtime.session, table.identities[MALLORY]
    signed = []
    sign = retirement.objection

    def counted(identity, where, objector, event_id):
        signed.append(where)
        return sign(identity, where, objector, event_id)

    monkeypatch.setattr(retirement, "objection", counted)
    x_key = session.seat_keys[X]
    theirs = [e for e in session.log.events[-60:] if e.author == x_key][: MAX_OBJECTIONS + 2]
    votes = []
    for event in theirs:
        where = retirement.Position(session.game, event.seq, event.prev, X)
        votes.append(_vote_message(where, retirement.vote(voter, where, MALLORY)))
    mallory, other = Follower(voter.public_key), Follower(table.identities[X].public_key)
    runtime.followers = {mallory.key: mallory, other.key: other}
    for _ in range(3):
        for message in votes:
            await node.on_message(runtime, mallory, message)
    assert len(signed) == len(votes)  # one objection per position, signed once
    objections = [m for m in other.sent if m["type"] == "retire-objection"]
    assert len(objections) == len(votes)  # and sent to each follower once


def sync_of(harness: SessionHarness, tmp_path) -> tuple[GameSync, GameRuntime]:
    """Seat 0's message handling (GameSync) with its retirements, for the table's game."""
    node, runtime, _ = node_of(harness, tmp_path)
    sync = GameSync(node.games, None, node.reporter, reply_timeout=5.0)
    sync.retirements = node
    return sync, runtime


class Seat(Follower):
    fingerprint = "seat"
    close_reason = ""


async def test_a_vote_is_passed_on_without_fields_nobody_checked(table, tmp_path):
    """Extra fields of a message are ignored, but a valid vote went on to every follower as it
    came, extra fields and all: a seat signing votes for positions ahead (each charged ~0.1 ms)
    could make us send ~2 MiB to every follower per vote, filling their send queues until
    they were dropped as too slow."""
    sync, runtime = sync_of(table, tmp_path)
    session, signer = runtime.session, table.identities[MALLORY]
    ahead = retirement.Position(session.game, len(session.log) + 1, secrets.token_bytes(32), X)
    vote = _vote_message(ahead, retirement.vote(signer, ahead, MALLORY))
    sender, other = Seat(signer.public_key), Seat(table.identities[X].public_key)
    runtime.followers = {sender.key: sender, other.key: other}
    await sync.dispatch(sender, {**vote, "padding": bytes(1 << 20)})
    passed = [m for m in other.sent if m["type"] == "retire-vote"]
    assert passed == [vote]  # the fields of its shape, nothing else


async def test_a_vote_about_a_prev_that_is_no_event_id_is_refused_by_shape(table, tmp_path):
    """`prev` names an event (32 bytes); a 1 MiB one, signed, was checked and passed on."""
    sync, runtime = sync_of(table, tmp_path)
    session, signer = runtime.session, table.identities[MALLORY]
    ahead = retirement.Position(session.game, len(session.log) + 1, bytes(1 << 20), X)
    vote = _vote_message(ahead, retirement.vote(signer, ahead, MALLORY))
    sender, other = Seat(signer.public_key), Seat(table.identities[X].public_key)
    runtime.followers = {sender.key: sender, other.key: other}
    with pytest.raises(ProtocolViolation, match="prev"):
        await sync.dispatch(sender, vote)
    assert not [m for m in other.sent if m["type"] == "retire-vote"]


async def test_a_forged_late_event_is_not_kept_aside_as_evidence(table, tmp_path):
    """Once we voted to retire seat X at S, X's late event there is kept aside, unseen by the
    session.  A forged one (X's key on it, any signature) was kept aside just the same,
    announced as X's late event, and never refused: junk in X's name, unlimited, that counted
    against nobody.  Now only X's validly signed event is kept aside; a forgery goes to the
    session, which refuses it and blames its sender."""
    node, runtime, _ = node_of(table, tmp_path)
    session = runtime.session
    where = _current(runtime)
    node._ballot(runtime, where).cast(table.identities[0], 0)
    envelope = {
        "author": session.seat_keys[where.seat],
        "body": {},
        "game": session.game,
        "prev": session.log.head,
        "seq": len(session.log),
        "sig": bytes(64),
        "type": "play",
        "v": PROTOCOL_VERSION,
    }
    forged = codec.encode(envelope)
    assert parse_event(forged).author == session.seat_keys[where.seat]  # it parses
    assert not node.keep_aside(runtime, forged)
    late = sign_event(
        table.identities[where.seat],
        game=session.game,
        seq=len(session.log),
        prev=session.log.head,
        type="play",
        body={},
    )
    assert node.keep_aside(runtime, late.raw)


class Mover(Seat):
    """A seat whose events we receive, counting the batches we answer with."""

    rejections = 0
    queued = 0

    def queued_events(self, game: bytes, end: int) -> None:
        pass

    async def wait_written(self, queued: int) -> None:
        pass

    def batches(self) -> int:
        return sum(1 for m in self.sent if m["type"] == "events")


async def test_a_retired_seat_signing_late_move_after_late_move_is_answered_once(
    table, tmp_path, monkeypatch
):
    """A late move (one that crossed its seat's retirement) sent by that seat itself is
    answered with the log from its position, so its node learns of the retirement.  A retired
    seat could sign move after move there, a few hundred bytes each, and have a batch of the
    log (up to a frame) sent for every one: it is answered once per position."""
    sync, runtime = sync_of(table, tmp_path)
    session = runtime.session
    seq = len(session.log) - 3
    prev = session.log.events[seq - 1].id
    mover = Mover(table.identities[X].public_key)
    runtime.followers = {mover.key: mover}
    runtime.stored = len(session.log)
    real = session.receive

    def receive(raw: bytes, sender: bytes | None = None):
        if parse_event(raw).seq != seq:
            return real(raw, sender)
        why = Rejection(seq, "late", "came after the table retired it")
        return Receipt("late", rejections=[why])

    async def settle(*args: object, **kwargs: object) -> bool:
        return False

    monkeypatch.setattr(session, "receive", receive)
    sync.ledger = SimpleNamespace(settle=settle)  # type: ignore[assignment]
    for n in range(5):
        late = sign_event(
            table.identities[X], game=session.game, seq=seq, prev=prev, type="act", body={"n": n}
        )
        await sync.dispatch(mover, events(session.game, seq, [late.raw], seq + 1))
    assert mover.batches() == 1 and mover.sent[0]["from"] == seq
