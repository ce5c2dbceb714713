"""A table of in-memory sessions passing event bytes to each other: no network, full control.

Tests and benchmarks drive whole games through the real session code and can corrupt, drop,
delay, duplicate or reorder any delivery.  Everything is deterministic given the seed.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from creepnet.protocol.event import Event
from creepnet.protocol.games import get_game
from creepnet.protocol.identity import Identity
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session

SPECTATOR = -1


@dataclass
class Delivery:
    sender: int
    receiver: int  # a seat index, or SPECTATOR
    raw: bytes


# A tamper hook sees every delivery and returns the byte strings actually delivered:
# [d.raw] to pass it on, [] to drop it, [d.raw, d.raw] to duplicate it, or altered bytes.
Tamper = Callable[[Delivery], list[bytes]]
Player = Callable[[Session], str]


def _derive(seed: int, label: str, index: int) -> bytes:
    return hashlib.sha256(f"creepnet/table/{seed}/{label}/{index}".encode()).digest()


@dataclass
class SessionHarness:
    seats: int = 2
    kind: str = "creeper"
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    shuffle_deliveries: bool = False
    tamper: Tamper | None = None
    onion_length: int = 64

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.identities = [
            Identity.from_seed(_derive(self.seed, "key", i)) for i in range(self.seats)
        ]
        self.secrets = [
            SeatSecrets(_derive(self.seed, "onion", i), _derive(self.seed, "deck", i))
            for i in range(self.seats)
        ]
        host = Session.host(
            self.identities[0],
            self.secrets[0],
            kind=self.kind,
            name="table",
            seats=self.seats,
            player="p0",
            options=self.options,
            onion_length=self.onion_length,
            nonce=_derive(self.seed, "game", 0)[:16],
        )
        self.sessions = [host]
        self.spectator = Session.follow(host.game)  # type: ignore[arg-type]
        self.queue: list[Delivery] = []
        self.rejections: list[tuple[int, Rejection]] = []
        self.broadcast(0, host.log.events)
        for seat in range(1, self.seats):
            joiner = Session.follow(host.game, self.identities[seat], self.secrets[seat])  # type: ignore[arg-type]
            for event in host.log.events:
                joiner.receive(event.raw)
            self.sessions.append(joiner)
            self.broadcast(0, [host.admit(joiner.join_request(f"p{seat}"))])
            self.pump()

    @property
    def everyone(self) -> list[tuple[int, Session]]:
        return [*enumerate(self.sessions), (SPECTATOR, self.spectator)]

    def broadcast(self, sender: int, events: list[Event]) -> None:
        for event in events:
            for receiver, _ in self.everyone:
                if receiver != sender:
                    self.queue.append(Delivery(sender, receiver, event.raw))

    def session_of(self, receiver: int) -> Session:
        return self.spectator if receiver == SPECTATOR else self.sessions[receiver]

    def pump(self) -> int:
        """Deliver everything queued (in random order if asked); returns deliveries made."""
        delivered = 0
        while self.queue:
            index = self.rng.randrange(len(self.queue)) if self.shuffle_deliveries else 0
            delivery = self.queue.pop(index)
            payloads = self.tamper(delivery) if self.tamper else [delivery.raw]
            for raw in payloads:
                receipt = self.session_of(delivery.receiver).receive(raw)
                self.rejections.extend((delivery.receiver, r) for r in receipt.rejections)
                delivered += 1
        return delivered

    def resend_all(self) -> None:
        """Every seat re-sends its whole log to everyone: the in-memory form of catch-up."""
        for sender, session in enumerate(self.sessions):
            self.broadcast(sender, session.log.events)

    def step(self, players: list[Player]) -> bool:
        """Let every seat send what it owes and, on its turn, decide; True if anything happened."""
        progressed = False
        for seat, session in enumerate(self.sessions):
            owed = session.owed()
            if session.my_turn() is not None:
                owed.append(session.play(players[seat](session)))
            if owed:
                self.broadcast(seat, owed)
                progressed = True
        return self.pump() > 0 or progressed

    def run(self, players: list[Player], max_rounds: int = 100_000) -> None:
        for _ in range(max_rounds):
            if all(s.finished or s.halted for s in self.sessions) and not self.queue:
                return
            if not self.step(players):
                return


class SeatBotPlayer:
    """A Player that asks a game's bot for the session's local seat.  An object, not a closure,
    so that ``copy.deepcopy`` of a table's players copies the bots' state too: the copy goes on
    choosing exactly as the original would have (tests fork one game into several)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def __call__(self, session: Session) -> str:
        seat = session.local_seat
        assert seat is not None, "a seat bot plays a seated session"
        return self.bot.choose(session.local_view(), seat)


def seat_bot(kind: str, name: str = "random", seed: int = 0) -> Player:
    """A Player that asks the game's registered bot for the session's local seat."""
    return SeatBotPlayer(get_game(kind).make_bot(name, seed))


def creeper_bot(name: str = "random", seed: int = 0) -> Player:
    return seat_bot("creeper", name, seed)
