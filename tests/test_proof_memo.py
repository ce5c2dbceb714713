"""The test-only proof memo (tests/proof_memo.py) saves only repeats of exactly the bytes that
passed: a proof, point or context that differs by one byte runs the real check and is refused,
and the memo sits on the path the deck's replicas really call."""

from __future__ import annotations

import secrets

import pytest
from proof_memo import frozen, memoized_proofs

from creepnet.protocol.deck import dleq, hidden, ops
from creepnet.protocol.deck.group import BASE, L, as_scalar, card_point, mul, mul_base
from creepnet.protocol.deck.shuffleproof import ShuffleRejected, prove_shuffle
from creepnet.protocol.testing.decks import DeckHarness


def _flip(data: bytes, at: int = -1) -> bytes:
    at %= len(data)
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]


def _scalar() -> bytes:
    return as_scalar(secrets.randbelow(L - 1) + 1)


def _shuffle() -> tuple:
    inputs = [card_point(f"card {i}") for i in range(6)]
    step, base_log, perm = _scalar(), _scalar(), [3, 0, 5, 1, 4, 2]
    base = mul_base(base_log)
    commit = mul(step, base)
    outputs = [mul(step, inputs[j]) for j in perm]
    context = b"memo test shuffle"
    proof = prove_shuffle(inputs, outputs, perm, step, base, base_log, commit, context)
    return proof, inputs, outputs, base, commit, context


def test_a_shuffle_proof_one_byte_off_is_refused_after_the_true_one_was_remembered() -> None:
    proof, inputs, outputs, base, commit, context = _shuffle()
    with memoized_proofs() as memo:
        ops.verify_shuffle(proof, inputs, outputs, base, commit, context)
        ops.verify_shuffle(proof, inputs, outputs, base, commit, context)
        assert (memo.misses, memo.hits) == (1, 1)
        for field in proof:
            value = proof[field]
            bad = [_flip(value[0]), *value[1:]] if isinstance(value, list) else _flip(value)
            with pytest.raises(ShuffleRejected):
                ops.verify_shuffle({**proof, field: bad}, inputs, outputs, base, commit, context)
        with pytest.raises(ShuffleRejected):
            ops.verify_shuffle(proof, inputs, outputs, base, commit, _flip(context))
        swapped = [outputs[1], outputs[0], *outputs[2:]]
        with pytest.raises(ShuffleRejected):
            ops.verify_shuffle(proof, inputs, swapped, base, commit, context)
        assert memo.hits == 1 and memo.misses == 1 + len(proof) + 2  # each ran for real


def test_a_dleq_proof_one_byte_off_is_refused_at_every_place_the_deck_looks_it_up() -> None:
    x = _scalar()
    g2 = card_point("the other base")
    h1, h2 = mul_base(x), mul(x, g2)
    proof = dleq.prove(x, BASE, h1, g2, h2, b"memo test dleq")
    with memoized_proofs() as memo:
        for verify in (ops.verify, hidden.verify, dleq.verify):
            assert verify(proof, BASE, h1, g2, h2, b"memo test dleq")
            for at in range(len(proof)):
                assert not verify(_flip(proof, at), BASE, h1, g2, h2, b"memo test dleq")
            assert not verify(proof, BASE, h1, g2, h2, b"memo test dleZ")
            assert not verify(proof, BASE, h2, g2, h1, b"memo test dleq")
        assert memo.hits == 2  # the one true statement, checked once
        assert memo.misses == 1 + 3 * (len(proof) + 2)
    assert not hasattr(dleq.verify, "__wrapped__") and not hasattr(ops.verify, "__wrapped__")


def test_the_key_is_every_byte_and_type_of_the_arguments() -> None:
    assert frozen([b"\x00", 1]) != frozen([b"\x01", 1]) != frozen((b"\x00", True))
    assert frozen({"a": b"x", "b": b"y"}) != frozen({"b": b"y", "a": b"x"})  # order counts too
    assert frozen(b"ab") != frozen("ab") and frozen(1) != frozen(True)


def test_the_memo_sits_where_a_table_of_replicas_checks_its_proofs() -> None:
    cards = [f"c{i}" for i in range(8)]
    with memoized_proofs() as memo:
        table = DeckHarness(3, cards)
        table.create("deck", cards)
        table.shuffle("deck")
        table.lock("deck")
        table.draw("deck", [0, 1], seat=2)
        assert memo.misses > 0 and memo.hits > 0  # each replica after the first hits
        assert len(table.finish().cards) == len(cards)
