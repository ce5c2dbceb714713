"""In-memory multi-seat harness: seats act in seat order, every message goes to
every replica through `DeckState.apply`.  A `tamper` hook lets a test rewrite
any outgoing message to make one seat cheat.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import partial

from nacl.signing import SigningKey

from creepnet.protocol.deck.audit import AuditReport, audit
from creepnet.protocol.deck.model import PUBLIC
from creepnet.protocol.deck.pools import create_message, merge_message, split_message
from creepnet.protocol.deck.seat import DeckSeat
from creepnet.protocol.deck.state import DeckState

Tamper = Callable[[int, int, dict], dict]  # (seat, seq, message) -> message to publish


class DeckHarness:
    def __init__(
        self,
        seats: int,
        cards: list[str],
        game_id: bytes | None = None,
        tamper: Tamper | None = None,
        shared_state: bool = False,
        seat_keys: list[bytes] | None = None,
        deck_secrets: list[bytes] | None = None,
    ) -> None:
        self.game_id = game_id or secrets.token_bytes(16)
        self.seat_keys = seat_keys or [
            bytes(SigningKey.generate().verify_key) for _ in range(seats)
        ]
        first = DeckState(self.game_id, self.seat_keys, cards)
        # shared_state: one replica read by all seats, to keep property tests fast.
        self.states = [first] + [
            first if shared_state else DeckState(self.game_id, self.seat_keys, cards)
            for _ in range(seats - 1)
        ]
        self.players = [
            DeckSeat(self.states[s], s, deck_secrets[s] if deck_secrets else None)
            for s in range(seats)
        ]
        self.tamper = tamper
        self.seq = 0
        self.log: list[tuple[int, int, dict]] = []
        for p in self.players:
            self.post(p.seat, _ignore_seq(p.join))

    @property
    def state(self) -> DeckState:
        return self.states[0]

    def post(self, seat: int, make: Callable[[int], dict]) -> dict:
        """Author a message at the next sequence number and apply it everywhere."""
        seq = self.seq + 1
        message = make(seq)
        if self.tamper is not None:
            message = self.tamper(seat, seq, message)
        for state in dict.fromkeys(self.states):  # each distinct replica once
            state.apply(seat, seq, message)
        self.seq = seq
        self.log.append((seat, seq, message))
        return message

    # -- public bookkeeping --------------------------------------------------------------

    def create(self, pool: str, cards: list[str], by: int = 0) -> None:
        self.post(by, lambda seq: create_message(pool, cards))

    def split(self, pool: str, into: list[str], sizes: list[int], by: int = 0) -> None:
        self.post(by, lambda seq: split_message(pool, into, sizes))

    def merge(self, pools: list[str], into: str, by: int = 0) -> None:
        self.post(by, lambda seq: merge_message(pools, into))

    # -- chains of steps in seat order ----------------------------------------------------------

    def shuffle(self, pool: str, seats: list[int] | None = None) -> None:
        for p in self._players(seats):
            self.post(p.seat, partial(p.shuffle, pool=pool))

    def open(self, pool: str, position: int) -> str:
        for p in self.players:
            self.post(p.seat, partial(p.open, pool=pool, position=position))
        return self.state.pools[pool].public[position]

    def lock(self, pool: str) -> None:
        for p in self.players:
            self.post(p.seat, partial(p.lock, pool=pool))

    def draw(self, pool: str, positions: list[int], seat: int) -> None:
        """Private draw: every other seat releases its keys to `seat`."""
        for p in self.players:
            if p.seat != seat:
                self.post(p.seat, _ignore_seq(partial(p.release, pool, positions, seat)))

    def reveal(self, pool: str, positions: list[int]) -> list[str]:
        """Public reveal of unheld locked slots: every seat releases its keys."""
        for p in self.players:
            self.post(p.seat, _ignore_seq(partial(p.release, pool, positions, PUBLIC)))
        return [self.state.pools[pool].slots[j].card for j in positions]  # type: ignore[misc]

    def play(self, seat: int, pool: str, position: int) -> str:
        message = self.post(seat, lambda seq: self.players[seat].play(pool, position))
        return message["card"]

    def transfer(self, pool: str, position: int, to: int) -> None:
        holder = self.state.pools[pool].slots[position].holder
        assert holder is not None
        self.post(to, lambda seq: self.players[to].blind(seq, pool, position))
        self.post(holder, lambda seq: self.players[holder].unblind(seq, pool, position))

    def finish(self, claims: list[dict] | None = None) -> AuditReport:
        """Every seat reveals its secret; the audit runs on every replica."""
        for p in self.players:
            self.post(p.seat, _ignore_seq(p.reveal))
        reports = [audit(state, claims) for state in dict.fromkeys(self.states)]
        return reports[0]

    def _players(self, seats: list[int] | None) -> list[DeckSeat]:
        return self.players if seats is None else [self.players[s] for s in seats]


def _ignore_seq(make: Callable[[], dict]) -> Callable[[int], dict]:
    """For messages that carry no proof, hence no binding to the sequence number."""
    return lambda seq: make()
