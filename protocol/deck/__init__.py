"""Encrypted decks: fair shuffles and private draws with no dealer (sans-I/O).

See docs/DECKS.md for the construction, security argument and message formats.
A game layer keeps one DeckState per game, applies every deck message found in
the signed event log with `state.apply(author_seat, seq, message)`, and uses its
DeckSeat to author its own messages.
"""

from creepnet.protocol.deck.audit import AuditReport, audit, reveal_message
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import CardTable, card_point
from creepnet.protocol.deck.keys import DeckKeys, commit_secret, new_deck_secret
from creepnet.protocol.deck.model import PUBLIC, Pool, Slot
from creepnet.protocol.deck.pools import create_message, merge_message, split_message
from creepnet.protocol.deck.seat import DeckSeat
from creepnet.protocol.deck.state import DeckState

__all__ = [
    "PUBLIC",
    "AuditReport",
    "CardTable",
    "DeckError",
    "DeckKeys",
    "DeckSeat",
    "DeckState",
    "Pool",
    "Slot",
    "audit",
    "card_point",
    "commit_secret",
    "create_message",
    "merge_message",
    "new_deck_secret",
    "reveal_message",
    "split_message",
]
