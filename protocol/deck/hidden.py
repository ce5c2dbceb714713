"""Hidden cards of locked pools: release (private draw / public reveal), play, transfer.

After lock, slot j carries every seat's key b_j.  Releasing all keys but the
holder's makes core = k·M public (k the holder's key, k·G = holder_commit):
only the holder can strip k.  A transfer moves a hidden card from holder A to
seat B with two public messages (Massey-Omura; B's final pass is local):

  blind   (B): T = t·G, Q1 = t·core          DLEQ: log_G(T) = log_core(Q1)
  unblind (A): Q2 = k^-1·Q1 (= t·M)           DLEQ: log_G(holder_commit) = log_Q2(Q1)
  then B holds t: core := Q2, holder_commit := T, and decodes M = t^-1·Q2 privately.
A pending blind never freezes the card: its holder may `cancel` it or play the card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from creepnet.protocol.deck.dleq import proof_context, prove, verify
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.group import (
    BASE,
    check_point,
    check_scalar,
    mul,
    mul_base,
    scalar_invert,
    scalar_product,
)
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.deck.model import (
    PUBLIC,
    BlindRecord,
    PendingTransfer,
    Slot,
    get_int,
    get_list,
    get_str,
)

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState


def _slot(state: DeckState, msg: dict, seat: int, op: str) -> tuple[str, int, Slot]:
    pool = state.locked_pool(msg.get("pool"), seat, op)
    position = get_int(msg, "position", seat, op)
    if not 0 <= position < len(pool.slots):
        raise DeckError(seat, op, "position out of range", position)
    return pool.name, position, pool.slots[position]


def _held_by(slot: Slot, seat: int, op: str, position: int) -> None:
    if slot.holder != seat or slot.is_public:
        raise DeckError(seat, op, "seat does not hold this hidden card", position)


def held_slot(state: DeckState, msg: dict, seat: int, op: str) -> tuple[str, int, Slot]:
    """The slot a message names, which must be a hidden card held by its author."""
    name, position, slot = _slot(state, msg, seat, op)
    _held_by(slot, seat, op, position)
    return name, position, slot


def check_card_ids(
    state: DeckState, value: object, seat: int, op: str, position: int, least: int
) -> list[str]:
    """A received list of distinct card ids the deck knows, `least`..MAX_CARD_IDS long."""
    if not isinstance(value, list) or not least <= len(value) <= MAX_CARD_IDS:
        raise DeckError(seat, op, f"expected a list of {least}-{MAX_CARD_IDS} card ids", position)
    if any(type(card) is not str or card not in state.table for card in value):
        raise DeckError(seat, op, "names a card the deck does not know", position)
    if len(set(value)) != len(value):
        raise DeckError(seat, op, "repeats a card", position)
    return value


MAX_CARD_IDS = 4096  # the codec's array limit; proofs over card sets cost per card


def holder_key(keys: DeckKeys, pool: str, position: int, slot: Slot) -> bytes:
    """The holder's private key for a slot: its b_j, or its latest blinding t."""
    if slot.transfers == 0:
        return keys.lock_key(pool, position)
    return keys.blind_key(pool, position, slot.transfers - 1)


def decode_held(state: DeckState, keys: DeckKeys, seat: int, pool: str, position: int) -> str:
    """The holder's private decode.  Other seats lack the key and cannot do this."""
    slot = state.pools[pool].slots[position]
    if slot.is_public:
        return slot.card  # type: ignore[return-value]
    if slot.holder != seat or slot.core is None:
        raise LookupError(f"seat {seat} does not hold {pool}[{position}]")
    card = state.table.decode(mul(scalar_invert(holder_key(keys, pool, position, slot)), slot.core))
    if card is None:
        raise DeckError(
            None,
            "decode",
            "held point is not a card: a shuffle was dishonest, run the audit",
            position,
        )
    return card


# --- release --------------------------------------------------------------------------------


def make_release(
    state: DeckState, keys: DeckKeys, seat: int, name: str, positions: list[int], to: int
) -> dict:
    return {
        "op": "release",
        "pool": name,
        "positions": list(positions),
        "to": to,
        "keys": [keys.lock_key(name, j) for j in positions],
    }


def handle_release(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    pool = state.locked_pool(msg.get("pool"), seat, "release")
    to = get_int(msg, "to", seat, "release")
    positions = get_list(msg, "positions", seat, "release")
    keys = get_list(msg, "keys", seat, "release")
    if to == seat or not PUBLIC <= to < state.seats:
        raise DeckError(seat, "release", f"bad recipient {to}")
    if len(keys) != len(positions) or len(set(map(repr, positions))) != len(positions):
        raise DeckError(seat, "release", "positions must be distinct and match the keys")
    for j, key in zip(positions, keys, strict=True):
        if type(j) is not int or not 0 <= j < len(pool.slots):
            raise DeckError(seat, "release", "position out of range")
        slot = pool.slots[j]
        if slot.is_public or slot.holder is not None or seat in slot.released:
            raise DeckError(seat, "release", "position is public, held, or already released", j)
        if slot.release_to is not None and slot.release_to != to:
            raise DeckError(seat, "release", f"position is being released to {slot.release_to}", j)
        check_scalar(key, seat, "release", j)
        if mul_base(key) != slot.commits[seat]:  # b_j·G = C_j, checked at once
            raise DeckError(seat, "release", "key does not match its commitment", j)
    for j, key in zip(positions, keys, strict=True):
        _add_release(state, pool.family, pool.slots[j], seat, key, to, j)


def _add_release(
    state: DeckState, family: str, slot: Slot, seat: int, key: bytes, to: int, j: int
) -> None:
    needed = state.seats if to == PUBLIC else state.seats - 1
    if len(slot.released) + 1 < needed:
        slot.released[seat] = key
        slot.release_to = to
        return
    plain = mul(scalar_invert(scalar_product([*slot.released.values(), key])), slot.point)
    if to == PUBLIC:
        slot.card = state.decode_public(family, plain, "release", j)
    else:
        slot.holder, slot.holder_commit, slot.core = to, slot.commits[to], plain
    slot.released[seat] = key
    slot.release_to = to


# --- play -------------------------------------------------------------------------------------


def make_play(state: DeckState, keys: DeckKeys, seat: int, name: str, position: int) -> dict:
    slot = state.pools[name].slots[position]
    return {
        "op": "play",
        "pool": name,
        "position": position,
        "key": holder_key(keys, name, position, slot),
        "card": decode_held(state, keys, seat, name, position),
    }


def handle_play(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    name, j, slot = _slot(state, msg, seat, "play")
    _held_by(slot, seat, "play", j)
    key = check_scalar(msg.get("key"), seat, "play", j)
    card = get_str(msg, "card", seat, "play")
    if mul_base(key) != slot.holder_commit:
        raise DeckError(seat, "play", "key does not match its commitment", j)
    if card not in state.table or mul(key, state.table.point_of[card]) != slot.core:
        actual = state.table.decode(mul(scalar_invert(key), slot.core))  # type: ignore[arg-type]
        raise DeckError(seat, "play", f"claimed {card!r} but the card is {actual!r}", j)
    state.make_public(state.pools[name].family, card, "play", j)
    slot.card = card
    slot.pending = None  # a transfer somebody had begun is void: the card is public now


# --- transfer ----------------------------------------------------------------------------------


def make_blind(
    state: DeckState, keys: DeckKeys, seat: int, seq: int, name: str, position: int
) -> dict:
    slot = state.pools[name].slots[position]
    t = keys.blind_key(name, position, slot.transfers)
    commit = mul_base(t)
    blinded = mul(t, slot.core)  # type: ignore[arg-type]
    ctx = proof_context(state.game_id, seq, state.seat_keys[seat], "blind", name, position)
    return {
        "op": "blind",
        "pool": name,
        "position": position,
        "commit": commit,
        "point": blinded,
        "proof": prove(t, BASE, commit, slot.core, blinded, ctx),  # type: ignore[arg-type]
    }


def handle_blind(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    name, j, slot = _slot(state, msg, seat, "blind")
    if slot.is_public or slot.holder is None or slot.holder == seat or slot.pending is not None:
        raise DeckError(seat, "blind", "card is not held by another seat, or busy", j)
    commit = check_point(msg.get("commit"), seat, "blind", j)
    blinded = check_point(msg.get("point"), seat, "blind", j)
    ctx = proof_context(state.game_id, seq, state.seat_keys[seat], "blind", name, j)
    if not verify(msg.get("proof"), BASE, commit, slot.core, blinded, ctx):  # type: ignore[arg-type]
        raise DeckError(seat, "blind", "DLEQ proof does not verify", j)
    state.history.append(BlindRecord(seat, name, j, slot.transfers, commit))
    slot.pending = PendingTransfer(seat, commit, blinded)


def make_cancel(name: str, position: int) -> dict:
    return {"op": "cancel", "pool": name, "position": position}


def handle_cancel(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    """The holder refuses a transfer somebody began: any seat may `blind` a held
    card (the game decides which transfers are legal), so a blind must never
    freeze the card in its holder's hand."""
    _, j, slot = held_slot(state, msg, seat, "cancel")
    if slot.pending is None:
        raise DeckError(seat, "cancel", "no transfer in progress", j)
    slot.pending = None


def make_unblind(
    state: DeckState, keys: DeckKeys, seat: int, seq: int, name: str, position: int
) -> dict:
    slot = state.pools[name].slots[position]
    k = holder_key(keys, name, position, slot)
    blinded = slot.pending.blinded  # type: ignore[union-attr]
    out = mul(scalar_invert(k), blinded)
    ctx = proof_context(state.game_id, seq, state.seat_keys[seat], "unblind", name, position)
    return {
        "op": "unblind",
        "pool": name,
        "position": position,
        "point": out,
        "proof": prove(k, BASE, slot.holder_commit, out, blinded, ctx),  # type: ignore[arg-type]
    }


def handle_unblind(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    name, j, slot = _slot(state, msg, seat, "unblind")
    _held_by(slot, seat, "unblind", j)
    pending = slot.pending
    if pending is None:
        raise DeckError(seat, "unblind", "no transfer in progress", j)
    out = check_point(msg.get("point"), seat, "unblind", j)
    ctx = proof_context(state.game_id, seq, state.seat_keys[seat], "unblind", name, j)
    if not verify(msg.get("proof"), BASE, slot.holder_commit, out, pending.blinded, ctx):  # type: ignore[arg-type]
        raise DeckError(seat, "unblind", "DLEQ proof does not verify", j)
    slot.holder, slot.holder_commit, slot.core = pending.to, pending.blind_commit, out
    slot.transfers += 1
    slot.pending = None
