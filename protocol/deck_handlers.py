"""Operation name -> check-and-apply function, for DeckState.apply."""

from __future__ import annotations

from creepnet.protocol.deck_audit import handle_reveal
from creepnet.protocol.deck_hidden import handle_blind, handle_play, handle_release, handle_unblind
from creepnet.protocol.deck_ops import handle_lock, handle_open, handle_shuffle
from creepnet.protocol.deck_pools import handle_create, handle_merge, handle_split
from creepnet.protocol.deck_state import Handler, handle_join

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
    "reveal": handle_reveal,
}
