"""Proof of shuffle: Y_i = s·X_π(i) for a hidden permutation π and the scalar s
with s·P_prev = P, made non-interactive with Fiat-Shamir over SHA-512.

Construction: Terelius-Wikström, "Proofs of restricted shuffles" (AFRICACRYPT
2010), as implemented in Verificatum, for the homomorphic map X ↦ s·X instead
of a re-encryption.  With independent generators H0, h_1..h_N (hash-to-group,
domain label, no trusted set-up) the prover

  1. commits to the permutation matrix column by column: u_j = r_j·G + h_i for
     the output position i that input j goes to;
  2. takes challenges e_j = H(statement, u, j) and sets e'_i = e_π(i), so that
     sum e_j·u_j = a·G + sum e'_i·h_i, and commits to the running products of
     e' in a chain B_0 = H0, B_i = b_i·G + e'_i·B_{i-1};
  3. proves in one Σ-protocol (challenge v = H(e-seed, B, announcements)) that
       C = sum u_j - sum h_i   opens to 0 on h   (every row of the matrix sums to 1)
       A = sum e_j·u_j          opens to e' on h
       B_i = b_i·G + e'_i·B_{i-1}, and D = B_N - (prod e_j)·H0 opens to 0 on H0
                                (so prod e'_i = prod e_j: with the row sums, the
                                 committed matrix is a permutation matrix)
       sum e'_i·Y_i = s·sum e_j·X_j   and   P = s·P_prev
     for one opening e' shared by every equation.

Soundness: from a committed matrix that is a permutation (TW, Thm. 1: row sums
and the product over a random point) the last equation says
sum_j e_j·(Y_π⁻¹(j) - s·X_j) = 0 for challenges e chosen after X, Y and u are
fixed, so every term is 0 except with probability N/L; P = s·P_prev ties s to
the published layer commitment.  Zero knowledge: u_j and B_i are perfectly
hiding Pedersen commitments and every response is masked by a uniform nonce
(honest-verifier ZK, non-interactive in the random-oracle model).

The challenge hashes the context (game, event position, author, operation
"shuffle", pool, shuffle index), P_prev, P, every input and output point and
every commitment; the second challenge hashes the first and every announcement.

Verification checks all 2N + 5 equations as one random linear combination
(coefficients of 128 bits, drawn by each verifier), so every point costs one
multiplication; libsodium's multiplication rejects invalid, small-order and
off-subgroup points, which validates every received point on the way.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Sequence

from creepnet.protocol.deck.group import (
    IDENTITY,
    POINT_BYTES,
    BadPoint,
    L,
    add,
    as_scalar,
    combine,
    combine_base,
    frame,
    generators,
    mul,
    mul_base,
    scalar_int,
)

CHALLENGE_DOMAIN = b"creepnet/deck/shuffle/v1"
NONCE_DOMAIN = b"creepnet/deck/shuffle-nonce/v1"
GENERATOR_LABEL = "shuffle"  # H0 = generator 0, h_i = generator i
ANNOUNCEMENTS = ("t_rows", "t_perm", "t_chain_end", "t_map", "t_layer")
RESPONSES = ("k_rows", "k_open", "k_chain_end", "k_layer")
FIELDS = {"perm", "chain", "t_chain", "k_perm", "k_chain", *ANNOUNCEMENTS, *RESPONSES}
BATCH_BITS = 128


class ShuffleRejected(Exception):
    """The proof does not verify: why, and the pool position if one output is at fault."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


def _hash_int(*parts: bytes | str | int) -> int:
    return int.from_bytes(hashlib.sha512(frame(*parts)).digest(), "little") % L


def _challenges(
    context: bytes, base: bytes, commit: bytes, inputs: Sequence[bytes],
    outputs: Sequence[bytes], perm_commits: Sequence[bytes],
) -> tuple[bytes, list[int]]:  # fmt: skip
    """The statement's seed and the vector e; every point of the statement is bound."""
    n = len(inputs)
    seed = hashlib.sha512(
        frame(CHALLENGE_DOMAIN, context, base, commit, n, *inputs, *outputs, *perm_commits)
    ).digest()
    return seed, [_hash_int(seed, "e", j) for j in range(n)]


def _final_challenge(
    seed: bytes, chain: Sequence[bytes], t_chain: Sequence[bytes], ts: list
) -> int:
    return _hash_int(seed, "v", *chain, *t_chain, *ts)


def prove_shuffle(
    inputs: Sequence[bytes], outputs: Sequence[bytes], perm: Sequence[int], step: bytes,
    base: bytes, base_log: bytes, commit: bytes, context: bytes,
) -> dict:  # fmt: skip
    """outputs[i] = step·inputs[perm[i]], commit = step·base, base = base_log·G."""
    n = len(inputs)
    s, base_k = int.from_bytes(step, "little"), int.from_bytes(base_log, "little")
    gens = generators(GENERATOR_LABEL, n + 1)
    chain_start, hs = gens[0], gens[1:]
    hedge = frame(NONCE_DOMAIN, step, context, secrets.token_bytes(32))
    counter = iter(range(1 << 62))

    def nonce() -> int:
        return _hash_int(hedge, next(counter)) or 1

    goes_to = [0] * n  # input j -> output position
    for i, j in enumerate(perm):
        goes_to[j] = i
    r = [nonce() for _ in range(n)]
    perm_commits = [add(mul_base(as_scalar(r[j])), hs[goes_to[j]]) for j in range(n)]
    seed, e = _challenges(context, base, commit, inputs, outputs, perm_commits)
    e_out = [e[perm[i]] for i in range(n)]  # e'_i
    chain, chain_logs, previous, x = [], [], chain_start, 0
    b = [nonce() for _ in range(n)]
    for i in range(n):
        chain_logs.append(previous)
        previous = add(mul_base(as_scalar(b[i])), mul(as_scalar(e_out[i]), previous))
        chain.append(previous)
        x = (b[i] + e_out[i] * x) % L
    g_rows, g_perm, g_end, g_layer = nonce(), nonce(), nonce(), nonce()
    eps, beta = [nonce() for _ in range(n)], [nonce() for _ in range(n)]
    t_chain = [
        add(mul_base(as_scalar(beta[i])), mul(as_scalar(eps[i]), chain_logs[i])) for i in range(n)
    ]
    ts = [
        combine_base(g_rows),
        add(combine_base(g_perm), combine(zip(eps, hs, strict=True))),
        combine_base(g_end),
        # sum eps_i·Y_i - g_layer·sum e_j·X_j, written over X_j since Y_i = s·X_perm[i]
        combine(((s * eps[goes_to[j]] - g_layer * e[j]), inputs[j]) for j in range(n)),
        combine_base(g_layer * base_k),
    ]
    v = _final_challenge(seed, chain, t_chain, ts)
    rows, perm_open = sum(r) % L, sum(rj * ej for rj, ej in zip(r, e, strict=True)) % L
    k_perm = [(eps[i] + v * e_out[i]) % L for i in range(n)]
    k_chain = [(beta[i] + v * b[i]) % L for i in range(n)]
    ks = [
        (g + v * w) % L for g, w in ((g_rows, rows), (g_perm, perm_open), (g_end, x), (g_layer, s))
    ]
    if 0 in k_perm or 0 in k_chain or 0 in ks:  # zero is not a valid encoding; ~2^-250
        return prove_shuffle(inputs, outputs, perm, step, base, base_log, commit, context)
    return {
        "perm": perm_commits,
        "chain": chain,
        "t_chain": t_chain,
        **dict(zip(ANNOUNCEMENTS, ts, strict=True)),
        "k_perm": [as_scalar(k) for k in k_perm],
        "k_chain": [as_scalar(k) for k in k_chain],
        **{name: as_scalar(k) for name, k in zip(RESPONSES, ks, strict=True)},
    }


def _points(proof: dict, key: str, count: int) -> list[bytes]:
    value = proof.get(key)
    if not isinstance(value, list) or len(value) != count:
        raise ShuffleRejected(f"proof field {key!r} must be a list of {count} points")
    if any(not isinstance(p, bytes) or len(p) != POINT_BYTES for p in value):
        raise ShuffleRejected(f"proof field {key!r} holds something that is not 32 bytes")
    return value


def _scalars(proof: dict, key: str, count: int) -> list[int]:
    value = proof.get(key)
    if not isinstance(value, list) or len(value) != count:
        raise ShuffleRejected(f"proof field {key!r} must be a list of {count} scalars")
    out = [scalar_int(k) for k in value]
    if None in out:
        raise ShuffleRejected(f"proof field {key!r} holds a non-canonical or zero scalar")
    return out  # type: ignore[return-value]


def verify_shuffle(
    proof: object, inputs: Sequence[bytes], outputs: Sequence[bytes], base: bytes,
    commit: bytes, context: bytes,
) -> None:  # fmt: skip
    """Raise ShuffleRejected unless `proof` shows outputs = s·perm(inputs) with
    commit = s·base.  `inputs`, `base`, `commit` must be valid points; `outputs`
    need only be distinct 32-byte strings: the check validates them."""
    n = len(inputs)
    if not isinstance(proof, dict) or set(proof) != FIELDS:
        raise ShuffleRejected("proof must be a map with exactly the shuffle-proof fields")
    perm_commits, chain = _points(proof, "perm", n), _points(proof, "chain", n)
    t_chain = _points(proof, "t_chain", n)
    ts = [_points({k: [proof[k]]}, k, 1)[0] for k in ANNOUNCEMENTS]
    k_perm, k_chain = _scalars(proof, "k_perm", n), _scalars(proof, "k_chain", n)
    k_rows, k_open, k_end, k_layer = (_scalars({k: [proof[k]]}, k, 1)[0] for k in RESPONSES)
    seed, e = _challenges(context, base, commit, inputs, outputs, perm_commits)
    v = _final_challenge(seed, chain, t_chain, ts)
    gens = generators(GENERATOR_LABEL, n + 1)
    chain_start, hs = gens[0], gens[1:]

    def rho() -> int:
        return secrets.randbits(BATCH_BITS) | 1

    p_rows, p_perm, p_end, p_map, p_layer = rho(), rho(), rho(), rho(), rho()
    p_chain = [rho() for _ in range(n)]
    g_coeff = p_rows * k_rows + p_perm * k_open + p_end * k_end
    g_coeff += sum(p * k for p, k in zip(p_chain, k_chain, strict=True))
    terms: list[tuple[int, bytes]] = []
    labels: list[tuple[str, int]] = []

    def term(k: int, point: bytes, label: str, index: int = 0) -> None:
        terms.append((k, point))
        labels.append((label, index))

    for i in range(n):
        term(p_rows * v + p_perm * k_perm[i], hs[i], "generator", i)
        term(-v * (p_rows + p_perm * e[i]), perm_commits[i], "perm", i)
        following = p_chain[i + 1] * k_perm[i + 1] if i + 1 < n else -p_end * v
        term(following - p_chain[i] * v, chain[i], "chain", i)
        term(-p_chain[i], t_chain[i], "t_chain", i)
        term(p_map * k_perm[i], outputs[i], "points", i)
        term(-p_map * k_layer * e[i], inputs[i], "inputs", i)
    term(p_chain[0] * k_perm[0] + p_end * v * math.prod(e), chain_start, "generator", 0)
    for p, t, name in zip((p_rows, p_perm, p_end, p_map, p_layer), ts, ANNOUNCEMENTS, strict=True):
        term(-p, t, name)
    term(p_layer * k_layer, base, "base")
    term(-p_layer * v, commit, "commit")
    try:
        total = add(combine(terms), combine_base(g_coeff))
    except BadPoint as bad:
        label, index = labels[bad.index]
        where = index if label == "points" else None
        raise ShuffleRejected(f"invalid point in {label!r} at {index}", where) from None
    if total != IDENTITY:
        raise ShuffleRejected("proof of shuffle does not verify")
