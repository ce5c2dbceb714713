"""One seat's private side: its deck secret and the messages it authors.

A DeckSeat reads the public DeckState (its own replica) and its DeckKeys; it
never mutates the state: its messages go through `state.apply` like anybody's.
`seq` is the event sequence number the message will be published at; proofs
are bound to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from creepnet.protocol.deck import escrowing
from creepnet.protocol.deck.audit import reveal_message
from creepnet.protocol.deck.classproof import make_class
from creepnet.protocol.deck.hidden import (
    decode_held,
    make_blind,
    make_cancel,
    make_play,
    make_release,
    make_unblind,
)
from creepnet.protocol.deck.keys import DeckKeys, new_deck_secret
from creepnet.protocol.deck.noneof import make_none_of
from creepnet.protocol.deck.ops import make_lock, make_open, make_shuffle
from creepnet.protocol.deck.state import DeckState


class DeckSeat:
    def __init__(self, state: DeckState, seat: int, secret: bytes | None = None) -> None:
        self.state = state
        self.seat = seat
        self.keys = DeckKeys(state.game_id, state.seat_keys[seat], secret or new_deck_secret())
        self._escrows_opened = 0  # bundles of state.escrow.kept this seat has checked

    def join(self) -> dict:
        return {"op": "join", "commit": self.keys.commitment} | escrowing.join_fields(
            self.state, self.keys, self.seat
        )

    def escrow_complaints(self) -> list[dict]:
        """Open every escrowed share sent to this seat since the last call; a `complain` message
        for each bad one, to publish at once (docs/ESCROW.md).  Call after applying events."""
        found, self._escrows_opened = escrowing.bad_shares(
            self.state, self.keys, self.seat, self._escrows_opened
        )
        return found

    def shuffle(self, seq: int, pool: str) -> dict:
        return make_shuffle(self.state, self.keys, self.seat, seq, pool)

    def open(self, seq: int, pool: str, position: int) -> dict:
        return make_open(self.state, self.keys, self.seat, seq, pool, position)

    def lock(self, seq: int, pool: str) -> dict:
        return make_lock(self.state, self.keys, self.seat, seq, pool)

    def release(self, pool: str, positions: list[int], to: int) -> dict:
        return make_release(self.state, self.keys, self.seat, pool, positions, to)

    def play(self, pool: str, position: int) -> dict:
        return make_play(self.state, self.keys, self.seat, pool, position)

    def blind(self, seq: int, pool: str, position: int) -> dict:
        return make_blind(self.state, self.keys, self.seat, seq, pool, position)

    def unblind(self, seq: int, pool: str, position: int) -> dict:
        return make_unblind(self.state, self.keys, self.seat, seq, pool, position)

    def cancel(self, pool: str, position: int) -> dict:
        """Refuse a transfer another seat began on a card this seat holds."""
        return make_cancel(pool, position)

    def prove_class(self, seq: int, pool: str, position: int, allowed: Sequence[str]) -> dict:
        """A `class` message proving the hidden card this seat holds at pool[position]
        is one of `allowed`, without saying which.  ValueError if it is not."""
        return make_class(self.state, self.keys, self.seat, seq, pool, position, allowed)

    def prove_none_of(self, seq: int, pool: str, position: int, excluded: Sequence[str]) -> dict:
        """A `none_of` message proving the hidden card this seat holds at pool[position] is
        none of `excluded`, without saying which it is.  ValueError if it is one of them."""
        return make_none_of(self.state, self.keys, self.seat, seq, pool, position, excluded)

    def reveal(self) -> dict:
        return reveal_message(self.keys)

    def holds(self, pool: str, position: int) -> bool:
        slot = self.state.pools[pool].slots[position]
        return slot.holder == self.seat and not slot.is_public

    def decode(self, pool: str, position: int) -> str:
        """The card at a locked slot this seat holds (or a public one)."""
        return decode_held(self.state, self.keys, self.seat, pool, position)
