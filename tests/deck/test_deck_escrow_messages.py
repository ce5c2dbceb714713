"""Escrow in the deck messages (protocol/deck/escrowing.py): join carries the escrow keys, shuffle
and lock their bundles, every replica checks them on apply and keeps them; complaints convict;
a table recovers a retired seat's lock key and releases for it.  Games without escrow refuse
escrow fields, so old logs verify unchanged."""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable

import pytest

from creepnet.protocol.deck import PUBLIC, DeckError, DeckSeat, DeckState, create_message
from creepnet.protocol.deck.escrow import BOX_BYTES, ScalarId, open_share, recover
from creepnet.protocol.deck.escrowing import Exempt
from creepnet.protocol.deck.keys import DeckKeys

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
        for p in self.players:
            self.post(p.seat, lambda q, p=p: p.join())

    @property
    def replicas(self) -> list[DeckState]:
        return [*self.states, self.spectator]

    def post(self, seat: int, make: Callable[[int], dict]) -> dict:
        self.seq += 1
        msg = make(self.seq)
        for state in self.replicas:
            state.apply(seat, self.seq, msg)
        return msg

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
        for p in self.players:
            self.post(p.seat, lambda q, p=p: p.shuffle(q, "deck"))
        if lock:
            for p in self.players:
                self.post(p.seat, lambda q, p=p: p.lock(q, "deck"))


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
    for seat in (1, 2):
        t.post(seat, lambda q, seat=seat: t.players[seat].release("deck", [2], 0))
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
    for seat in (0, 1, 2):
        t.post(seat, lambda q, seat=seat: t.players[seat].release("deck", [5], PUBLIC))
    target, bundle = book.bundles[(3, ScalarId("lock", "deck", 5))]
    shares = {r: open_share(book.directory, _escrow_keys(t, r), target, bundle) for r in (0, 1, 2)}  # type: ignore[arg-type]
    key = recover(target, bundle, shares)
    t.post(
        3, lambda q: {"op": "release", "pool": "deck", "positions": [5], "to": -1, "keys": [key]}
    )
    assert t.spectator.pools["deck"].slots[5].card in CARDS


def _escrow_keys(t: Table, seat: int):
    from creepnet.protocol.deck.escrow import EscrowKeys

    return EscrowKeys(t.players[seat].keys, seat)


def test_a_seats_own_exempt_pool_carries_no_escrow() -> None:
    t = Table(3, exempt=lambda seat, pool: pool == f"deck:{seat}")
    t.post(0, lambda q: create_message("deck:1", CARDS))
    for p in t.players:
        t.post(p.seat, lambda q, p=p: p.shuffle(q, "deck:1"))
    lock0 = t.post(0, lambda q: t.players[0].lock(q, "deck:1"))
    assert len(lock0["escrow"]) == len(CARDS)
    own = t.players[1].lock(t.seq + 1, "deck:1")
    assert "escrow" not in own
    t.post(1, lambda q: t.players[1].lock(q, "deck:1"))
    with_escrow = t.players[2].lock(t.seq + 1, "deck:1")
    err = t.refused(2, with_escrow | {"escrow": lock0["escrow"]})
    assert err.seat == 2  # another seat's bundles do not sum to this seat's keys


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
    copied = seats[1].join() | {"escrow": [first["escrow"][0], seats[1].join()["escrow"][1]]}
    with pytest.raises(DeckError, match="already published by seat 0") as err:
        state.apply(1, 3, copied)
    assert err.value.seat == 1 and state.joins[1] is None


def test_a_game_without_escrow_refuses_escrow_fields_and_works_as_before() -> None:
    t = Table(3, escrow=False)
    assert t.spectator.escrow is None
    t.dealt(lock=False)
    keys = DeckKeys(t.spectator.game_id, t.spectator.seat_keys[0], secrets.token_bytes(32))
    err = t.refused(0, t.players[0].lock(t.seq + 1, "deck") | {"escrow": []})
    assert err.seat == 0 and "no escrow" in err.message
    for p in t.players:
        t.post(p.seat, lambda q, p=p: p.lock(q, "deck"))
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
    err = t.refused(0, lambda q: commits(q, lambda c: [c[0], c[0]]))
    assert err.seat == 0 and "sum" in err.message
    # swapped commitments still sum: the public check passes, the recipients complain (below)
    t.post(0, lambda q: commits(q, lambda c: c[::-1]))
    complaints = t.players[1].escrow_complaints()
    assert len(complaints) == 1 and complaints[0]["dealer"] == 0


def test_re_publishing_a_layer_carries_no_second_escrow() -> None:
    t = Table(3)
    t.post(0, lambda q: create_message("all", CARDS))
    t.post(0, lambda q: {"op": "split", "pool": "all", "into": ["a", "b"], "sizes": [5, 5]})
    first = t.post(0, lambda q: t.players[0].shuffle(q, "a"))
    again = t.players[0].shuffle(t.seq + 1, "b")
    assert "escrow" not in again and again["commit"] == first["commit"]
    err = t.refused(0, again | {"escrow": first["escrow"]})
    assert err.seat == 0 and "re-publishes" in err.message
    t.post(0, lambda q: t.players[0].shuffle(q, "b"))


@pytest.mark.parametrize(
    "mangle",
    [
        lambda e: e[:-1],
        lambda e: [*e, e[0]],
        lambda e: [e[1], e[0], *e[2:]],
        lambda e: [{"commits": e[0]["commits"]}, *e[1:]],
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
    from creepnet.protocol.deck.escrowing import complaint_message

    false = complaint_message(t.states[1], t.players[1].keys, 1, 0, ScalarId("lock", "deck", 3))
    err = t.refused(1, false)
    assert err.seat == 1 and "false complaint" in err.message
    assert book.convictions == []
    for field, value in (("dealer", 7), ("index", 99), ("epoch", 1), ("kind", "blind")):
        assert t.refused(1, false | {field: value}).seat == 1
    assert t.refused(1, false | {"proof": bytes(64)}).seat == 1
    # the dealer cannot complain about its own bundle
    assert t.refused(0, false).seat == 0
