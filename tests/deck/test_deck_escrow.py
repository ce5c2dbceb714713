"""Key escrow (protocol/deck/escrow.py, docs/ESCROW.md): honest escrow, recovery and refresh for
3 and 4 seats, and every attack on a bundle, a complaint or a recovery share, each with its
author named."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace

import nacl.bindings as nb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.escrow import (
    BOX_BYTES,
    Bundle,
    EscrowDirectory,
    Escrowed,
    EscrowKeys,
    ScalarId,
    _aad,
    _seal,
    _unseal,
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
    recover,
    share_commit,
)
from creepnet.protocol.deck.group import (
    L,
    card_point,
    mul,
    mul_base,
    scalar_add,
    scalar_invert,
    scalar_product,
)
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.testing.decks import DeckHarness

TORSION8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
IDENTITY = (1).to_bytes(32, "little")
NON_CANONICAL = (2**255 - 19 + 1).to_bytes(32, "little")
LOCK = ScalarId("lock", "deck:1", 7)


@dataclass
class Table:
    """n seats' deck keys, escrow keys and the public directory built from their joins."""

    keys: list[DeckKeys]
    escrow: list[EscrowKeys]
    directory: EscrowDirectory

    @property
    def seats(self) -> int:
        return len(self.keys)

    def others(self, dealer: int, gone: tuple[int, ...] = ()) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if s != dealer and s not in gone)

    def escrowed(
        self, dealer: int, scalar: bytes, what: ScalarId = LOCK, epoch: int = 0, gone=()
    ) -> Escrowed:
        return Escrowed(dealer, what, epoch, self.others(dealer, gone), mul_base(scalar))

    def deal(self, dealer: int, scalar: bytes, what: ScalarId = LOCK, epoch: int = 0, gone=()):
        escrowed = self.escrowed(dealer, scalar, what, epoch, gone)
        return escrowed, make_bundle(self.directory, self.escrow[dealer], escrowed, scalar)


def table(seats: int, game: bytes = b"", secret: list[bytes] | None = None) -> Table:
    """A fresh table; the same `game` and `secret` give the same seats and keys."""
    game = game or secrets.token_bytes(16)
    secret = secret or [secrets.token_bytes(32) for _ in range(seats)]
    identities = [bytes([s]) * 32 for s in range(seats)]
    deck = [DeckKeys(game, identities[s], secret[s]) for s in range(seats)]
    escrow = [EscrowKeys(k, s) for s, k in enumerate(deck)]
    published = [
        check_escrow_keys(e.published(), s, game, identities[s]) for s, e in enumerate(escrow)
    ]
    return Table(deck, escrow, directory(game, identities, published))


def wire(bundle: Bundle) -> dict:
    return bundle.message()


def with_commit(bundle: Bundle, i: int, point: object) -> dict:
    msg = wire(bundle)
    msg["commits"][i] = point
    return msg


# --- honest ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4])
def test_every_recipient_opens_its_share_and_the_shares_recover_the_scalar(seats: int) -> None:
    t = table(seats)
    for dealer in range(seats):
        scalar = t.keys[dealer].lock_key("deck:1", 7)
        escrowed, bundle = t.deal(dealer, scalar)
        checked = check_bundle(escrowed, wire(bundle))
        assert checked == bundle and len(bundle.commits) == seats - 2  # S_m is implied
        assert all(len(box) == BOX_BYTES for box in bundle.boxes)
        shares = {
            r: open_share(t.directory, t.escrow[r], escrowed, checked) for r in t.others(dealer)
        }
        assert len(set(shares.values())) == seats - 1  # no share is the scalar, nor repeated
        assert scalar not in shares.values()
        assert recover(escrowed, checked, shares) == scalar


@pytest.mark.parametrize("seats", [3, 4])
def test_the_table_removes_a_retired_seats_layer_with_the_recovered_scalar(seats: int) -> None:
    """A real shuffled deck: every seat's layer escrowed at its shuffle.  Seat X retires; the
    others recover X's layer and, with their own, strip every point to a card of the deck."""
    cards = [f"c{i}" for i in range(8)]
    deck = DeckHarness(seats, cards)
    deck.create("deck", cards)
    deck.shuffle("deck")
    game = deck.state.game_id
    identities = deck.state.seat_keys
    escrow = [EscrowKeys(p.keys, p.seat) for p in deck.players]
    t = Table(
        [p.keys for p in deck.players],
        escrow,
        directory(
            game,
            identities,
            [
                check_escrow_keys(e.published(), s, game, identities[s])
                for s, e in enumerate(escrow)
            ],
        ),
    )
    gone = seats - 1
    layer = deck.players[gone].keys.layer("deck", 1)
    assert mul_base(layer) == deck.state.layer_commit(gone, "deck", 1)
    escrowed, bundle = t.deal(gone, layer, ScalarId("layer", "deck", 1))
    bundle = check_bundle(escrowed, wire(bundle))
    published = {r: open_share(t.directory, t.escrow[r], escrowed, bundle) for r in t.others(gone)}
    recovered = recover(escrowed, bundle, published)
    assert recovered == layer
    others = scalar_product(deck.players[s].keys.layer("deck", 1) for s in t.others(gone))
    seen = set()
    for point in deck.state.pools["deck"].points:
        without_x = mul(scalar_invert(recovered), point)
        seen.add(deck.state.table.decode(mul(scalar_invert(others), without_x)))
    assert seen == set(cards)
    # one layer removed is one layer: a card point times the recovered scalar comes back
    m = card_point("c0")
    assert mul(scalar_invert(recovered), mul(layer, m)) == m


def test_bundles_are_deterministic_and_each_epoch_draws_new_shares() -> None:
    game, secret = secrets.token_bytes(16), [secrets.token_bytes(32) for _ in range(4)]
    a, b = table(4, game, secret), table(4, game, secret)
    scalar = a.keys[0].lock_key("deck:1", 7)
    first, again = a.deal(0, scalar)[1], b.deal(0, scalar)[1]
    assert first == again  # re-authoring after a crash signs the same bytes
    refreshed = a.deal(0, scalar, epoch=1)[1]
    assert not set(refreshed.commits) & set(first.commits)
    assert table(4, game).deal(0, scalar)[1] != first  # another secret, other shares


def test_refresh_after_a_retirement_lets_a_second_departure_be_recovered_without_xs_shares() -> (
    None
):
    """4 seats; seat 3 retires.  Seat 1 re-escrows its scalar among seats 0 and 2 (epoch 1); when
    seat 1 leaves too, seats 0 and 2 recover it from the refreshed bundle alone."""
    t = table(4)
    scalar = t.keys[1].lock_key("play", 3)
    old, old_bundle = t.deal(1, scalar)
    assert old.recipients == (0, 2, 3)
    new, bundle = t.deal(1, scalar, epoch=1, gone=(3,))
    assert new.recipients == (0, 2)
    bundle = check_bundle(new, wire(bundle))
    shares = {r: open_share(t.directory, t.escrow[r], new, bundle) for r in (0, 2)}
    assert recover(new, bundle, shares) == scalar
    assert shares[0] != open_share(t.directory, t.escrow[0], old, old_bundle)


def test_two_seats_cannot_escrow() -> None:
    with pytest.raises(ValueError):
        Escrowed(0, LOCK, 0, (1,), mul_base(scalar_add(IDENTITY, IDENTITY)))


def test_many_bundles_at_once_match_one_at_a_time() -> None:
    t = table(4)
    items = [
        (
            t.escrowed(2, t.keys[2].lock_key("p", j), ScalarId("lock", "p", j)),
            t.keys[2].lock_key("p", j),
        )
        for j in range(12)
    ]
    bundles = make_bundles(t.directory, t.escrow[2], items)
    assert bundles == [make_bundle(t.directory, t.escrow[2], e, s) for e, s in items]
    assert (
        check_bundles([(e, wire(b)) for (e, _), b in zip(items, bundles, strict=True)]) == bundles
    )
    broken = [(e, wire(b)) for (e, _), b in zip(items, bundles, strict=True)]
    broken[5][1]["commits"].reverse()  # the right shape: the recipients catch it (below)
    broken[9][1]["commits"].pop()
    broken[10][1]["boxes"].pop()
    with pytest.raises(DeckError) as err:
        check_bundles(broken)
    assert err.value.seat == 2  # the first bad one in order: bundle 9, one commitment short
    assert err.value.message == "expected 2 share commitments and 3 boxes"


@settings(max_examples=25, deadline=None)
@given(
    seats=st.sampled_from([3, 4]),
    dealer=st.integers(0, 3),
    value=st.integers(1, L - 1),
    epoch=st.integers(0, 5),
    kind=st.sampled_from(["layer", "lock"]),
)
def test_honest_round_trips(seats: int, dealer: int, value: int, epoch: int, kind: str) -> None:
    t = table(seats)
    dealer %= seats
    scalar = value.to_bytes(32, "little")
    escrowed, bundle = t.deal(dealer, scalar, ScalarId(kind, "fam", 2), epoch)
    bundle = check_bundle(escrowed, wire(bundle))
    shares = {
        r: open_share(t.directory, t.escrow[r], escrowed, bundle) for r in escrowed.recipients
    }
    assert combine(escrowed, shares) == scalar


# --- a dealer cheating -------------------------------------------------------------------------


def _recipients_verdicts(t: Table, escrowed: Escrowed, bundle: Bundle) -> dict[int, str]:
    """Every recipient opens its share; for each bad one, its complaint and everyone's verdict:
    {recipient: the conviction's reason}, every conviction naming the dealer."""
    verdicts = {}
    for r in escrowed.recipients:
        try:
            open_share(t.directory, t.escrow[r], escrowed, bundle)
        except DeckError as err:
            assert err.seat == escrowed.dealer
            complaint = make_complaint(t.directory, t.escrow[r], escrowed)
            verdict = judge_complaint(t.directory, escrowed, bundle, r, complaint)
            assert (verdict.dealer, verdict.complainer, verdict.error().seat) == (
                escrowed.dealer,
                r,
                escrowed.dealer,
            )
            verdicts[r] = verdict.reason
    return verdicts


def _recommitted(t: Table, escrowed: Escrowed, bundle: Bundle, commits: list) -> Bundle:
    """The dealer's own bundle with other published commitments, every box re-sealed to them
    (the associated data binds the commitments, so a cheat must seal again)."""
    aad = _aad(escrowed, commits)
    dealer = t.escrow[escrowed.dealer]
    boxes = []
    for i, r in enumerate(escrowed.recipients):
        share = open_share(t.directory, t.escrow[r], escrowed, bundle)
        boxes.append(_seal(t.directory, escrowed, i, dealer.channel_to(t.directory, r), share, aad))
    return Bundle(tuple(commits), tuple(boxes))


@pytest.mark.parametrize("seats", [3, 4])
def test_commitments_off_the_scalars_commitment_are_caught_by_the_implied_shares_recipient(
    seats: int,
) -> None:
    """A dealer publishing S_1 + D·G for S_1: the bundle's shape is right (the public check has
    nothing else to see), but the implied S_m = K - sum is off too; its recipient's share does
    not match it, and the complaint convicts the dealer.  So does escrowing another scalar."""
    t = table(seats)
    escrowed, bundle = t.deal(1, t.keys[1].lock_key("deck:1", 7))
    shifted = [nb.crypto_core_ed25519_add(bundle.commits[0], mul_base(IDENTITY))]
    bad = _recommitted(t, escrowed, bundle, shifted + list(bundle.commits[1:]))
    assert check_bundle(escrowed, wire(bad)) == bad
    first, last = escrowed.recipients[0], escrowed.recipients[-1]
    verdicts = _recipients_verdicts(t, escrowed, bad)
    assert verdicts == {first: "share does not match its commitment"} | {
        last: "share does not match its commitment"
    }
    # an escrow of another scalar, honestly made, passes the public check but not the last
    # recipient's: its implied S_m is for the other scalar
    _, wrong = t.deal(1, t.keys[1].lock_key("deck:1", 8))
    assert _recipients_verdicts(t, escrowed, check_bundle(escrowed, wire(wrong))).keys() == {
        *escrowed.recipients
    }  # every box is keyed to the other position: none opens


def test_a_shifted_share_pair_is_caught_by_both_recipients() -> None:
    """Moving D from one share to another keeps the sum (and the implied S_m) right; the two
    recipients' shares no longer match their published commitments."""
    t = table(4)
    scalar = t.keys[0].lock_key("deck:1", 7)
    escrowed, bundle = t.deal(0, scalar)
    d = mul_base(t.keys[0].lock_key("shift", 0))
    commits = [
        nb.crypto_core_ed25519_add(bundle.commits[0], d),
        nb.crypto_core_ed25519_sub(bundle.commits[1], d),
    ]
    bad = _recommitted(t, escrowed, bundle, commits)
    assert share_commit(escrowed, bad, 2) == share_commit(escrowed, bundle, 2)
    assert _recipients_verdicts(t, escrowed, bad) == {
        1: "share does not match its commitment",
        2: "share does not match its commitment",
    }


@pytest.mark.parametrize("bad", [IDENTITY, TORSION8, NON_CANONICAL, b"\x05" * 31 + b"\x80"])
def test_invalid_share_commitments_are_caught_by_the_recipients_and_convict_the_dealer(
    bad: bytes,
) -> None:
    """No replica validates S_i: its recipient's share cannot match it (s·G is a canonical
    prime-order point), and the implied S_m is off (or not computable), so both recipients
    complain and the dealer is convicted."""
    t = table(3)
    escrowed, bundle = t.deal(0, t.keys[0].lock_key("deck:1", 7))
    forged = _recommitted(t, escrowed, bundle, [bad])
    assert check_bundle(escrowed, wire(forged)) == forged
    verdicts = _recipients_verdicts(t, escrowed, forged)
    assert verdicts.keys() == {1, 2}
    assert verdicts[1] == "share does not match its commitment"
    assert verdicts[2] in (
        "share does not match its commitment",
        "share commitments are not curve points",
    )
    # and at recovery nobody can pass a share for it: the recipient who kept quiet is named
    share = open_share(t.directory, t.escrow[1], escrowed, bundle)
    with pytest.raises(DeckError) as err:
        check_recovery_share(escrowed, forged, 1, share)
    assert (err.value.seat, err.value.operation) == (1, "recover")


def _decodes(point: bytes) -> bool:
    try:
        nb.crypto_core_ed25519_add(point, mul_base(IDENTITY))
    except Exception:
        return False
    return True


def test_a_non_point_commitment_is_not_computable_and_convicts_the_dealer() -> None:
    t = table(4)
    escrowed, bundle = t.deal(2, t.keys[2].lock_key("deck:1", 7))
    candidates = (bytes([y]) + bytes(31) for y in range(2, 256))  # y = 2, 3...: half are off
    off_curve = next(p for p in candidates if not _decodes(p))
    forged = _recommitted(t, escrowed, bundle, [off_curve, bundle.commits[1]])
    assert share_commit(escrowed, forged, 2) is None
    verdicts = _recipients_verdicts(t, escrowed, forged)
    assert verdicts == {
        0: "share does not match its commitment",
        3: "share commitments are not curve points",
    }


def test_torsion_that_cancels_in_the_sum_is_caught_by_the_recipients() -> None:
    """S_1 + T and S_2 - T (T of order 8): the implied S_3 is right, but neither S_1 + T nor
    S_2 - T is a prime-order point: their recipients' shares match neither."""
    t = table(4)
    escrowed, bundle = t.deal(0, t.keys[0].lock_key("deck:1", 7))
    negated = nb.crypto_core_ed25519_sub(IDENTITY, TORSION8)
    commits = [
        nb.crypto_core_ed25519_add(bundle.commits[0], TORSION8),
        nb.crypto_core_ed25519_add(bundle.commits[1], negated),
    ]
    forged = _recommitted(t, escrowed, bundle, commits)
    assert share_commit(escrowed, forged, 2) == share_commit(escrowed, bundle, 2)
    assert _recipients_verdicts(t, escrowed, forged).keys() == {1, 2}


@pytest.mark.parametrize(
    "mangle",
    [
        lambda m: m["boxes"].__setitem__(0, m["boxes"][0][:-1]),
        lambda m: m["boxes"].__setitem__(1, m["boxes"][1] + b"\x00"),
        lambda m: m["boxes"].__setitem__(1, bytearray(m["boxes"][1])),
        lambda m: m["commits"].pop(),
        lambda m: m["commits"].append(m["commits"][0]),
        lambda m: m["commits"].__setitem__(0, m["commits"][0][:31]),
        lambda m: m["commits"].__setitem__(1, None),
        lambda m: m["boxes"].append(m["boxes"][0]),
        lambda m: m.__setitem__("extra", 1),
        lambda m: m.__setitem__("commits", tuple(m["commits"])),
        lambda m: m.pop("boxes"),
    ],
)
def test_malformed_bundles_name_the_dealer(mangle) -> None:
    t = table(4)
    escrowed, bundle = t.deal(3, t.keys[3].lock_key("deck:1", 7))
    msg = wire(bundle)
    mangle(msg)
    with pytest.raises(DeckError) as err:
        check_bundle(escrowed, msg)
    assert err.value.seat == 3
    with pytest.raises(DeckError):
        check_bundle(escrowed, [bundle.commits, bundle.boxes])


def _cheating_bundle(
    t: Table, dealer: int, victim: int, scalar: bytes, sealed: bytes
) -> tuple[Escrowed, Bundle]:
    """An honest bundle in which the victim's box seals `sealed` instead of its share."""
    escrowed, bundle = t.deal(dealer, scalar)
    i = escrowed.share_index(victim)
    boxes = list(bundle.boxes)
    channel = t.escrow[dealer].channel_to(t.directory, victim)
    boxes[i] = _seal(t.directory, escrowed, i, channel, sealed, _aad(escrowed, bundle.commits))
    return escrowed, Bundle(bundle.commits, tuple(boxes))


@pytest.mark.parametrize("seats", [3, 4])
def test_a_share_that_does_not_open_is_proven_by_complaint_and_convicts_the_dealer(
    seats: int,
) -> None:
    t = table(seats)
    escrowed, bundle = t.deal(0, t.keys[0].lock_key("deck:1", 7))
    boxes = list(bundle.boxes)
    boxes[1] = bytes(BOX_BYTES)  # garbage for recipient 2 (or the second recipient)
    bad = check_bundle(escrowed, {"commits": list(bundle.commits), "boxes": boxes})  # sums: passes
    victim = escrowed.recipients[1]
    with pytest.raises(DeckError) as err:
        open_share(t.directory, t.escrow[victim], escrowed, bad)
    assert err.value.seat == 0
    complaint = make_complaint(t.directory, t.escrow[victim], escrowed)
    verdict = judge_complaint(t.directory, escrowed, bad, victim, complaint)
    assert (verdict.dealer, verdict.complainer) == (0, victim)
    assert "does not open" in verdict.reason
    assert verdict.error().seat == 0
    # the other recipients' shares were fine
    open_share(t.directory, t.escrow[escrowed.recipients[0]], escrowed, bad)


def test_a_share_that_opens_but_does_not_match_its_commitment_convicts_the_dealer() -> None:
    t = table(4)
    scalar = t.keys[2].lock_key("deck:1", 7)
    wrong = t.keys[2].lock_key("deck:1", 99)
    escrowed, bundle = _cheating_bundle(t, 2, 3, scalar, wrong)
    bundle = check_bundle(escrowed, wire(bundle))
    with pytest.raises(DeckError, match="does not match") as err:
        open_share(t.directory, t.escrow[3], escrowed, bundle)
    assert err.value.seat == 2
    verdict = judge_complaint(
        t.directory, escrowed, bundle, 3, make_complaint(t.directory, t.escrow[3], escrowed)
    )
    assert verdict.dealer == 2 and "does not match" in verdict.reason


def test_a_box_sealing_a_non_scalar_convicts_the_dealer() -> None:
    t = table(3)
    escrowed, bundle = _cheating_bundle(
        t, 0, 1, t.keys[0].lock_key("x", 1), L.to_bytes(32, "little")
    )
    complaint = make_complaint(t.directory, t.escrow[1], escrowed)
    assert judge_complaint(t.directory, escrowed, bundle, 1, complaint).dealer == 0


def test_boxes_are_bound_to_their_recipient_and_scalar() -> None:
    t = table(4)
    escrowed, bundle = t.deal(0, t.keys[0].lock_key("deck:1", 7))
    swapped = Bundle(bundle.commits, (bundle.boxes[1], bundle.boxes[0], bundle.boxes[2]))
    with pytest.raises(DeckError, match="does not open"):
        open_share(t.directory, t.escrow[1], escrowed, swapped)
    # the same bundle presented as the escrow of another position (same commitment) fails
    elsewhere = replace(escrowed, scalar=ScalarId("lock", "deck:1", 8))
    with pytest.raises(DeckError, match="does not open"):
        open_share(t.directory, t.escrow[1], elsewhere, bundle)
    later = replace(escrowed, epoch=1)
    with pytest.raises(DeckError, match="does not open"):
        open_share(t.directory, t.escrow[2], later, bundle)


# --- a recipient cheating ----------------------------------------------------------------------


def test_a_false_complaint_names_the_complainer() -> None:
    t = table(4)
    escrowed, bundle = t.deal(1, t.keys[1].lock_key("deck:1", 7))
    complaint = make_complaint(t.directory, t.escrow[2], escrowed)
    with pytest.raises(DeckError, match="false complaint") as err:
        judge_complaint(t.directory, escrowed, bundle, 2, complaint)
    assert err.value.seat == 2


def test_a_complaint_with_a_bad_proof_or_point_names_the_complainer() -> None:
    t = table(4)
    escrowed, bundle = t.deal(1, t.keys[1].lock_key("deck:1", 7))
    escrowed, bad = _cheating_bundle(t, 1, 0, t.keys[1].lock_key("deck:1", 7), bytes(32))
    honest = make_complaint(t.directory, t.escrow[0], escrowed)
    forged_point = {"point": mul_base(t.keys[0].lock_key("z", 0)), "proof": honest["proof"]}
    flipped = bytearray(honest["proof"])
    flipped[40] ^= 1
    cases = [
        forged_point,  # a point that is not the channel: the proof no longer fits
        {"point": honest["point"], "proof": bytes(flipped)},
        {"point": honest["point"], "proof": honest["proof"][:63]},
        {"point": IDENTITY, "proof": honest["proof"]},
        {"point": TORSION8, "proof": honest["proof"]},
        {"point": honest["point"]},
        "complaint",
    ]
    for case in cases:
        with pytest.raises(DeckError) as err:
            judge_complaint(t.directory, escrowed, bad, 0, case)
        assert err.value.seat == 0 and err.value.operation == "complain", case
    # the honest complaint on the same bundle convicts the dealer
    assert judge_complaint(t.directory, escrowed, bad, 0, honest).dealer == 1


def test_a_complaint_does_not_move_to_another_scalar_seat_or_game() -> None:
    t = table(4)
    scalar = t.keys[1].lock_key("deck:1", 7)
    escrowed, bad = _cheating_bundle(t, 1, 0, scalar, bytes(32))
    complaint = make_complaint(t.directory, t.escrow[0], escrowed)
    elsewhere = replace(escrowed, scalar=ScalarId("lock", "deck:1", 8))
    with pytest.raises(DeckError, match="DLEQ"):
        judge_complaint(t.directory, elsewhere, bad, 0, complaint)
    with pytest.raises(DeckError, match="DLEQ"):
        judge_complaint(replace(t.directory, game_id=b"another game"), escrowed, bad, 0, complaint)
    # seat 2 replaying seat 0's complaint (another recipient) is refused
    with pytest.raises(DeckError) as err:
        judge_complaint(t.directory, escrowed, bad, 2, complaint)
    assert err.value.seat == 2
    # the dealer is no recipient: it cannot complain about itself
    with pytest.raises(DeckError, match="not a recipient"):
        judge_complaint(t.directory, escrowed, bad, 1, complaint)


def test_a_wrong_or_withheld_recovery_share_names_its_author() -> None:
    t = table(4)
    scalar = t.keys[3].lock_key("deck:0", 2)
    escrowed, bundle = t.deal(3, scalar)
    shares = {r: open_share(t.directory, t.escrow[r], escrowed, bundle) for r in (0, 1, 2)}
    for bad in (
        scalar_add(shares[1], IDENTITY),  # off by one
        shares[0],  # another seat's share
        bytes(32),
        L.to_bytes(32, "little"),
        shares[1][:31],
        None,
    ):
        with pytest.raises(DeckError) as err:
            recover(escrowed, bundle, {**shares, 1: bad})
        assert (err.value.seat, err.value.operation) == (1, "recover")
    with pytest.raises(DeckError) as err:
        recover(escrowed, bundle, {0: shares[0], 2: shares[2]})
    assert err.value.seat == 1
    with pytest.raises(DeckError, match="not a recipient"):
        check_recovery_share(escrowed, bundle, 3, shares[0])
    with pytest.raises(ValueError):
        combine(escrowed, {0: shares[0]})


# --- keys --------------------------------------------------------------------------------------


def _published(t: Table, seat: int) -> dict:
    return t.escrow[seat].published()


def _check_keys(t: Table, seat: int, value: object) -> tuple[bytes, bytes]:
    return check_escrow_keys(value, seat, t.directory.game_id, t.directory.seat_keys[seat])


@pytest.mark.parametrize(
    "mangle",
    [
        lambda m: m["keys"].__setitem__(0, IDENTITY),
        lambda m: m["keys"].__setitem__(1, TORSION8),
        lambda m: m["keys"].__setitem__(1, NON_CANONICAL),
        lambda m: m["keys"].__setitem__(1, None),
        lambda m: m["keys"].__setitem__(1, m["keys"][0]),
        lambda m: m["keys"].pop(),
        lambda m: m["proofs"].pop(),
        lambda m: m["proofs"].reverse(),
        lambda m: m["proofs"].__setitem__(0, bytes(64)),
        lambda m: m.pop("proofs"),
        lambda m: m.__setitem__("extra", 1),
    ],
)
def test_invalid_escrow_keys_name_the_seat(mangle) -> None:
    t = table(3)
    value = _published(t, 2)
    assert _check_keys(t, 2, value) == (t.directory.deal_keys[2], t.directory.receive_keys[2])
    mangle(value)
    with pytest.raises(DeckError) as err:
        _check_keys(t, 2, value)
    assert (err.value.seat, err.value.operation) == (2, "join")
    for other in ("keys", [IDENTITY, IDENTITY], None):
        with pytest.raises(DeckError):
            _check_keys(t, 2, other)


def test_escrow_keys_are_bound_to_their_seat_and_game() -> None:
    t = table(3)
    with pytest.raises(DeckError, match="proof of knowledge"):
        _check_keys(t, 1, _published(t, 2))  # seat 1 replaying seat 2's keys and proofs
    with pytest.raises(DeckError, match="proof of knowledge"):
        check_escrow_keys(_published(t, 2), 2, b"another game", t.directory.seat_keys[2])


def test_escrow_keys_copied_from_another_seat_are_refused() -> None:
    t = table(3)
    published = list(zip(t.directory.deal_keys, t.directory.receive_keys, strict=True))
    copied = [published[0], published[1], (published[2][0], published[0][1])]
    with pytest.raises(DeckError) as err:
        directory(t.directory.game_id, t.directory.seat_keys, copied)
    assert err.value.seat == 2


def test_a_rogue_deal_key_would_open_another_dealers_channel_and_is_refused() -> None:
    """Why keys need proofs of knowledge: seat 1 publishes E_1 = E_0 + d·G (it cannot know its
    log), deals garbage to seat 2, and seat 2's honest complaint publishes D = f_2·E_1; then
    D - d·F_2 = D_{0->2}, and every share seat 0 sent seat 2 opens for everybody."""
    t = table(4)
    d = t.keys[1].lock_key("rogue", 0)
    rogue = nb.crypto_core_ed25519_add(t.directory.deal_keys[0], mul_base(d))
    forged = replace(
        t.directory, deal_keys=(t.directory.deal_keys[0], rogue, *t.directory.deal_keys[2:])
    )
    scalar0 = t.keys[0].lock_key("deck:1", 7)
    escrowed0, bundle0 = t.deal(0, scalar0)
    target = Escrowed(1, LOCK, 0, (0, 2, 3), mul_base(t.keys[1].lock_key("deck:1", 7)))
    honest1 = make_bundle(t.directory, t.escrow[1], target, t.keys[1].lock_key("deck:1", 7))
    garbage = Bundle(honest1.commits, (honest1.boxes[0], bytes(BOX_BYTES), honest1.boxes[2]))
    complaint = make_complaint(forged, t.escrow[2], target)
    assert judge_complaint(forged, target, garbage, 2, complaint).dealer == 1
    leaked = nb.crypto_core_ed25519_sub(complaint["point"], mul(d, t.directory.receive_keys[2]))
    stolen = _unseal(t.directory, escrowed0, bundle0, 1, leaked)  # seat 2's share of seat 0's key
    assert stolen == open_share(t.directory, t.escrow[2], escrowed0, bundle0)
    # the join refuses that key: seat 1 can prove knowledge of no log of E_0 + d·G
    stolen_proofs = _published(t, 1)
    stolen_proofs["keys"][0] = rogue
    with pytest.raises(DeckError, match="proof of knowledge of the deal key") as err:
        _check_keys(t, 1, stolen_proofs)
    assert err.value.seat == 1


# --- the written spec, recomputed from the primitives alone (docs/ESCROW.md) --------------------


def _spec_scalar(secret: bytes, game: bytes, seat_key: bytes, *label: str | int) -> bytes:
    """DECKS.md "Secrets": HKDF-SHA512(secret, salt, info = frame(v1, game, seat key, label,
    attempt)), 64 bytes reduced mod L (attempt 0: a zero never comes up here)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from creepnet.protocol.deck.group import frame

    info = frame(b"creepnet/deck/v1", game, seat_key, *label, 0)
    okm = HKDF(hashes.SHA512(), 64, b"creepnet/deck/kdf/v1", info).derive(secret)
    return nb.crypto_core_ed25519_scalar_reduce(okm)


VECTOR_GAME = bytes(range(16))
VECTOR_SECRETS = [bytes([0x10 + s]) * 32 for s in range(3)]


def test_a_bundle_is_exactly_what_the_written_spec_computes() -> None:
    """An independent reading of ESCROW.md, with HKDF, ChaCha20-Poly1305 and the group
    operations only, gives the same keys, shares, commitments and boxes byte for byte."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from creepnet.protocol.deck.group import frame

    t = table(3, VECTOR_GAME, VECTOR_SECRETS)
    ids = t.directory.seat_keys
    e = [
        _spec_scalar(VECTOR_SECRETS[s], VECTOR_GAME, ids[s], "escrow-key", "deal") for s in range(3)
    ]
    f = [
        _spec_scalar(VECTOR_SECRETS[s], VECTOR_GAME, ids[s], "escrow-key", "receive")
        for s in range(3)
    ]
    assert t.directory.deal_keys == tuple(mul_base(x) for x in e)
    assert t.directory.receive_keys == tuple(mul_base(x) for x in f)

    dealer, recipients, epoch = 1, (0, 2), 3
    a = _spec_scalar(VECTOR_SECRETS[dealer], VECTOR_GAME, ids[dealer], "lock", "deck:0", 5)
    assert a == t.keys[dealer].lock_key("deck:0", 5)
    what = ScalarId("lock", "deck:0", 5)
    escrowed, bundle = t.deal(dealer, a, what, epoch)
    assert escrowed.recipients == recipients
    info = frame(
        b"creepnet/deck/v1",
        VECTOR_GAME,
        ids[dealer],
        "escrow-shares",
        "lock",
        "deck:0",
        5,
        epoch,
        *recipients,
        0,
    )
    okm = HKDF(hashes.SHA512(), 64, b"creepnet/deck/kdf/v1", info).derive(VECTOR_SECRETS[dealer])
    s1 = nb.crypto_core_ed25519_scalar_reduce(okm)
    s2 = nb.crypto_core_ed25519_scalar_sub(a, s1)
    assert bundle.commits == (mul_base(s1),)  # S_2 = K - S_1 is implied, not published
    K = mul_base(a)
    aad = frame(b"creepnet/deck/escrow/aad/v1", K, mul_base(s1))
    for share, recipient, box in zip((s1, s2), recipients, bundle.boxes, strict=True):
        channel = mul(e[dealer], t.directory.receive_keys[recipient])
        assert channel == mul(f[recipient], t.directory.deal_keys[dealer])
        info = frame(
            VECTOR_GAME,
            ids[dealer],
            ids[recipient],
            t.directory.deal_keys[dealer],
            t.directory.receive_keys[recipient],
            "lock",
            "deck:0",
            5,
            epoch,
        )
        okm = HKDF(hashes.SHA512(), 44, b"creepnet/deck/escrow/key/v1", info).derive(channel)
        assert ChaCha20Poly1305(okm[:32]).encrypt(okm[32:], share, aad) == box


# The vector of docs/ESCROW.md "Test vector", for a second implementation to run unchanged.
VECTOR = {
    "E_1": "7f4481c2d2e2c17ce9e209a5c5fbf633f03ddc5a8846018206102cb59317fae0",
    "F_0": "561002a5dd7c665b3c40ab823fe47cd216c2f60e064fe8f3d88f26f04b29ff9c",
    "F_2": "c616e0023c4d48373172b1bc365a09d1974db255e465984f83262c7c729b9e0e",
    "K": "fd2d5fd6cc174edd62cabb066a3c776b8b8cc8e1b00f5ffbc3fd1c9116a0eda9",
    "commits": ["f4dafac14b0f7162954f525b3409474c0686e5d744acbc6a53ac674331838d40"],
    "implied S_2": "c885abcc1b6920665acd5b0b1fef8b62ff941b2f712ffdca61052eabd131d7f9",
    "boxes": [
        "768a88cbf1cc38acbfb5364eb41bdcddf5598fbecf30282ea2c5e7473e4e3582"
        "6fc3195b7e5153aaacea4b9ffb57edb0",
        "60cca5fc8de3f1487a3b1d441b3010dd4be3dd51c2a84602db079e34b14abe14"
        "5006cfd98970846d319aa42923b910fc",
    ],
}


def test_the_documented_vector() -> None:
    t = table(3, VECTOR_GAME, VECTOR_SECRETS)
    a = t.keys[1].lock_key("deck:0", 5)
    escrowed, bundle = t.deal(1, a, ScalarId("lock", "deck:0", 5), 3)
    assert t.directory.deal_keys[1].hex() == VECTOR["E_1"]
    assert [t.directory.receive_keys[s].hex() for s in (0, 2)] == [VECTOR["F_0"], VECTOR["F_2"]]
    assert escrowed.commit.hex() == VECTOR["K"]
    assert [c.hex() for c in bundle.commits] == VECTOR["commits"]
    assert share_commit(escrowed, bundle, 1).hex() == VECTOR["implied S_2"]
    assert [b.hex() for b in bundle.boxes] == VECTOR["boxes"]


@settings(max_examples=40, deadline=None)
@given(
    channel=st.binary(min_size=32, max_size=32), name=st.text(max_size=12), epoch=st.integers(0, 9)
)
def test_the_cached_hkdf_extract_gives_the_one_call_hkdf(
    channel: bytes, name: str, epoch: int
) -> None:
    """escrow._cipher does RFC 5869 in its two steps (the extract kept per channel): the key and
    nonce are byte for byte HKDF-SHA512(ikm = channel, salt, info, 44) in one call."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from creepnet.protocol.deck.escrow import KEY_SALT, _cipher
    from creepnet.protocol.deck.group import frame

    t = table(3, VECTOR_GAME, VECTOR_SECRETS)
    escrowed = Escrowed(1, ScalarId("layer", name, 2), epoch, (0, 2), mul_base(IDENTITY))
    d = t.directory
    info = frame(d.game_id, d.seat_keys[1], d.seat_keys[2], d.deal_keys[1], d.receive_keys[2])
    okm = HKDF(hashes.SHA512(), 44, KEY_SALT, info + frame("layer", name, 2, epoch)).derive(channel)
    cipher, nonce = _cipher(d, escrowed, 2, channel)
    assert nonce == okm[32:]
    assert cipher.encrypt(nonce, b"share", b"") == ChaCha20Poly1305(okm[:32]).encrypt(
        okm[32:], b"share", b""
    )
