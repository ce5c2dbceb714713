"""The deck's side of key escrow (docs/ESCROW.md "In the deck messages"): which message carries
which bundle, what every replica checks on apply, what it keeps, and complaints.

In a game with escrow (DeckState(..., escrow=True), three or more seats):
  * `join` carries the seat's escrow keys [E, F];
  * `shuffle` carries the bundle of the seat's new layer scalar c_{f,d} (K = P_{f,d}) the first
    time it publishes P_{f,d}, and none when it re-publishes it (same family and depth);
  * `lock` carries one bundle per position for b_j (K = C_j), unless the game exempts that
    seat's lock of that pool (a key nobody will ever need, e.g. a seat's own Draw Deck);
  * `complain` (any recipient, any time) publishes a channel point with its proof; an upheld
    complaint convicts the dealer and the deck accepts nothing more but `reveal`.
Every bundle is checked before anything changes; the newest bundle of every scalar is kept, so
the table can later recover the scalar of a seat that has left.  A game without escrow refuses
these fields: old logs verify unchanged.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.escrow import (
    Bundle,
    Conviction,
    EscrowDirectory,
    Escrowed,
    EscrowKeys,
    ScalarId,
    check_bundle,
    check_bundles,
    check_escrow_keys,
    directory,
    judge_complaint,
    make_bundle,
    make_bundles,
    make_complaint,
    open_share,
    read_bundle,
)
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.deck.model import get_int, get_str

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState

Exempt = Callable[[int, str], bool]  # (locking seat, pool) -> its lock keys need no escrow


@dataclass
class EscrowBook:
    """Everything public about a game's escrow: keys, every scalar's newest bundle, verdicts."""

    seats: int
    exempt: Exempt | None = None
    keys: list[tuple[bytes, bytes] | None] = field(default_factory=list)
    directory: EscrowDirectory | None = None
    bundles: dict[tuple[int, ScalarId], tuple[Escrowed, Bundle]] = field(default_factory=dict)
    kept: list[tuple[Escrowed, Bundle]] = field(default_factory=list)  # every bundle, in log order
    convictions: list[Conviction] = field(default_factory=list)
    retired: set[int] = field(default_factory=set)  # set by the game layer (docs/ESCROW.md)

    def __post_init__(self) -> None:
        if self.seats < 3:
            raise ValueError("escrow needs three or more seats (two would hold each other's keys)")
        self.keys = [None] * self.seats

    def recipients(self, dealer: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if s != dealer and s not in self.retired)

    def exempts(self, seat: int, pool: str) -> bool:
        return self.exempt is not None and self.exempt(seat, pool)

    def bundle(self, dealer: int, scalar: ScalarId) -> tuple[Escrowed, Bundle] | None:
        return self.bundles.get((dealer, scalar))


_ESCROW_KEYS: weakref.WeakKeyDictionary[DeckKeys, EscrowKeys] = weakref.WeakKeyDictionary()


def escrow_keys(keys: DeckKeys, seat: int) -> EscrowKeys:
    """The seat's EscrowKeys, one per DeckKeys, so its channel points are computed once a game."""
    mine = _ESCROW_KEYS.get(keys)
    if mine is None or mine.seat != seat:
        mine = _ESCROW_KEYS[keys] = EscrowKeys(keys, seat)
    return mine


def _book(state: DeckState, seat: int, op: str, msg: dict) -> EscrowBook | None:
    """The game's escrow book; a message carrying escrow in a game without it is refused."""
    if state.escrow is None and "escrow" in msg:
        raise DeckError(seat, op, "this game has no escrow")
    return state.escrow


# --- join --------------------------------------------------------------------------------------


def join_fields(state: DeckState, keys: DeckKeys, seat: int) -> dict:
    """The escrow part of a seat's join (nothing in a game without escrow)."""
    if state.escrow is None:
        return {}
    return {"escrow": escrow_keys(keys, seat).published()}


def check_join(state: DeckState, seat: int, msg: dict) -> tuple[bytes, bytes] | None:
    book = _book(state, seat, "join", msg)
    if book is None:
        return None
    pair = check_escrow_keys(msg.get("escrow"), seat)
    for other, known in enumerate(book.keys):
        if known is not None and set(pair) & set(known):
            raise DeckError(seat, "join", f"escrow key already published by seat {other}")
    return pair


def record_join(state: DeckState, seat: int, pair: tuple[bytes, bytes] | None) -> None:
    book = state.escrow
    if book is None or pair is None:
        return
    book.keys[seat] = pair
    if None not in book.keys:
        published = [k for k in book.keys if k is not None]
        book.directory = directory(state.game_id, state.seat_keys, published)


# --- shuffle: the new layer scalar ----------------------------------------------------------------


def _layer_target(book: EscrowBook, seat: int, family: str, depth: int, commit: bytes) -> Escrowed:
    return Escrowed(seat, ScalarId("layer", family, depth), 0, book.recipients(seat), commit)


def layer_is_new(state: DeckState, seat: int, family: str, depth: int) -> bool:
    return (seat, family, depth) not in state.layer_commits


def make_layer_escrow(
    state: DeckState, keys: DeckKeys, seat: int, family: str, depth: int, commit: bytes
) -> dict:
    """The `escrow` field of a shuffle (empty unless the game escrows and P_{f,d} is new)."""
    book = state.escrow
    if book is None or not layer_is_new(state, seat, family, depth):
        return {}
    target = _layer_target(book, seat, family, depth, commit)
    bundle = make_bundle(
        _directory(book), escrow_keys(keys, seat), target, keys.layer(family, depth)
    )
    return {"escrow": bundle.message()}


def check_layer_escrow(
    state: DeckState, seat: int, family: str, depth: int, commit: bytes, msg: dict, vouched: bool
) -> tuple[Escrowed, Bundle] | None:
    """A shuffle's escrow: present exactly when the layer commitment is new."""
    book = _book(state, seat, "shuffle", msg)
    if book is None:
        return None
    new = layer_is_new(state, seat, family, depth)
    if new != ("escrow" in msg):
        need = "needs the escrow of its new layer" if new else "re-publishes a layer: no escrow"
        raise DeckError(seat, "shuffle", need)
    if not new:
        return None
    target = _layer_target(book, seat, family, depth, commit)
    read = read_bundle if vouched else check_bundle
    return target, read(target, msg["escrow"])


# --- lock: one bundle per position ---------------------------------------------------------------


def _lock_targets(book: EscrowBook, seat: int, pool: str, commits: list[bytes]) -> list[Escrowed]:
    recipients = book.recipients(seat)
    return [
        Escrowed(seat, ScalarId("lock", pool, j), 0, recipients, c) for j, c in enumerate(commits)
    ]


def make_lock_escrow(
    state: DeckState, keys: DeckKeys, seat: int, pool: str, commits: list[bytes]
) -> dict:
    book = state.escrow
    if book is None or book.exempts(seat, pool):
        return {}
    targets = _lock_targets(book, seat, pool, commits)
    items = [(t, keys.lock_key(pool, j)) for j, t in enumerate(targets)]
    bundles = make_bundles(_directory(book), escrow_keys(keys, seat), items)
    return {"escrow": [b.message() for b in bundles]}


def check_lock_escrow(
    state: DeckState, seat: int, pool: str, commits: list[bytes], msg: dict, vouched: bool
) -> list[tuple[Escrowed, Bundle]]:
    """A lock's escrow: one bundle per position, or none if the game exempts this lock.  The
    commitments are the lock's, read (not yet validated: the lock's proofs validate them; a
    bundle checked against an invalid C_j fails its sum or its proof fails)."""
    book = _book(state, seat, "lock", msg)
    if book is None:
        return []
    wanted = not book.exempts(seat, pool)
    if wanted != ("escrow" in msg):
        raise DeckError(
            seat, "lock", "needs one escrow per position" if wanted else "exempt: no escrow"
        )
    if not wanted:
        return []
    value = msg["escrow"]
    if not isinstance(value, list) or len(value) != len(commits):
        raise DeckError(seat, "lock", f"expected {len(commits)} escrows, one per position")
    targets = _lock_targets(book, seat, pool, commits)
    if vouched:
        bundles = [read_bundle(t, v) for t, v in zip(targets, value, strict=True)]
    else:
        bundles = check_bundles(list(zip(targets, value, strict=True)))
    return list(zip(targets, bundles, strict=True))


def record(state: DeckState, escrows: list[tuple[Escrowed, Bundle]]) -> None:
    book = state.escrow
    if book is None:
        return
    for target, bundle in escrows:
        book.bundles[(target.dealer, target.scalar)] = (target, bundle)
        book.kept.append((target, bundle))


# --- complaints --------------------------------------------------------------------------------


def _directory(book: EscrowBook) -> EscrowDirectory:
    if book.directory is None:  # apply refuses every op but join before every seat has joined
        raise ValueError("escrow directory used before every seat joined")
    return book.directory


def _scalar_of(msg: dict, seat: int) -> ScalarId:
    kind = get_str(msg, "kind", seat, "complain")
    name = get_str(msg, "name", seat, "complain")
    index = get_int(msg, "index", seat, "complain")
    try:
        return ScalarId(kind, name, index)
    except ValueError:
        raise DeckError(
            seat, "complain", f"no such escrowed scalar {kind}/{name}/{index}"
        ) from None


def complaint_message(
    state: DeckState, keys: DeckKeys, seat: int, dealer: int, scalar: ScalarId
) -> dict:
    book = state.escrow
    assert book is not None
    target, _ = book.bundles[(dealer, scalar)]
    proof = make_complaint(_directory(book), escrow_keys(keys, seat), target)
    return {
        "op": "complain",
        "dealer": dealer,
        "kind": scalar.kind,
        "name": scalar.name,
        "index": scalar.index,
        "epoch": target.epoch,
        **proof,
    }


def handle_complain(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    book = _book(state, seat, "complain", msg)
    if book is None:
        raise DeckError(seat, "complain", "this game has no escrow")
    dealer = get_int(msg, "dealer", seat, "complain")
    scalar = _scalar_of(msg, seat)
    epoch = get_int(msg, "epoch", seat, "complain")
    kept = book.bundle(dealer, scalar) if 0 <= dealer < state.seats else None
    if kept is None or kept[0].epoch != epoch:
        raise DeckError(seat, "complain", "no such escrow (dealer, scalar, epoch)")
    target, bundle = kept
    complaint = {"point": msg.get("point"), "proof": msg.get("proof")}
    book.convictions.append(judge_complaint(_directory(book), target, bundle, seat, complaint))


def bad_shares(state: DeckState, keys: DeckKeys, seat: int, since: int) -> tuple[list[dict], int]:
    """A recipient's duty after each event: open every bundle kept since `since` (an index into
    `EscrowBook.kept`) that is addressed to it, and return a complaint message for each share
    that is bad, with the index to continue from."""
    book = state.escrow
    if book is None:
        return [], since
    mine = escrow_keys(keys, seat)
    kept = book.kept
    complaints = []
    for target, bundle in kept[since:]:
        if seat not in target.recipients:
            continue
        try:
            open_share(_directory(book), mine, target, bundle)
        except DeckError:
            complaints.append(complaint_message(state, keys, seat, target.dealer, target.scalar))
    return complaints, len(kept)
