"""The deck's side of key escrow (docs/ESCROW.md "In the deck messages"): which message carries
which bundle, what every replica checks on apply, what it keeps, and complaints.

In a game with escrow (DeckState(..., escrow=True), three or more seats):
  * `join` carries the seat's escrow keys [E, F] with proofs of knowledge;
  * `shuffle` carries the bundle of the seat's new layer scalar c_{f,d} (K = P_{f,d}) the first
    time it publishes P_{f,d}, and none when it re-publishes it (same family and depth);
  * `lock` carries one bundle per position for b_j (K = C_j), unless the game exempts that
    seat's lock of that pool (a key nobody will ever need, e.g. a seat's own Draw Deck);
  * `complain` (any recipient, any time) publishes a channel point with its proof; an upheld
    complaint convicts the dealer and the deck accepts nothing more but `reveal`;
  * after `DeckState.retire(X)` (the game layer's word): `recover` (each recipient's checked
    share of X's scalars; the scalar is public once all are in), `refresh` (each remaining seat
    re-deals what X held shares of), and RetiredSeatKeys, with which the table authors X's
    steps (recovered scalars where X had committed, public ones elsewhere).
Every bundle is checked before anything changes; the newest bundle of every scalar is kept, so
the table can later recover the scalar of a seat that has left.  A game without escrow refuses
these fields: old logs verify unchanged.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.escrow import (
    MIN_RECIPIENTS,
    Bundle,
    Conviction,
    EscrowDirectory,
    Escrowed,
    EscrowKeys,
    ScalarId,
    check_bundle,
    check_bundles,
    check_escrow_keys,
    check_recovery_share,
    combine,
    directory,
    judge_complaint,
    make_bundle,
    make_bundles,
    make_complaint,
    open_share,
    read_bundle,
)
from creepnet.protocol.deck.group import ONE, as_scalar, hash_scalar, mul_base
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
    recovery: dict[tuple[int, ScalarId], dict[int, bytes]] = field(default_factory=dict)
    recovered: dict[tuple[int, ScalarId], bytes] = field(default_factory=dict)  # now public

    def __post_init__(self) -> None:
        if self.seats < 3:
            raise ValueError("escrow needs three or more seats (two would hold each other's keys)")
        self.keys = [None] * self.seats

    def recipients(self, dealer: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if s != dealer and s not in self.retired)

    def exempts(self, seat: int, pool: str) -> bool:
        return self.exempt is not None and self.exempt(seat, pool)

    def escrows(self, seat: int) -> bool:
        """Whether the seat's new scalars are escrowed: not once it is retired (the table acts
        for it with public scalars), nor once only one other seat remains (it would hold them)."""
        return seat not in self.retired and len(self.recipients(seat)) >= MIN_RECIPIENTS

    def bundle(self, dealer: int, scalar: ScalarId) -> tuple[Escrowed, Bundle] | None:
        return self.bundles.get((dealer, scalar))

    def stale_dealers(self) -> frozenset[int]:
        """The dealers with a bundle a retired seat holds a share of.  The schedule asks at
        every event and a game keeps hundreds of bundles, so the answer is kept until it can
        change: bundles change only in `record`, which also appends to ``kept``, and ``retired``
        only by retirement.  Kept as an attribute beside the fields, a memo the digest skips."""
        key = (len(self.kept), frozenset(self.retired))
        memo: tuple[tuple[int, frozenset[int]], frozenset[int]] | None
        memo = getattr(self, "_stale", None)
        if memo is None or memo[0] != key:
            stale = frozenset(
                dealer
                for (dealer, _), (target, _) in self.bundles.items()
                if not self.retired.isdisjoint(target.recipients)
            )
            memo = (key, stale)
            setattr(self, "_stale", memo)  # noqa: B010 (not a field: the digest must skip it)
        return memo[1]

    def fork(self) -> EscrowBook:
        """A copy that messages may change while this book stays as it is (DeckState.fork).

        Everything the handlers change is copied: the containers, and the inner maps of recovery
        shares; bundles, keys, the directory and convictions are immutable, so shared."""
        twin = copy.copy(self)
        twin.keys = list(self.keys)
        twin.bundles = dict(self.bundles)
        twin.kept = list(self.kept)
        twin.convictions = list(self.convictions)
        twin.retired = set(self.retired)
        twin.recovery = {scalar: dict(shares) for scalar, shares in self.recovery.items()}
        twin.recovered = dict(self.recovered)
        return twin


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
    pair = check_escrow_keys(msg.get("escrow"), seat, state.game_id, state.seat_keys[seat])
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
    if book is None or not book.escrows(seat) or not layer_is_new(state, seat, family, depth):
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
    new = book.escrows(seat) and layer_is_new(state, seat, family, depth)
    if new != ("escrow" in msg):
        need = "needs the escrow of its new layer" if new else "no escrow due (layer not new)"
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
    if book is None or not book.escrows(seat) or book.exempts(seat, pool):
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
    bundle's own check is its shape, its implied S_m being derived from C_j)."""
    book = _book(state, seat, "lock", msg)
    if book is None:
        return []
    wanted = book.escrows(seat) and not book.exempts(seat, pool)
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


# --- after a retirement: recovery, refresh, the table's keys for the retired seat ---------------

MAX_RECOVERED = 4096  # scalars per recover message: the codec's array limit


def retire(state: DeckState, seat: int) -> None:
    """The game layer's word that `seat` has left for good (its `retire` event): from now on its
    scalars may be recovered, nobody escrows to it, and its steps are the table's."""
    book = state.escrow
    if book is None:
        raise ValueError("a game without escrow cannot retire a seat")
    if not 0 <= seat < state.seats or seat in book.retired:
        raise ValueError(f"seat {seat} is not a seat still playing")
    book.retired.add(seat)


def _scalar_ids(value: object, seat: int, op: str) -> list[ScalarId]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_RECOVERED:
        raise DeckError(
            seat, op, f"scalars must be a list of 1-{MAX_RECOVERED} [kind, name, index]"
        )
    ids = []
    for i, item in enumerate(value):
        if (
            not isinstance(item, list)
            or len(item) != 3
            or type(item[0]) is not str
            or type(item[1]) is not str
            or type(item[2]) is not int
        ):
            raise DeckError(seat, op, "a scalar is named [kind, name, index]", i)
        try:
            ids.append(ScalarId(*item))
        except ValueError:
            raise DeckError(seat, op, f"no such scalar {item!r}", i) from None
    if len(set(ids)) != len(ids):
        raise DeckError(seat, op, "a scalar is named twice")
    return ids


def recover_message(
    state: DeckState, keys: DeckKeys, seat: int, dealer: int, scalars: list[ScalarId]
) -> dict:
    """A remaining seat's shares of a retired seat's scalars (the table decides which)."""
    book = state.escrow
    assert book is not None
    mine = escrow_keys(keys, seat)
    shares = []
    for scalar in scalars:
        target, bundle = book.bundles[(dealer, scalar)]
        shares.append(open_share(_directory(book), mine, target, bundle))
    return {
        "op": "recover",
        "dealer": dealer,
        "scalars": [[s.kind, s.name, s.index] for s in scalars],
        "shares": shares,
    }


def handle_recover(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    """Every replica checks each share against its commitment; the scalar is recovered once
    every recipient of its newest bundle has published its share."""
    book = _book(state, seat, "recover", msg)
    if book is None:
        raise DeckError(seat, "recover", "this game has no escrow")
    dealer = get_int(msg, "dealer", seat, "recover")
    if dealer not in book.retired:
        raise DeckError(seat, "recover", f"seat {dealer} is not retired")
    scalars = _scalar_ids(msg.get("scalars"), seat, "recover")
    shares = msg.get("shares")
    if not isinstance(shares, list) or len(shares) != len(scalars):
        raise DeckError(seat, "recover", "one share per scalar")
    checked = []
    for i, scalar in enumerate(scalars):
        kept = book.bundle(dealer, scalar)
        if kept is None:
            raise DeckError(seat, "recover", f"seat {dealer} escrowed no {scalar}", i)
        target, bundle = kept
        if (dealer, scalar) in book.recovered or seat in book.recovery.get((dealer, scalar), {}):
            raise DeckError(seat, "recover", "share already published or scalar recovered", i)
        checked.append((scalar, target, check_recovery_share(target, bundle, seat, shares[i])))
    for scalar, target, share in checked:
        published = book.recovery.setdefault((dealer, scalar), {})
        published[seat] = share
        if len(published) == len(target.recipients):
            book.recovered[(dealer, scalar)] = combine(target, published)
            del book.recovery[(dealer, scalar)]


def refresh_due(state: DeckState, seat: int) -> list[Escrowed]:
    """The seat's escrows that a retired seat holds a share of, re-dealt among the remaining
    others at the next epoch (in the order kept).  Empty if none, or fewer than two remain."""
    book = state.escrow
    if book is None or not book.escrows(seat) or seat not in book.stale_dealers():
        return []
    recipients = book.recipients(seat)
    return [
        replace(target, epoch=target.epoch + 1, recipients=recipients)
        for (dealer, _), (target, _) in book.bundles.items()
        if dealer == seat and book.retired & set(target.recipients)
    ]


def _scalar_value(keys: DeckKeys, scalar: ScalarId) -> bytes:
    if scalar.kind == "layer":
        return keys.layer(scalar.name, scalar.index)
    return keys.lock_key(scalar.name, scalar.index)


def refresh_message(state: DeckState, keys: DeckKeys, seat: int) -> dict:
    book = state.escrow
    assert book is not None
    items = [(t, _scalar_value(keys, t.scalar)) for t in refresh_due(state, seat)]
    bundles = make_bundles(_directory(book), escrow_keys(keys, seat), items)
    return {"op": "refresh", "escrow": [b.message() for b in bundles]}


def handle_refresh(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    """A remaining seat re-deals its escrows that a retired seat held shares of, all at once."""
    book = _book(state, seat, "refresh", msg)
    due = refresh_due(state, seat)
    if book is None or not due:
        raise DeckError(seat, "refresh", "no refresh is due from this seat")
    value = msg.get("escrow")
    if not isinstance(value, list) or len(value) != len(due):
        raise DeckError(seat, "refresh", f"expected {len(due)} escrows, in the order kept")
    record(state, list(zip(due, check_bundles(list(zip(due, value, strict=True))), strict=True)))


class RetiredSeatKeys(DeckKeys):
    """The keys with which the table authors a retired seat's owed deck steps: every scalar it
    had committed to is the recovered one (the table must recover it first), every other one is
    public, hashed from the game, the seat and the label, and its permutations are the identity.
    Anyone recomputes these steps; the remaining seats' own layers and shuffles keep the cards
    hidden and shuffled."""

    def __init__(self, state: DeckState, seat: int) -> None:
        super().__init__(state.game_id, state.seat_keys[seat], bytes(32))
        self.state = state
        self.seat = seat

    def _scalar(self, *label: str | int) -> bytes:
        book = self.state.escrow
        if book is not None and label and label[0] in ("layer", "lock"):
            kind, name, index = label
            recovered = book.recovered.get((self.seat, ScalarId(str(kind), str(name), int(index))))
            if recovered is not None:
                return recovered
        return public_scalar(self.state.game_id, self.state.seat_keys[self.seat], *label)

    def permutation(self, pool: str, shuffle_index: int, n: int) -> list[int]:
        return list(range(n))


PUBLIC_SCALAR_DOMAIN = b"creepnet/deck/retired-seat/v1"


def public_scalar(game_id: bytes, seat_key: bytes, *label: str | int) -> bytes:
    """A scalar everybody knows: SHA-512 of frame(domain, game, seat key, label...) mod L."""
    for attempt in range(1000):
        n = hash_scalar(PUBLIC_SCALAR_DOMAIN, game_id, seat_key, *label, attempt)
        if n:
            return as_scalar(n)
    raise AssertionError("unreachable")


# --- audit ----------------------------------------------------------------------------------------


class RetiredScalars:
    """At the end, a retired seat's scalars for decoding its cards (docs/ESCROW.md "Audit after a
    retirement"): the recovered one; else the one its escrow shares add up to, each opened with
    the revealed secret of its recipient (a remaining seat's secret opens the shares sent *to*
    it; nothing the retired seat held is ever opened); else the public one the table used for it.
    Whatever is found must match the seat's published commitment, or it is unknown (None)."""

    def __init__(self, state: DeckState, seat: int, revealed: list[DeckKeys | None]) -> None:
        self.state = state
        self.seat = seat
        self.revealed = revealed
        self.bundles: dict[ScalarId, list[tuple[Escrowed, Bundle]]] = {}
        book = state.escrow
        for target, bundle in book.kept if book is not None else ():
            if target.dealer == seat:
                self.bundles.setdefault(target.scalar, []).append((target, bundle))

    def layer(self, family: str, depth: int) -> bytes | None:
        if depth == 0:
            return ONE
        commit = self.state.layer_commits.get((self.seat, family, depth))
        return self._scalar(ScalarId("layer", family, depth), commit)

    def lock_key(self, pool: str, position: int) -> bytes | None:
        slots = self.state.pools[pool].slots
        commit = slots[position].commits[self.seat] if position < len(slots) else None
        return self._scalar(ScalarId("lock", pool, position), commit)

    def _scalar(self, scalar: ScalarId, commit: bytes | None) -> bytes | None:
        book = self.state.escrow
        value = book.recovered.get((self.seat, scalar)) if book is not None else None
        if value is None:
            newest_first = reversed(self.bundles.get(scalar, []))
            value = next(filter(None, map(self._from_shares, newest_first)), None)
        if value is None:
            label = (scalar.kind, scalar.name, scalar.index)
            value = public_scalar(self.state.game_id, self.state.seat_keys[self.seat], *label)
        return value if commit is not None and mul_base(value) == commit else None

    def _from_shares(self, escrowed: tuple[Escrowed, Bundle]) -> bytes | None:
        target, bundle = escrowed
        book = self.state.escrow
        assert book is not None and book.directory is not None
        published = book.recovery.get((self.seat, target.scalar), {})
        newest = self.bundles[target.scalar][-1][0] == target
        shares: dict[int, bytes] = {}
        for r in target.recipients:
            keys = self.revealed[r]
            if keys is not None:
                try:
                    shares[r] = open_share(book.directory, escrow_keys(keys, r), target, bundle)
                except DeckError:  # a bad share nobody complained about: this escrow is lost
                    return None
            elif newest and r in published:  # checked against the newest bundle at recovery
                shares[r] = published[r]
            else:
                return None
        try:
            return combine(target, shares)
        except (DeckError, ValueError):
            return None


def audit_escrows(state: DeckState) -> None:
    """At the end, with the revealed secrets: every bundle of a seat that revealed is the one its
    secret derives (docs/ESCROW.md "Deterministic, not random, shares").  A retired seat never
    reveals; its bundles stay as checked at once.  DeckError names the first dealer at fault."""
    book = state.escrow
    if book is None or book.directory is None:
        return
    # one EscrowKeys per dealer, not per bundle: its channel points (a variable-base
    # multiplication per recipient) and derived scalars are then computed once per audit
    dealers: dict[int, EscrowKeys] = {}
    for target, bundle in book.kept:
        secret = state.secrets[target.dealer]
        if secret is None:
            continue
        mine = dealers.get(target.dealer)
        if mine is None:
            keys = DeckKeys(state.game_id, state.seat_keys[target.dealer], secret)
            mine = dealers[target.dealer] = EscrowKeys(keys, target.dealer)
        value = _scalar_value(mine.keys, target.scalar)
        expected = make_bundle(book.directory, mine, target, value)
        if expected != bundle:
            scalar = target.scalar
            raise DeckError(
                target.dealer,
                "audit",
                f"escrow of {scalar.kind} {scalar.name}/{scalar.index} (epoch {target.epoch}) "
                "is not the one derived from the deck secret",
            )
