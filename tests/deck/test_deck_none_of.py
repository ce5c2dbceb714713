"""None-of proofs: a holder proves its hidden card is none of a public set, at once, without
saying which it is; a card of the set cannot be proven, and every tampered or replayed proof is
rejected with its author named."""

from __future__ import annotations

import functools
import secrets

import pytest
from deck_support import CARDS, HOLDER, dealt, others
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol.deck import DeckError, noneof
from creepnet.protocol.deck.dleq import proof_context
from creepnet.protocol.deck.group import IDENTITY, L, as_scalar, combine, combine_base, sub
from creepnet.protocol.deck.hidden import holder_key
from creepnet.protocol.deck.noneof import (
    HEAD_BYTES,
    NoneOfRejected,
    prove_none_of,
    verify_none_of,
)
from creepnet.protocol.testing.decks import DeckHarness


def post(table: DeckHarness, excluded: list[str], seat: int = HOLDER, change: dict | None = None):
    def make(seq: int) -> dict:
        message = table.players[HOLDER].prove_none_of(seq, "deck", 0, excluded)
        message.update(change or {})
        return message

    return table.post(seat, make)


def t_points(proof: bytes) -> list[bytes]:
    return [proof[i : i + 32] for i in range(HEAD_BYTES, len(proof), 32)]


def with_t(proof: bytes, index: int, point: bytes) -> bytes:
    start = HEAD_BYTES + 32 * index
    return proof[:start] + point + proof[start + 32 :]


# --- honest proofs --------------------------------------------------------------------------


def test_honest_proof_verifies_at_every_replica() -> None:
    table, card = dealt()
    message = post(table, others(card, 7))  # DeckHarness applies it to every seat's own replica
    assert len(message["proof"]) == HEAD_BYTES + 7 * 32
    assert table.players[HOLDER].decode("deck", 0) == card  # nothing changed


def test_proof_after_a_transfer_uses_the_new_holders_key() -> None:
    table, card = dealt()
    table.transfer("deck", 0, 2)
    table.post(2, lambda seq: table.players[2].prove_none_of(seq, "deck", 0, others(card, 3)))


def test_an_empty_set_needs_only_the_key_equation() -> None:
    table, _ = dealt()
    assert len(post(table, [])["proof"]) == HEAD_BYTES


def test_two_holders_proving_the_same_set_give_fresh_points_only() -> None:
    """Nothing marks the held card: every T is a fresh point other than the identity."""
    table, card = dealt()
    table.draw("deck", [2], 2)
    excluded = [c for c in CARDS if c not in (card, table.players[2].decode("deck", 2))]
    first = post(table, excluded)["proof"]
    second = table.post(2, lambda seq: table.players[2].prove_none_of(seq, "deck", 2, excluded))
    points = t_points(first) + t_points(second["proof"])
    assert IDENTITY not in points and len(set(points)) == len(points) == 2 * len(excluded)


# --- soundness: a card of the set --------------------------------------------------------------


def test_a_card_of_the_set_cannot_be_proven() -> None:
    table, card = dealt()
    with pytest.raises(ValueError, match="one of the excluded"):
        post(table, [*others(card, 2), card])


def forged(table: DeckHarness, excluded: list[str], t_of_card: bytes | None):
    """The holder runs the honest prover with its true key on a set holding its own card, whose
    T is then the identity; with `t_of_card` it sends that point instead and answers the
    challenge over it with its real witness — the only move left to it."""
    state, slot = table.state, table.state.pools["deck"].slots[0]
    k = int.from_bytes(holder_key(table.players[HOLDER].keys, "deck", 0, slot), "little")
    points, commit, core = state.table.point_of, slot.holder_commit, slot.core

    def make(seq: int) -> dict:
        ctx = proof_context(state.game_id, seq, state.seat_keys[HOLDER], "none_of", "deck", 0)
        r, alpha, beta = 5, 7, 11
        rho = r * k % L
        ts = [sub(combine([(rho, points[m])]), combine([(r, core)])) for m in excluded]
        if t_of_card is not None:
            ts = [t_of_card if t == IDENTITY else t for t in ts]
        a_m = [sub(combine([(alpha, points[m])]), combine([(beta, core)])) for m in excluded]
        a0 = combine_base(alpha - beta * k)
        c = noneof._challenge(ctx, commit, core, excluded, ts, a0, a_m)  # type: ignore[arg-type]
        proof = as_scalar(c) + as_scalar(alpha + c * rho) + as_scalar(beta + c * r) + b"".join(ts)
        return {
            "op": "none_of",
            "pool": "deck",
            "position": 0,
            "excluded": excluded,
            "proof": proof,
        }

    return make


def test_the_true_key_answering_for_a_card_of_the_set_is_rejected() -> None:
    table, card = dealt()
    excluded = [*others(card, 2), card, *others(card, 4)[2:]]
    with pytest.raises(DeckError, match="identity.*'" + card) as err:
        table.post(HOLDER, forged(table, excluded, None))
    assert err.value.seat == HOLDER and err.value.operation == "none_of"
    another_point = table.state.table.point_of[others(card, 1)[0]]
    with pytest.raises(DeckError, match="does not verify") as err:
        table.post(HOLDER, forged(table, excluded, another_point))
    assert err.value.seat == HOLDER


def test_the_forger_with_a_card_outside_the_set_is_accepted() -> None:
    """Control: the rejections above are the set's, not the forger's."""
    table, card = dealt()
    table.post(HOLDER, forged(table, others(card, 4), None))


# --- binding and encoding -----------------------------------------------------------------------


@pytest.mark.parametrize("change", ["seq", "position", "order", "set", "pool"])
def test_a_proof_is_bound_to_its_statement(change: str) -> None:
    """Made for another event, slot, order or set of excluded cards: rejected."""
    table, card = dealt()
    player = table.players[HOLDER]
    held = (card, player.decode("deck", 1))
    excluded = [c for c in CARDS if c not in held][:4]
    spare = [c for c in CARDS if c not in held and c not in excluded][0]

    def replayed(seq: int) -> dict:
        message = player.prove_none_of(seq + (change == "seq"), "deck", 0, excluded)
        if change == "position":
            message["position"] = 1
        elif change == "order":  # the same points in the same new order: still rejected
            ts = t_points(message["proof"])
            message["excluded"] = list(reversed(excluded))
            message["proof"] = message["proof"][:HEAD_BYTES] + b"".join(reversed(ts))
        elif change == "set":  # one card swapped for another the holder does not hold either
            message["excluded"] = excluded[:-1] + [spare]
        elif change == "pool":
            message["pool"] = "elsewhere"
        return message

    with pytest.raises(DeckError) as err:
        table.post(HOLDER, replayed)
    assert err.value.seat == HOLDER and err.value.operation == "none_of"


def test_a_proof_replayed_in_another_game_is_rejected() -> None:
    table, card = dealt()
    message = table.players[HOLDER].prove_none_of(table.seq + 1, "deck", 0, others(card, 3))
    slot = table.state.pools["deck"].slots[0]
    other_game = proof_context(secrets.token_bytes(16), table.seq + 1,
                               table.seat_keys[HOLDER], "none_of", "deck", 0)  # fmt: skip
    with pytest.raises(NoneOfRejected, match="does not verify"):
        verify_none_of(message["proof"], slot.holder_commit, slot.core,  # type: ignore[arg-type]
                       table.state.table.point_of, others(card, 3), other_game)  # fmt: skip


NONCANONICAL = (L + 1).to_bytes(32, "little")
ZERO = bytes(32)


def flip(data: bytes) -> bytes:
    return bytes([data[0] ^ 1]) + data[1:]


def _tamper(kind: str, proof: bytes) -> object:
    return {
        "truncated": proof[:-1],
        "one point short": proof[:-32],
        "oversized": proof + proof[-32:],
        "not bytes": list(t_points(proof)),
        "text": proof.hex(),
        "c not canonical": NONCANONICAL + proof[32:],
        "s_a zero": proof[:32] + ZERO + proof[64:],
        "s_b not canonical": proof[:64] + NONCANONICAL + proof[96:],
        "T identity": with_t(proof, 1, IDENTITY),
        "T off the curve": with_t(proof, 1, b"\xff" * 32),
        "T of small order": with_t(proof, 1, bytes([0xEC]) + b"\xff" * 30 + b"\x7f"),
        "T another point": with_t(proof, 1, t_points(proof)[0]),
        "T one bit flipped": with_t(proof, 1, flip(t_points(proof)[1])),
        "c one bit flipped": flip(proof),
    }[kind]  # fmt: skip


@pytest.mark.parametrize(
    "kind",
    [
        "truncated", "one point short", "oversized", "not bytes", "text", "c not canonical",
        "s_a zero", "s_b not canonical", "T identity", "T off the curve", "T of small order",
        "T another point", "T one bit flipped", "c one bit flipped",
    ],
)  # fmt: skip
def test_a_tampered_proof_gets_a_deck_error_naming_its_author(kind: str) -> None:
    table, card = dealt()

    def tampered(seq: int) -> dict:
        message = table.players[HOLDER].prove_none_of(seq, "deck", 0, others(card, 3))
        return {**message, "proof": _tamper(kind, message["proof"])}

    with pytest.raises(DeckError) as err:
        table.post(HOLDER, tampered)
    assert err.value.seat == HOLDER and err.value.operation == "none_of"


@pytest.mark.parametrize(
    "field, value",
    [
        ("excluded", ["c0", "c0"]),
        ("excluded", ["nope"]),
        ("excluded", [True]),
        ("excluded", "c0"),
        ("position", True),
        ("position", 99),
        ("pool", "nope"),
    ],
)
def test_a_malformed_message_gets_a_deck_error(field: str, value: object) -> None:
    table, card = dealt()
    with pytest.raises(DeckError) as err:
        post(table, others(card, 2), change={field: value})
    assert err.value.seat == HOLDER


def test_only_the_holder_may_send_one() -> None:
    table, card = dealt()
    with pytest.raises(DeckError, match="does not hold") as err:
        post(table, others(card, 2), seat=2)
    assert err.value.seat == 2


# --- the author's own replica ------------------------------------------------------------------


def test_the_author_skips_only_its_own_proof_and_every_peer_checks(monkeypatch) -> None:
    table, card = dealt()
    checked: list[int] = []
    original = noneof.verify_none_of

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        checked.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(noneof, "verify_none_of", counting)
    post(table, others(card, 3))
    assert len(checked) == len(table.states) - 1  # every replica but the author's
    # the author's replica still checks anything but the very proof it computed
    author = table.states[HOLDER]
    seq = table.seq + 1
    message = table.players[HOLDER].prove_none_of(seq, "deck", 0, others(card, 3))
    bad = {**message, "proof": with_t(message["proof"], 0, t_points(message["proof"])[1])}
    with pytest.raises(DeckError, match="does not verify"):
        author.apply(HOLDER, seq, bad)
    with pytest.raises(DeckError, match="does not verify"):  # nor at another event position
        author.apply(HOLDER, seq + 1, message)
    author.apply(HOLDER, seq + 2, table.players[HOLDER].prove_none_of(seq + 2, "deck", 0, []))


# --- property: any set without the card verifies; any change to the proof is rejected -----------


@functools.cache
def _statement() -> tuple[bytes, bytes, bytes, dict[str, bytes], str]:
    table, card = dealt(2)
    slot = table.state.pools["deck"].slots[0]
    key = holder_key(table.players[HOLDER].keys, "deck", 0, slot)
    return key, slot.holder_commit, slot.core, table.state.table.point_of, card  # type: ignore[return-value]


@settings(max_examples=25, deadline=None)
@given(
    chosen=st.lists(st.sampled_from(range(len(CARDS) - 1)), unique=True, max_size=6),
    flip=st.integers(min_value=0),
    context=st.binary(min_size=1, max_size=16),
)
def test_property_honest_proofs_verify_and_any_flipped_bit_is_rejected(
    chosen: list[int], flip: int, context: bytes
) -> None:
    key, commit, core, points, card = _statement()
    excluded = [[c for c in CARDS if c != card][i] for i in chosen]
    proof = prove_none_of(key, card, commit, core, points, excluded, context)
    verify_none_of(proof, commit, core, points, excluded, context)
    bit = flip % (8 * len(proof))
    bad = bytearray(proof)
    bad[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(NoneOfRejected):
        verify_none_of(bytes(bad), commit, core, points, excluded, context)
