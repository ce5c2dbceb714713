"""Harnesses that drive whole games in memory: for tests, benchmarks, the fuzzer and the vector
generator, never for the product (nothing outside them imports this package).

* ``sessions.SessionHarness`` — seats' real ``Session`` objects passing event bytes to each
  other, with every delivery under the caller's control (drop, delay, corrupt, reorder);
* ``decks.DeckHarness`` — seats' ``DeckSeat``/``DeckState`` replicas doing deck work in seat
  order, with a hook to make one seat cheat.
"""
