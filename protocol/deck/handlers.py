"""Operation name -> check-and-apply function, for DeckState.apply.

The operation modules see DeckState only as a type, so the state can own this table without an
import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from creepnet.protocol.deck import escrowing
from creepnet.protocol.deck.audit import handle_reveal
from creepnet.protocol.deck.classproof import handle_class
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.hidden import (
    handle_blind,
    handle_cancel,
    handle_play,
    handle_release,
    handle_unblind,
)
from creepnet.protocol.deck.model import get
from creepnet.protocol.deck.noneof import handle_none_of
from creepnet.protocol.deck.ops import handle_lock, handle_open, handle_shuffle
from creepnet.protocol.deck.pools import handle_create, handle_merge, handle_split

if TYPE_CHECKING:
    from creepnet.protocol.deck.state import DeckState

Handler = Callable[["DeckState", int, int, dict], None]


def handle_join(state: DeckState, seat: int, seq: int, msg: dict) -> None:
    """Join data: the commitment to the seat's deck secret, before any deck work, and in a game
    with escrow the seat's escrow keys (deck/escrowing)."""
    if state.joins[seat] is not None:
        raise DeckError(seat, "join", "already joined")
    commit = get(msg, "commit", bytes, seat, "join")
    if len(commit) != 32:
        raise DeckError(seat, "join", "commitment must be 32 bytes")
    escrow_keys = escrowing.check_join(state, seat, msg)
    state.joins[seat] = commit
    escrowing.record_join(state, seat, escrow_keys)


HANDLERS: dict[str, Handler] = {
    "join": handle_join,
    "create": handle_create,
    "split": handle_split,
    "merge": handle_merge,
    "shuffle": handle_shuffle,
    "open": handle_open,
    "lock": handle_lock,
    "release": handle_release,
    "play": handle_play,
    "blind": handle_blind,
    "unblind": handle_unblind,
    "cancel": handle_cancel,
    "class": handle_class,
    "none_of": handle_none_of,
    "reveal": handle_reveal,
    "complain": escrowing.handle_complain,
    "recover": escrowing.handle_recover,
    "refresh": escrowing.handle_refresh,
}
