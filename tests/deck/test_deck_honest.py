"""Honest multi-seat runs of the encrypted deck: draws, plays, transfers, audit."""

from __future__ import annotations

import pytest

from creepnet.protocol.deck import PUBLIC
from creepnet.protocol.deck.group import mul, scalar_invert
from creepnet.protocol.deck.model import Slot
from creepnet.protocol.testing.decks import DeckHarness

CREEPS = [f"creep-{i}" for i in range(12)]
OTHERS = [f"card-{i}" for i in range(24)]


def _known_keys_can_decode(table: DeckHarness, seat: int, slot: Slot) -> bool:
    """Everything `seat` could try on a slot's public core: its own keys, every
    released key, and nothing (the core itself)."""
    keys = table.players[seat].keys
    tries = [slot.core] + [mul(scalar_invert(k), slot.core) for k in slot.released.values()]
    for pool in table.state.pools:
        for j in range(len(table.state.pools[pool].points)):
            tries.append(mul(scalar_invert(keys.lock_key(pool, j)), slot.core))
    return any(table.state.table.decode(p) is not None for p in tries)


def _racer_setup(seats: int) -> DeckHarness:
    """Creepy-Racer-like deal: one family; creeps and play pile shuffled by all,
    face-up creeps opened, each seat's face-down creeps + play share merged,
    re-shuffled by the owner, locked."""
    table = DeckHarness(seats, CREEPS + OTHERS + ["joker"])
    table.create("all", CREEPS + OTHERS)
    table.split("all", ["creeps", "play"], [len(CREEPS), len(OTHERS)])
    table.shuffle("creeps")
    table.shuffle("play")
    per = len(CREEPS) // seats
    share = len(OTHERS) // seats
    table.split("creeps", [f"creeps{s}" for s in range(seats)], [per] * seats)
    table.split("play", [f"share{s}" for s in range(seats)], [share] * seats)
    face_up = table.open("creeps0", 0)
    assert face_up in CREEPS
    for s in range(seats):
        table.merge([f"creeps{s}", f"share{s}"], f"draw{s}")
        table.shuffle(f"draw{s}", [s])
        table.lock(f"draw{s}")
    return table


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_honest_game(seats: int) -> None:
    table = _racer_setup(seats)
    drawn: dict[int, list[str]] = {}
    for s in range(seats):
        pool = f"draw{s}"
        table.draw(pool, [1, 2, 3], s)
        me = table.players[s]
        drawn[s] = [me.decode(pool, j) for j in (1, 2, 3)]
        for other in range(seats):
            if other != s:
                assert not table.players[other].holds(pool, 1)
                with pytest.raises(LookupError):
                    table.players[other].decode(pool, 1)
                slot = table.states[other].pools[pool].slots[1]
                assert not _known_keys_can_decode(table, other, slot)
    all_drawn = [c for cards in drawn.values() for c in cards]
    assert len(set(all_drawn)) == len(all_drawn)
    assert set(all_drawn) <= set(CREEPS + OTHERS)

    # a public play decodes for everybody, and matches what the holder saw
    assert table.play(0, "draw0", 1) == drawn[0][0]
    assert all(st.pools["draw0"].slots[1].card == drawn[0][0] for st in table.states)

    # a public reveal of an undrawn slot
    (shown,) = table.reveal("draw1", [4])
    assert all(st.pools["draw1"].slots[4].card == shown for st in table.states)

    # transfer seat 0's hidden card to seat 1 (Hostage Exchange)
    table.transfer("draw0", 2, 1)
    assert table.players[1].decode("draw0", 2) == drawn[0][1]
    with pytest.raises(LookupError):
        table.players[0].decode("draw0", 2)  # A knew it already, but no longer holds it
    for other in range(2, seats):
        slot = table.states[other].pools["draw0"].slots[2]
        assert not _known_keys_can_decode(table, other, slot)
    # and the receiver can play it
    assert table.play(1, "draw0", 2) == drawn[0][1]

    claims = [
        {"seat": s, "pool": f"draw{s}", "position": 3, "card": drawn[s][2]} for s in range(seats)
    ]
    claims.append({"seat": 0, "pool": "draw0", "position": 1, "none_of": ["joker"]})
    report = table.finish(claims)
    assert report.cards[("draw0", 2)] == drawn[0][1]
    assert sorted(report.cards.values()) == sorted(CREEPS + OTHERS)


def test_transfer_chain_and_public_release() -> None:
    cards = [f"c{i}" for i in range(8)]
    table = DeckHarness(3, cards)
    table.create("d", cards)
    table.shuffle("d")
    table.lock("d")
    table.draw("d", [0], 2)
    card = table.players[2].decode("d", 0)
    table.transfer("d", 0, 0)
    table.transfer("d", 0, 1)
    table.transfer("d", 0, 2)
    assert table.players[2].decode("d", 0) == card
    assert table.state.pools["d"].slots[0].transfers == 3
    assert table.reveal("d", [5, 6])[0] in cards
    assert table.state.pools["d"].slots[5].release_to == PUBLIC
    report = table.finish([{"seat": 2, "pool": "d", "position": 0, "card": card}])
    assert len(report.cards) == 8


def test_messages_are_msgpack_plain() -> None:
    msgpack = pytest.importorskip("msgpack")
    table = DeckHarness(2, [f"c{i}" for i in range(6)])
    table.create("d", [f"c{i}" for i in range(6)])
    table.shuffle("d")
    table.open("d", 0)
    table.lock("d")
    table.draw("d", [1], 0)
    table.transfer("d", 1, 1)
    table.play(1, "d", 1)
    table.finish()
    for _, _, message in table.log:
        assert msgpack.unpackb(msgpack.packb(message), raw=False) == message
