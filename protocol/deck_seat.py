"""One seat's private side: its deck secret and the messages it authors.

A DeckSeat reads the public DeckState (its own replica) and its DeckKeys; it
never mutates the state: its messages go through `state.apply` like anybody's.
`seq` is the event sequence number the message will be published at; proofs
are bound to it.
"""

from __future__ import annotations

from creepnet.protocol import deck_audit, deck_hidden, deck_ops
from creepnet.protocol.deck_keys import DeckKeys, new_deck_secret
from creepnet.protocol.deck_state import DeckState


class DeckSeat:
    def __init__(self, state: DeckState, seat: int, secret: bytes | None = None) -> None:
        self.state = state
        self.seat = seat
        self.keys = DeckKeys(state.game_id, state.seat_keys[seat], secret or new_deck_secret())

    def join(self) -> dict:
        return {"op": "join", "commit": self.keys.commitment}

    def shuffle(self, seq: int, pool: str) -> dict:
        return deck_ops.make_shuffle(self.state, self.keys, self.seat, seq, pool)

    def open(self, seq: int, pool: str, position: int) -> dict:
        return deck_ops.make_open(self.state, self.keys, self.seat, seq, pool, position)

    def lock(self, seq: int, pool: str) -> dict:
        return deck_ops.make_lock(self.state, self.keys, self.seat, seq, pool)

    def release(self, pool: str, positions: list[int], to: int) -> dict:
        return deck_hidden.make_release(self.state, self.keys, self.seat, pool, positions, to)

    def play(self, pool: str, position: int) -> dict:
        return deck_hidden.make_play(self.state, self.keys, self.seat, pool, position)

    def blind(self, seq: int, pool: str, position: int) -> dict:
        return deck_hidden.make_blind(self.state, self.keys, self.seat, seq, pool, position)

    def unblind(self, seq: int, pool: str, position: int) -> dict:
        return deck_hidden.make_unblind(self.state, self.keys, self.seat, seq, pool, position)

    def reveal(self) -> dict:
        return deck_audit.reveal_message(self.keys)

    def holds(self, pool: str, position: int) -> bool:
        slot = self.state.pools[pool].slots[position]
        return slot.holder == self.seat and not slot.is_public

    def decode(self, pool: str, position: int) -> str:
        """The card at a locked slot this seat holds (or a public one)."""
        return deck_hidden.decode_held(self.state, self.keys, self.seat, pool, position)
