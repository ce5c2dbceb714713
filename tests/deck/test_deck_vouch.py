"""A seat does not re-check the shuffle, lock or none-of proof it has just computed, on its own
replica only; every peer checks every proof, and anything but the very message computed — one
changed byte, another event position — is checked at the author's replica too."""

from __future__ import annotations

import pytest

from creepnet.protocol.deck import DeckError, ops
from creepnet.protocol.deck.state import VOUCHED_LIMIT
from creepnet.protocol.testing.decks import DeckHarness

CARDS = [f"c{i}" for i in range(10)]


def counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(module, name)

    def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)
    return calls


def test_a_shuffle_is_checked_by_every_replica_but_its_authors(monkeypatch) -> None:
    table = DeckHarness(3, CARDS)
    table.create("deck", CARDS)
    calls = counting(monkeypatch, ops, "verify_shuffle")
    table.shuffle("deck")
    assert len(calls) == 3 * 2  # three shuffles, each checked by the two other replicas


def test_a_lock_is_checked_by_every_replica_but_its_authors(monkeypatch) -> None:
    table = DeckHarness(3, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")
    calls = counting(monkeypatch, ops, "verify")
    table.lock("deck")
    assert len(calls) == 3 * 2 * len(CARDS)  # per position, at the two other replicas


def test_a_changed_shuffle_is_checked_at_its_authors_replica() -> None:
    table = DeckHarness(2, CARDS)
    table.create("deck", CARDS)
    author, seq = table.states[0], table.seq + 1
    message = table.players[0].shuffle(seq, "deck")
    points = list(message["points"])
    points[0], points[1] = points[1], points[0]  # the same points, two of them swapped
    with pytest.raises(DeckError, match="does not verify") as err:
        author.apply(0, seq, {**message, "points": points})
    assert err.value.seat == 0
    with pytest.raises(DeckError, match="does not verify"):  # the same message, another event
        author.apply(0, seq + 1, message)
    author.apply(0, seq + 2, table.players[0].shuffle(seq + 2, "deck"))


def test_a_changed_lock_is_checked_at_its_authors_replica() -> None:
    table = DeckHarness(2, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")
    author, seq = table.states[0], table.seq + 1
    message = table.players[0].lock(seq, "deck")
    proofs = [message["proofs"][1], message["proofs"][0], *message["proofs"][2:]]
    with pytest.raises(DeckError, match="does not verify") as err:
        author.apply(0, seq, {**message, "proofs": proofs})
    assert err.value.seat == 0 and err.value.position == 0


def test_proofs_computed_but_never_sent_are_forgotten() -> None:
    table = DeckHarness(2, CARDS)
    table.create("deck", CARDS)
    for seq in range(100, 100 + VOUCHED_LIMIT + 5):
        table.players[0].shuffle(seq, "deck")
    assert len(table.states[0]._vouched) == VOUCHED_LIMIT
