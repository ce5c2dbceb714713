"""Public pool bookkeeping: create, split, merge.  No cryptography, no secrets.

A pool created from plain cards starts a *family*: every seat has one global
layer scalar per family and depth, so pools split from one family can be
merged again (their points carry the same layers) and re-shuffled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.model import Pool, get_list

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState


def create_message(pool: str, cards: list[str]) -> dict:
    return {"op": "create", "pool": pool, "cards": list(cards)}


def split_message(pool: str, into: list[str], sizes: list[int]) -> dict:
    return {"op": "split", "pool": pool, "into": list(into), "sizes": list(sizes)}


def merge_message(pools: list[str], into: str) -> dict:
    return {"op": "merge", "pools": list(pools), "into": into}


def handle_create(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    name = state.check_new_name(msg.get("pool"), seat, "create")
    cards = get_list(msg, "cards", seat, "create")
    if not cards or any(type(c) is not str for c in cards) or len(set(cards)) != len(cards):
        raise DeckError(seat, "create", "cards must be a non-empty list of distinct ids")
    for card in cards:
        if card not in state.table:
            raise DeckError(seat, "create", f"unknown card {card!r}")
    points = [state.table.point_of[c] for c in cards]
    state.pools[name] = Pool(name, name, points, [0] * state.seats)
    state.pools[name].public = dict(enumerate(cards))  # plain cards: everybody knows them
    state.public_cards[name] = set(cards)
    state.used_names.add(name)


def _splittable(state: DeckState, name: object, seat: int, op: str) -> Pool:
    pool = state.pool(name, seat, op)
    if not pool.shuffling or pool.opening:
        raise DeckError(seat, op, f"pool {pool.name!r} is locked or has an open in progress")
    return pool


def handle_split(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    pool = _splittable(state, msg.get("pool"), seat, "split")
    into = get_list(msg, "into", seat, "split")
    sizes = get_list(msg, "sizes", seat, "split")
    for name in into:
        state.check_new_name(name, seat, "split")
    if len(set(into)) != len(into) or len(into) != len(sizes) or not into:
        raise DeckError(seat, "split", "into and sizes must be non-empty, equal-length, distinct")
    if any(type(n) is not int or n < 1 for n in sizes):
        raise DeckError(seat, "split", "sizes must be positive integers")
    if sum(sizes) != len(pool.points):
        raise DeckError(seat, "split", f"sizes sum to {sum(sizes)}, pool has {len(pool.points)}")
    del state.pools[pool.name]
    start = 0
    for name, size in zip(into, sizes, strict=True):
        piece = Pool(name, pool.family, pool.points[start : start + size], list(pool.depth))
        piece.public = {i - start: c for i, c in pool.public.items() if start <= i < start + size}
        state.pools[name] = piece
        state.used_names.add(name)
        start += size


def handle_merge(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    names = get_list(msg, "pools", seat, "merge")
    into = state.check_new_name(msg.get("into"), seat, "merge")
    if len(names) < 2 or any(type(n) is not str for n in names) or len(set(names)) != len(names):
        raise DeckError(seat, "merge", "need at least two distinct pools")
    parts = [_splittable(state, n, seat, "merge") for n in names]
    first = parts[0]
    for part in parts[1:]:
        # Points can only be mixed if they carry exactly the same layers.
        if part.family != first.family or part.depth != first.depth:
            raise DeckError(
                seat, "merge", f"pools {first.name!r} and {part.name!r} carry different layers"
            )
    merged = Pool(into, first.family, [], list(first.depth))
    for part in parts:
        merged.public.update({len(merged.points) + i: c for i, c in part.public.items()})
        merged.points.extend(part.points)
        del state.pools[part.name]
    state.pools[into] = merged
    state.used_names.add(into)
