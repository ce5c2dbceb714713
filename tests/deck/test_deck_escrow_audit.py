"""The audit after a retirement (docs/ESCROW.md "How Creepy Racer uses it", step 4): a retired
seat never reveals, yet every card decodes — its scalars are the recovered ones, the ones its
escrow shares add up to (opened with the remaining seats' revealed secrets: only shares sent to
them), or the table's public ones — and a card whose escrow is lost stays hidden, unchecked."""

from __future__ import annotations

import sys
from pathlib import Path

from creepnet.protocol.deck import audit, create_message
from creepnet.protocol.deck.escrow import ScalarId
from creepnet.protocol.deck.escrowing import RetiredScalars
from creepnet.protocol.deck.group import mul, scalar_invert, scalar_product
from creepnet.protocol.deck.ops import make_lock

sys.path.insert(0, str(Path(__file__).parent))
from test_deck_escrow_messages import CARDS, Table, _for_retired, _recover, _retire  # noqa: E402


def _true_cards(t: Table) -> dict[tuple[str, int], str]:
    """Every position's card, from every seat's real lock keys (what a full audit must find)."""
    pool = t.spectator.pools["deck"]
    out = {}
    for j, point in enumerate(pool.points):
        keys = [p.keys.lock_key("deck", j) for p in t.players]
        out[("deck", j)] = t.spectator.table.decode(mul(scalar_invert(scalar_product(keys)), point))
    return out


def test_a_seat_retired_after_its_lock_has_every_card_decoded_from_its_escrow() -> None:
    t = Table(4)
    t.dealt()
    _retire(t, 3)
    _recover(t, 3, [ScalarId("lock", "deck", 4)], (0, 1, 2))  # one recovered, the rest escrowed
    t.each((0, 1, 2), lambda p, q: p.reveal())
    report = audit(t.spectator)
    assert report.cards == _true_cards(t) and sorted(report.cards.values()) == sorted(CARDS)


def test_a_seat_retired_before_its_lock_has_its_table_made_lock_used() -> None:
    """Seat 3 shuffled (its layer escrowed, recovered for the lock), then left: the table locks
    for it with public keys.  The audit uses those, and decodes every card."""
    t = Table(4)
    t.post(0, lambda q: create_message("deck", CARDS))
    t.each(range(4), lambda p, q: p.shuffle(q, "deck"))
    t.each((0, 1, 2), lambda p, q: p.lock(q, "deck"))
    _retire(t, 3)
    _recover(t, 3, [ScalarId("layer", "deck", 1)], (0, 1, 2))
    _for_retired(t, 3, lambda k, q: make_lock(t.spectator, k, 3, q, "deck"))
    t.each((0, 1, 2), lambda p, q: p.reveal())
    report = audit(t.spectator)
    assert sorted(report.cards.values()) == sorted(CARDS)


def test_an_escrow_whose_recipient_also_left_is_lost_and_its_cards_stay_hidden() -> None:
    t = Table(4)
    t.dealt()
    _retire(t, 3)
    _retire(t, 1)  # held a share of every scalar of seat 3, and never reveals
    t.each((0, 2), lambda p, q: p.reveal())
    scalars = RetiredScalars(t.spectator, 3, [p.keys if s in (0, 2) else None for s, p in
                                              enumerate(t.players)])  # fmt: skip
    assert scalars.lock_key("deck", 0) is None
    assert audit(t.spectator).cards == {}  # no error: the hidden cards are passed over


def test_only_shares_sent_to_the_revealed_seats_are_opened() -> None:
    """A retired seat's scalar needs every recipient's share: with one recipient's secret
    withheld, nothing is reconstructed, whatever the others reveal."""
    t = Table(4)
    t.dealt()
    _retire(t, 3)
    real = t.players[3].keys.lock_key("deck", 2)
    everyone = [p.keys for p in t.players[:3]] + [None]
    assert RetiredScalars(t.spectator, 3, everyone).lock_key("deck", 2) == real
    for missing in range(3):
        some = [None if s == missing else k for s, k in enumerate(everyone)]
        assert RetiredScalars(t.spectator, 3, some).lock_key("deck", 2) is None
