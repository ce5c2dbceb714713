"""Every shuffle is proven at the step: tracing, stacking, cloning, dropping,
duplicating, substituting and wrong scalars are rejected at once with their
author named — no audit, no secret of the cheater needed."""

from __future__ import annotations

import math
from collections.abc import Callable

import nacl.bindings as nb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol.deck import DeckError
from creepnet.protocol.deck import shuffleproof as sp
from creepnet.protocol.deck.dleq import proof_context
from creepnet.protocol.deck.group import (
    BASE,
    L,
    add,
    as_scalar,
    card_point,
    combine,
    combine_base,
    generators,
    mul,
    scalar_from_wide,
)
from creepnet.protocol.deck.shuffleproof import prove_shuffle
from creepnet.protocol.testing.decks import DeckHarness

CARDS = [f"c{i}" for i in range(10)]
EXTRA = ["joker"]
TORSION8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
CHEATER = 1
Change = Callable[[DeckHarness, dict, int], dict]


def shuffled_by_cheater(change: Change, pool: str = "deck", seats: int = 3) -> DeckHarness:
    """Seat 0 shuffles honestly, then CHEATER's shuffle message goes through `change`."""
    table = DeckHarness(seats, CARDS + EXTRA)
    table.create("deck", CARDS)
    table.shuffle(pool, [0])
    table.tamper = lambda seat, seq, m: change(table, dict(m), seq) if seat == CHEATER else m
    return table


def rejected_at_once(table: DeckHarness, pool: str = "deck") -> DeckError:
    """Rejected at the cheater's own shuffle step, named, from public data alone: no
    secret was revealed, so leaving before the end (attack 3) no longer helps."""
    with pytest.raises(DeckError) as err:
        table.shuffle(pool, [CHEATER])
    assert (err.value.seat, err.value.operation) == (CHEATER, "shuffle"), str(err.value)
    assert all(s is None for s in table.state.secrets)  # nobody revealed anything
    return err.value


def reproved(
    table: DeckHarness, m: dict, seq: int, outputs: list[bytes], step: bytes | None = None,
    **context: object,
) -> dict:  # fmt: skip
    """The cheater runs the honest prover on its own (possibly false) statement,
    claiming its committed permutation and layer step, with an optional context."""
    state, keys = table.state, table.players[CHEATER].keys
    pool = state.pools[m["pool"]]
    depth = pool.depth[CHEATER] + 1
    base = BASE if depth == 1 else state.layer_commit(CHEATER, pool.family, depth - 1)
    parts = {
        "game": state.game_id,
        "event": seq,
        "author": state.seat_keys[CHEATER],
        "op": "shuffle",
        "pool": pool.name,
        "index": pool.shuffles,
    }
    parts.update(context)
    ctx = proof_context(*parts.values())  # type: ignore[arg-type]
    perm = keys.permutation(pool.name, pool.shuffles, len(pool.points))
    m["points"] = outputs
    m["proof"] = prove_shuffle(
        pool.points,
        outputs,
        perm,
        step or keys.layer_step(pool.family, depth),
        base,
        keys.layer(pool.family, depth - 1),
        m["commit"],
        ctx,
    )
    return m


def test_honest_shuffles_verify_at_every_replica() -> None:
    table = DeckHarness(4, CARDS)
    table.create("deck", CARDS)
    table.shuffle("deck")
    table.shuffle("deck", [2, 0])  # re-shuffles at depth 2
    table.lock("deck")
    assert sorted(table.reveal("deck", list(range(10)))) == sorted(CARDS)


# --- the three attacks of issue #11 -----------------------------------------------------------


def test_tracer_planting_a_related_point_is_rejected() -> None:
    """The tracer replaces one output by r·X for its own output X of a card it wants
    to follow; it re-proves with the honest prover, which cannot make that true."""

    def trace(table: DeckHarness, m: dict, seq: int) -> dict:
        r = scalar_from_wide(b"\x07" * 64)
        outputs = list(m["points"])
        outputs[5] = mul(r, outputs[2])
        return reproved(table, m, seq, outputs)

    rejected_at_once(shuffled_by_cheater(trace))


def test_tracer_keeping_the_honest_proof_is_rejected() -> None:
    def trace(table: DeckHarness, m: dict, seq: int) -> dict:
        m["points"] = list(m["points"])
        m["points"][5] = mul(scalar_from_wide(b"\x07" * 64), m["points"][2])
        return m

    rejected_at_once(shuffled_by_cheater(trace))


def test_cloning_a_face_up_card_onto_ones_own_pile_is_rejected() -> None:
    """Stacking: an owner re-shuffling its own pile puts a copy of a face-up card
    (same family and layers) on top, to draw and play it."""

    def clone(table: DeckHarness, m: dict, seq: int) -> dict:
        if m["pool"] != "pile":
            return m
        step = table.players[CHEATER].keys.layer_step("deck", 2)
        face_up = table.state.pools["up"].points[0]
        return reproved(table, m, seq, [mul(step, face_up)] + m["points"][1:])

    table = DeckHarness(3, CARDS + EXTRA)
    table.create("deck", CARDS)
    table.shuffle("deck")
    table.split("deck", ["pile", "up"], [7, 3])
    assert table.open("up", 0) in CARDS
    table.tamper = lambda seat, seq, m: clone(table, dict(m), seq) if seat == CHEATER else m
    rejected_at_once(table, "pile")


@pytest.mark.parametrize("cheat", ["drop", "duplicate", "substitute", "swap-in-joker-reproved"])
def test_dropped_duplicated_or_substituted_cards_are_rejected(cheat: str) -> None:
    def change(table: DeckHarness, m: dict, seq: int) -> dict:
        points = list(m["points"])
        if cheat == "drop":
            m["points"] = points[:-1]
        elif cheat == "duplicate":
            m["points"] = [points[0]] + points[:-1]
        elif cheat == "substitute":
            m["points"] = [card_point("joker")] + points[1:]
        else:
            keys = table.players[CHEATER].keys
            joker = mul(keys.layer("deck", 1), card_point("joker"))
            return reproved(table, m, seq, [joker] + points[1:])
        return m

    rejected_at_once(shuffled_by_cheater(change))


@pytest.mark.parametrize("how", ["all", "one"])
def test_a_scalar_other_than_the_published_layer_is_rejected(how: str) -> None:
    """Outputs are a true permutation, but of s'·X while P commits to s."""

    def rescale(table: DeckHarness, m: dict, seq: int) -> dict:
        pool = table.state.pools["deck"]
        keys = table.players[CHEATER].keys
        perm = keys.permutation("deck", pool.shuffles, len(pool.points))
        wrong = scalar_from_wide(b"\x05" * 64)
        right = keys.layer_step("deck", 1)
        outputs = [
            mul(wrong if how == "all" or i == 3 else right, pool.points[j])
            for i, j in enumerate(perm)
        ]
        return reproved(table, m, seq, outputs, step=wrong if how == "all" else None)

    rejected_at_once(shuffled_by_cheater(rescale))


def test_wrong_order_is_rejected() -> None:
    def reorder(table: DeckHarness, m: dict, seq: int) -> dict:
        m["points"] = m["points"][::-1]
        return m

    rejected_at_once(shuffled_by_cheater(reorder))


# --- Fiat-Shamir binds the whole statement -------------------------------------------------------


@pytest.mark.parametrize(
    "context",
    [
        {"game": b"another game id!"},
        {"event": 999},
        {"author": b"\x01" * 32},
        {"op": "lock"},
        {"pool": "other"},
        {"index": 7},
    ],
    ids=lambda c: next(iter(c)),
)
def test_proof_replayed_elsewhere_is_rejected(context: dict) -> None:
    def replay(table: DeckHarness, m: dict, seq: int) -> dict:
        return reproved(table, m, seq, m["points"], **context)

    rejected_at_once(shuffled_by_cheater(replay))


def test_honest_reproof_is_accepted() -> None:
    """The control for the replay tests: the same helper, unchanged, verifies."""
    table = shuffled_by_cheater(lambda t, m, seq: reproved(t, m, seq, m["points"]))
    table.shuffle("deck", [CHEATER])


def test_proof_with_one_point_of_the_statement_changed_is_rejected() -> None:
    def swap(table: DeckHarness, m: dict, seq: int) -> dict:
        points = list(m["points"])
        points[0], points[1] = points[1], points[0]
        m["points"] = points
        return m

    rejected_at_once(shuffled_by_cheater(swap))


def test_proof_for_another_commitment_is_rejected() -> None:
    def recommit(table: DeckHarness, m: dict, seq: int) -> dict:
        m["commit"] = nb.crypto_scalarmult_ed25519_base_noclamp(as_scalar(12345))
        return m

    rejected_at_once(shuffled_by_cheater(recommit))


# --- malformed proofs get the deck's error ------------------------------------------------------

NONCANONICAL_SCALAR = (L + 3).to_bytes(32, "little")
NONCANONICAL_POINT = (2**255 - 19 + 1).to_bytes(32, "little")


def _set(field: str, value: object, index: int | None = 0) -> Callable[[dict], None]:
    def apply(proof: dict) -> None:
        if index is None:
            proof[field] = value
        else:
            proof[field] = list(proof[field])
            proof[field][index] = value

    return apply


MALFORMED = {
    "not a map": lambda p: p.clear() or p.update({"x": 1}),
    "missing field": lambda p: p.pop("chain"),
    "extra field": lambda p: p.update({"extra": b""}),
    "short list": lambda p: p.update({"perm": p["perm"][:-1]}),
    "long scalars": lambda p: p.update({"k_perm": p["k_perm"] + [p["k_perm"][0]]}),
    "point not bytes": _set("chain", "x"),
    "point 31 bytes": _set("perm", b"\x01" * 31),
    "identity point": _set("t_chain", (1).to_bytes(32, "little"), None),
    "small-order point": _set("perm", TORSION8, 2),
    "off-subgroup point": _set("chain", nb.crypto_core_ed25519_add(card_point("x"), TORSION8)),
    "non-canonical point": _set("t_map", NONCANONICAL_POINT, None),
    "announcement not bytes": _set("t_rows", 5, None),
    "non-canonical scalar": _set("k_perm", NONCANONICAL_SCALAR, 1),
    "non-canonical single scalar": _set("k_chain", NONCANONICAL_SCALAR, None),
    "identity in a list": _set("chain", (1).to_bytes(32, "little"), 4),
    "zero scalar": _set("k_layer", bytes(32), None),
    "scalar 33 bytes": _set("k_open", b"\x01" * 33, None),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_proof_gets_a_deck_error(name: str) -> None:
    def break_proof(table: DeckHarness, m: dict, seq: int) -> dict:
        m["proof"] = dict(m["proof"])
        MALFORMED[name](m["proof"])
        return m

    rejected_at_once(shuffled_by_cheater(break_proof))


@pytest.mark.parametrize("proof", [None, [], "proof", 7])
def test_proof_of_the_wrong_type_gets_a_deck_error(proof: object) -> None:
    def replace(table: DeckHarness, m: dict, seq: int) -> dict:
        m["proof"] = proof
        return m

    rejected_at_once(shuffled_by_cheater(replace))


# --- hostile bytes: any mutation of an honest message is a DeckError, and loses nothing -----------

JUNK = st.one_of(
    st.binary(max_size=40),
    st.integers(-(2**70), 2**70),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.lists(st.binary(min_size=32, max_size=32), max_size=3),
)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_mutation_of_a_shuffle_is_a_deck_error_and_the_honest_one_still_applies(
    data: st.DataObject,
) -> None:
    table = DeckHarness(2, CARDS)
    table.create("deck", CARDS)
    seq = table.seq + 1
    honest = table.players[CHEATER].shuffle(seq, "deck")
    message = {**honest, "proof": dict(honest["proof"])}
    where = data.draw(st.sampled_from(["points", "commit", *sorted(message["proof"])]))
    holder = message if where in ("points", "commit") else message["proof"]
    value = holder[where]
    if isinstance(value, list) and data.draw(st.booleans()):
        value = list(value)
        i = data.draw(st.integers(0, len(value) - 1))
        if data.draw(st.booleans()):
            flip = data.draw(st.integers(0, 31))
            value[i] = value[i][:flip] + bytes([value[i][flip] ^ 1]) + value[i][flip + 1 :]
        else:
            value[i] = data.draw(JUNK)
    elif isinstance(value, bytes) and data.draw(st.booleans()):
        flip = data.draw(st.integers(0, 31))
        value = value[:flip] + bytes([value[flip] ^ 0x80]) + value[flip + 1 :]
    else:
        value = data.draw(JUNK)
    holder[where] = value
    with pytest.raises(DeckError) as err:
        table.post(CHEATER, lambda s: message)
    assert err.value.seat == CHEATER
    table.post(CHEATER, lambda s: honest)  # nothing was lost: the state did not move
    assert table.state.pools["deck"].points == honest["points"]


# --- the permutation part: a matrix with rows summing to 1 that is no permutation ----------------


def _matrix_proof(
    inputs: list[bytes], s: int, base: bytes, commit: bytes, ctx: bytes, cheat_chain: bool
) -> tuple[list[bytes], dict]:
    """A cheater's prover for M = [[2,-1,0..],[-1,2,0..],[0,0,1..]..] (rows sum to 1,
    symmetric): outputs Y = s·M⁻¹·X satisfy the map equation for every e, so only the
    product argument can stop them.  `cheat_chain` forges the last link so that the
    chain ends on prod e, as a permutation's would."""
    n = len(inputs)
    matrix = [[int(i == j) for j in range(n)] for i in range(n)]
    matrix[0][:2], matrix[1][:2] = [2, -1], [-1, 2]
    third = pow(3, -1, L)
    rows_of_inverse = [[2 * third, third], [third, 2 * third]]
    outputs = [combine([(s * c, inputs[j]) for j, c in enumerate(row)]) for row in rows_of_inverse]
    outputs += [combine([(s, inputs[j])]) for j in range(2, n)]
    gens = generators(sp.GENERATOR_LABEL, n + 1)
    h0, hs = gens[0], gens[1:]
    r = [7 + j for j in range(n)]
    columns = [combine([(matrix[i][j], hs[i]) for i in range(n)]) for j in range(n)]
    u = [add(combine_base(r[j]), columns[j]) for j in range(n)]
    seed, e = sp._challenges(ctx, base, commit, inputs, outputs, u)
    e_out = [sum(matrix[i][j] * e[j] for j in range(n)) % L for i in range(n)]
    b = [11 + i for i in range(n)]
    xs, ys = [0], [1]
    for i in range(n):
        xs.append((b[i] + e_out[i] * xs[i]) % L)
        ys.append(e_out[i] * ys[i] % L)
    if cheat_chain:
        ys[-1] = math.prod(e) % L
    chain = [add(combine_base(x), combine([(y, h0)])) for x, y in zip(xs[1:], ys[1:], strict=True)]
    chain_seed, weights = sp._chain_weights(seed, chain)
    eps, g = [13 + i for i in range(n)], [17, 19, 23, 29, 31]
    f_point = combine(list(zip(e, inputs, strict=True)))
    ts = [
        combine_base(g[0]),
        add(combine_base(g[1]), combine(list(zip(eps, hs, strict=True)))),
        add(
            combine_base(
                g[2] + sum(w * ep * x for w, ep, x in zip(weights, eps, xs, strict=False))
            ),  # fmt: skip
            combine([(sum(w * ep * y for w, ep, y in zip(weights, eps, ys, strict=False)), h0)]),
        ),
        combine_base(g[3]),
        add(combine(list(zip(eps, outputs, strict=True))), combine([(-g[4], f_point)])),
        combine([(g[4], base)]),
    ]
    v = sp._hash_int(chain_seed, "v", *ts)
    links = [(xs[i + 1] - e_out[i] * xs[i]) % L for i in range(n)]  # b_i, forged link included
    witnesses = (sum(r), sum(rj * ej for rj, ej in zip(r, e, strict=True)),
                 sum(w * bi for w, bi in zip(weights, links, strict=True)), xs[-1], s)  # fmt: skip
    proof = {
        "perm": u,
        "chain": chain,
        **dict(zip(sp.ANNOUNCEMENTS, ts, strict=True)),
        "k_perm": [as_scalar(ep + v * x) for ep, x in zip(eps, e_out, strict=True)],
        **{k: as_scalar(gk + v * w) for k, gk, w in zip(sp.RESPONSES, g, witnesses, strict=True)},
    }
    return outputs, proof


@pytest.mark.parametrize("cheat_chain", [False, True], ids=["honest-chain", "forged-link"])
def test_a_non_permutation_matrix_is_rejected_by_the_product_argument(cheat_chain: bool) -> None:
    def mix(table: DeckHarness, m: dict, seq: int) -> dict:
        state, keys = table.state, table.players[CHEATER].keys
        pool = state.pools["deck"]
        ctx = proof_context(state.game_id, seq, state.seat_keys[CHEATER], "shuffle", "deck", 1)
        s = int.from_bytes(keys.layer_step("deck", 1), "little")
        outputs, proof = _matrix_proof(pool.points, s, BASE, m["commit"], ctx, cheat_chain)
        return {**m, "points": outputs, "proof": proof}

    error = rejected_at_once(shuffled_by_cheater(mix))
    assert "does not verify" in str(error)


def test_the_matrix_cheater_passes_every_check_but_the_product() -> None:
    """Control: the forged proof satisfies the map equation, so the rejection above is
    the product argument's doing (rows sum to 1 by construction)."""
    table = shuffled_by_cheater(lambda t, m, seq: m)
    state, keys = table.state, table.players[CHEATER].keys
    pool = state.pools["deck"]
    commit = keys.layer_commit("deck", 1)
    s = int.from_bytes(keys.layer_step("deck", 1), "little")
    outputs, proof = _matrix_proof(pool.points, s, BASE, commit, b"ctx", cheat_chain=True)
    seed, e = sp._challenges(b"ctx", BASE, commit, pool.points, outputs, proof["perm"])
    chain_seed, _ = sp._chain_weights(seed, proof["chain"])
    ts = [proof[k] for k in sp.ANNOUNCEMENTS]
    v = sp._hash_int(chain_seed, "v", *ts)
    k_perm = [int.from_bytes(k, "little") for k in proof["k_perm"]]
    k_layer = int.from_bytes(proof["k_layer"], "little")
    # the map equation alone: sum k_perm_i·Y_i - k_layer·sum e_j·X_j = t_map
    lhs = combine(
        [(k, y) for k, y in zip(k_perm, outputs, strict=True)]
        + [(-k_layer * ej, x) for ej, x in zip(e, pool.points, strict=True)]
    )
    assert lhs == proof["t_map"] and v  # it holds: only the product argument stands in the way
