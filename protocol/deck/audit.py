"""End-of-game audit: every seat reveals its deck secret; everyone recomputes.

Every step was proven at once during play (shuffles included), so conviction
never waits for the audit.  What it is still for:
  * the full replay: every hidden card of every live pool, for the record and
    for the game's claims about hidden cards (e.g. "my hand held no Creep");
  * commitment to the secret: every permutation, layer P, lock C_j and blinding
    T is the one derived from the secret committed at join, i.e. each seat let
    its committed randomness choose, not just proved a valid step;
  * defence in depth: every record is recomputed exactly and every position
    decodes to a card once per family, should a proof ever be broken.
It runs on the secrets that *were* revealed: a fault in a revealed seat's steps
is attributed to it even if others never reveal; then the seats that did not
reveal are named for everything that stays unchecked.  A retired seat (escrow)
is not named: its scalars are rebuilt from the escrow shares it sent to the
seats that revealed, each checked against its commitment (RetiredScalars), so
its cards decode too; a card whose escrow is lost stays hidden and unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.escrowing import RetiredScalars, audit_escrows
from creepnet.protocol.deck.group import mul, mul_base, scalar_invert, scalar_product
from creepnet.protocol.deck.keys import SECRET_BYTES, DeckKeys, commit_secret
from creepnet.protocol.deck.model import BlindRecord, LockRecord, Pool, ShuffleRecord, get
from creepnet.protocol.deck.threads import spread

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState


def reveal_message(keys: DeckKeys) -> dict:
    return {"op": "reveal", "secret": keys.secret}


def handle_reveal(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    if state.secrets[seat] is not None:
        raise DeckError(seat, "reveal", "secret already revealed")
    secret = get(msg, "secret", bytes, seat, "reveal")
    if (
        len(secret) != SECRET_BYTES
        or commit_secret(
            state.game_id,
            state.seat_keys[seat],
            secret,
        )
        != state.joins[seat]
    ):
        raise DeckError(seat, "reveal", "secret does not match its commitment")
    state.secrets[seat] = secret


@dataclass
class AuditReport:
    """Every card of every live pool, as (pool, position) -> card id."""

    cards: dict[tuple[str, int], str]


def audit(state: DeckState, claims: list[dict] | None = None) -> AuditReport:
    """Recompute everything; raise DeckError at the first fault (in log order)."""
    revealed: list[DeckKeys | None] = [
        None if secret is None else DeckKeys(state.game_id, state.seat_keys[s], secret)
        for s, secret in enumerate(state.secrets)
    ]
    for (seat, family, depth), commit in state.layer_commits.items():
        seat_keys = revealed[seat]
        if seat_keys is not None and seat_keys.layer_commit(family, depth) != commit:
            raise DeckError(
                seat,
                "shuffle",
                f"layer commitment for {family!r} depth {depth} "
                "is not derived from the deck secret",
            )
    for record in state.history:
        seat_keys = revealed[record.seat]
        if seat_keys is not None:
            _check_record(record, seat_keys)
    audit_escrows(state)  # a deck with escrow: every revealed seat's bundles re-derived
    retired = state.escrow.retired if state.escrow is not None else set()
    missing = [s for s, k in enumerate(revealed) if k is None and s not in retired]
    if missing:
        raise DeckError(
            missing[0],
            "audit",
            f"deck secrets of seats {missing} not revealed (stalling): their steps, "
            "the hidden cards and the claims stay unchecked",
        )
    # A retired seat never reveals: its scalars come from the escrow the remaining seats' secrets
    # open, or are the table's public ones (docs/ESCROW.md "Audit after a retirement").
    sources: list[Scalars] = [
        RetiredScalars(state, s, revealed) if k is None else k for s, k in enumerate(revealed)
    ]
    cards: dict[tuple[str, int], str] = {}
    for pool in state.pools.values():
        for j, card in enumerate(_decode_pool(state, pool, sources)):
            if card is not None:
                cards[(pool.name, j)] = card
    _check_families(state, cards)
    for claim in claims or []:
        _check_claim(claim, cards, state)
    return AuditReport(cards)


def _check_record(record: object, keys: DeckKeys) -> None:
    if isinstance(record, ShuffleRecord):
        step = keys.layer_step(record.family, record.depth)
        scaled = spread(lambda p: mul(step, p), record.inputs)
        perm = keys.permutation(record.pool, record.index, len(scaled))
        if [scaled[i] for i in perm] != record.outputs:
            what = (
                "cards were substituted, dropped or duplicated"
                if set(scaled) != set(record.outputs)
                else "the order is not the committed permutation"
            )
            raise DeckError(record.seat, "shuffle", f"dishonest shuffle of {record.pool!r}: {what}")
    elif isinstance(record, LockRecord):
        derived = spread(
            lambda j: mul_base(keys.lock_key(record.pool, j)), range(len(record.commits))
        )
        for j, (mine, commit) in enumerate(zip(derived, record.commits, strict=True)):
            if mine != commit:
                raise DeckError(record.seat, "lock", "lock key not derived from the deck secret", j)
    elif isinstance(record, BlindRecord) and (
        mul_base(keys.blind_key(record.pool, record.position, record.transfer)) != record.commit
    ):
        raise DeckError(
            record.seat, "blind", "blinding not derived from the deck secret", record.position
        )


class Scalars(Protocol):
    """A seat's scalars for decoding: its DeckKeys, or a retired seat's RetiredScalars (None
    where a scalar is unknown)."""

    def layer(self, family: str, depth: int) -> bytes | None: ...

    def lock_key(self, pool: str, position: int) -> bytes | None: ...


def _decode_pool(state: DeckState, pool: Pool, keys: list[Scalars]) -> list[str | None]:
    """Strip every seat's layer from every point: global layers for seats that have
    not locked yet, per-position keys for those that have.  None where a scalar is unknown
    (a retired seat's, whose escrow is lost)."""
    layers = [keys[s].layer(pool.family, pool.depth[s]) for s in range(pool.locks, state.seats)]
    if None in layers:
        return [None] * len(pool.points)
    global_part = scalar_product(layers)  # type: ignore[arg-type]

    def decode(j: int) -> str | None:
        locks = [keys[s].lock_key(pool.name, j) for s in range(pool.locks)]
        if None in locks:
            return None
        total = scalar_product([global_part, *locks])  # type: ignore[list-item]
        card = state.table.decode(mul(scalar_invert(total), pool.points[j]))
        if card is None:  # cannot happen once every record checked out
            raise DeckError(None, "audit", f"{pool.name}[{j}] decodes to no card", j)
        return card

    return spread(decode, range(len(pool.points)))


def _check_families(state: DeckState, cards: dict[tuple[str, int], str]) -> None:
    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for (name, j), card in cards.items():
        key = (state.pools[name].family, card)
        if key in seen:
            raise DeckError(None, "audit", f"card {card!r} in both {seen[key]} and {(name, j)}", j)
        seen[key] = (name, j)


def _check_claim(claim: dict, cards: dict[tuple[str, int], str], state: DeckState) -> None:
    """A claim: {"seat", "pool", "position"} and one of "card" (it was that card),
    "one_of" (it was among these) or "none_of" (it was none of these)."""
    seat, pool, position = claim.get("seat"), claim.get("pool"), claim.get("position")
    actual = cards.get((pool, position))  # type: ignore[arg-type]
    if actual is None:
        known = state.pools.get(pool) if isinstance(pool, str) else None
        if known is not None and isinstance(position, int) and 0 <= position < len(known.points):
            return  # under a retired seat's lost scalar: it stays unchecked
        raise DeckError(seat, "claim", f"no such position {pool}[{position}]", position)
    if "card" in claim:
        ok = actual == claim["card"]
    elif "one_of" in claim:
        ok = actual in claim["one_of"]
    elif "none_of" in claim:
        ok = actual not in claim["none_of"]
    else:
        raise ValueError(f"claim states nothing: {claim!r}")
    if not ok:
        raise DeckError(
            seat,
            "claim",
            f"false claim about {pool}[{position}]: it was {actual!r}",
            position,
        )
