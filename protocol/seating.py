"""The lobby side of a session: the genesis that founds a game and the ``seat`` events that fill it.

A genesis binds the game id to its host: the id is SHA-256(domain, host key, nonce), so nobody
else can sign a genesis for it, and a follower that learned the host's key from a listing pins it.
A ``seat`` event carries the joiner's own signed join request (protocol/lobby.py), which names the
game, the genesis id and the seat, so a host can neither invent a player nor replay a request into
another game or seat.  Both checks are pure: they read an event and return what it establishes,
or raise; the session applies the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from creepnet.protocol import onion
from creepnet.protocol.event import Event
from creepnet.protocol.games import GAMES
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.lobby import (
    GAME_NONCE_SIZE,
    JoinError,
    JoinRequest,
    check_player_name,
    derive_game_id,
)
from creepnet.protocol.log import Rejection
from creepnet.protocol.retirement import split_options
from creepnet.protocol.rules import GameRuleError, GameRules, expect_keys
from creepnet.protocol.text import valid_name

MAX_GAME_NAME = 64

GENESIS_KEYS = {"nonce", "kind", "name", "seats", "options", "onion", "player", "anchor"}


@dataclass
class Seat:
    key: bytes
    player: str
    anchor: bytes
    last_reveal: bytes  # the onion layer the next reveal must hash to

    @property
    def label(self) -> str:
        return f"{self.player} ({fingerprint(self.key)})"


@dataclass(frozen=True)
class Genesis:
    """What a valid genesis founds: the game, its rules and options, and the host's seat 0."""

    game: bytes
    rules: GameRules
    name: str
    seat_count: int
    onion_length: int
    options: dict[str, Any]
    host: Seat


def read_genesis(event: Event, pinned_host: bytes | None) -> Genesis:
    """Check event 0; raises Rejection ``genesis`` blaming its author."""

    def bad(reason: str) -> Rejection:
        return Rejection(0, "genesis", reason, event.author)

    if event.type != "genesis":
        raise bad("the first event must be a genesis")
    body = event.body
    try:
        expect_keys(body, GENESIS_KEYS)
        check_player_name(body["player"])
    except (GameRuleError, JoinError) as exc:
        raise bad(str(exc)) from None
    nonce = body["nonce"]
    if type(nonce) is not bytes or len(nonce) != GAME_NONCE_SIZE:
        raise bad(f"nonce must be {GAME_NONCE_SIZE} bytes")
    if event.game != derive_game_id(event.author, nonce):
        raise bad("the game id is not SHA-256(domain, host key, nonce): not this host's game")
    if pinned_host is not None and event.author != pinned_host:
        raise bad(f"signed by {fingerprint(event.author)}, not the host this game was found at")
    game = GAMES.get(body["kind"]) if isinstance(body["kind"], str) else None
    rules = game.rules if game is not None else None
    if rules is None:
        raise bad(f"unknown game kind {body['kind']!r}")
    name, seats, length = body["name"], body["seats"], body["onion"]
    if not valid_name(name, MAX_GAME_NAME):
        raise bad(
            f"game name must be 1-{MAX_GAME_NAME} printable code points (no control, "
            "separator or invisible format character)"
        )
    if type(seats) is not int or not rules.min_seats <= seats <= rules.max_seats:
        raise bad(f"{rules.kind} takes {rules.min_seats}-{rules.max_seats} seats")
    if type(length) is not int or not 1 <= length <= onion.MAX_LENGTH:
        raise bad(f"onion length must be 1-{onion.MAX_LENGTH}")
    if not isinstance(body["anchor"], bytes) or len(body["anchor"]) != onion.SECRET_SIZE:
        raise bad("bad randomness anchor")
    if not isinstance(body["options"], dict):
        raise bad("options must be a map")
    try:
        rules.check_options(split_options(body["options"])[0])  # retire_after: every game's
    except GameRuleError as exc:
        raise bad(str(exc)) from None
    host = Seat(event.author, body["player"], body["anchor"], body["anchor"])
    return Genesis(event.game, rules, name, seats, length, body["options"], host)


def read_seat(event: Event, game: bytes | None, genesis_id: bytes, seats: list[Seat]) -> Seat:
    """Check a ``seat`` event against the seats so far; raises JoinError (the caller blames)."""
    expect_keys(event.body, {"join"})
    request = JoinRequest.from_map(event.body["join"])
    if request.game != game or request.genesis != genesis_id:
        raise JoinError("join request is for another game")
    if request.seat != len(seats):
        raise JoinError(
            f"join request is for seat {request.seat}, the next free seat is {len(seats)}"
        )
    if request.key in (seat.key for seat in seats):
        raise JoinError("this player already has a seat")
    return Seat(request.key, request.player, request.anchor, request.anchor)
