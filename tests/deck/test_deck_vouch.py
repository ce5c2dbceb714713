"""An author checks its own proofs once (when making them); every other replica checks them in
full, and a message that is not exactly what the author's prover made is checked everywhere."""

from __future__ import annotations

import pytest

from creepnet.protocol.deck import DeckError, DeckTable, ops

CARDS = [f"c{i}" for i in range(8)]


@pytest.fixture
def shuffle_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The replicas (by index in the table) that ran verify_shuffle, in order."""
    checked: list[int] = []
    real = ops.verify_shuffle

    def counting(*args: object) -> None:
        checked.append(1)
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(ops, "verify_shuffle", counting)
    return checked


def test_each_shuffle_is_checked_by_every_replica_but_its_authors(shuffle_checks) -> None:
    table = DeckTable(3, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")  # three shuffles, each applied to three replicas
    assert len(shuffle_checks) == 3 * 2
    assert all(not state.proven for state in table.states)


def test_a_changed_message_is_checked_even_by_its_authors_replica(shuffle_checks) -> None:
    """Seat 0's replica applies first: its own vouch does not cover a rewritten message."""

    def rewrite(seat: int, seq: int, message: dict) -> dict:
        if seat == 0 and message["op"] == "shuffle":
            points = message["points"]
            message = dict(message, points=[points[1], points[0], *points[2:]])
        return message

    table = DeckTable(3, CARDS, tamper=rewrite)
    table.create("deck", CARDS)
    with pytest.raises(DeckError) as err:
        table.shuffle("deck", seats=[0])
    assert (err.value.seat, err.value.operation) == (0, "shuffle")
    assert table.states[0].pools["deck"].shuffles == 0  # refused by the author's own replica
    assert len(shuffle_checks) == 1  # there, by the proof check


def test_a_vouch_covers_one_seq_and_one_apply(shuffle_checks) -> None:
    """A message made for one position and applied at another is checked (and refused)."""
    table = DeckTable(2, CARDS)
    table.create("deck", CARDS)
    made = table.players[0].shuffle(table.seq + 5, "deck")
    with pytest.raises(DeckError):
        table.states[0].apply(0, table.seq + 1, made)
    assert len(shuffle_checks) == 1
