"""A locked deck with hidden cards held by one seat: what the class and none-of proof tests
start from."""

from __future__ import annotations

from creepnet.protocol.testing.decks import DeckHarness

CARDS = [f"c{i}" for i in range(12)]
HOLDER = 1


def dealt(seats: int = 3, held: tuple[int, ...] = (0, 1)) -> tuple[DeckHarness, str]:
    """A locked deck whose positions ``held`` are held by HOLDER; returns the card at 0."""
    table = DeckHarness(seats, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")
    table.lock("deck")
    table.draw("deck", list(held), HOLDER)
    return table, table.players[HOLDER].decode("deck", 0)


def others(card: str, count: int) -> list[str]:
    """count cards of the deck other than card."""
    return [c for c in CARDS if c != card][:count]
