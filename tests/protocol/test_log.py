"""Signed events and the log: tampering of any kind is detected and explained."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol import codec
from creepnet.protocol.event import GENESIS_PREV, EventError, parse_event, sign_event
from creepnet.protocol.identity import Identity
from creepnet.protocol.log import (
    EquivocationProof,
    EventLog,
    Rejection,
    find_equivocation,
    load_log,
    split_log,
)
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot
from creepnet.protocol.verify import verify_log_bytes

ALICE = Identity.from_seed(bytes(range(32)))
BOB = Identity.from_seed(bytes(range(1, 33)))


def build_log(game: bytes = b"G" * 16, length: int = 4) -> EventLog:
    log = EventLog()
    for seq in range(length):
        author = ALICE if seq % 2 == 0 else BOB
        log.append(
            sign_event(author, game=game, seq=seq, prev=log.head, type="note", body={"n": seq})
        )
    return log


LOG = build_log()


def chain_error(data: bytes) -> Rejection:
    with pytest.raises(Rejection) as caught:
        load_log(data)
    return caught.value


def game_log() -> bytes:
    table = SessionHarness(seed=3, options={"max_plies": 60})
    table.run([creeper_bot("greedy", 1), creeper_bot("random", 2)])
    return table.spectator.log.to_bytes()


GAME = game_log()
# genesis, seat, start, two reveals and two moves: every event type, small enough to flip every byte
PREFIX = b"".join(load_log(GAME).events[i].raw for i in range(7))


def test_signed_event_round_trips_and_verifies():
    event = LOG.events[1]
    again = parse_event(event.raw)
    assert again == event
    assert again.signature_valid()
    assert again.author == BOB.public_key
    assert LOG.events[0].prev == GENESIS_PREV
    assert LOG.events[2].prev == LOG.events[1].id


def test_signature_is_domain_separated():
    event = LOG.events[0]
    bare = codec.encode({k: v for k, v in codec.decode(event.raw).items() if k != "sig"})
    assert event.signed_bytes().endswith(bare) and event.signed_bytes() != bare
    assert ALICE.sign(bare) != event.sig


def test_valid_game_log_verifies_with_outcome():
    verdict = verify_log_bytes(GAME)
    assert verdict.valid and verdict.finished and verdict.outcome
    assert verdict.events == len(load_log(GAME))


def test_every_single_byte_flip_is_detected():
    assert verify_log_bytes(PREFIX).valid
    for position in range(len(PREFIX)):
        tampered = bytearray(PREFIX)
        tampered[position] ^= 0x01
        assert not verify_log_bytes(bytes(tampered)).valid, position


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_random_byte_changes_anywhere_in_a_game_are_detected(data):
    position = data.draw(st.integers(0, len(GAME) - 1))
    mask = data.draw(st.integers(1, 255))
    tampered = bytearray(GAME)
    tampered[position] ^= mask
    verdict = verify_log_bytes(bytes(tampered))
    assert not verdict.valid and verdict.error is not None and verdict.error.reason


def events_bytes(order, log=LOG):
    return b"".join(log.events[i].raw for i in order)


@pytest.mark.parametrize(
    "order",
    [[0, 1, 3], [0, 1, 1, 2, 3], [0, 2, 1, 3], [1, 2, 3]],
    ids=["drop", "duplicate", "reorder", "headless"],
)
def test_dropped_duplicated_reordered_events_fail(order):
    assert chain_error(events_bytes(order)).kind == "sequence"
    game = load_log(GAME)
    verdict = verify_log_bytes(events_bytes(order, game))
    assert not verdict.valid and verdict.error.kind in {"sequence", "genesis"}


def test_event_from_another_game_fails_without_blaming_its_signer():
    other = build_log(game=b"H" * 16)
    error = chain_error(LOG.events[0].raw + other.events[1].raw)
    assert error.kind == "game" and error.author is None and "replay" in error.reason


def test_event_with_right_seq_but_wrong_prev_fails():
    forged = sign_event(BOB, game=b"G" * 16, seq=1, prev=b"\x01" * 32, type="note", body={})
    assert chain_error(LOG.events[0].raw + forged.raw).kind == "chain"


def test_forged_signature_fails():
    fields = codec.decode(LOG.events[1].raw)
    fields["sig"] = ALICE.sign(b"something else")
    error = chain_error(LOG.events[0].raw + codec.encode(fields))
    assert error.kind == "signature" and error.seq == 1


def test_truncated_file_is_a_torn_tail_and_can_be_dropped():
    cut = GAME[:-10]
    events = len(load_log(GAME))
    verdict = verify_log_bytes(cut)
    assert not verdict.valid and verdict.error.kind == "torn-tail"
    assert f"{events - 1} events before it are intact" in verdict.error.reason
    log_file = split_log(cut)
    assert log_file.torn and len(log_file.items) == events - 1
    recovered = load_log(b"".join(log_file.items))
    assert recovered.to_bytes() == GAME[: len(recovered.to_bytes())]


def test_garbage_and_empty_files_fail_cleanly():
    assert verify_log_bytes(b"").error.kind == "empty"
    assert not verify_log_bytes(b"\xc1garbage").valid
    assert not verify_log_bytes(codec.encode({"hello": "world"})).valid


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda f: f.update(v=2), "version"),
        (lambda f: f.update(seq=-1), "seq"),
        (lambda f: f.update(game=b"short"), "game"),
        (lambda f: f.update(type=""), "type"),
        (lambda f: f.update(body=[1]), "body"),
        (lambda f: f.pop("prev"), "missing"),
        (lambda f: f.update(extra=1), "unexpected"),
    ],
)
def test_malformed_envelopes_are_rejected_with_a_reason(change, reason):
    fields = codec.decode(LOG.events[0].raw)
    change(fields)
    with pytest.raises(EventError, match=reason):
        parse_event(codec.encode(fields))


def test_equivocation_proof_is_portable_and_checked():
    honest = LOG.events[1]
    twin = sign_event(BOB, game=honest.game, seq=1, prev=honest.prev, type="note", body={"n": 99})
    proof = find_equivocation(honest, twin)
    assert proof is not None and proof.author == BOB.public_key
    restored = EquivocationProof.from_bytes(proof.to_bytes())
    assert restored.verify().seq == 1
    assert find_equivocation(honest, honest) is None
    other_author = sign_event(
        ALICE, game=honest.game, seq=1, prev=honest.prev, type="note", body={}
    )
    assert find_equivocation(honest, other_author) is None
    with pytest.raises(ValueError):
        EquivocationProof(honest.raw, other_author.raw).verify()


def test_log_append_rejects_wrong_links():
    log = EventLog()
    with pytest.raises(Rejection, match="expected seq 0"):
        log.append(LOG.events[1])
    log.append(LOG.events[0])
    with pytest.raises(Rejection):
        log.append(LOG.events[0])


@pytest.mark.parametrize("enabled", [True, False])
def test_verifying_leaves_the_cycle_collector_as_it_found_it(enabled):
    import gc

    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert verify_log_bytes(GAME).valid
        assert gc.isenabled() is enabled
        tampered = bytearray(GAME)
        tampered[len(GAME) // 2] ^= 1
        assert not verify_log_bytes(bytes(tampered)).valid  # a rejection mid-replay
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_a_log_ending_inside_an_ext32_of_the_greatest_length_is_a_torn_tail():
    """The ext declares 2**32 - 1 data bytes the file does not hold (PROTOCOL.md §4), however
    its first bytes look; msgpack's C skip reads its length wrapped to an empty ext."""
    events = len(load_log(GAME))
    for tail in (b"\xc9\xff\xff\xff\xff", b"\x92\xc9\xff\xff\xff\xff\x01\xc1"):
        verdict = verify_log_bytes(GAME + tail)
        assert (verdict.error.kind, verdict.error.seq) == ("torn-tail", events)
        assert split_log(GAME + tail).torn_tail == tail


def test_the_1_mib_bound_is_judged_only_on_a_complete_value():
    """PROTOCOL.md §4: a value the file ends inside is a torn tail however long it already is;
    the same value complete is malformed (framing)."""
    events = len(load_log(GAME))
    declared = (3 << 20).to_bytes(4, "big")
    torn = verify_log_bytes(GAME + b"\xc6" + declared + bytes(2 << 20))
    assert (torn.error.kind, torn.error.seq) == ("torn-tail", events)
    whole = verify_log_bytes(GAME + b"\xc6" + declared + bytes(3 << 20))
    assert (whole.error.kind, whole.error.seq) == ("malformed", events)
