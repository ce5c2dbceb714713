"""Property test: random seat counts, pool sizes and operation sequences keep every
seat's private view, the public view and the audit consistent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol.testing.decks import DeckHarness

ops = st.lists(
    st.tuples(
        st.sampled_from(["draw", "reveal", "play", "transfer"]),
        st.integers(0, 63),
        st.integers(0, 3),
    ),
    max_size=10,
)


@settings(max_examples=30, deadline=None)
@given(
    seats=st.integers(2, 4),
    size=st.integers(1, 9),
    cut=st.integers(1, 8),
    split=st.booleans(),
    reshuffles=st.lists(st.integers(0, 3), max_size=3),
    script=ops,
)
def test_random_games_stay_consistent(
    seats: int, size: int, cut: int, split: bool, reshuffles: list[int], script: list
) -> None:
    """Every step of a random game (each shuffle with its proof) is accepted, and the
    private and public views agree with the audit."""
    cards = [f"c{i}" for i in range(size)]
    table = DeckHarness(seats, cards, shared_state=True)
    table.create("all", cards)
    table.shuffle("all")
    pool = "all"
    if split and size >= 2:  # split anywhere, re-shuffle both parts by one seat, merge back
        cut = 1 + cut % (size - 1)
        table.split("all", ["x", "y"], [cut, size - cut])
        table.shuffle("x", [seats - 1])
        table.shuffle("y", [seats - 1])
        table.merge(["y", "x"], "deck")
        pool = "deck"
    for seat in reshuffles:  # owners' re-shuffles: deeper layers, still proven
        table.shuffle(pool, [seat % seats])
    table.lock(pool)
    slots = table.state.pools[pool].slots
    seen: dict[int, str] = {}  # position -> card, as learned by its holders / publicly
    for op, pos, who in script:
        j, seat = pos % size, who % seats
        slot = slots[j]
        if op == "draw" and slot.holder is None and not slot.is_public and not slot.released:
            table.draw(pool, [j], seat)
            seen[j] = table.players[seat].decode(pool, j)
        elif op == "reveal" and slot.holder is None and not slot.is_public and not slot.released:
            (seen[j],) = table.reveal(pool, [j])
        elif op == "play" and slot.holder is not None and not slot.is_public:
            assert table.play(slot.holder, pool, j) == seen[j]
        elif op == "transfer" and slot.holder not in (None, seat) and not slot.is_public:
            table.transfer(pool, j, seat)
            assert table.players[seat].decode(pool, j) == seen[j]
        for s in range(seats):  # only the holder (or everybody, if public) can decode
            if slot.holder is not None and not slot.is_public:
                assert table.players[s].holds(pool, j) == (s == slot.holder)
    claims = [{"seat": 0, "pool": pool, "position": j, "card": c} for j, c in seen.items()]
    report = table.finish(claims)
    assert sorted(report.cards.values()) == sorted(cards)
    for j, card in seen.items():
        assert report.cards[(pool, j)] == card
