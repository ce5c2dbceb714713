"""None-of proofs: the holder of a hidden card proves it is none of a small public set of cards
(Camenisch-Shoup proofs of inequality of discrete logarithms, CRYPTO 2003 §5), one per
excluded card, sharing one blinding and one Fiat-Shamir challenge.

Statement, for a held slot with holder commitment K = k·G and core = k·M_x:
    for every m in `excluded`:  core != k·M_m       (M_m the card point of m)
The prover picks r, sets rho = r·k and publishes, for each m,
    T_m = r·(k·M_m - core) = rho·M_m - r·core,      T_m != O  (the identity)
then proves knowledge of (a, b) = (rho, r) with
    T_m = a·M_m - b·core  for every m,   and   O = a·G - b·K
(a Schnorr proof of one witness pair across |excluded| + 1 linear equations).

  * Sound: special soundness extracts (a, b).  a·G = b·K gives a = b·k, and b != 0, else a = 0
    and every T_m = O, which is rejected.  So T_m = b·(k·M_m - core) != O: core != k·M_m.
  * Zero knowledge: T_m = rho·(M_m - M_x) with rho uniform and independent of k.  For one m this
    is a uniform non-identity point; for several, (M_m - M_x)_m and rho·(M_m - M_x)_m is a DDH
    tuple, pseudorandom under DDH (the assumption hidden cards already rest on), so the T_m say
    nothing about x.  Camenisch-Shoup draw one r per m (each T_m then perfectly uniform); one r
    for the set lets prover and verifier multiply core by it once, which halves the work.  The
    Schnorr part is honest-verifier ZK, made non-interactive with Fiat-Shamir in the ROM.
  * What it means for a game: only that x is none of `excluded`.  "Not a Creep" follows because
    after a valid lock every slot is exactly one of its family's cards, once each (proof of
    shuffle, lock DLEQs), and the game names as `excluded` every Creep of the family not face up.
  * Fiat-Shamir binds the domain, game, event position, author, operation, pool, position, K,
    core, |excluded| and every excluded card id in order, every T_m and every commitment.

Encoding: one byte string c || s_a || s_b || T_1 || ... || T_n, exactly 96 + 32·n bytes;
scalars canonical and non-zero, every T_m a valid prime-order point other than the identity.
Cost per excluded card: 2 variable-base multiplications to prove, 2 to verify (docs/DECKS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from creepnet.protocol.deck.dleq import proof_context
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import (
    IDENTITY,
    POINT_BYTES,
    SCALAR_BYTES,
    BadPoint,
    L,
    as_scalar,
    combine,
    combine_base,
    frame,
    hash_scalar,
    hedged_scalar,
    scalar_int,
    sub,
)
from creepnet.protocol.deck.hidden import check_card_ids, decode_held, held_slot, holder_key
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.deck.model import get
from creepnet.protocol.deck.threads import spread

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState

OP = "none_of"
CHALLENGE_DOMAIN = b"creepnet/deck/none-of/v1"
NONCE_DOMAIN = b"creepnet/deck/none-of-nonce/v1"
HEAD_BYTES = 3 * SCALAR_BYTES  # c, s_a, s_b


class NoneOfRejected(Exception):
    """Why a none-of proof does not verify; `index` names the excluded card at fault, if one."""

    def __init__(self, reason: str, index: int | None = None) -> None:
        super().__init__(reason)
        self.index = index


def _challenge(context: bytes, commit: bytes, core: bytes, excluded: Sequence[str],
               ts: Sequence[bytes], a0: bytes, a_m: Sequence[bytes]) -> int:  # fmt: skip
    return hash_scalar(
        CHALLENGE_DOMAIN, context, commit, core, len(excluded), *excluded, *ts, a0, *a_m
    )


def prove_none_of(
    key: bytes, card: str, commit: bytes, core: bytes, points: dict[str, bytes],
    excluded: Sequence[str], context: bytes,
) -> bytes:  # fmt: skip
    """Prove core != k·M_m for every m in `excluded` (K = k·G = commit, core = k·M_card)."""
    if card in excluded:
        raise ValueError(f"the held card {card!r} is one of the excluded cards")
    k = int.from_bytes(key, "little")
    seed = frame(NONCE_DOMAIN, key, context, commit, core, *excluded)
    while True:
        r, alpha, beta = (hedged_scalar(seed) for _ in range(3))
        rho = r * k % L
        blinded_core, beta_core = combine([(r, core)]), combine([(beta, core)])
        ts = _each_times(rho, points, excluded, blinded_core)
        a_m = _each_times(alpha, points, excluded, beta_core)
        a0 = combine_base(alpha - beta * k)  # alpha·G - beta·K, through log_G K = k
        c = _challenge(context, commit, core, excluded, ts, a0, a_m)
        s_a, s_b = (alpha + c * rho) % L, (beta + c * r) % L
        if c and s_a and s_b:  # zero is not a valid encoding; probability ~2^-250
            return as_scalar(c) + as_scalar(s_a) + as_scalar(s_b) + b"".join(ts)


def _each_times(k: int, points: dict[str, bytes], names: Sequence[str], less: bytes) -> list[bytes]:
    """k·M_m − less for every card m of `names`."""
    return spread(lambda m: sub(combine([(k, points[m])]), less), names)


def verify_none_of(
    proof: object, commit: bytes, core: bytes, points: dict[str, bytes],
    excluded: Sequence[str], context: bytes,
) -> None:  # fmt: skip
    """Raise NoneOfRejected unless `proof` shows core != k·M_m for every m in `excluded`.
    `commit` and `core` must be valid points; `excluded` known, distinct card ids."""
    n = len(excluded)
    if not isinstance(proof, bytes) or len(proof) != HEAD_BYTES + n * POINT_BYTES:
        raise NoneOfRejected(f"proof must be {HEAD_BYTES + n * POINT_BYTES} bytes for {n} cards")
    c, s_a, s_b = (scalar_int(proof[i : i + SCALAR_BYTES]) for i in range(0, HEAD_BYTES, 32))
    if c is None or s_a is None or s_b is None:
        raise NoneOfRejected("c, s_a and s_b must be canonical, non-zero scalars")
    ts = [
        proof[HEAD_BYTES + i * POINT_BYTES : HEAD_BYTES + (i + 1) * POINT_BYTES] for i in range(n)
    ]
    for i, t in enumerate(ts):
        if t == IDENTITY:  # T_m = O is exactly what a holder of card m would have to send
            raise NoneOfRejected("T is the identity: the card may be the excluded one", i)
    beta_core = combine([(s_b, core)])
    a0 = sub(combine_base(s_a), combine([(s_b, commit)]))

    def announcement(i: int) -> bytes:
        try:  # libsodium validates T_m here (canonical, prime order, not small order)
            return sub(combine([(s_a, points[excluded[i]]), (-c, ts[i])]), beta_core)
        except BadPoint:
            raise NoneOfRejected("T is not a valid point", i) from None

    a_m = spread(announcement, range(n))
    if _challenge(context, commit, core, excluded, ts, a0, a_m) != c:
        raise NoneOfRejected("none-of proof does not verify")


# --- the deck message ------------------------------------------------------------------------


def check_excluded(state: DeckState, excluded: object, seat: int, position: int) -> list[str]:
    return check_card_ids(state, excluded, seat, OP, position, least=0)


def _context(state: DeckState, seq: int, seat: int, pool: str, position: int) -> bytes:
    return proof_context(state.game_id, seq, state.seat_keys[seat], OP, pool, position)


def make_none_of(
    state: DeckState, keys: DeckKeys, seat: int, seq: int, name: str, position: int,
    excluded: Sequence[str],
) -> dict:  # fmt: skip
    excluded = list(excluded)
    message = {"op": OP, "pool": name, "position": position, "excluded": excluded}
    _, _, slot = held_slot(state, message, seat, OP)
    check_excluded(state, excluded, seat, position)
    card = decode_held(state, keys, seat, name, position)
    ctx = _context(state, seq, seat, name, position)
    key = holder_key(keys, name, position, slot)
    commit, core = slot.holder_commit, slot.core
    proof = prove_none_of(key, card, commit, core, state.table.point_of, excluded, ctx)  # type: ignore[arg-type]
    state.vouch(OP, ctx, commit, core, excluded, proof)
    message["proof"] = proof
    return message


def handle_none_of(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    name, position, slot = held_slot(state, msg, seat, OP)
    excluded = check_excluded(state, msg.get("excluded"), seat, position)
    proof = get(msg, "proof", bytes, seat, OP)
    ctx = _context(state, seq, seat, name, position)
    commit, core = slot.holder_commit, slot.core
    if state.vouched(OP, ctx, commit, core, excluded, proof):
        return  # this replica's own seat just computed exactly this proof for this statement
    try:
        verify_none_of(proof, commit, core, state.table.point_of, excluded, ctx)  # type: ignore[arg-type]
    except NoneOfRejected as rejected:
        where = "" if rejected.index is None else f" (excluded card {excluded[rejected.index]!r})"
        raise DeckError(seat, OP, f"{rejected}{where}", position) from None
