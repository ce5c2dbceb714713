"""DeckState.fork copies the escrow book: a message applied to a fork (as the session does with
every event) never changes the original's escrow, whether the message is accepted there or
refused.  Before the fix the fork shared the book, so a recovery share or a refresh on a fork
whose event was then rejected by the game stayed in the session's own state."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import pytest

from creepnet.protocol.deck import DeckError, DeckSeat, DeckState, create_message
from creepnet.protocol.deck.escrow import ScalarId
from creepnet.protocol.deck.escrowing import complaint_message, recover_message, refresh_message
from creepnet.protocol.digest import state_digest

CARDS = [f"c{i}" for i in range(6)]


class Deck:
    def __init__(self, seats: int = 4) -> None:
        game, keys = secrets.token_bytes(16), [secrets.token_bytes(32) for _ in range(seats)]
        self.state = DeckState(game, keys, CARDS, escrow=True)
        self.players = [DeckSeat(self.state, s) for s in range(seats)]
        self.seq = 0
        for p in self.players:
            self.post(p.seat, lambda q, p=p: p.join())
        self.post(0, lambda q: create_message("deck", CARDS))
        for p in self.players:
            self.post(p.seat, lambda q, p=p: p.shuffle(q, "deck"))

    def post(self, seat: int, make: Callable[[int], dict], state: DeckState | None = None) -> None:
        self.seq += 1
        (state or self.state).apply(seat, self.seq, make(self.seq))


def _book_digest(state: DeckState) -> bytes:
    # The book's declared fields, as Session.state_digest walks it: an attribute beside them is
    # a memo of what they say (EscrowBook.stale_dealers), which a refused message may fill in.
    return state_digest(state.escrow)


def _applied_to_a_fork_only(deck: Deck, seat: int, message: dict) -> None:
    before = _book_digest(deck.state)
    fork = deck.state.fork()
    deck.post(seat, lambda q: message, fork)
    assert _book_digest(fork) != before  # the fork took it ...
    assert _book_digest(deck.state) == before  # ... and the original is as it was


def test_a_recovery_and_a_refresh_on_a_fork_leave_the_original_escrow_book_as_it_was() -> None:
    deck = Deck()
    deck.state.retire(3)
    layer = ScalarId("layer", "deck", 1)
    me = deck.players[0]
    _applied_to_a_fork_only(deck, 0, recover_message(deck.state, me.keys, 0, 3, [layer]))
    _applied_to_a_fork_only(deck, 0, refresh_message(deck.state, me.keys, 0))


def test_a_retirement_on_a_fork_stays_there() -> None:
    deck = Deck()
    fork = deck.state.fork()
    fork.retire(2)
    assert deck.state.escrow is not None and deck.state.escrow.retired == set()


def test_a_lock_on_a_fork_keeps_its_bundles_there() -> None:
    deck = Deck()
    message = deck.players[0].lock(deck.seq + 1, "deck")
    _applied_to_a_fork_only(deck, 0, message)


@pytest.mark.parametrize("what", ["complain", "recover", "refresh", "lock"])
def test_a_refused_escrow_message_leaves_the_escrow_book_unchanged(what: str) -> None:
    deck = Deck()
    me = deck.players[1]
    if what == "complain":  # a false complaint about a good share names its author
        message = complaint_message(deck.state, me.keys, 1, 0, ScalarId("layer", "deck", 1))
    elif what == "recover":  # seat 0 is not retired
        message = recover_message(deck.state, me.keys, 1, 0, [ScalarId("layer", "deck", 1)])
    elif what == "refresh":  # nothing is due
        message = {"op": "refresh", "escrow": []}
    else:  # a lock whose first bundle is another position's
        message = me.lock(deck.seq + 1, "deck")
        message["escrow"] = [message["escrow"][1], *message["escrow"][1:]]
    with pytest.raises(DeckError):  # warms the escrows' cached framings (memos, not state)
        deck.post(1, lambda q: message, deck.state.fork())
    before = _book_digest(deck.state)
    for state in (deck.state, deck.state.fork()):
        with pytest.raises(DeckError) as err:
            deck.post(1, lambda q: message, state)
        assert err.value.seat == 1
        assert _book_digest(deck.state) == before
