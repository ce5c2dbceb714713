"""Escrow in the deck messages (protocol/deck/escrowing.py): join carries the escrow keys, shuffle
and lock their bundles, every replica checks them on apply and keeps them; complaints convict;
a table recovers a retired seat's lock key and releases for it.  Games without escrow refuse
escrow fields, so old logs verify unchanged."""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable, Iterable
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol.deck import PUBLIC, DeckError, DeckSeat, DeckState, audit, create_message
from creepnet.protocol.deck.escrow import (
    BOX_BYTES,
    Escrowed,
    EscrowKeys,
    ScalarId,
    make_bundle,
    open_share,
    recover,
)
from creepnet.protocol.deck.escrowing import (
    Exempt,
    RetiredSeatKeys,
    audit_escrows,
    complaint_message,
    recover_message,
    refresh_message,
)
from creepnet.protocol.deck.group import mul, mul_base, scalar_invert, scalar_product
from creepnet.protocol.deck.hidden import make_release
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.deck.ops import make_lock

CARDS = [f"c{i}" for i in range(10)]


class Table:
    """One replica per seat (its own, as a node keeps) and a spectator's; every message goes to
    all of them through DeckState.apply."""

    def __init__(self, seats: int, exempt: Exempt | None = None, escrow: bool = True) -> None:
        game, keys = secrets.token_bytes(16), [secrets.token_bytes(32) for _ in range(seats)]

        def replica() -> DeckState:
            return DeckState(game, keys, CARDS, escrow=escrow, escrow_exempt=exempt)

        self.states = [replica() for _ in range(seats)]
        self.spectator = replica()
        self.players = [DeckSeat(self.states[s], s) for s in range(seats)]
        self.seq = 0
        self.each(range(seats), lambda p, q: p.join())

    @property
    def replicas(self) -> list[DeckState]:
        return [*self.states, self.spectator]

    def post(self, seat: int, make: Callable[[int], dict]) -> dict:
        self.seq += 1
        msg = make(self.seq)
        for state in self.replicas:
            state.apply(seat, self.seq, msg)
        return msg

    def each(self, seats: Iterable[int], make: Callable[[DeckSeat, int], dict]) -> None:
        """Every one of `seats` in turn posts make(its DeckSeat, seq)."""
        for seat in seats:
            self.post(seat, partial(make, self.players[seat]))

    def refused(self, seat: int, msg: dict | Callable[[int], dict]) -> DeckError:
        """A message (or one made for the next seq) every replica refuses, leaving its state as
        it was (compared with a copy)."""
        self.seq += 1
        msg = msg(self.seq) if callable(msg) else msg
        errors = []
        for state in self.replicas:
            before = copy.deepcopy(state.pools), copy.copy(state.escrow and state.escrow.bundles)
            with pytest.raises(DeckError) as err:
                state.apply(seat, self.seq, msg)
            assert (state.pools, state.escrow and state.escrow.bundles) == before
            errors.append(err.value)
        assert len({(e.seat, e.message) for e in errors}) == 1
        return errors[0]

    def dealt(self, lock: bool = True) -> None:
        self.post(0, lambda q: create_message("deck", CARDS))
        self.each(range(len(self.players)), lambda p, q: p.shuffle(q, "deck"))
        if lock:
            self.each(range(len(self.players)), lambda p, q: p.lock(q, "deck"))


def test_every_replica_keeps_every_layer_and_lock_escrow_and_no_share_is_bad() -> None:
    t = Table(4)
    t.dealt()
    for state in t.replicas:
        book = state.escrow
        assert book is not None and book.directory is not None
        assert len(book.bundles) == 4 * (1 + len(CARDS))  # a layer and every lock key per seat
    assert all(p.escrow_complaints() == [] for p in t.players)
    assert all(p.escrow_complaints() == [] for p in t.players)  # nothing new since


def test_the_table_releases_for_a_retired_seat_with_its_recovered_lock_key() -> None:
    """Seat 3 is gone: for seat 0's private draw of position 2, seats 1 and 2 release their own
    keys; the remaining seats publish their shares of seat 3's key, and its release is a plain
    release message anyone checks against C_j; seat 0 then decodes its card."""
    t = Table(4)
    t.dealt()
    t.each((1, 2), lambda p, q: p.release("deck", [2], 0))
    book = t.spectator.escrow
    assert book is not None
    target, bundle = book.bundles[(3, ScalarId("lock", "deck", 2))]
    assert target.recipients == (0, 1, 2)
    shares = {
        r: open_share(book.directory, _escrow_keys(t, r), target, bundle)  # type: ignore[arg-type]
        for r in target.recipients
    }
    key = recover(target, bundle, shares)
    t.post(3, lambda q: {"op": "release", "pool": "deck", "positions": [2], "to": 0, "keys": [key]})
    card = t.players[0].decode("deck", 2)
    assert card in CARDS
    # the same for a public card: nobody but the table speaks for seat 3
    t.each((0, 1, 2), lambda p, q: p.release("deck", [5], PUBLIC))
    target, bundle = book.bundles[(3, ScalarId("lock", "deck", 5))]
    shares = {r: open_share(book.directory, _escrow_keys(t, r), target, bundle) for r in (0, 1, 2)}  # type: ignore[arg-type]
    key = recover(target, bundle, shares)
    t.post(
        3, lambda q: {"op": "release", "pool": "deck", "positions": [5], "to": -1, "keys": [key]}
    )
    assert t.spectator.pools["deck"].slots[5].card in CARDS


def _escrow_keys(t: Table, seat: int) -> EscrowKeys:
    return EscrowKeys(t.players[seat].keys, seat)


def test_a_seats_own_exempt_pool_carries_no_escrow() -> None:
    t = Table(3, exempt=lambda seat, pool: pool == f"deck:{seat}")
    t.post(0, lambda q: create_message("deck:1", CARDS))
    t.each(range(len(t.players)), lambda p, q: p.shuffle(q, "deck:1"))
    lock0 = t.post(0, lambda q: t.players[0].lock(q, "deck:1"))
    assert len(lock0["escrow"]) == len(CARDS)
    own = t.players[1].lock(t.seq + 1, "deck:1")
    assert "escrow" not in own
    t.post(1, lambda q: t.players[1].lock(q, "deck:1"))
    # seat 2 passing seat 0's bundles off as its own: the right shape, so every replica keeps
    # them, but no box opens for seat 2's keys: both recipients complain, naming seat 2
    copied = t.players[2].lock(t.seq + 1, "deck:1") | {"escrow": lock0["escrow"]}
    t.post(2, lambda q: copied)
    for recipient in (0, 1):
        complaints = t.players[recipient].escrow_complaints()
        assert {c["dealer"] for c in complaints} == {2} and len(complaints) == len(CARDS)


# --- refused -------------------------------------------------------------------------------------


def test_a_join_without_escrow_keys_or_with_copied_ones_is_refused() -> None:
    game, keys = secrets.token_bytes(16), [secrets.token_bytes(32) for _ in range(3)]
    state = DeckState(game, keys, CARDS, escrow=True)
    seats = [DeckSeat(state, s) for s in range(3)]
    with pytest.raises(DeckError) as err:
        state.apply(0, 1, {"op": "join", "commit": seats[0].keys.commitment})
    assert err.value.seat == 0
    first = seats[0].join()
    state.apply(0, 2, first)
    own = seats[1].join()
    copied = own | {
        "escrow": {
            "keys": [first["escrow"]["keys"][0], own["escrow"]["keys"][1]],
            "proofs": [first["escrow"]["proofs"][0], own["escrow"]["proofs"][1]],
        }
    }
    with pytest.raises(DeckError, match="proof of knowledge") as err:
        state.apply(1, 3, copied)
    assert err.value.seat == 1 and state.joins[1] is None
    # a seat seat 0 gave its key to can prove it, and is still refused
    colluder = EscrowKeys(seats[1].keys, 1)
    colluder.deal = EscrowKeys(seats[0].keys, 0).deal
    with pytest.raises(DeckError, match="already published by seat 0") as err:
        state.apply(1, 4, own | {"escrow": colluder.published()})
    assert err.value.seat == 1 and state.joins[1] is None
    state.apply(1, 5, own)


def test_a_game_without_escrow_refuses_escrow_fields_and_works_as_before() -> None:
    t = Table(3, escrow=False)
    assert t.spectator.escrow is None
    t.dealt(lock=False)
    keys = DeckKeys(t.spectator.game_id, t.spectator.seat_keys[0], secrets.token_bytes(32))
    err = t.refused(0, t.players[0].lock(t.seq + 1, "deck") | {"escrow": []})
    assert err.seat == 0 and "no escrow" in err.message
    t.each(range(len(t.players)), lambda p, q: p.lock(q, "deck"))
    assert keys.secret  # nothing of escrow needed the keys
    game, seat_keys = secrets.token_bytes(16), [secrets.token_bytes(32) for _ in range(3)]
    plain = DeckState(game, seat_keys, CARDS)
    escrowed = DeckState(game, seat_keys, CARDS, escrow=True)
    join = DeckSeat(escrowed, 0).join()
    with pytest.raises(DeckError, match="no escrow"):
        plain.apply(0, 1, join)


def test_two_seats_have_no_escrow() -> None:
    with pytest.raises(ValueError):
        DeckState(b"g", [b"a" * 32, b"b" * 32], CARDS, escrow=True)


def _mangled_box(bundle: dict) -> dict:
    return {"commits": bundle["commits"], "boxes": [bytes(BOX_BYTES), *bundle["boxes"][1:]]}


def test_a_shuffle_without_its_escrow_or_with_a_bad_one_is_refused_with_nothing_changed() -> None:
    t = Table(3)
    t.post(0, lambda q: create_message("deck", CARDS))
    shuffle = t.players[0].shuffle

    def without_escrow(q: int) -> dict:
        return {k: v for k, v in shuffle(q, "deck").items() if k != "escrow"}

    def commits(q: int, pick: Callable[[list], list]) -> dict:
        honest = shuffle(q, "deck")
        bundle = honest["escrow"]
        return honest | {"escrow": {"commits": pick(bundle["commits"]), "boxes": bundle["boxes"]}}

    assert t.refused(0, without_escrow).seat == 0
    err = t.refused(0, lambda q: commits(q, lambda c: [c[0], c[0]]))  # S_m is never published
    assert err.seat == 0 and "expected 1 share commitments" in err.message
    # another commitment has the right shape: every replica keeps it, and both recipients
    # complain (their shares match neither it nor the implied S_2; the AAD changed too)
    t.post(0, lambda q: commits(q, lambda c: [mul_base(t.players[0].keys.lock_key("x", 0))]))
    for recipient in (1, 2):
        complaints = t.players[recipient].escrow_complaints()
        assert [c["dealer"] for c in complaints] == [0]


def test_re_publishing_a_layer_carries_no_second_escrow() -> None:
    t = Table(3)
    t.post(0, lambda q: create_message("all", CARDS))
    t.post(0, lambda q: {"op": "split", "pool": "all", "into": ["a", "b"], "sizes": [5, 5]})
    first = t.post(0, lambda q: t.players[0].shuffle(q, "a"))
    again = t.players[0].shuffle(t.seq + 1, "b")
    assert "escrow" not in again and again["commit"] == first["commit"]
    err = t.refused(0, again | {"escrow": first["escrow"]})
    assert err.seat == 0 and "not new" in err.message
    t.post(0, lambda q: t.players[0].shuffle(q, "b"))


@pytest.mark.parametrize(
    "mangle",
    [
        lambda e: e[:-1],
        lambda e: [*e, e[0]],
        lambda e: [{"commits": e[0]["commits"]}, *e[1:]],
        lambda e: [{"commits": [], "boxes": e[0]["boxes"]}, *e[1:]],
        lambda e: "escrow",
    ],
)
def test_a_lock_with_missing_or_misplaced_escrows_is_refused(mangle) -> None:
    t = Table(3)
    t.dealt(lock=False)
    honest = t.players[0].lock(t.seq + 1, "deck")
    err = t.refused(0, honest | {"escrow": mangle(honest["escrow"])})
    assert err.seat == 0
    t.post(0, lambda q: t.players[0].lock(q, "deck"))


def test_a_lock_with_two_positions_bundles_swapped_is_complained_about_by_every_recipient() -> None:
    """Swapped bundles have the right shape, so no replica can tell; each box is keyed to its
    position, so neither opens for its recipients, and their complaints convict the dealer."""
    t = Table(3)
    t.dealt(lock=False)
    honest = t.players[0].lock(t.seq + 1, "deck")
    swapped = [honest["escrow"][1], honest["escrow"][0], *honest["escrow"][2:]]
    t.post(0, lambda q: honest | {"escrow": swapped})
    for recipient in (1, 2):
        complaints = t.players[recipient].escrow_complaints()
        assert [(c["dealer"], c["index"]) for c in complaints] == [(0, 0), (0, 1)]
    t.post(2, lambda q: complaints[0])
    for state in t.replicas:
        assert state.escrow is not None
        assert [(c.dealer, c.complainer) for c in state.escrow.convictions] == [(0, 2)]


# --- complaints -----------------------------------------------------------------------------------


def test_a_bad_share_in_a_lock_is_complained_about_and_convicts_the_dealer() -> None:
    t = Table(4)
    t.dealt(lock=False)
    honest = t.players[2].lock(t.seq + 1, "deck")
    t.post(0, lambda q: t.players[0].lock(q, "deck"))
    t.post(1, lambda q: t.players[1].lock(q, "deck"))
    escrow = list(honest["escrow"])
    escrow[4] = _mangled_box(escrow[4])  # seat 0's share of seat 2's key at position 4
    t.post(2, lambda q: t.players[2].lock(q, "deck") | {"escrow": escrow})
    assert [p.escrow_complaints() for p in t.players[1:]] == [[], [], []]
    complaints = t.players[0].escrow_complaints()
    assert [(c["dealer"], c["kind"], c["index"]) for c in complaints] == [(2, "lock", 4)]
    t.post(0, lambda q: complaints[0])
    for state in t.replicas:
        assert state.escrow is not None
        (conviction,) = state.escrow.convictions
        assert (conviction.dealer, conviction.complainer) == (2, 0)
    # the game is void: nothing but the reveals is accepted any more
    err = t.refused(3, t.players[3].lock(t.seq + 1, "deck"))
    assert err.seat is None and "seat 2" in err.message
    t.post(1, lambda q: t.players[1].reveal())


def test_a_false_complaint_names_the_complainer_and_convicts_nobody() -> None:
    t = Table(3)
    t.dealt()
    book = t.spectator.escrow
    assert book is not None
    false = complaint_message(t.states[1], t.players[1].keys, 1, 0, ScalarId("lock", "deck", 3))
    err = t.refused(1, false)
    assert err.seat == 1 and "false complaint" in err.message
    assert book.convictions == []
    for field, value in (("dealer", 7), ("index", 99), ("epoch", 1), ("kind", "blind")):
        assert t.refused(1, false | {field: value}).seat == 1
    assert t.refused(1, false | {"proof": bytes(64)}).seat == 1
    # the dealer cannot complain about its own bundle
    assert t.refused(0, false).seat == 0


# --- retirement: recovery, the table's steps, refresh, a second departure -------------------------


def _retire(t: Table, seat: int) -> None:
    for state in t.replicas:
        state.retire(seat)


def _recover(t: Table, dealer: int, scalars: list[ScalarId], seats: tuple[int, ...]) -> None:
    t.each(seats, lambda p, q: _recovery(t, p.seat, dealer, scalars))


def _recovery(t: Table, seat: int, dealer: int, scalars: list[ScalarId]) -> dict:
    return recover_message(t.states[seat], t.players[seat].keys, seat, dealer, scalars)


def _refresh(t: Table, seat: int) -> dict:
    return refresh_message(t.states[seat], t.players[seat].keys, seat)


def _for_retired(t: Table, seat: int, make: Callable[[DeckKeys, int], dict]) -> dict:
    """A step the table authors for a retired seat: computed by one remaining seat from its own
    replica, applied by every replica under the retired seat's name."""
    keys = RetiredSeatKeys(t.spectator, seat)
    return t.post(seat, lambda q: make(keys, q))


def test_a_table_plays_on_after_one_and_then_a_second_departure() -> None:
    t = Table(4)
    t.post(0, lambda q: create_message("deck", CARDS))
    t.each((0, 1, 2), lambda p, q: p.shuffle(q, "deck"))
    # seat 2 leaves before seat 3 has shuffled and before any lock
    _retire(t, 2)
    layer = ScalarId("layer", "deck", 1)
    _recover(t, 2, [layer], (0, 1, 3))
    book = t.spectator.escrow
    assert book is not None
    assert book.recovered[(2, layer)] == t.players[2].keys.layer("deck", 1)
    shuffle3 = t.post(3, lambda q: t.players[3].shuffle(q, "deck"))
    assert len(shuffle3["escrow"]["boxes"]) == 2  # dealt to seats 0 and 1 only
    # the others re-deal what seat 2 held shares of; seat 3 has nothing to re-deal
    t.each((0, 1), lambda p, q: _refresh(t, p.seat))
    assert t.refused(3, {"op": "refresh", "escrow": []}).seat == 3
    assert book.bundles[(0, layer)][0].recipients == (1, 3)
    assert book.bundles[(0, layer)][0].epoch == 1
    # locks: seat 2's by the table (its recovered layer out, public keys in)
    t.each((0, 1), lambda p, q: p.lock(q, "deck"))

    table_lock = _for_retired(t, 2, lambda keys, q: make_lock(t.spectator, keys, 2, q, "deck"))
    assert "escrow" not in table_lock
    t.post(3, lambda q: t.players[3].lock(q, "deck"))
    # seat 0 draws position 4: seats 1 and 3 release, the table releases seat 2's public key
    t.each((1, 3), lambda p, q: p.release("deck", [4], 0))
    _for_retired(t, 2, lambda keys, q: make_release(t.spectator, keys, 2, "deck", [4], 0))
    first = t.players[0].decode("deck", 4)
    # seat 1 leaves too: seats 0 and 3 recover its key of position 6 and seat 3 draws it
    _retire(t, 1)
    lock6 = ScalarId("lock", "deck", 6)
    assert book.bundles[(1, lock6)][0].recipients == (0, 3)
    _recover(t, 1, [lock6], (0, 3))
    t.post(0, lambda q: t.players[0].release("deck", [6], 3))
    _for_retired(t, 2, lambda keys, q: make_release(t.spectator, keys, 2, "deck", [6], 3))
    _for_retired(t, 1, lambda keys, q: make_release(t.spectator, keys, 1, "deck", [6], 3))
    second = t.players[3].decode("deck", 6)
    assert {first, second} <= set(CARDS) and first != second
    # and the refreshed layer of seat 1 is recoverable by the two who remain
    _recover(t, 1, [layer], (0, 3))
    assert book.recovered[(1, layer)] == t.players[1].keys.layer("deck", 1)
    # two seats left: nobody escrows any more
    assert not book.escrows(0) and not book.escrows(3)


def test_recovery_shares_are_checked_and_only_a_retired_seats_scalars_are_recovered() -> None:
    t = Table(4)
    t.dealt()
    lock = ScalarId("lock", "deck", 3)
    honest = _recovery(t, 0, 2, [lock])
    assert t.refused(0, honest).seat == 0  # seat 2 has not retired
    _retire(t, 2)
    wrong = honest | {"shares": [t.players[0].keys.lock_key("deck", 3)]}
    err = t.refused(0, wrong)
    assert (err.seat, err.operation) == (0, "recover") and "commitment" in err.message
    assert t.refused(0, honest | {"scalars": [["lock", "deck", 99]]}).seat == 0
    assert t.refused(0, honest | {"scalars": [["lock", "deck", 3], ["lock", "deck", 3]]}).seat == 0
    assert t.refused(0, honest | {"shares": []}).seat == 0
    assert t.refused(0, honest | {"scalars": [["blind", "deck", 3]]}).seat == 0
    t.post(0, lambda q: honest)
    assert t.refused(0, honest).seat == 0  # once
    book = t.spectator.escrow
    assert book is not None and (2, lock) not in book.recovered
    # the retired seat is no recipient of its own escrow
    assert t.refused(2, honest).seat == 2
    t.each((1, 3), lambda p, q: _recovery(t, p.seat, 2, [lock]))
    assert book.recovered[(2, lock)] == t.players[2].keys.lock_key("deck", 3)


def test_a_refresh_with_a_bad_bundle_is_refused() -> None:
    t = Table(4)
    t.dealt(lock=False)
    _retire(t, 3)
    honest = _refresh(t, 0)
    assert len(honest["escrow"]) == 1  # its layer
    bad = {"op": "refresh", "escrow": [_swap_commits(honest["escrow"][0], t)]}
    assert t.refused(0, bad).seat == 0
    assert t.refused(0, {"op": "refresh", "escrow": honest["escrow"] * 2}).seat == 0
    t.post(0, lambda q: honest)
    assert t.refused(0, honest).seat == 0  # nothing due any more


def _swap_commits(bundle: dict, t: Table) -> dict:
    other = DeckKeys(t.spectator.game_id, t.spectator.seat_keys[0], secrets.token_bytes(32))
    return {
        "commits": [*bundle["commits"], mul_base(other.lock_key("x", 0))],  # one too many
        "boxes": bundle["boxes"],
    }


def test_the_audit_finds_an_escrow_not_derived_from_the_deck_secret() -> None:
    """Seat 2 deals valid shares of its own choosing (from another secret): they pass every
    check at once and open for their recipients, but the audit names seat 2."""
    t = Table(3)
    t.dealt(lock=False)
    t.each((0, 1), lambda p, q: p.lock(q, "deck"))
    dealer = _Dealer(t.players[2].keys, DeckKeys(t.spectator.game_id, b"x" * 32, bytes(32)))
    book = t.spectator.escrow
    assert book is not None and book.directory is not None

    def chosen(q: int) -> dict:
        lock = t.players[2].lock(q, "deck")
        bundles = [
            make_bundle(
                book.directory,  # type: ignore[arg-type]
                dealer,
                Escrowed(2, ScalarId("lock", "deck", j), 0, (0, 1), commit),
                t.players[2].keys.lock_key("deck", j),
            )
            for j, commit in enumerate(lock["commits"])
        ]
        return lock | {"escrow": [b.message() for b in bundles]}

    t.post(2, chosen)
    assert all(p.escrow_complaints() == [] for p in t.players)
    t.each(range(len(t.players)), lambda p, q: p.reveal())
    with pytest.raises(DeckError) as err:
        audit_escrows(t.spectator)
    assert (err.value.seat, err.value.operation) == (2, "audit")
    with pytest.raises(DeckError) as err:  # the deck's audit runs it
        audit(t.spectator)
    assert (err.value.seat, err.value.operation) == (2, "audit")


def test_the_audit_accepts_honest_escrows() -> None:
    t = Table(3)
    t.dealt()
    t.each(range(len(t.players)), lambda p, q: p.reveal())
    audit_escrows(t.spectator)
    assert len(audit(t.spectator).cards) == len(CARDS)


class _Dealer(EscrowKeys):
    """A seat's real escrow keys (its channels are right) dealing shares from another secret."""

    def __init__(self, real: DeckKeys, shares_from: DeckKeys) -> None:
        super().__init__(real, 2)
        self.keys = shares_from


@settings(max_examples=12, deadline=None)
@given(
    seats=st.sampled_from([3, 4]),
    gone=st.integers(0, 3),
    drawer=st.integers(0, 3),
    position=st.integers(0, len(CARDS) - 1),
)
def test_a_draw_with_the_table_releasing_for_a_retired_seat_gives_the_true_card(
    seats: int, gone: int, drawer: int, position: int
) -> None:
    """Whoever retires, whoever draws: the card is the one the retired seat's own release would
    have given (computed here from every seat's real keys)."""
    gone, drawer = gone % seats, drawer % seats
    if drawer == gone:
        drawer = (drawer + 1) % seats
    t = Table(seats)
    t.dealt()
    point = t.spectator.pools["deck"].slots[position].point
    keys = [p.keys.lock_key("deck", position) for p in t.players]
    true_card = t.spectator.table.decode(mul(scalar_invert(scalar_product(keys)), point))
    _retire(t, gone)
    others = tuple(s for s in range(seats) if s != gone)
    _recover(t, gone, [ScalarId("lock", "deck", position)], others)
    t.each([s for s in others if s != drawer], lambda p, q: p.release("deck", [position], drawer))
    _for_retired(
        t, gone, lambda k, q: make_release(t.spectator, k, gone, "deck", [position], drawer)
    )
    assert t.players[drawer].decode("deck", position) == true_card
