"""Class proofs: the holder of a hidden card proves it is one of a public set of
cards without saying which (a disjunctive Chaum-Pedersen proof).

Statement, for a held slot with holder commitment K and core:
    OR over m in allowed:  K = k·G  and  core = k·M_m      (M_m the card point of m)
The holder knows k (its lock key or transfer blinding) and its card x.  This is
the Cramer-Damgard-Schoenmakers OR composition (CRYPTO '94) of Chaum-Pedersen
DLEQ proofs: for every card m != x the prover simulates a transcript with its own
challenge c_m; for x it answers honestly with c_x = c - sum of the others, where
c is the Fiat-Shamir challenge over the whole statement and every commitment.

  * Sound: each branch is special-sound, so two accepting proofs with different
    overall challenges differ in some c_m and yield k with core = k·M_m for that
    m — a card of the set.  A card outside the set has no branch to answer.
  * Zero knowledge: simulated and real branches are identically distributed
    (c_m, s_m uniform, subject to their sum), so the proof says nothing about
    which member it is (honest-verifier ZK, made non-interactive in the ROM).
  * Fiat-Shamir binds the domain, game, event position, author, operation,
    pool, position, K, core, every allowed card id in order and every R1_m, R2_m.

Encoding: one 64-byte c_m || s_m per allowed card, in the order of `allowed`;
scalars canonical and non-zero.  Cost per card of the set: 2 variable-base
multiplications for the prover (it knows log_G K and the card under core), 3 for
each verifier (docs/DECKS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from creepnet.protocol.deck.dleq import proof_context
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import (
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
from creepnet.protocol.deck.model import get_list

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState

CHALLENGE_DOMAIN = b"creepnet/deck/class/v1"
NONCE_DOMAIN = b"creepnet/deck/class-nonce/v1"


def _challenge(context: bytes, commit: bytes, core: bytes, allowed: Sequence[str], rs: list) -> int:
    return hash_scalar(CHALLENGE_DOMAIN, context, commit, core, len(allowed), *allowed, *rs)


def _announce(c: int, s: int, point: bytes, commit: bytes, core: bytes) -> tuple[bytes, bytes]:
    """R1 = s·G - c·K, R2 = s·M - c·core: the commitments a verifier recomputes."""
    return sub(combine_base(s), combine([(c, commit)])), combine([(s, point), (-c, core)])


def prove_class(
    key: bytes, card: str, commit: bytes, core: bytes, points: dict[str, bytes],
    allowed: Sequence[str], context: bytes,
) -> list[bytes]:  # fmt: skip
    """Prove core = k·M_m and K = k·G for some m in `allowed` (the holder's card is `card`)."""
    k = int.from_bytes(key, "little")
    real = allowed.index(card)  # ValueError: the holder's card is not in the set
    seed = frame(NONCE_DOMAIN, key, context, commit, core, *allowed)
    while True:
        cs, ss, rs = [0] * len(allowed), [0] * len(allowed), []
        r = hedged_scalar(seed)
        for m, name in enumerate(allowed):
            if m == real:
                rs += [combine_base(r), combine([(r, points[name])])]
                continue
            cs[m], ss[m] = hedged_scalar(seed), hedged_scalar(seed)
            # what a verifier recomputes (_announce), through K = k·G and core = k·M_card:
            # one fixed-base and two variable-base multiplications instead of three
            ck = cs[m] * k
            rs += [combine_base(ss[m] - ck), combine([(ss[m], points[name]), (-ck, points[card])])]
        cs[real] = (_challenge(context, commit, core, allowed, rs) - sum(cs)) % L
        ss[real] = (r + cs[real] * k) % L
        if cs[real] and ss[real]:  # zero is not a valid encoding; probability ~2^-252
            return [as_scalar(c) + as_scalar(s) for c, s in zip(cs, ss, strict=True)]


def verify_class(
    proof: object, commit: bytes, core: bytes, points: dict[str, bytes],
    allowed: Sequence[str], context: bytes,
) -> bool:  # fmt: skip
    """`commit` and `core` must already be valid points; `allowed` known, distinct card ids."""
    if not isinstance(proof, list) or len(proof) != len(allowed):
        return False
    pairs = []
    for item in proof:
        if not isinstance(item, bytes) or len(item) != 2 * SCALAR_BYTES:
            return False
        c, s = scalar_int(item[:SCALAR_BYTES]), scalar_int(item[SCALAR_BYTES:])
        if c is None or s is None:
            return False
        pairs.append((c, s))
    rs: list[bytes] = []
    try:
        for (c, s), name in zip(pairs, allowed, strict=True):
            rs += _announce(c, s, points[name], commit, core)
    except BadPoint:  # unreachable for validated inputs; never let it escape
        return False
    return _challenge(context, commit, core, allowed, rs) == sum(c for c, _ in pairs) % L


# --- the deck message ------------------------------------------------------------------------


def check_allowed(state: DeckState, allowed: object, seat: int, position: int) -> list[str]:
    return check_card_ids(state, allowed, seat, "class", position, least=1)


def make_class(
    state: DeckState, keys: DeckKeys, seat: int, seq: int, name: str, position: int,
    allowed: Sequence[str],
) -> dict:  # fmt: skip
    allowed = list(allowed)
    message = {"op": "class", "pool": name, "position": position, "allowed": allowed}
    _, _, slot = held_slot(state, message, seat, "class")
    check_allowed(state, allowed, seat, position)
    card = decode_held(state, keys, seat, name, position)
    if card not in allowed:
        raise ValueError(f"{name}[{position}] is {card!r}, not in the allowed set")
    ctx = proof_context(state.game_id, seq, state.seat_keys[seat], "class", name, position)
    key = holder_key(keys, name, position, slot)
    points = state.table.point_of
    message["proof"] = prove_class(key, card, slot.holder_commit, slot.core, points, allowed, ctx)  # type: ignore[arg-type]
    return message


def handle_class(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    name, position, slot = held_slot(state, msg, seat, "class")
    allowed = check_allowed(state, msg.get("allowed"), seat, position)
    proof = get_list(msg, "proof", seat, "class")
    ctx = proof_context(state.game_id, seq, state.seat_keys[seat], "class", name, position)
    points = state.table.point_of
    if not verify_class(proof, slot.holder_commit, slot.core, points, allowed, ctx):  # type: ignore[arg-type]
        raise DeckError(seat, "class", "class proof does not verify", position)
