"""The layered-encryption steps on shared pools: shuffle, open, lock.

Each has a `make_*` (the seat's own step, from its DeckKeys) and a `handle_*`
(every replica's check of somebody's step, then the state update).  Checks
validate everything before mutating anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from creepnet.protocol.deck import escrowing
from creepnet.protocol.deck.dleq import proof_context, prove, verify
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import (
    BASE,
    check_encodings,
    check_point,
    mul,
    mul_base,
    scalar_invert,
    scalar_mul,
)
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.deck.model import (
    LockRecord,
    OpenProgress,
    Pool,
    ShuffleRecord,
    Slot,
    get_int,
    get_list,
)
from creepnet.protocol.deck.shuffleproof import ShuffleRejected, prove_shuffle, verify_shuffle
from creepnet.protocol.deck.threads import spread

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState


def _context(state: DeckState, seq: int, seat: int, op: str, pool: str, position: int) -> bytes:
    return proof_context(state.game_id, seq, state.seat_keys[seat], op, pool, position)


def _everyone_layered(state: DeckState, pool: Pool, seat: int, op: str) -> None:
    if min(pool.depth) < 1:
        raise DeckError(seat, op, f"pool {pool.name!r} has not been shuffled by every seat")


# --- shuffle ----------------------------------------------------------------------------
# Re-encrypt every point with the seat's next global layer, permute, and prove it at once
# (deck/shuffleproof): out_i = s·in_perm(i) with s·P_{f,d-1} = P_{f,d}, P_{f,0} = G.


def _layer_base(state: DeckState, seat: int, family: str, depth: int) -> bytes:
    """P_{f,depth}: the seat's published layer commitment (G at depth 0)."""
    return BASE if depth == 0 else state.layer_commit(seat, family, depth)


def _shuffle_context(state: DeckState, seq: int, seat: int, pool: Pool) -> bytes:
    return _context(state, seq, seat, "shuffle", pool.name, pool.shuffles)


# The author's own replica does not re-check a shuffle or lock it has just computed
# (DeckState.vouch: the digest covers the whole statement and proof); every peer does.


def make_shuffle(state: DeckState, keys: DeckKeys, seat: int, seq: int, name: str) -> dict:
    pool = state.pools[name]
    depth = pool.depth[seat] + 1
    step = keys.layer_step(pool.family, depth)
    perm = keys.permutation(name, pool.shuffles, len(pool.points))
    points = spread(lambda i: mul(step, pool.points[i]), perm)
    commit = keys.layer_commit(pool.family, depth)
    base = _layer_base(state, seat, pool.family, depth - 1)
    ctx = _shuffle_context(state, seq, seat, pool)
    proof = prove_shuffle(
        pool.points, points, perm, step, base, keys.layer(pool.family, depth - 1), commit, ctx
    )
    escrow = escrowing.make_layer_escrow(state, keys, seat, pool.family, depth, commit)
    state.vouch("shuffle", ctx, pool.points, points, base, commit, proof, escrow)
    msg = {"op": "shuffle", "pool": name, "points": points, "commit": commit, "proof": proof}
    return msg | escrow


def handle_shuffle(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    pool = state.pool(msg.get("pool"), seat, "shuffle")
    if not pool.shuffling or pool.opening:
        raise DeckError(seat, "shuffle", f"pool {pool.name!r} is locked or has an open in progress")
    depth = pool.depth[seat] + 1
    commit = check_point(msg.get("commit"), seat, "shuffle")
    known = state.layer_commits.get((seat, pool.family, depth))
    if known is not None and known != commit:
        raise DeckError(seat, "shuffle", "layer commitment differs from the one already published")
    if known is None and _table_made(state, seat):
        table = escrowing.RetiredSeatKeys(state, seat)
        if commit != table.layer_commit(pool.family, depth):
            raise DeckError(seat, "shuffle", "a retired seat's new layer must be its public one")
    points = check_encodings(msg.get("points"), len(pool.points), seat, "shuffle")
    base = _layer_base(state, seat, pool.family, depth - 1)
    ctx = _shuffle_context(state, seq, seat, pool)
    proof = msg.get("proof")
    escrow = {"escrow": msg["escrow"]} if "escrow" in msg else {}
    vouched = state.vouched("shuffle", ctx, pool.points, points, base, commit, proof, escrow)
    try:  # also validates every output point (libsodium rejects invalid ones)
        if not vouched:
            verify_shuffle(proof, pool.points, points, base, commit, ctx)
    except ShuffleRejected as rejected:
        raise DeckError(seat, "shuffle", str(rejected), rejected.position) from None
    escrowed = escrowing.check_layer_escrow(state, seat, pool.family, depth, commit, msg, vouched)
    escrowing.record(state, [] if escrowed is None else [escrowed])
    state.history.append(
        ShuffleRecord(seat, pool.name, pool.family, pool.shuffles, depth, pool.points, points)
    )
    state.layer_commits[(seat, pool.family, depth)] = commit
    pool.points = points
    pool.depth[seat] = depth
    pool.shuffles += 1
    state.public_cards.get(pool.family, set()).difference_update(pool.public.values())
    pool.public = {}


# --- open (shuffle phase, public) ----------------------------------------------------------
# Each seat in order strips its cumulative layer c from one point, proving
# log_G(P) = log_out(in) where P = c·G is its layer commitment.


def _open_progress(state: DeckState, pool: Pool, position: int, seat: int) -> OpenProgress:
    if not pool.shuffling:
        raise DeckError(
            seat, "open", f"pool {pool.name!r} is locked: release keys instead", position
        )
    _everyone_layered(state, pool, seat, "open")
    if not 0 <= position < len(pool.points) or position in pool.public:
        raise DeckError(seat, "open", "position out of range or already public", position)
    progress = pool.opening.get(position) or OpenProgress(pool.points[position])
    if progress.next_seat != seat:
        raise DeckError(
            seat, "open", f"out of turn: seat {progress.next_seat} opens next", position
        )
    return progress


def make_open(
    state: DeckState, keys: DeckKeys, seat: int, seq: int, name: str, position: int
) -> dict:
    pool = state.pools[name]
    progress = _open_progress(state, pool, position, seat)
    depth = pool.depth[seat]
    layer = keys.layer(pool.family, depth)
    out = mul(scalar_invert(layer), progress.point)
    commit = state.layer_commit(seat, pool.family, depth)
    ctx = _context(state, seq, seat, "open", name, position)
    return {
        "op": "open",
        "pool": name,
        "position": position,
        "point": out,
        "proof": prove(layer, BASE, commit, out, progress.point, ctx),
    }


def handle_open(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    pool = state.pool(msg.get("pool"), seat, "open")
    position = get_int(msg, "position", seat, "open")
    progress = _open_progress(state, pool, position, seat)
    out = check_point(msg.get("point"), seat, "open", position)
    commit = state.layer_commit(seat, pool.family, pool.depth[seat])
    ctx = _context(state, seq, seat, "open", pool.name, position)
    if not verify(msg.get("proof"), BASE, commit, out, progress.point, ctx):
        raise DeckError(seat, "open", "DLEQ proof does not verify", position)
    progress = OpenProgress(out, progress.next_seat + 1)
    if progress.next_seat < state.seats:
        pool.opening[position] = progress
        return
    card = state.decode_public(pool.family, out, "open", position)
    pool.opening.pop(position, None)
    pool.public[position] = card


# --- lock ----------------------------------------------------------------------------------
# Each seat in order swaps its global layer c for per-position keys b_j:
# out_j = (b_j/c)·in_j, C_j = b_j·G, with a DLEQ per position proving
# log_{in_j}(out_j) = log_P(C_j) (= b_j/c), P = c·G its layer commitment.


def make_lock(state: DeckState, keys: DeckKeys, seat: int, seq: int, name: str) -> dict:
    pool = state.pools[name]
    depth = pool.depth[seat]
    layer = keys.layer(pool.family, depth)
    unlayer = scalar_invert(layer)
    commit = state.layer_commit(seat, pool.family, depth)

    def lock_one(j: int) -> tuple[bytes, bytes, bytes]:
        b = keys.lock_key(name, j)
        x = scalar_mul(b, unlayer)
        point = pool.points[j]
        out = mul(x, point)
        c_j = mul_base(b)
        ctx = _context(state, seq, seat, "lock", name, j)
        return out, c_j, prove(x, point, out, commit, c_j, ctx, g2_log=layer)

    locked = spread(lock_one, range(len(pool.points)))
    points, commits, proofs = ([row[k] for row in locked] for k in range(3))
    escrow = escrowing.make_lock_escrow(state, keys, seat, name, commits)
    whole = _context(state, seq, seat, "lock", name, -1)  # every position's context follows
    state.vouch("lock", whole, pool.points, commit, points, commits, proofs, escrow)
    msg = {"op": "lock", "pool": name, "points": points, "commits": commits, "proofs": proofs}
    return msg | escrow


def handle_lock(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    pool = state.pool(msg.get("pool"), seat, "lock")
    _everyone_layered(state, pool, seat, "lock")
    if pool.opening:
        raise DeckError(seat, "lock", f"pool {pool.name!r} has an open in progress")
    if pool.locks != seat:
        raise DeckError(seat, "lock", f"out of turn: seat {pool.locks} locks next")
    n = len(pool.points)
    points = check_encodings(msg.get("points"), n, seat, "lock")
    commits = check_encodings(msg.get("commits"), n, seat, "lock")
    proofs = get_list(msg, "proofs", seat, "lock")
    if len(proofs) != n:
        raise DeckError(seat, "lock", f"expected {n} proofs, got {len(proofs)}")
    if _table_made(state, seat):
        _check_table_lock_keys(state, seat, pool.name, commits)
    layer_commit = state.layer_commit(seat, pool.family, pool.depth[seat])
    whole = _context(state, seq, seat, "lock", pool.name, -1)
    escrow = {"escrow": msg["escrow"]} if "escrow" in msg else {}
    vouched = state.vouched(
        "lock", whole, pool.points, layer_commit, points, commits, proofs, escrow
    )

    def check_one(j: int) -> None:
        ctx = _context(state, seq, seat, "lock", pool.name, j)
        try:  # an accepted proof has multiplied points[j] and commits[j]: both valid
            ok = verify(proofs[j], pool.points[j], points[j], layer_commit, commits[j], ctx)
        except ValueError:
            raise DeckError(seat, "lock", "invalid point (rejected by libsodium)", j) from None
        if not ok:
            raise DeckError(seat, "lock", "DLEQ proof does not verify", j)

    spread(check_one, range(0 if vouched else n))  # the first bad position in order is named
    # after the proofs: they have validated every C_j the bundles are checked against
    escrowing.record(
        state, escrowing.check_lock_escrow(state, seat, pool.name, commits, msg, vouched)
    )
    state.history.append(LockRecord(seat, pool.name, commits))
    pool.points = points
    pool.lock_commits.append(commits)
    pool.locks += 1
    if pool.locks == state.seats:
        pool.slots = [
            Slot(
                point,
                [pool.lock_commits[s][j] for s in range(state.seats)],
                card=pool.public.get(j),
            )
            for j, point in enumerate(points)
        ]


# --- a retired seat's steps, made by the table ----------------------------------------------
# The table's keys for a retired seat are the recovered or public ones (docs/ESCROW.md
# "Retirement in the deck"): anyone can compute them, so every replica checks that the step
# commits to them.  Its proofs alone would let the seat that signs it lock with keys only it
# knows, and the audit could then not decode those cards (a draw naming nobody).


def _table_made(state: DeckState, seat: int) -> bool:
    return state.escrow is not None and seat in state.escrow.retired


def _check_table_lock_keys(state: DeckState, seat: int, name: str, commits: list[bytes]) -> None:
    """Each C_j of a lock for a retired seat is b_j·G for the table's b_j (one fixed-base
    multiplication a position, before any proof is checked)."""
    table = escrowing.RetiredSeatKeys(state, seat)
    for j, commit in enumerate(commits):
        if commit != mul_base(table.lock_key(name, j)):
            raise DeckError(seat, "lock", "a retired seat's lock key must be its table key", j)
