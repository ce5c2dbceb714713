"""Encrypted decks: fair shuffles and private draws with no dealer (sans-I/O).

See docs/DECKS.md for the construction, security argument and message formats.
A game layer keeps one DeckState per game, applies every deck message found in
the signed event log with `state.apply(author_seat, seq, message)`, and uses its
DeckSeat to author its own messages.
"""

from creepnet.protocol.deck_audit import AuditReport, audit, reveal_message
from creepnet.protocol.deck_errors import DeckError
from creepnet.protocol.deck_group import CardTable, card_point
from creepnet.protocol.deck_keys import DeckKeys, commit_secret, new_deck_secret
from creepnet.protocol.deck_model import PUBLIC, Pool, Slot
from creepnet.protocol.deck_pools import create_message, merge_message, split_message
from creepnet.protocol.deck_seat import DeckSeat
from creepnet.protocol.deck_state import DeckState
from creepnet.protocol.deck_table import DeckTable

__all__ = [
    "PUBLIC",
    "AuditReport",
    "CardTable",
    "DeckError",
    "DeckKeys",
    "DeckSeat",
    "DeckState",
    "DeckTable",
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
