"""DeckState: the replicated public deck, driven by applying messages in log order.

``fork`` gives a copy that a caller may change while the original stays as it was (the session
applies every event to a fork and keeps it only if the whole event is accepted).  Pools are the
bulk of the state, so a fork shares them and copies each one the first time it is looked up
(``CopiedOnUse``): an event costs a copy of the one or two pools it touches, not of the deck.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator, MutableMapping, Sequence

from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.escrowing import EscrowBook, Exempt, retire
from creepnet.protocol.deck.group import CardTable, frame
from creepnet.protocol.deck.handlers import HANDLERS
from creepnet.protocol.deck.model import Pool, Record, get

VOUCHED_LIMIT = 16
VOUCH_DOMAIN = b"creepnet/deck/vouch/v1"


def _digest(parts: tuple[object, ...]) -> bytes:
    """SHA-512 over an unambiguous framing of nested lists / maps of bytes, str and int."""
    flat: list[bytes | str | int] = []

    def walk(part: object) -> None:
        if isinstance(part, list | tuple):
            flat.extend(("list", len(part)))
            for item in part:
                walk(item)
        elif isinstance(part, dict):
            flat.extend(("map", len(part)))
            for key in sorted(part):
                flat.append(key)
                walk(part[key])
        elif isinstance(part, bytes | str | int) and not isinstance(part, bool):
            flat.append(part)
        else:
            raise TypeError(f"cannot vouch for a {type(part).__name__}")

    walk(parts)
    return hashlib.sha512(frame(VOUCH_DOMAIN, *flat)).digest()


# DeckState.fork copies these itself, and shares these (immutable, or only ever replaced).
_FORKED = {"joins", "layer_commits", "pools", "used_names", "history", "public_cards", "secrets"}
_FORKED |= {"_vouched", "escrow"}
_SHARED = {"game_id", "seat_keys", "seats", "table", "last_seq"}


class CopiedOnUse(MutableMapping[str, Pool]):
    """Pools shared with the states forked from (or into) this one until used: a pool is copied
    the first time it is looked up here, so no change made here reaches another fork."""

    def __init__(self, pools: dict[str, Pool] | None = None) -> None:
        self._pools: dict[str, Pool] = dict(pools or {})
        self._own: set[str] = set(self._pools) if pools is None else set()

    def __getitem__(self, name: str) -> Pool:
        pool = self._pools[name]
        if name not in self._own:
            pool = self._pools[name] = pool.copy()
            self._own.add(name)
        return pool

    def __setitem__(self, name: str, pool: Pool) -> None:
        self._pools[name] = pool
        self._own.add(name)

    def __delitem__(self, name: str) -> None:
        del self._pools[name]
        self._own.discard(name)

    def __contains__(self, name: object) -> bool:
        return name in self._pools  # no copy: membership reads nothing of a pool

    def __iter__(self) -> Iterator[str]:
        return iter(self._pools)

    def __len__(self) -> int:
        return len(self._pools)

    def fork(self) -> CopiedOnUse:
        self._own.clear()  # from now on both sides share every pool: each copies before use
        return CopiedOnUse(self._pools)


class DeckState:
    """Everything public about the decks of one game, identical at every seat.

    `apply(seat, seq, message)` checks a message authored by `seat` at event
    sequence number `seq` and updates the state, or raises DeckError naming the
    seat at fault (the state is left unchanged by an attributable failure).
    """

    def __init__(
        self,
        game_id: bytes,
        seat_keys: Sequence[bytes],
        card_ids: Sequence[str],
        *,
        escrow: bool = False,
        escrow_exempt: Exempt | None = None,
    ) -> None:
        """`escrow` (3+ seats): every layer and lock key is escrowed among the other seats
        (docs/ESCROW.md); `escrow_exempt(seat, pool)` names locks whose keys need none."""
        if len(seat_keys) < 2 or len(set(seat_keys)) != len(seat_keys):
            raise ValueError("need at least two distinct seat keys")
        self.game_id = bytes(game_id)
        self.seat_keys = [bytes(k) for k in seat_keys]
        self.seats = len(seat_keys)
        self.table = CardTable(card_ids)
        self.joins: list[bytes | None] = [None] * self.seats
        self.layer_commits: dict[tuple[int, str, int], bytes] = {}  # (seat, family, depth) -> P
        self.pools = CopiedOnUse()
        self.used_names: set[str] = set()  # pool names are never reused: keys derive from them
        self.history: list[Record] = []
        self.public_cards: dict[str, set[str]] = {}  # family -> cards face up right now
        self.secrets: list[bytes | None] = [None] * self.seats
        self.last_seq: int | None = None
        self.escrow = EscrowBook(self.seats, escrow_exempt) if escrow else None
        # Local only, never replicated: digests of (statement, proof) pairs this replica's own
        # seat has just proven, so applying its own event skips re-checking what it computed.
        self._vouched: dict[bytes, None] = {}

    def fork(self) -> DeckState:
        """A copy to apply messages to; this state is left exactly as it is (module docstring).

        Records, points and the card table are never changed in place, so they are shared; the
        escrow book is mutable, so it forks too (a rejected escrow message changes nothing).  An
        attribute this method does not know (one added later) is deep-copied: safe, if slow,
        until it is given a cheap copy here."""
        twin = copy.copy(self)
        twin.joins = list(self.joins)
        twin.layer_commits = dict(self.layer_commits)
        twin.pools = self.pools.fork()
        twin.used_names = set(self.used_names)
        twin.history = list(self.history)
        twin.public_cards = {family: set(cards) for family, cards in self.public_cards.items()}
        twin.secrets = list(self.secrets)
        twin.escrow = None if self.escrow is None else self.escrow.fork()
        twin._vouched = dict(self._vouched)
        for name in vars(self).keys() - _FORKED - _SHARED:
            setattr(twin, name, copy.deepcopy(getattr(self, name)))
        return twin

    # -- dispatch ------------------------------------------------------------------------

    def apply(self, seat: int, seq: int, message: dict) -> None:
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise ValueError(f"unknown seat {seat!r}")
        if not isinstance(message, dict):
            raise DeckError(seat, "?", "message is not a dict")
        op = get(message, "op", str, seat, "?")
        handler = HANDLERS.get(op)
        if handler is None:
            raise DeckError(seat, str(op), "unknown operation")
        if self.last_seq is not None and seq <= self.last_seq:
            raise ValueError("sequence numbers must increase")  # caller's bug, not a seat's
        if op != "join" and None in self.joins:
            raise DeckError(seat, str(op), "not every seat has joined yet")
        if op not in ("join", "reveal") and self.finished:
            raise DeckError(seat, str(op), "the game is over (secrets are being revealed)")
        if op != "reveal" and self.escrow is not None and self.escrow.convictions:
            convicted = self.escrow.convictions[0]
            raise DeckError(None, str(op), f"void: {convicted.error()}")
        handler(self, seat, seq, message)
        self.last_seq = seq

    def retire(self, seat: int) -> None:
        """The game layer's word that `seat` has left for good (docs/ESCROW.md): its scalars
        may now be recovered and the table authors its steps with RetiredSeatKeys."""
        retire(self, seat)

    # -- proofs the local seat computed ------------------------------------------------------

    def vouch(self, *statement_and_proof: object) -> None:
        """Record that the local seat has just computed a proof.  The parts must name everything
        its check reads (context, inputs, outputs, the proof itself), so that a message matching
        them can only carry that very proof for that very statement."""
        self._vouched[_digest(statement_and_proof)] = None
        while len(self._vouched) > VOUCHED_LIMIT:  # authored but never applied: forget the oldest
            del self._vouched[next(iter(self._vouched))]

    def vouched(self, *statement_and_proof: object) -> bool:
        """True, once, for parts `vouch` recorded: the check they name may be skipped here."""
        if not self._vouched:
            return False  # a peer's replica, or nothing of ours in flight: no hashing
        try:
            digest = _digest(statement_and_proof)
        except TypeError:  # a received part no honest proof has (None, a float...): not ours
            return False
        return self._vouched.pop(digest, False) is None

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

    def decode_public(self, family: str, point: bytes, op: str, position: int) -> str:
        """The card a fully opened point shows, now public.  An honest table always gets a card:
        a point that is none means some shuffle was dishonest, which only the audit can name."""
        card = self.table.decode(point)
        if card is None:
            reason = f"the {op} showed no card: a shuffle was dishonest, run the audit"
            raise DeckError(None, op, reason, position)
        self.make_public(family, card, op, position)
        return card

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
