"""Seat secrets and join requests: how a player consents to a seat and commits to randomness."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from creepnet.protocol import codec, onion
from creepnet.protocol.event import GAME_ID_SIZE
from creepnet.protocol.identity import PUBLIC_KEY_SIZE, Identity, verify_signature

JOIN_DOMAIN = b"creepnet/join/v1\x00"
MAX_PLAYER_NAME = 32


@dataclass(frozen=True)
class SeatSecrets:
    """What a seat keeps private for one game: its onion seed (and, for card games, deck secret)."""

    onion_seed: bytes
    deck_secret: bytes

    @classmethod
    def generate(cls) -> SeatSecrets:
        return cls(secrets.token_bytes(onion.SECRET_SIZE), secrets.token_bytes(32))

    def to_bytes(self) -> bytes:
        return codec.encode({"onion": self.onion_seed, "deck": self.deck_secret})

    @classmethod
    def from_bytes(cls, data: bytes) -> SeatSecrets:
        value = codec.decode(data)
        if not (
            isinstance(value, dict)
            and isinstance(value.get("onion"), bytes)
            and isinstance(value.get("deck"), bytes)
        ):
            raise ValueError("not a creepnet seat-secrets file")
        return cls(value["onion"], value["deck"])


class JoinError(ValueError):
    """A join request that is malformed, forged, or meant for another game or seat."""


def check_player_name(name: Any) -> str:
    if not isinstance(name, str) or not 0 < len(name) <= MAX_PLAYER_NAME or not name.isprintable():
        raise JoinError(f"a player name must be 1-{MAX_PLAYER_NAME} printable characters")
    return name


@dataclass(frozen=True)
class JoinRequest:
    """A player's own signed consent to take one seat of one game, with its commitments."""

    game: bytes
    seat: int
    key: bytes
    anchor: bytes
    player: str
    sig: bytes

    def _unsigned(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seat": self.seat,
            "key": self.key,
            "anchor": self.anchor,
            "player": self.player,
        }

    def to_map(self) -> dict[str, Any]:
        return {**self._unsigned(), "sig": self.sig}

    def to_bytes(self) -> bytes:
        return codec.encode(self.to_map())

    @classmethod
    def create(
        cls,
        identity: Identity,
        seat_secrets: SeatSecrets,
        *,
        game: bytes,
        seat: int,
        player: str,
        onion_length: int,
    ) -> JoinRequest:
        unsigned = cls(
            game=game,
            seat=seat,
            key=identity.public_key,
            anchor=onion.anchor(game, seat_secrets.onion_seed, onion_length),
            player=check_player_name(player),
            sig=b"",
        )
        sig = identity.sign(JOIN_DOMAIN + codec.encode(unsigned._unsigned()))
        return cls(**{**unsigned.__dict__, "sig": sig})

    @classmethod
    def from_map(cls, value: Any) -> JoinRequest:
        """Parse and check a join request's shape and signature (not which game or seat)."""
        if not isinstance(value, dict) or set(value) != {
            "game",
            "seat",
            "key",
            "anchor",
            "player",
            "sig",
        }:
            raise JoinError("a join request needs exactly game, seat, key, anchor, player, sig")
        if not (isinstance(value["game"], bytes) and len(value["game"]) == GAME_ID_SIZE):
            raise JoinError("join request: bad game id")
        if not (isinstance(value["key"], bytes) and len(value["key"]) == PUBLIC_KEY_SIZE):
            raise JoinError("join request: bad public key")
        if not (isinstance(value["anchor"], bytes) and len(value["anchor"]) == onion.SECRET_SIZE):
            raise JoinError("join request: bad randomness anchor")
        seat = value["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
            raise JoinError("join request: bad seat")
        check_player_name(value["player"])
        request = cls(**value)
        if not verify_signature(
            request.key, JOIN_DOMAIN + codec.encode(request._unsigned()), request.sig
        ):
            raise JoinError("join request: bad signature")
        return request

    @classmethod
    def from_bytes(cls, data: bytes) -> JoinRequest:
        try:
            return cls.from_map(codec.decode(data))
        except codec.CodecError as exc:
            raise JoinError(f"undecodable join request: {exc}") from None
