"""Class proofs: a holder proves its hidden card is one of a public set, at once,
without saying which; a card outside the set cannot be proven."""

from __future__ import annotations

import functools
from collections.abc import Callable

import deck_support
import pytest
from deck_support import CARDS, HOLDER, others

from creepnet.protocol.deck import DeckError
from creepnet.protocol.deck.classproof import _announce, _challenge
from creepnet.protocol.deck.dleq import proof_context
from creepnet.protocol.deck.group import L, as_scalar, combine, combine_base
from creepnet.protocol.deck.hidden import holder_key
from creepnet.protocol.testing.decks import DeckHarness

dealt = functools.partial(deck_support.dealt, held=(0,))  # position 1 is drawn by some tests


def post_class(
    table: DeckHarness, allowed: list[str], seat: int = HOLDER, change: dict | None = None
) -> dict:
    def make(seq: int) -> dict:
        message = table.players[HOLDER].prove_class(seq, "deck", 0, allowed)
        message.update(change or {})
        return message

    return table.post(seat, make)


def test_honest_class_proof_verifies_at_every_replica() -> None:
    table, card = dealt()
    allowed = others(card, 4) + [card] + others(card, 7)[4:]
    post_class(table, allowed)  # DeckHarness applies it to every seat's own replica
    assert table.players[HOLDER].decode("deck", 0) == card  # nothing changed


def test_class_proof_after_a_transfer_uses_the_new_holders_key() -> None:
    table, card = dealt()
    table.transfer("deck", 0, 2)
    table.post(
        2, lambda seq: table.players[2].prove_class(seq, "deck", 0, [card, *others(card, 1)])
    )


def test_a_card_outside_the_set_cannot_be_proven() -> None:
    table, card = dealt()
    with pytest.raises(ValueError, match="not in the allowed set"):
        post_class(table, others(card, 5))


def forger(table: DeckHarness, allowed: list[str], branch: int) -> Callable[[int], dict]:
    """A holder simulates every branch but `branch` exactly as a verifier recomputes
    it, and answers `branch` with the key it really has."""
    state, slot = table.state, table.state.pools["deck"].slots[0]
    k = int.from_bytes(holder_key(table.players[HOLDER].keys, "deck", 0, slot), "little")
    points, commit, core = state.table.point_of, slot.holder_commit, slot.core

    def make(seq: int) -> dict:
        ctx = proof_context(state.game_id, seq, state.seat_keys[HOLDER], "class", "deck", 0)
        cs, ss, rs = [3 + m for m in range(len(allowed))], [5 + m for m in range(len(allowed))], []
        r = 99
        for m, name in enumerate(allowed):
            if m == branch:
                rs += [combine_base(r), combine([(r, points[name])])]
            else:
                rs += _announce(cs[m], ss[m], points[name], commit, core)  # type: ignore[arg-type]
        cs[branch] = (_challenge(ctx, commit, core, allowed, rs) - sum(cs) + cs[branch]) % L  # type: ignore[arg-type]
        ss[branch] = (r + cs[branch] * k) % L
        proof = [as_scalar(c) + as_scalar(s) for c, s in zip(cs, ss, strict=True)]
        return {"op": "class", "pool": "deck", "position": 0, "allowed": allowed, "proof": proof}

    return make


@pytest.mark.parametrize("branch", range(4))
def test_each_branch_is_sound(branch: int) -> None:
    """The card is outside the set: whichever branch the holder answers, rejected."""
    table, card = dealt()
    with pytest.raises(DeckError, match="does not verify") as err:
        table.post(HOLDER, forger(table, others(card, 4), branch))
    assert err.value.seat == HOLDER


@pytest.mark.parametrize("branch", range(3))
def test_the_same_forger_answering_the_held_cards_branch_is_accepted(branch: int) -> None:
    """Control: the rejection above is the branch's, not the forger's."""
    table, card = dealt()
    allowed = others(card, 2)
    allowed.insert(branch, card)
    table.post(HOLDER, forger(table, allowed, branch))


def test_two_members_of_the_set_give_proofs_that_verify_alike() -> None:
    """Holders of two different cards prove the same class: same shape, every entry a
    fresh canonical scalar pair, both accepted — nothing marks the true branch."""
    table = DeckHarness(3, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")
    table.lock("deck")
    table.draw("deck", [0], 1)
    table.draw("deck", [1], 2)
    allowed = sorted([table.players[1].decode("deck", 0), table.players[2].decode("deck", 1)])
    allowed += [c for c in CARDS if c not in allowed][:3]
    proofs = []
    for seat, position in ((1, 0), (2, 1)):
        player = table.players[seat]
        message = table.post(
            seat, lambda seq, p=player, j=position: p.prove_class(seq, "deck", j, allowed)
        )
        proofs.append(message["proof"])
    for proof in proofs:
        assert len(proof) == len(allowed) and all(len(item) == 64 for item in proof)
        halves = [int.from_bytes(item[k : k + 32], "little") for item in proof for k in (0, 32)]
        assert all(0 < h < L for h in halves) and len(set(halves)) == len(halves)


@pytest.mark.parametrize(
    "change",
    [
        {"seq": +1},
        {"position": 1},
        {"allowed_order": True},
    ],
)
def test_class_proof_is_bound_to_its_statement(change: dict) -> None:
    """A proof made for another event position, slot or ordering of the set fails."""
    table, card = dealt()
    table.draw("deck", [1], HOLDER)
    allowed = [card, *others(card, 3)]
    player = table.players[HOLDER]

    def replayed(seq: int) -> dict:
        proof_seq = seq + change.get("seq", 0)
        message = player.prove_class(proof_seq, "deck", 0, allowed)
        if "position" in change:
            message["position"] = change["position"]
        if "allowed_order" in change:
            message["allowed"] = list(reversed(allowed))
            message["proof"] = list(reversed(message["proof"]))
        return message

    with pytest.raises(DeckError) as err:
        table.post(HOLDER, replayed)
    assert err.value.seat == HOLDER and err.value.operation == "class"


def test_only_the_holder_may_send_a_class_proof() -> None:
    table, card = dealt()
    with pytest.raises(DeckError, match="does not hold") as err:
        post_class(table, [card], seat=2)
    assert err.value.seat == 2


NONCANONICAL = (L + 1).to_bytes(32, "little")


@pytest.mark.parametrize(
    "field, value",
    [
        ("proof", "nope"),
        ("proof", []),
        ("proof", [b"\x01" * 63]),
        ("proof", [NONCANONICAL + b"\x01" * 32]),
        ("proof", [b"\x01" * 32 + bytes(32)]),
        ("allowed", ["c0", "c0"]),
        ("allowed", ["nope"]),
        ("allowed", [True]),
        ("allowed", []),
        ("position", True),
        ("position", 99),
        ("pool", "nope"),
    ],
)
def test_malformed_class_proofs_get_a_deck_error(field: str, value: object) -> None:
    table, card = dealt()
    with pytest.raises(DeckError) as err:
        post_class(table, [card], change={field: value})
    assert err.value.seat == HOLDER
