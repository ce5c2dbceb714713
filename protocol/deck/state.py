"""DeckState: the replicated public deck, driven by applying messages in log order."""

from __future__ import annotations

from collections.abc import Sequence

from creepnet.protocol import codec
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import CardTable
from creepnet.protocol.deck.handlers import HANDLERS
from creepnet.protocol.deck.model import Pool, Record, get


class DeckState:
    """Everything public about the decks of one game, identical at every seat.

    `apply(seat, seq, message)` checks a message authored by `seat` at event
    sequence number `seq` and updates the state, or raises DeckError naming the
    seat at fault (the state is left unchanged by an attributable failure).

    A replica's own seat proves its messages once: ``vouch`` records the message its DeckSeat
    just made, and applying exactly that message, by that seat at that seq, sets ``proven`` for
    the handler, which then skips the proof checks (every other check still runs).  The proofs
    hold by construction (made from the seat's secret for this very state), every other replica
    checks them in full, and only this process's own prover can vouch: an honest author no
    longer pays for its proofs twice on the critical path of its event.
    """

    def __init__(self, game_id: bytes, seat_keys: Sequence[bytes], card_ids: Sequence[str]) -> None:
        if len(seat_keys) < 2 or len(set(seat_keys)) != len(seat_keys):
            raise ValueError("need at least two distinct seat keys")
        self.game_id = bytes(game_id)
        self.seat_keys = [bytes(k) for k in seat_keys]
        self.seats = len(seat_keys)
        self.table = CardTable(card_ids)
        self.joins: list[bytes | None] = [None] * self.seats
        self.layer_commits: dict[tuple[int, str, int], bytes] = {}  # (seat, family, depth) -> P
        self.pools: dict[str, Pool] = {}
        self.used_names: set[str] = set()  # pool names are never reused: keys derive from them
        self.history: list[Record] = []
        self.public_cards: dict[str, set[str]] = {}  # family -> cards face up right now
        self.secrets: list[bytes | None] = [None] * self.seats
        self.last_seq: int | None = None
        self._own: tuple[int, int, bytes] | None = None  # (seat, seq, encoding): see vouch()
        self.proven = False  # while applying the vouched message: its proofs are ours

    def vouch(self, seat: int, seq: int, message: dict) -> None:
        """Record a message this replica's own seat has just made, proofs and all (DeckSeat).

        Forgotten by the next apply, whatever it applies."""
        self._own = (seat, seq, codec.encode(message))

    # -- dispatch ------------------------------------------------------------------------

    def apply(self, seat: int, seq: int, message: dict) -> None:
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise ValueError(f"unknown seat {seat!r}")
        if not isinstance(message, dict):
            raise DeckError(seat, "?", "message is not a dict")
        op = get(message, "op", str, seat, "?")
        handler = HANDLERS.get(op)  # type: ignore[arg-type]
        if handler is None:
            raise DeckError(seat, str(op), "unknown operation")
        if self.last_seq is not None and seq <= self.last_seq:
            raise ValueError("sequence numbers must increase")  # caller's bug, not a seat's
        if op != "join" and None in self.joins:
            raise DeckError(seat, str(op), "not every seat has joined yet")
        if op not in ("join", "reveal") and self.finished:
            raise DeckError(seat, str(op), "the game is over (secrets are being revealed)")
        own, self._own = self._own, None
        self.proven = own is not None and own[:2] == (seat, seq) and own[2] == codec.encode(message)
        try:
            handler(self, seat, seq, message)
        finally:
            self.proven = False
        self.last_seq = seq

    # -- lookups used by the operation modules ---------------------------------------------

    @property
    def finished(self) -> bool:
        return any(s is not None for s in self.secrets)

    def pool(self, name: object, seat: int, op: str) -> Pool:
        if not isinstance(name, str) or name not in self.pools:
            raise DeckError(seat, op, f"unknown pool {name!r}")
        return self.pools[name]

    def layer_commit(self, seat: int, family: str, depth: int) -> bytes:
        return self.layer_commits[(seat, family, depth)]

    def locked_pool(self, name: object, seat: int, op: str) -> Pool:
        pool = self.pool(name, seat, op)
        if not pool.locked(self.seats):
            raise DeckError(seat, op, f"pool {pool.name!r} is not locked by every seat")
        return pool

    def make_public(self, family: str, card: str, op: str, position: int) -> None:
        """Defence in depth: a card is face up at most once per family.  With every
        step proven this cannot fail; if it does, the audit says whose step it was."""
        face_up = self.public_cards.setdefault(family, set())
        if card in face_up:
            raise DeckError(
                None,
                op,
                f"card {card!r} is already public in family {family!r}: run the audit",
                position,
            )
        face_up.add(card)

    def check_new_name(self, name: object, seat: int, op: str) -> str:
        if not isinstance(name, str) or not name or name in self.used_names:
            raise DeckError(seat, op, f"pool name {name!r} is empty or already used")
        return name


__all__ = ["DeckState"]
