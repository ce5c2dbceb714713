"""What the node tells its update stream about each game: every new event, whom the game waits
for, seated, game over — each fact once, when it changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from creepnet.node import updates
from creepnet.node.game import GameRuntime
from creepnet.node.peer import Peer
from creepnet.node.storage import StorageError
from creepnet.node.updates import Broadcaster, Update
from creepnet.protocol.event import Event
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.session import Session


class Reporter:
    def __init__(self, broadcaster: Broadcaster) -> None:
        self.broadcaster = broadcaster

    def publish(
        self,
        kind: str,
        text: str,
        game: bytes | None = None,
        peer: Peer | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.broadcaster.publish(
            Update(kind, text, game, peer.fingerprint if peer else None, data or {})
        )

    def fault(
        self, where: str, exc: BaseException, peer: Peer | None = None, game: bytes | None = None
    ) -> None:
        """An unexpected exception, contained (the peer it came from is dropped, the node goes
        on): logged with its traceback, and published as an ``error`` naming the peer's key."""
        who = f" from {peer.label}" if peer is not None else ""
        updates.log.error("%s fault %s%s", self.broadcaster.label, where, who, exc_info=exc)
        data: dict[str, Any] = {"fault": type(exc).__name__}
        if peer is not None:
            data["key"] = peer.key
        text = f"internal error {where}{who}: {type(exc).__name__}: {str(exc)[:200]}"
        text += "; dropped that peer" if peer is not None else ""
        self.publish(updates.ERROR, text, game, peer, data)

    def save_hint(self, runtime: GameRuntime, write: Callable[[], None]) -> None:
        """Write something only a restart needs (peers, port): on failure say so; play goes on."""
        try:
            write()
        except StorageError as exc:
            self.publish(updates.STORAGE_ERROR, str(exc), runtime.game)

    def announce(self, runtime: GameRuntime, wake: bool = True) -> None:
        """Publish events not yet announced and whom the game waits for; wake waiters."""
        session = runtime.session
        for event in session.log.events[runtime.published :]:
            self.publish(
                updates.EVENT,
                describe_event(session, event),
                runtime.game,
                data={"seq": event.seq, "type": event.type},
            )
        runtime.published = len(session.log)
        self._report(runtime)
        if wake:
            runtime.notify()

    def note(self, runtime: GameRuntime, key: str, text: str, kind: str) -> None:
        """Publish once per distinct value (waiting-for, game over...)."""
        if runtime.reported.get(key) != text:
            runtime.reported[key] = text
            self.publish(kind, text, runtime.game)

    def _report(self, runtime: GameRuntime) -> None:
        session = runtime.session
        if session.local_seat is not None:
            self.note(
                runtime,
                "seated",
                f"seated at {session.seat_label(session.local_seat)}",
                updates.SEATED,
            )
        if session.finished:
            self.note(runtime, "over", f"game over: {session.outcome_text}", updates.GAME_OVER)
            return
        waiting = session.waiting_for()
        if waiting is not None:
            self.note(
                runtime,
                "waiting",
                f"{waiting.describe()} (since #{waiting.since_seq})",
                updates.WAITING,
            )
            if session.my_turn() is not None:
                self.note(runtime, "turn", f"your turn (#{len(session.log)})", updates.YOUR_TURN)


def describe_event(session: Session, event: Event) -> str:
    seat = next((i for i, s in enumerate(session.seats) if s.key == event.author), None)
    who = f"seat {seat}" if seat is not None else fingerprint(event.author)
    # A game's own words for what happened: a Creeper move, a Racer action or deck operation.
    detail = {"move": "move", "act": "action", "deck": "op"}.get(event.type)
    detail = event.body.get(detail, "") if detail else ""
    detail = detail if isinstance(detail, str) else ""
    return f"#{event.seq} {event.type} {detail} by {who}".replace("  ", " ")
