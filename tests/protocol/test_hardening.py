"""Attacks of issue #13 on the session and the log, each shown failing (see PROTOCOL.md §7)."""

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_scalarmult_ed25519_base_noclamp

from creepnet.protocol import codec, onion, pending
from creepnet.protocol.event import SIGNING_DOMAIN, sign_event
from creepnet.protocol.identity import Identity, valid_public_key, verify_signature
from creepnet.protocol.lobby import JoinError, JoinRequest, SeatSecrets
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot
from creepnet.protocol.text import valid_name
from creepnet.protocol.verify import verify_file_bytes

IDENTITY_POINT = b"\x01" + bytes(31)  # the neutral element: a small-order "public key"


def started_table(seed: int) -> SessionHarness:
    table = SessionHarness(seed=seed)
    for _ in range(3):
        for seat, session in enumerate(table.sessions):
            table.broadcast(seat, session.owed())
        table.pump()
    return table


def small_order_signature(message: bytes) -> bytes:
    """``[s]B ‖ s``: under the identity point as key, this satisfies [S]B = R + [k]A."""
    del message  # that is the point: it does not depend on the message
    s = (7).to_bytes(32, "little")
    return crypto_scalarmult_ed25519_base_noclamp(s) + s


# ----- 6. one signature rule: small-order keys --------------------------------------------------


def test_a_small_order_key_verifies_anything_in_openssl_but_not_under_our_rule():
    message = b"any message at all"
    signature = small_order_signature(message)
    Ed25519PublicKey.from_public_bytes(IDENTITY_POINT).verify(signature, message)  # no error
    assert not valid_public_key(IDENTITY_POINT)
    assert not verify_signature(IDENTITY_POINT, message, signature)


def test_non_canonical_s_is_refused():
    identity = Identity.generate()
    message = b"m"
    signature = identity.sign(message)
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(signature[32:], "little") + order  # same value mod L, other encoding
    malleated = signature[:32] + s.to_bytes(32, "little")
    assert verify_signature(identity.public_key, message, signature)
    assert not verify_signature(identity.public_key, message, malleated)


def test_a_host_cannot_seat_a_small_order_key():
    host = Session.host(Identity.generate(), SeatSecrets.generate(), kind="creeper", name="x")
    request = {
        "game": host.game,
        "genesis": host.log.events[0].id,
        "seat": 1,
        "key": IDENTITY_POINT,
        "anchor": b"a" * 32,
        "player": "nobody",
    }
    request["sig"] = small_order_signature(b"")
    with pytest.raises(JoinError, match="not a valid Ed25519 public key"):
        JoinRequest.from_map(request)
    with pytest.raises(Rejection, match="not a valid Ed25519 public key"):
        host.admit(codec.encode(request))


def test_a_genesis_by_a_small_order_key_is_refused():
    unsigned = {
        "v": 1,
        "game": b"g" * 16,
        "seq": 0,
        "prev": bytes(32),
        "author": IDENTITY_POINT,
        "type": "genesis",
        "body": {},
    }
    raw = codec.encode({**unsigned, "sig": small_order_signature(b"")})
    with pytest.raises(Rejection, match="signature"):
        Session.from_log([raw])


# ----- 7. one encoding per action: booleans are not integers ------------------------------------


def signed_raw(identity: Identity, unsigned: dict) -> bytes:
    sig = identity.sign(SIGNING_DOMAIN + codec.encode(unsigned))
    return codec.encode({**unsigned, "sig": sig})


def test_version_true_is_not_version_1():
    table = SessionHarness(seed=50)
    event = table.sessions[0].log.events[0]
    unsigned = {**codec.decode(event.raw), "v": True}
    del unsigned["sig"]
    raw = signed_raw(table.identities[0], unsigned)
    with pytest.raises(Rejection, match="unsupported protocol version True"):
        Session.from_log([raw])


def test_a_reveal_for_draw_false_is_not_draw_0():
    table = SessionHarness(seed=51)
    host = table.sessions[0]
    host.owed()  # start and the host's first reveal
    reveal = host.log.events[-1]
    assert reveal.type == "reveal" and reveal.body["draw"] == 0
    raws = [e.raw for e in host.log.events[:-1]]
    body = {**reveal.body, "draw": False}
    twin = sign_event(
        table.identities[0],
        game=host.game,
        seq=reveal.seq,
        prev=reveal.prev,
        type="reveal",
        body=body,
    )
    with pytest.raises(Rejection, match="reveal is for draw False"):
        Session.from_log([*raws, twin.raw])


# ----- 2. a game id commits to its genesis; a join request to the genesis -------------------------


def test_nobody_else_can_sign_a_genesis_for_a_game_id():
    table = SessionHarness(seed=52)
    real = table.sessions[0].log.events[0]
    mallory = Identity.generate()
    twin = sign_event(
        mallory, game=real.game, seq=0, prev=bytes(32), type="genesis", body=real.body
    )
    follower = Session.follow(real.game)
    receipt = follower.receive(twin.raw)  # the twin wins the race on the wire ...
    assert receipt.status == "rejected" and receipt.rejection.kind == "genesis"
    assert "game id" in receipt.rejection.reason
    assert follower.receive(real.raw).status == "accepted"  # ... and loses nothing


def test_a_pinned_follower_refuses_a_genesis_by_another_key():
    table = SessionHarness(seed=53)
    real = table.sessions[0].log.events[0]
    follower = Session.follow(real.game, host=Identity.generate().public_key)
    receipt = follower.receive(real.raw)
    assert receipt.rejection.kind == "genesis" and "not the host" in receipt.rejection.reason


def test_a_join_request_cannot_be_replayed_into_a_twin_genesis_of_the_same_id():
    table = SessionHarness(seed=54, seats=2)
    host_key, host_secrets = table.identities[0], table.secrets[0]
    real = table.sessions[0]
    nonce = real.log.events[0].body["nonce"]
    twin = Session.host(host_key, host_secrets, kind="creeper", name="other", nonce=nonce)
    assert twin.game == real.game and twin.log.events[0].id != real.log.events[0].id
    seat_event = real.log.events[1]
    with pytest.raises(Rejection, match="another game"):
        twin.admit(JoinRequest.from_map(seat_event.body["join"]).to_bytes())


# ----- 1 and 8. held future events: entitled authors only, bounded, never crowding out ------------


def test_a_seated_cheater_cannot_squat_the_buffer_and_honest_events_are_never_blamed():
    table = started_table(seed=55)
    watcher, host = table.spectator, table.sessions[0]
    cheater = table.identities[0]
    outsider = Identity.generate()
    base = len(watcher.log)
    statuses = []
    for ahead in range(2, 2 + pending.MAX_PER_AUTHOR + 10):
        junk = sign_event(
            cheater, game=host.game, seq=base + ahead, prev=bytes(32), type="resign", body={}
        )
        statuses.append(watcher.receive(junk.raw, sender=outsider.public_key).status)
    assert statuses.count("pending") == pending.MAX_PER_AUTHOR
    assert set(statuses[pending.MAX_PER_AUTHOR :]) == {"deferred"}
    # Two honest moves, the second delivered first: held, not refused, then accepted.
    seat = table.sessions[0].expected().seat
    session = table.sessions[seat]
    first = session.play(creeper_bot("random", 0)(session))
    table.broadcast(seat, [first])
    table.queue = [d for d in table.queue if d.receiver != -1]
    table.pump()
    other = table.sessions[1 - seat]
    second = other.play(creeper_bot("random", 0)(other))
    assert watcher.receive(second.raw, sender=b"honest").status == "pending"
    receipt = watcher.receive(first.raw, sender=b"honest")
    assert [e.seq for e in receipt.accepted] == [first.seq, second.seq]
    assert watcher.halted is None


def test_a_sender_of_endless_duplicates_is_refused_unread():
    table = started_table(seed=56)
    watcher = table.spectator
    known = watcher.log.events[-1].raw
    spam = b"mallory"
    statuses = [watcher.receive(known, sender=spam).status for _ in range(pending.FREE_WASTE)]
    assert set(statuses) == {"duplicate"}
    allowance = pending.WASTE_PER_EVENT * len(watcher.log)
    for _ in range(allowance):
        watcher.receive(known, sender=spam)
    receipt = watcher.receive(known, sender=spam)
    assert receipt.status == "rejected" and receipt.rejection.kind == "flood"
    assert watcher.receive(known, sender=b"someone else").status == "duplicate"


# ----- the spec: names by a fixed code-point table ------------------------------------------------


@pytest.mark.parametrize(
    "name, ok",
    [
        ("alice", True),
        ("Zoë 🙂", True),
        ("\U0001f6dc wireless", True),  # assigned in Unicode 15: valid on every Python
        ("\u0378x", True),  # unassigned today: still valid, so a new Unicode changes nothing
        ("a\tb", False),
        ("a\x7fb", False),
        ("a\x85b", False),  # C1 next line
        ("\u202eevil", False),  # right-to-left override
        ("zero\u200bwidth", False),
        ("a\u2028b", False),
        ("\ufeffbom", False),
        ("\ue000private", False),
        ("\U000e0041tag", False),
        ("non\ufffechar", False),
        ("\U0001fffe", False),
        ("a" * 32, True),
        ("a" * 33, False),
        ("é" * 32, True),  # code points, not bytes (64 bytes of UTF-8)
        ("", False),
    ],
)
def test_names_follow_the_fixed_code_point_table(name, ok):
    assert valid_name(name, 32) is ok


def test_the_onion_is_untouched_by_the_new_genesis_field():
    table = SessionHarness(seed=57)
    genesis = table.sessions[0].log.events[0]
    assert genesis.body["anchor"] == onion.anchor(
        genesis.game, table.secrets[0].onion_seed, table.onion_length
    )


# ----- the spec: verify judges events in file order, and "seq N" is the position ----------------


def finished_log(seed: int) -> list[bytes]:
    table = SessionHarness(seed=seed, options={"max_plies": 30})
    table.run([creeper_bot("random", seed), creeper_bot("random", seed + 1)])
    return [e.raw for e in table.spectator.log.events]


def test_verify_reports_the_first_bad_event_in_file_order():
    raws = finished_log(60)
    fields = codec.decode(raws[3])
    fields["sig"] = bytes(64)  # a forged event early in the file ...
    raws[3] = codec.encode(fields)
    data = b"".join(raws) + b"\xc1 framing broken near the end"  # ... and garbage at its end
    verdict = verify_file_bytes(data)
    assert not verdict.valid
    assert (verdict.error.seq, verdict.error.kind) == (3, "signature")
    assert verdict.events == 3


def test_a_wrong_seq_is_reported_at_its_position_with_the_claimed_value():
    raws = finished_log(61)
    host = SessionHarness(seed=61).identities[0]
    genesis = Session.from_log(raws[:1]).log.events[0]
    stray = sign_event(host, game=genesis.game, seq=7, prev=genesis.id, type="start", body={})
    verdict = verify_file_bytes(raws[0] + stray.raw)
    assert (verdict.error.seq, verdict.error.kind) == (1, "sequence")
    assert "expected seq 1, got 7" in verdict.error.reason


def test_an_empty_file_is_invalid():
    verdict = verify_file_bytes(b"")
    assert not verdict.valid and verdict.error.kind == "empty"


def test_throw_away_senders_are_forgotten_before_a_big_spender_and_memory_stays_bounded():
    allowance = pending.Allowance()
    for _ in range(10):
        allowance.charge(b"spender")
    for i in range(3 * pending.MAX_SENDERS):
        allowance.charge(i.to_bytes(8, "big"))  # a fresh key per delivery
    assert allowance.wasted(b"spender") == 10  # it cannot reset its count by flooding
    remembered = sum(allowance.wasted(i.to_bytes(8, "big")) for i in range(3 * pending.MAX_SENDERS))
    assert remembered == pending.MAX_SENDERS - 1  # one slot is the spender's
