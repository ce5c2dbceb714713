"""Key escrow: every scalar a seat may have to remove from a card is shared among the other seats,
so that the table can act for a seat that leaves for good (docs/ESCROW.md, DESIGN.md §9).

Construction (additive m-of-m sharing among the m other seats, with Feldman commitments;
hashed Diffie-Hellman encryption; Pedersen DKG's complaint phase):
  * each seat publishes E = e·G (dealing) and F = f·G (receiving); the channel dealer A ->
    recipient B is D = e_A·F_B = f_B·E_A;
  * a scalar a with public commitment K = a·G (a layer's P_{f,d}, a lock's C_j) is split into
    shares s_1..s_m (derived from the deck secret, the last one a - the rest), one per other seat;
    S_1..S_{m-1} = s_i·G are published and the last is implied, S_m = K - (S_1 + ... + S_{m-1}),
    so the commitments sum to K by construction and nobody but the recipients checks anything;
  * share i is sealed with ChaCha20-Poly1305 under a key and nonce from HKDF-SHA512 over the
    channel point and the scalar's whole identity (game, both seats, both keys, kind, name,
    index, epoch), K and the published commitments as associated data;
  * each recipient checks s_i·G == S_i (bytes; the last one against the implied point); one
    whose share does not open or match publishes D with a Chaum-Pedersen proof
    log_G F_B = log_{E_A} D; everyone opens the box and sees who lied;
  * after a retirement each recipient publishes its share, checked against S_i; they sum to a.

Why it is safe: a share accepted by its recipient (or published at recovery) matches its
commitment, s·G == S_i byte for byte, so S_i is a canonical prime-order point, and the implied
S_m makes sum S_i == K hold by construction: the accepted shares sum to a.  A complaint's D is
proven, so blame is never wrong; any m-1 shares are independent of a and every S_i is computable
from K and them, so only a coalition of every recipient learns a.  Every failure is a DeckError
or a Conviction naming the seat at fault.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import nacl.bindings as nb
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from nacl.exceptions import RuntimeError as NaclRuntimeError

from creepnet.protocol.deck import dleq
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import (
    BASE,
    SCALAR_BYTES,
    L,
    add,
    check_distinct,
    check_point,
    check_scalar,
    frame,
    is_zero_scalar,
    mul,
    mul_base,
    scalar_add,
    sub,
)
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.deck.threads import spread

KINDS = ("layer", "lock")
KEY_SALT = b"creepnet/deck/escrow/key/v1"
AAD_DOMAIN = b"creepnet/deck/escrow/aad/v1"
COMPLAINT_DOMAIN = b"creepnet/deck/escrow/complaint/v1"
POSSESSION_DOMAIN = b"creepnet/deck/escrow/possession/v1"
TAG_BYTES = 16
BOX_BYTES = SCALAR_BYTES + TAG_BYTES
NONCE_BYTES = 12
MIN_RECIPIENTS = 2  # with one recipient the "share" would be the scalar itself


# --- who is who ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EscrowDirectory:
    """The public escrow keys of one game's table, in seat order (from the seats' joins)."""

    game_id: bytes
    seat_keys: tuple[bytes, ...]  # the seats' identity keys
    deal_keys: tuple[bytes, ...]  # E = e·G
    receive_keys: tuple[bytes, ...]  # F = f·G

    def __post_init__(self) -> None:
        n = len(self.seat_keys)
        if len(self.deal_keys) != n or len(self.receive_keys) != n:
            raise ValueError("one deal key and one receive key per seat")


def _possession_context(game_id: bytes, seat_key: bytes, role: str) -> bytes:
    return frame(POSSESSION_DOMAIN, game_id, seat_key, role)


def check_escrow_keys(
    value: object, seat: int, game_id: bytes, seat_key: bytes
) -> tuple[bytes, bytes]:
    """A seat's published escrow keys {keys: [E, F], proofs: [pE, pF]}: two valid, distinct
    points, each with a Schnorr proof of knowledge of its discrete log bound to the game, the
    seat and the role.  Without them a seat could publish E_B = E_A + d·G, cheat in a share
    to C on purpose, and C's complaint (D = f_C·E_B) would then reveal D_{A->C} = D - d·F_C:
    every share A sent C.  Knowing its own key, a seat can only reveal its own channels."""
    if not isinstance(value, dict) or set(value) != {"keys", "proofs"}:
        raise DeckError(seat, "join", "escrow must be exactly {keys: [E, F], proofs: [2]}")
    keys, proofs = value["keys"], value["proofs"]
    if not isinstance(keys, list) or len(keys) != 2:
        raise DeckError(seat, "join", "escrow keys must be a list [deal, receive]")
    if not isinstance(proofs, list) or len(proofs) != 2:
        raise DeckError(seat, "join", "escrow proofs must be a list of two")
    deal, receive = (check_point(p, seat, "join", i) for i, p in enumerate(keys))
    check_distinct([deal, receive], seat, "join")
    for i, (role, point) in enumerate((("deal", deal), ("receive", receive))):
        context = _possession_context(game_id, seat_key, role)
        if not dleq.verify(proofs[i], BASE, point, BASE, point, context):
            raise DeckError(seat, "join", f"no proof of knowledge of the {role} key", i)
    return deal, receive


def directory(
    game_id: bytes, seat_keys: Sequence[bytes], published: Sequence[tuple[bytes, bytes]]
) -> EscrowDirectory:
    """The table's directory from every seat's checked [E, F].  Keys repeated across seats are
    refused (the later seat is named): a copied F would route another seat's shares to its owner."""
    seen: dict[bytes, int] = {}
    for seat, pair in enumerate(published):
        for point in pair:
            if point in seen:
                raise DeckError(seat, "join", f"escrow key already published by seat {seen[point]}")
            seen[point] = seat
    return EscrowDirectory(
        bytes(game_id),
        tuple(bytes(k) for k in seat_keys),
        tuple(p[0] for p in published),
        tuple(p[1] for p in published),
    )


@dataclass(frozen=True)
class ScalarId:
    """What is escrowed: ("layer", family, depth) -> c_{f,d}; ("lock", pool, position) -> b_j."""

    kind: str
    name: str
    index: int

    def __post_init__(self) -> None:
        if self.kind not in KINDS or type(self.index) is not int or self.index < 0:
            raise ValueError(f"bad scalar identity {self!r}")


@dataclass(frozen=True)
class Escrowed:
    """One escrow of one scalar: whose, which, at which epoch, among whom, and its commitment K.
    Fixed by the message that carries the bundle, never read from the bundle."""

    dealer: int
    scalar: ScalarId
    epoch: int
    recipients: tuple[int, ...]  # increasing, the dealer excluded
    commit: bytes  # K = a·G, already validated by the deck

    def __post_init__(self) -> None:
        r = self.recipients
        if len(r) < MIN_RECIPIENTS or list(r) != sorted(set(r)) or self.dealer in r:
            raise ValueError(f"recipients must be >= 2 distinct other seats, increasing: {r}")
        if self.epoch < 0:
            raise ValueError("epoch must be >= 0")

    def share_index(self, seat: int) -> int:
        return self.recipients.index(seat)

    def labels(self) -> tuple[str, str, int, int]:
        return (self.scalar.kind, self.scalar.name, self.scalar.index, self.epoch)

    # frame(a, b) + frame(c) == frame(a, b, c): the parts every share repeats, framed once
    @cached_property
    def framed_labels(self) -> bytes:
        return frame(*self.labels())

    @cached_property
    def framed_aad_prefix(self) -> bytes:
        return frame(AAD_DOMAIN, self.commit)


@dataclass(frozen=True)
class Bundle:
    """The published escrow of one scalar, in recipient order: the share commitments S_1..S_{m-1}
    (S_m is implied: K minus their sum) and the m sealed shares."""

    commits: tuple[bytes, ...]  # m - 1 of them
    boxes: tuple[bytes, ...]  # m of them

    def message(self) -> dict:
        return {"commits": list(self.commits), "boxes": list(self.boxes)}


def share_commit(escrowed: Escrowed, bundle: Bundle, i: int) -> bytes | None:
    """S_i, the commitment share i must match: published for i < m - 1 (0-based), and for the
    last share K - (S_1 + ... + S_{m-1}); None if a published one is no curve point at all, so
    that no share can match it.  Not validated otherwise: a share matching it byte for byte
    (s·G, s non-zero) proves it a canonical prime-order point."""
    if i < len(bundle.commits):
        return bundle.commits[i]
    try:
        partial = bundle.commits[0]
        for commit in bundle.commits[1:]:
            partial = add(partial, commit)
        return sub(escrowed.commit, partial)
    except (NaclRuntimeError, TypeError, ValueError):  # libsodium refuses a non-point
        return None


@dataclass(frozen=True)
class Conviction:
    """An upheld complaint: the dealer's share to the complainer is bad, as anyone can see."""

    dealer: int
    complainer: int
    scalar: ScalarId
    epoch: int
    reason: str

    def error(self) -> DeckError:
        why = f"{self.reason} (complaint by seat {self.complainer})"
        return DeckError(self.dealer, "escrow", why)


# --- the seat's private side -------------------------------------------------------------------


class EscrowKeys:
    """A seat's escrow scalars (from its deck secret) and its channel points, memoised: one
    variable-base multiplication per counterpart per game."""

    def __init__(self, keys: DeckKeys, seat: int) -> None:
        self.keys = keys
        self.seat = seat
        self.deal = keys.escrow_key("deal")
        self.receive = keys.escrow_key("receive")
        self._channels: dict[tuple[str, bytes], bytes] = {}

    def published(self) -> dict:
        """{keys: [E, F], proofs: [pE, pF]} for the seat's join (check_escrow_keys): each proof a
        Chaum-Pedersen proof with both bases G, i.e. a Schnorr proof of knowledge."""
        keys, proofs = [], []
        for role, secret in (("deal", self.deal), ("receive", self.receive)):
            point = mul_base(secret)
            context = _possession_context(self.keys.game_id, self.keys.seat_key, role)
            keys.append(point)
            proofs.append(dleq.prove(secret, BASE, point, BASE, point, context))
        return {"keys": keys, "proofs": proofs}

    def channel_to(self, table: EscrowDirectory, recipient: int) -> bytes:
        return self._channel("to", self.deal, table.receive_keys[recipient])

    def channel_from(self, table: EscrowDirectory, dealer: int) -> bytes:
        return self._channel("from", self.receive, table.deal_keys[dealer])

    def _channel(self, direction: str, secret: bytes, point: bytes) -> bytes:
        key = (direction, point)
        if key not in self._channels:
            self._channels[key] = mul(secret, point)
        return self._channels[key]


# --- sealing -------------------------------------------------------------------------------


def _cipher(
    table: EscrowDirectory, escrowed: Escrowed, recipient: int, channel: bytes
) -> tuple[ChaCha20Poly1305, bytes]:
    dealer = escrowed.dealer
    pair = _framed_pair(
        table.game_id,
        table.seat_keys[dealer],
        table.seat_keys[recipient],
        table.deal_keys[dealer],
        table.receive_keys[recipient],
    )
    info = pair + escrowed.framed_labels  # frame(game, A, B, E_A, F_B, kind, name, index, epoch)
    # HKDF-SHA512(ikm = channel, salt = KEY_SALT, info, 44 bytes) in RFC 5869's two steps: the
    # extract depends on the channel alone, so it is done once per channel; 44 <= 64 bytes is
    # one expand block, T(1) = HMAC(PRK, info || 0x01).  Byte for byte the one-call HKDF.
    okm = hmac.digest(_extract(channel), info + b"\x01", "sha512")
    return ChaCha20Poly1305(okm[:32]), okm[32 : 32 + NONCE_BYTES]


@lru_cache(maxsize=256)
def _extract(channel: bytes) -> bytes:
    """HKDF-Extract(salt = KEY_SALT, ikm = channel point) = HMAC-SHA512(KEY_SALT, channel)."""
    return hmac.digest(KEY_SALT, channel, "sha512")


@lru_cache(maxsize=64)
def _framed_pair(*parts: bytes) -> bytes:
    return frame(*parts)


def _aad(escrowed: Escrowed, commits: Sequence[bytes]) -> bytes:
    return escrowed.framed_aad_prefix + frame(*commits)  # frame(AAD_DOMAIN, K, S_1..S_{m-1})


def _seal(
    table: EscrowDirectory, escrowed: Escrowed, i: int, channel: bytes, share: bytes, aad: bytes
) -> bytes:
    cipher, nonce = _cipher(table, escrowed, escrowed.recipients[i], channel)
    return cipher.encrypt(nonce, share, aad)


def _unseal(
    table: EscrowDirectory, escrowed: Escrowed, bundle: Bundle, i: int, channel: bytes
) -> str | bytes:
    """The share in box i if it opens to a scalar matching S_i, else why not (a str)."""
    cipher, nonce = _cipher(table, escrowed, escrowed.recipients[i], channel)
    try:
        share = cipher.decrypt(nonce, bundle.boxes[i], _aad(escrowed, bundle.commits))
    except InvalidTag:
        return "share does not open"
    n = int.from_bytes(share, "little")
    if len(share) != SCALAR_BYTES or n == 0 or n >= L:
        return "share is not a canonical non-zero scalar"
    commit = share_commit(escrowed, bundle, i)
    if commit is None:
        return "share commitments are not curve points"
    if mul_base(share) != commit:
        return "share does not match its commitment"
    return share


# --- dealing -------------------------------------------------------------------------------


def make_bundle(
    table: EscrowDirectory, mine: EscrowKeys, escrowed: Escrowed, scalar: bytes
) -> Bundle:
    """The dealer's escrow of `scalar` (whose commitment is escrowed.commit), shares derived
    from its deck secret (docs/ESCROW.md "Escrowing one scalar")."""
    if escrowed.dealer != mine.seat:
        raise ValueError("only the dealer can escrow its scalar")
    first = mine.keys.escrow_shares(*escrowed.labels(), escrowed.recipients)
    rest = bytes(SCALAR_BYTES)
    for share in first:
        rest = scalar_add(rest, share)
    last = nb.crypto_core_ed25519_scalar_sub(scalar, rest)
    if is_zero_scalar(last):  # probability 2^-252; the public check would reject it
        raise ValueError("degenerate escrow share")
    shares = [*first, last]
    commits = [mul_base(s) for s in first]  # S_m is implied: K - the others
    aad = _aad(escrowed, commits)
    boxes = [
        _seal(table, escrowed, i, mine.channel_to(table, r), shares[i], aad)
        for i, r in enumerate(escrowed.recipients)
    ]
    return Bundle(tuple(commits), tuple(boxes))


def make_bundles(
    table: EscrowDirectory, mine: EscrowKeys, items: Sequence[tuple[Escrowed, bytes]]
) -> list[Bundle]:
    """Many escrows at once (a lock's every position), spread over the group's threads."""
    for escrowed, _ in items:  # warm the channel memo here, not racing in the threads
        for r in escrowed.recipients:
            mine.channel_to(table, r)
    return spread(lambda item: make_bundle(table, mine, item[0], item[1]), items)


# --- public check ----------------------------------------------------------------------------


def read_bundle(escrowed: Escrowed, value: object) -> Bundle:
    """A received bundle's shape: exactly {commits, boxes}, m - 1 commitments of 32 bytes and m
    boxes of BOX_BYTES.  DeckError names the dealer (position = the bad item's index)."""
    dealer, m = escrowed.dealer, len(escrowed.recipients)
    if not isinstance(value, dict) or set(value) != {"commits", "boxes"}:
        raise DeckError(dealer, "escrow", "bundle must be exactly {commits, boxes}")
    commits, boxes = value["commits"], value["boxes"]
    if not isinstance(commits, list) or not isinstance(boxes, list):
        raise DeckError(dealer, "escrow", "commits and boxes must be lists")
    if len(commits) != m - 1 or len(boxes) != m:
        raise DeckError(dealer, "escrow", f"expected {m - 1} share commitments and {m} boxes")
    for i, commit in enumerate(commits):
        if type(commit) is not bytes or len(commit) != SCALAR_BYTES:
            raise DeckError(dealer, "escrow", "share commitment is not 32 bytes", i)
    for i, box in enumerate(boxes):
        if type(box) is not bytes or len(box) != BOX_BYTES:
            raise DeckError(dealer, "escrow", f"box is not {BOX_BYTES} bytes", i)
    return Bundle(tuple(commits), tuple(boxes))


def check_bundle(escrowed: Escrowed, value: object) -> Bundle:
    """Any replica's check of a received bundle: its shape, and nothing else.  With S_m implied
    the commitments sum to K by construction; whether each S_i is a point that its share matches
    is for the recipient of that share (open_share), who complains if not (docs/ESCROW.md)."""
    return read_bundle(escrowed, value)


def check_bundles(items: Sequence[tuple[Escrowed, object]]) -> list[Bundle]:
    """Many public checks; the first bad one in order is raised."""
    return [check_bundle(escrowed, value) for escrowed, value in items]


# --- the recipient -------------------------------------------------------------------------


def open_share(
    table: EscrowDirectory, mine: EscrowKeys, escrowed: Escrowed, bundle: Bundle
) -> bytes:
    """The recipient's own share, checked against its commitment.  DeckError names the dealer
    if it is bad: the recipient must then publish a complaint (make_complaint)."""
    i = escrowed.share_index(mine.seat)
    share = _unseal(table, escrowed, bundle, i, mine.channel_from(table, escrowed.dealer))
    if isinstance(share, str):
        raise DeckError(escrowed.dealer, "escrow", share, i)
    return share


# --- complaints ------------------------------------------------------------------------------


def _complaint_context(table: EscrowDirectory, escrowed: Escrowed, complainer: int) -> bytes:
    return frame(
        COMPLAINT_DOMAIN,
        table.game_id,
        table.seat_keys[escrowed.dealer],
        table.seat_keys[complainer],
        *escrowed.labels(),
    )


def make_complaint(table: EscrowDirectory, mine: EscrowKeys, escrowed: Escrowed) -> dict:
    """Publish the channel point dealer -> me with a proof it is right (opens that channel)."""
    escrowed.share_index(mine.seat)  # a recipient only
    deal_key, receive_key = table.deal_keys[escrowed.dealer], table.receive_keys[mine.seat]
    point = mine.channel_from(table, escrowed.dealer)
    context = _complaint_context(table, escrowed, mine.seat)
    proof = dleq.prove(mine.receive, BASE, receive_key, deal_key, point, context)
    return {"point": point, "proof": proof}


def judge_complaint(
    table: EscrowDirectory, escrowed: Escrowed, bundle: Bundle, complainer: int, value: object
) -> Conviction:
    """Everyone's verdict on a complaint: a Conviction of the dealer if the share is bad;
    DeckError naming the complainer if the complaint is malformed, unproven or false."""
    if complainer not in escrowed.recipients:
        raise DeckError(complainer, "complain", "not a recipient of this escrow")
    if not isinstance(value, dict) or set(value) != {"point", "proof"}:
        raise DeckError(complainer, "complain", "complaint must be exactly {point, proof}")
    point = check_point(value["point"], complainer, "complain")
    deal_key, receive_key = table.deal_keys[escrowed.dealer], table.receive_keys[complainer]
    context = _complaint_context(table, escrowed, complainer)
    if not dleq.verify(value["proof"], BASE, receive_key, deal_key, point, context):
        raise DeckError(complainer, "complain", "DLEQ proof of the channel point does not verify")
    i = escrowed.share_index(complainer)
    share = _unseal(table, escrowed, bundle, i, point)
    if isinstance(share, str):
        return Conviction(escrowed.dealer, complainer, escrowed.scalar, escrowed.epoch, share)
    raise DeckError(complainer, "complain", "false complaint: the share opens and matches", i)


# --- recovery --------------------------------------------------------------------------------


def check_recovery_share(
    escrowed: Escrowed, bundle: Bundle, recipient: int, value: object
) -> bytes:
    """A published share of a retired dealer's scalar: canonical, non-zero, s·G == S_i."""
    if recipient not in escrowed.recipients:
        raise DeckError(recipient, "recover", "not a recipient of this escrow")
    i = escrowed.share_index(recipient)
    share = check_scalar(value, recipient, "recover", i)
    if mul_base(share) != share_commit(escrowed, bundle, i):
        raise DeckError(recipient, "recover", "share does not match its commitment", i)
    return share


def combine(escrowed: Escrowed, shares: Mapping[int, bytes]) -> bytes:
    """The dealer's scalar from every recipient's checked share (by seat).  Checks a·G == K:
    it follows from the bundle's sum check, so a failure is a bug or a broken check."""
    missing = [r for r in escrowed.recipients if r not in shares]
    if missing:
        raise ValueError(f"shares missing from seats {missing}")
    total = bytes(SCALAR_BYTES)
    for r in escrowed.recipients:
        total = scalar_add(total, shares[r])
    if is_zero_scalar(total) or mul_base(total) != escrowed.commit:
        raise DeckError(None, "recover", "recovered scalar does not match its commitment")
    return total


def recover(escrowed: Escrowed, bundle: Bundle, published: Mapping[int, object]) -> bytes:
    """Check every recipient's published share and combine them (the first bad one is named)."""
    shares = {
        r: check_recovery_share(escrowed, bundle, r, published.get(r)) for r in escrowed.recipients
    }
    return combine(escrowed, shares)


__all__ = [
    "BOX_BYTES",
    "Bundle",
    "Conviction",
    "EscrowDirectory",
    "EscrowKeys",
    "Escrowed",
    "ScalarId",
    "check_bundle",
    "check_bundles",
    "check_escrow_keys",
    "check_recovery_share",
    "combine",
    "directory",
    "judge_complaint",
    "make_bundle",
    "make_bundles",
    "make_complaint",
    "open_share",
    "read_bundle",
    "recover",
    "share_commit",
]
