"""What the audit is still for once every step is proven: commitment to the secret,
attribution from the secrets that were revealed, and defence in depth."""

from __future__ import annotations

import pytest

from creepnet.protocol.deck import DeckError, audit
from creepnet.protocol.deck.dleq import proof_context
from creepnet.protocol.deck.group import BASE, mul
from creepnet.protocol.deck.shuffleproof import prove_shuffle
from creepnet.protocol.testing.decks import DeckHarness

CARDS = [f"c{i}" for i in range(10)]
CHEATER = 1


def reveal(table: DeckHarness, seats: list[int]) -> None:
    for seat in seats:
        table.post(seat, lambda seq, p=table.players[seat]: p.reveal())


def test_a_valid_shuffle_with_a_permutation_not_from_the_secret_is_named_by_the_audit() -> None:
    """Seat 1 proves a true shuffle but picks its own order, not the one its committed
    secret dictates.  Accepted at once (it is a shuffle); the audit names seat 1 from
    seat 1's own revealed secret although seat 2 never reveals."""

    def own_order(seat: int, seq: int, m: dict) -> dict:
        if seat != CHEATER or m["op"] != "shuffle":
            return m
        state, keys = table.state, table.players[CHEATER].keys
        pool = state.pools["deck"]
        perm = list(range(len(pool.points)))  # the identity: deliberately chosen
        step = keys.layer_step("deck", 1)
        points = [mul(step, pool.points[j]) for j in perm]
        ctx = proof_context(state.game_id, seq, state.seat_keys[CHEATER], "shuffle", "deck", 1)
        proof = prove_shuffle(
            pool.points, points, perm, step, BASE, keys.layer("deck", 0), m["commit"], ctx
        )
        return {**m, "points": points, "proof": proof}

    table = DeckHarness(3, CARDS, tamper=own_order)
    table.create("deck", CARDS)
    table.shuffle("deck")  # accepted: seat 1's step is a proven shuffle
    table.lock("deck")
    reveal(table, [0, 1])
    with pytest.raises(DeckError) as err:
        audit(table.state)
    assert (err.value.seat, err.value.operation) == (CHEATER, "shuffle")
    assert "order" in str(err.value)


def test_a_seat_that_never_reveals_is_named_once_the_others_check_out() -> None:
    table = DeckHarness(3, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")
    table.lock("deck")
    reveal(table, [0, 2])
    with pytest.raises(DeckError, match="stalling") as err:
        audit(table.state)
    assert err.value.seat == 1


def test_a_card_public_twice_is_stopped_at_once_even_if_a_proof_were_broken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Defence in depth: with the shuffle verifier disabled, an owner clones a face-up
    card into its pile; the second time it turns up the deck stops at once, and the
    audit names the cloner."""
    monkeypatch.setattr("creepnet.protocol.deck.ops.verify_shuffle", lambda *a: None)
    table = DeckHarness(3, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")
    table.split("deck", ["pile", "up"], [7, 3])
    face_up = table.open("up", 0)

    def clone(seat: int, seq: int, m: dict) -> dict:
        if seat != CHEATER or m.get("pool") != "pile" or m["op"] != "shuffle":
            return m
        step = table.players[CHEATER].keys.layer_step("deck", 2)
        return {**m, "points": [mul(step, table.state.pools["up"].points[0])] + m["points"][1:]}

    table.tamper = clone
    table.shuffle("pile", [CHEATER])
    table.lock("pile")
    table.tamper = None
    with pytest.raises(DeckError, match=f"{face_up!r} is already public") as err:
        table.reveal("pile", [0])
    assert err.value.seat is None
    with pytest.raises(DeckError) as err:
        table.finish()
    assert (err.value.seat, err.value.operation) == (CHEATER, "shuffle")
