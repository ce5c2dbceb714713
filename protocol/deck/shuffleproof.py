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
  3. takes weights λ_i = H(…, B, i) and proves in one Σ-protocol (challenge
     v = H(…, announcements)), for one opening e' shared by every equation:
       C = sum u_j - sum h_i  opens to 0 on h   (every row of the matrix sums to 1)
       A = sum e_j·u_j        opens to e' on h
       sum λ_i·(B_i - e'_i·B_{i-1}) is a multiple of G   (every link of the chain)
       D = B_N - (prod e_j)·H0 is a multiple of G        (prod e'_i = prod e_j)
       sum e'_i·Y_i = s·sum e_j·X_j   and   P = s·P_prev

Soundness: TW, Thm. 1: rows summing to 1 and prod (M·e)_i = prod e_j for a
random e make the committed matrix a permutation.  The chain is fixed before
the weights λ, so one false link (an H0-component of B_i - e'_i·B_{i-1}) leaves
the weighted sum off the multiples of G except with probability 1/L — the usual
random linear combination of linear relations, which replaces TW's N separate
link proofs and lets the prover, who knows every B_i = x_i·G + y_i·H0, answer
with two multiplications instead of N.  Then sum_j e_j·(Y_π⁻¹(j) - s·X_j) = 0
for e chosen after X, Y and u are fixed, so every term is 0 except with
probability N/L; P = s·P_prev ties s to the published layer commitment.  Zero
knowledge: u_j and B_i are perfectly hiding Pedersen commitments and every
response is masked by a uniform nonce (honest-verifier ZK, non-interactive in
the random-oracle model).

The challenges hash the context (game, event position, author, operation
"shuffle", pool, shuffle index), P_prev, P, every input and output point and
every commitment; each later challenge hashes the one before it.

Verification checks all six equations as one random linear combination
(coefficients of 128 bits, drawn by each verifier), so every point costs one
multiplication; libsodium's multiplication rejects invalid, small-order and
off-subgroup points, which validates every received point on the way.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from functools import reduce

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
    mul_base,
    scalar_int,
)
from creepnet.protocol.deck.threads import spread

CHALLENGE_DOMAIN = b"creepnet/deck/shuffle/v1"
NONCE_DOMAIN = b"creepnet/deck/shuffle-nonce/v1"
GENERATOR_LABEL = "shuffle"  # H0 = generator 0, h_i = generator i
ANNOUNCEMENTS = ("t_rows", "t_perm", "t_chain", "t_chain_end", "t_map", "t_layer")
RESPONSES = ("k_rows", "k_open", "k_chain", "k_chain_end", "k_layer")
FIELDS = {"perm", "chain", "k_perm", *ANNOUNCEMENTS, *RESPONSES}
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


def _product(values: Sequence[int]) -> int:
    """prod mod L, reduced as it goes (math.prod would grow a 30 000-bit integer)."""
    return reduce(lambda acc, x: acc * x % L, values, 1)


def _chain_weights(seed: bytes, chain: Sequence[bytes]) -> tuple[bytes, list[int]]:
    """λ, drawn once the whole chain is fixed."""
    chain_seed = hashlib.sha512(frame(seed, "chain", *chain)).digest()
    return chain_seed, [_hash_int(chain_seed, "λ", i) for i in range(len(chain))]


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
    perm_commits = spread(lambda j: add(mul_base(as_scalar(r[j])), hs[goes_to[j]]), range(n))
    seed, e = _challenges(context, base, commit, inputs, outputs, perm_commits)
    e_out = [e[perm[i]] for i in range(n)]  # e'_i
    # B_i = x_i·G + y_i·H0: x_i = b_i + e'_i·x_{i-1}, y_i = e'_i·y_{i-1}, from x_0 = 0, y_0 = 1
    b = [nonce() for _ in range(n)]
    xs, ys = [0], [1]
    for i in range(n):
        xs.append((b[i] + e_out[i] * xs[i]) % L)
        ys.append(e_out[i] * ys[i] % L)
    chain = spread(
        lambda i: add(combine_base(xs[i]), combine([(ys[i], chain_start)])), range(1, n + 1)
    )
    chain_seed, weights = _chain_weights(seed, chain)
    g_rows, g_perm, g_chain, g_end, g_layer = (nonce() for _ in range(5))
    eps = [nonce() for _ in range(n)]
    # sum λ_i·eps_i·B_{i-1}, through the representations: two multiplications, not N
    chain_g = g_chain + sum(w * ep * x for w, ep, x in zip(weights, eps, xs, strict=False))
    chain_h = sum(w * ep * y for w, ep, y in zip(weights, eps, ys, strict=False))
    ts = [
        combine_base(g_rows),
        add(combine_base(g_perm), combine(zip(eps, hs, strict=True))),
        add(combine_base(chain_g), combine([(chain_h, chain_start)])),
        combine_base(g_end),
        # sum eps_i·Y_i - g_layer·sum e_j·X_j, written over X_j since Y_i = s·X_perm[i]
        combine(((s * eps[goes_to[j]] - g_layer * e[j]), inputs[j]) for j in range(n)),
        combine_base(g_layer * base_k),
    ]
    v = _hash_int(chain_seed, "v", *ts)
    witnesses = (
        sum(r),  # rows
        sum(rj * ej for rj, ej in zip(r, e, strict=True)),  # the opening of A
        sum(w * bi for w, bi in zip(weights, b, strict=True)),  # the weighted links
        xs[-1],  # D = x_N·G
        s,
    )
    k_perm = [(eps[i] + v * e_out[i]) % L for i in range(n)]
    nonces = (g_rows, g_perm, g_chain, g_end, g_layer)
    ks = [(g + v * w) % L for g, w in zip(nonces, witnesses, strict=True)]
    if 0 in k_perm or 0 in ks:  # zero is not a valid encoding; ~2^-250
        return prove_shuffle(inputs, outputs, perm, step, base, base_log, commit, context)
    return {
        "perm": perm_commits,
        "chain": chain,
        **dict(zip(ANNOUNCEMENTS, ts, strict=True)),
        "k_perm": [as_scalar(k) for k in k_perm],
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
    ts = [_points({k: [proof[k]]}, k, 1)[0] for k in ANNOUNCEMENTS]  # one point each
    k_perm = _scalars(proof, "k_perm", n)
    k_rows, k_open, k_chain, k_end, k_layer = (
        _scalars({k: [proof[k]]}, k, 1)[0] for k in RESPONSES
    )
    seed, e = _challenges(context, base, commit, inputs, outputs, perm_commits)
    chain_seed, weights = _chain_weights(seed, chain)
    v = _hash_int(chain_seed, "v", *ts)
    gens = generators(GENERATOR_LABEL, n + 1)
    chain_start, hs = gens[0], gens[1:]

    def rho() -> int:
        return secrets.randbits(BATCH_BITS) | 1

    p_rows, p_perm, p_chain, p_end, p_map, p_layer = (rho() for _ in range(6))
    g_coeff = p_rows * k_rows + p_perm * k_open + p_chain * k_chain + p_end * k_end
    terms: list[tuple[int, bytes]] = []
    labels: list[tuple[str, int]] = []

    def term(k: int, point: bytes, label: str, index: int = 0) -> None:
        terms.append((k, point))
        labels.append((label, index))

    for i in range(n):
        term(p_rows * v + p_perm * k_perm[i], hs[i], "generator", i)
        term(-v * (p_rows + p_perm * e[i]), perm_commits[i], "perm", i)
        # B_i heads link i (weight -v·λ_i), tails link i+1, and B_N ends the chain in D
        tail = weights[i + 1] * k_perm[i + 1] if i + 1 < n else 0
        end = p_end * v if i == n - 1 else 0
        term(p_chain * (tail - v * weights[i]) - end, chain[i], "chain", i)
        term(p_map * k_perm[i], outputs[i], "points", i)
        term(-p_map * k_layer * e[i], inputs[i], "inputs", i)
    term(p_chain * weights[0] * k_perm[0] + p_end * v * _product(e), chain_start, "generator", 0)
    weights_of_ts = (p_rows, p_perm, p_chain, p_end, p_map, p_layer)
    for p, t, name in zip(weights_of_ts, ts, ANNOUNCEMENTS, strict=True):
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
