"""Group wrappers, key derivation and DLEQ proofs of creepnet.protocol.deck*."""

from __future__ import annotations

import secrets

import nacl.bindings as nb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol.deck.dleq import proof_context, prove, verify
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import (
    BASE,
    CardTable,
    L,
    card_point,
    check_point,
    check_points,
    check_scalar,
    mul,
    mul_base,
    scalar_invert,
)
from creepnet.protocol.deck.keys import DeckKeys, commit_secret, new_deck_secret

TORSION8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
IDENTITY = (1).to_bytes(32, "little")
NON_CANONICAL = (2**255 - 19 + 1).to_bytes(32, "little")  # y = p + 1


def test_card_points_are_valid_distinct_and_not_small_multiples_of_g() -> None:
    table = CardTable([f"c{i}" for i in range(50)])
    points = list(table.card_of)
    assert len(set(points)) == 50
    assert all(nb.crypto_core_ed25519_is_valid_point(p) for p in points)
    small = {mul_base(i.to_bytes(32, "little")) for i in range(1, 200)}
    assert not small & set(points)
    assert table.decode(card_point("c7")) == "c7"
    assert table.decode(BASE) is None


@pytest.mark.parametrize(
    "bad",
    [
        IDENTITY,
        TORSION8,
        NON_CANONICAL,
        nb.crypto_core_ed25519_add(card_point("x"), TORSION8),
        b"\x00" * 31,
        "not bytes",
    ],
    ids=["identity", "small-order", "non-canonical", "non-subgroup", "short", "type"],
)
def test_invalid_points_are_rejected_and_attributed(bad: object) -> None:
    with pytest.raises(DeckError) as err:
        check_point(bad, 3, "shuffle", 7)
    assert (err.value.seat, err.value.operation, err.value.position) == (3, "shuffle", 7)


def test_repeated_point_in_a_list_is_rejected() -> None:
    p, q = card_point("a"), card_point("b")
    with pytest.raises(DeckError) as err:
        check_points([p, q, p], 3, 1, "lock")
    assert err.value.seat == 1 and err.value.position == 2


@pytest.mark.parametrize(
    "bad", [bytes(32), L.to_bytes(32, "little"), (L + 5).to_bytes(32, "little"), b"\x01" * 33]
)
def test_scalars_must_be_canonical_and_non_zero(bad: bytes) -> None:
    with pytest.raises(DeckError):
        check_scalar(bad, 0, "release")


def test_derivations_are_deterministic_and_separated() -> None:
    secret = new_deck_secret()
    a = DeckKeys(b"game-1", b"k" * 32, secret)
    again = DeckKeys(b"game-1", b"k" * 32, secret)
    other_game = DeckKeys(b"game-2", b"k" * 32, secret)
    assert a.layer("f", 1) == again.layer("f", 1)
    assert a.layer("f", 1) != other_game.layer("f", 1)
    scalars = {
        a.layer("f", 1),
        a.layer("f", 2),
        a.layer("g", 1),
        a.lock_key("f", 0),
        a.lock_key("f", 1),
        a.lock_key("g", 0),
        a.blind_key("f", 0, 0),
        a.blind_key("f", 0, 1),
    }
    assert len(scalars) == 8
    assert a.permutation("p", 0, 60) == again.permutation("p", 0, 60)
    assert a.permutation("p", 0, 60) != a.permutation("p", 1, 60)
    assert sorted(a.permutation("p", 0, 60)) == list(range(60))
    assert a.commitment == commit_secret(b"game-1", b"k" * 32, secret)
    assert a.commitment != other_game.commitment


def test_permutations_look_uniform() -> None:
    """Each of the 6 orders of 3 items appears about equally often."""
    keys = DeckKeys(b"g", b"k" * 32, new_deck_secret())
    counts: dict[tuple[int, ...], int] = {}
    for i in range(1200):
        perm = tuple(keys.permutation("p", i, 3))
        counts[perm] = counts.get(perm, 0) + 1
    assert len(counts) == 6 and min(counts.values()) > 140


def _statement() -> tuple[bytes, bytes, bytes, bytes, bytes]:
    x = nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
    g2 = card_point(secrets.token_hex(4))
    return x, mul_base(x), g2, mul(x, g2), BASE


def test_dleq_proves_and_binds_every_context_field() -> None:
    x, h1, g2, h2, g1 = _statement()
    fields: dict = {
        "game_id": b"game",
        "seq": 5,
        "author_key": b"A" * 32,
        "operation": "open",
        "pool": "p",
        "position": 3,
    }
    proof = prove(x, g1, h1, g2, h2, proof_context(**fields))
    assert verify(proof, g1, h1, g2, h2, proof_context(**fields))
    changes: dict = {
        "game_id": b"other",
        "seq": 6,
        "author_key": b"B" * 32,
        "operation": "lock",
        "pool": "q",
        "position": 4,
    }
    for key, value in changes.items():  # replay into another game, event, author, op, position
        assert not verify(proof, g1, h1, g2, h2, proof_context(**{**fields, key: value}))


def test_dleq_rejects_false_statements_and_garbage() -> None:
    x, h1, g2, h2, g1 = _statement()
    ctx = b"ctx"
    wrong = mul(scalar_invert(x), g2)  # h2 with a different exponent
    assert not verify(prove(x, g1, h1, g2, wrong, ctx), g1, h1, g2, wrong, ctx)
    proof = prove(x, g1, h1, g2, h2, ctx)
    assert not verify(proof[:32] + bytes(32), g1, h1, g2, h2, ctx)
    assert not verify(proof[:63], g1, h1, g2, h2, ctx)
    assert not verify(L.to_bytes(32, "little") + proof[32:], g1, h1, g2, h2, ctx)
    assert not verify(proof, g1, h1, h2, g2, ctx)


@settings(max_examples=20, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=0, max_value=2**32))
def test_dleq_with_known_generator_log_matches_plain(seed: bytes, seq: int) -> None:
    """The prover's fixed-base shortcut (g2_log) yields proofs any verifier accepts."""
    keys = DeckKeys(b"g", b"k" * 32, seed)
    c, b = keys.layer("f", 1), keys.lock_key("f", 0)
    commit, point = mul_base(c), card_point("z")
    x = nb.crypto_core_ed25519_scalar_mul(b, scalar_invert(c))
    ctx = proof_context(b"g", seq, b"k" * 32, "lock", "f", 0)
    proof = prove(x, point, mul(x, point), commit, mul_base(b), ctx, g2_log=c)
    assert verify(proof, point, mul(x, point), commit, mul_base(b), ctx)
