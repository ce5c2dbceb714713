"""DeckState.fork: what a fork changes never reaches the state it was forked from (issue 21)."""

from __future__ import annotations

from functools import cache

from conftest import deep_copy

from creepnet.protocol.digest import state_digest
from creepnet.protocol.games.racer.schedule import RacerGame
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot


def racer_game_midway() -> RacerGame:
    """A game of its own for each test (they change it): a deep copy of one played once."""
    return deep_copy(_played_midway())


@cache
def _played_midway() -> RacerGame:
    table = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 4}, seed=5, onion_length=256
    )
    players = [seat_bot("racer", "random", seat) for seat in range(2)]
    while len(table.spectator.log) < 120 and table.step(players):
        pass
    return table.spectator.game_state


def test_every_pool_and_slot_a_fork_touches_is_its_own() -> None:
    game = racer_game_midway()
    before = state_digest(game)
    fork = game.fork()
    for pool in fork.deck.pools.values():
        pool.shuffles += 1
        pool.points.append(b"x")
        pool.public[999] = "x"
        for slot in pool.slots:
            slot.released[99] = b"x"
            slot.commits.append(b"x")
    fork.deck.history.append(None)  # type: ignore[arg-type]
    fork.deck.public_cards.setdefault("cards", set()).add("x")
    fork.where[10_000] = ("x", 0)
    assert state_digest(game) == before
    assert state_digest(fork) != before


def test_an_attribute_the_fork_does_not_know_is_deep_copied() -> None:
    """A field added to DeckState later (as escrow is) is safe before it gets a cheap copy."""
    game = racer_game_midway()
    game.deck.later = {"bundles": [b"a"]}  # type: ignore[attr-defined]
    fork = game.deck.fork()
    fork.later["bundles"].append(b"b")  # type: ignore[attr-defined]
    assert game.deck.later == {"bundles": [b"a"]}  # type: ignore[attr-defined]


def test_a_copied_pool_or_slot_shares_no_list_map_or_set() -> None:
    """Pool.copy and Slot.copy name their containers one by one (they run for every event):
    a container field added later and not copied there fails here."""
    game = racer_game_midway()
    pools = list(game.deck.pools.values())
    slots = [slot for pool in pools for slot in pool.slots]
    assert slots, "no locked pool yet"
    for original in [*pools, *slots]:
        twin = original.copy()
        for name, value in vars(original).items():
            if isinstance(value, list | dict | set):
                assert getattr(twin, name) is not value, f"{type(original).__name__}.{name}"
