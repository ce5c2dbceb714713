"""Reloading a stored game at start: drop a torn tail, replay and re-verify every event.

Our own file holds only events the session accepted, so a bad one means the file was damaged:
keep the verified prefix and say so loudly.  Owed events (a reveal cut off by a crash) are
authored again by the ledger afterwards; they are deterministic, so no equivocation follows.
"""

from __future__ import annotations

import trio

from creepnet.node import updates
from creepnet.node.reporter import Reporter
from creepnet.node.storage import GameStore
from creepnet.protocol.identity import Identity
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session


async def load_session(
    store: GameStore, game: bytes, identity: Identity, reporter: Reporter
) -> tuple[Session, int]:
    """The game's session rebuilt from store, and how many events of it are stored."""
    raws = await trio.to_thread.run_sync(store.load)
    if store.dropped_tail:
        reporter.publish(
            updates.ERROR,
            f"dropped a torn tail of {store.dropped_tail} bytes "
            "(an append cut short by a crash; it was never acknowledged)",
            game,
        )
    if store.broken is not None:  # a damaged byte, not a torn append: cut and kept, said loudly
        kept = await trio.to_thread.run_sync(store.truncate_events, raws)
        reporter.publish(
            updates.ERROR,
            f"stored log unreadable at {store.broken.describe()}; keeping the {len(raws)} "
            f"events before it ({kept})",
            game,
        )
    secrets = _seat_secrets(store, game, reporter)
    player = identity if secrets else None
    while True:
        try:
            if raws:
                return Session.from_log(raws, player, secrets), len(raws)
            return Session.follow(game, player, secrets), 0
        except Rejection as exc:
            keep = exc.seq if exc.seq is not None and exc.seq < len(raws) else 0
            raws = raws[:keep]
            kept = await trio.to_thread.run_sync(store.truncate_events, raws)
            reporter.publish(
                updates.ERROR,
                f"stored log invalid at {exc.describe()}; keeping the {keep} events before it "
                f"({kept})",
                game,
            )


def _seat_secrets(store: GameStore, game: bytes, reporter: Reporter) -> SeatSecrets | None:
    """This seat's secrets, or None.  A damaged file (a disk that filled mid-write, a bad
    sector) costs this seat only: the game is followed without them, the file is left for
    whoever can mend it, and every other game of the home opens as usual."""
    try:
        data = store.load_secrets()
        if not data:
            return None
        return SeatSecrets.from_bytes(data)
    except (OSError, ValueError) as exc:  # unreadable (a failing disk), or CodecError
        reporter.publish(
            updates.ERROR,
            f"the seat secrets in {store.secrets_path} are damaged ({exc}); following the "
            "game without them: this node cannot act for its seat",
            game,
        )
        return None
