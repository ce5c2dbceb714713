"""One game held by a node: its session, its store, who follows it, and a change signal."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import trio

from creepnet.node.peer import Peer
from creepnet.node.storage import GameStore
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session

ACTIVE = ("lobby", "playing")  # unfinished: worth redialling and advertising


@dataclass(frozen=True)
class PassedOn:
    """Events this relay passed on before checking them: ``raws`` from seq ``start``, to the
    followers ``peers`` (keys).  Once stored they are not sent to those peers again."""

    start: int = 0
    raws: tuple[bytes, ...] = ()
    peers: frozenset[bytes] = frozenset()

    @property
    def end(self) -> int:
        return self.start + len(self.raws)

    def already(self, peer: bytes, start: int, raws: list[bytes]) -> int:
        """How many of the leading ``raws`` (from seq ``start``) ``peer`` was passed on."""
        if peer not in self.peers:
            return 0
        offset, count = start - self.start, 0
        while (
            count < len(raws)
            and 0 <= offset + count < len(self.raws)
            and self.raws[offset + count] == raws[count]
        ):
            count += 1
        return count


@dataclass(frozen=True)
class Fetch:
    """We asked ``key`` for the events from ``start`` (``get``) and wait until ``until``."""

    start: int
    key: bytes
    until: float


@dataclass
class GameRuntime:
    session: Session
    store: GameStore
    stored: int = 0  # events durably in the log file: only these are ever sent or acknowledged
    published: int = 0  # events announced on the update stream (may run ahead of `stored`)
    # Everything that touches the session or the file holds this lock, so the file is always
    # the session's log in order, and events are gossiped in order.
    lock: trio.Lock = field(default_factory=trio.Lock)
    followers: dict[bytes, Peer] = field(default_factory=dict)  # peers of this game, by key
    # Followers gone, oldest first (bounded, sync.MAX_DEPARTED): one that comes is back.
    departed: dict[bytes, None] = field(default_factory=dict)
    acked: dict[bytes, int] = field(default_factory=dict)  # events each peer says it has stored
    dial: set[str] = field(default_factory=set)  # addresses to stay connected to for this game
    changed: trio.Event = field(default_factory=trio.Event)
    join_refused: str | None = None
    # Keys that may take the free seats (a rematch keeps them for the last game's players);
    # empty: anyone.  Stored with the game (GameStore.save_reserved), so a restart keeps them.
    reserved_for: frozenset[bytes] = frozenset()
    storage_error: str | None = None
    retrying_storage: bool = False  # a task retries the held-back append with back-off
    reported: dict[str, Any] = field(default_factory=dict)  # what the update stream last said
    passed_on: PassedOn = PassedOn()  # the last events passed on (sync.py, _pass_on)
    # Catch-up from any peer (sync.py): where the batches being checked end (so a peer's
    # `have` that crossed them asks nobody for them), and the one `get` we wait on.
    incoming: list[tuple[int, int]] = field(default_factory=list)
    fetching: Fetch | None = None
    # Peer key -> the position whose event that peer sent us and we must not take (kept aside
    # as a retirement's evidence: the peer accepted it, so it holds no other).  Asking it again
    # from there only brings the same tail back, all of it waste; whatever makes such an event
    # usable again (an objection voiding our vote, say) must clear this.  A refused event is
    # not marked: an honest relay that passed it on may get the right one later.
    unusable: dict[bytes, int] = field(default_factory=dict)
    # Retirements a replay found wrong where we had taken the retired seat's move
    # (node/overtaken.py), by event id: refused again without another replay of the log.
    overtakers_refused: dict[bytes, Rejection] = field(default_factory=dict)
    # Positions whose retired seat we answered its late move with the log (sync.py, _late):
    # once each, or one seat could sign move after move there and have a batch sent for each.
    late_answered: set[int] = field(default_factory=set)

    @property
    def game(self) -> bytes:
        assert self.session.game is not None
        return self.session.game

    @property
    def host_key(self) -> bytes | None:
        """The key that signed the genesis (None until we have it)."""
        events = self.session.log.events
        return events[0].author if events else None

    @property
    def hosted(self) -> bool:
        """We signed the genesis (seat 0): we admit joiners and advertise the game."""
        session = self.session
        return (
            bool(session.log.events)
            and session.identity is not None
            and (session.log.events[0].author == session.identity.public_key)
        )

    @property
    def state(self) -> str:
        session = self.session
        if session.halted is not None:
            return "halted"
        if session.finished:
            return "finished"
        if session.abandoned is not None:  # over, with no result: not one to advertise or redial
            return "abandoned"
        return "playing" if session.started else "lobby"

    def reached(self, key: bytes, seq: int) -> bool:
        """Whether key is known to hold event seq: it acknowledged it to us, or signed a later
        event (each event links to the one before it, so its author had them all)."""
        if self.acked.get(key, 0) > seq:
            return True
        return any(event.author == key for event in self.session.log.events[seq + 1 :])

    def gave_unusable(self, key: bytes) -> bool:
        """Whether key already sent us the event at our head, and we must not take it."""
        return self.unusable.get(key) == len(self.session.log)

    def covered(self, seq: int) -> bool:
        """Whether a batch being checked holds event seq."""
        return any(start <= seq < end for start, end in self.incoming)

    def synced(self) -> bool:
        """Every event of our log is stored and every connected follower has acknowledged it.
        Stored alone would do while the ledger is still writing the last events (an event the
        session took is not yet stored, so not yet sent): a node that left then would keep
        them from the others for good."""
        stored = self.stored == len(self.session.log)
        return stored and all(self.acked.get(key, 0) >= self.stored for key in self.followers)

    def save_dial(self) -> None:
        """Remember the addresses to redial, for the next start (raises StorageError)."""
        self.store.save_peers(sorted(self.dial))

    def notify(self) -> None:
        """Wake everyone waiting for this game to change."""
        self.changed.set()
        self.changed = trio.Event()

    def describe(self) -> dict[str, Any]:
        """This game's entry in a `games` reply.  ``nonce`` is the genesis nonce: with the
        lister's key it rebuilds the game id, so a joiner knows the lister hosts the game."""
        session = self.session
        events = session.log.events
        return {
            "nonce": events[0].body.get("nonce") if events else None,
            "game": self.game,
            "kind": session.kind,
            "name": session.name,
            "seats": session.seat_count,
            "taken": len(session.seats),
            "state": self.state,
            "length": self.stored,
        }


def hosted_active(games: dict[bytes, GameRuntime]) -> list[GameRuntime]:
    """Our unfinished hosted games: advertised, and served where their players look for them."""
    return [rt for rt in games.values() if rt.hosted and rt.state in ACTIVE]


def games_at(games: dict[bytes, GameRuntime], address: str) -> list[GameRuntime]:
    """The unfinished games that need the node at address."""
    return [rt for rt in games.values() if address in rt.dial and rt.state in ACTIVE]
