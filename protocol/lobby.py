"""Game ids, seat secrets and join requests: how a player consents to a seat of one game.

A game id is ``SHA-256("creepnet/game/v1\0" ‖ host key ‖ nonce)[:16]``, checked at the genesis:
nobody but the host can sign a genesis for an id (a twin would need the host's key), so a
follower that knows the id knows whose game it is.  A join request signs the id *and* the
genesis event's id, so even the host cannot replay it into a second genesis of the same id.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from creepnet.protocol import codec, onion
from creepnet.protocol.event import EVENT_ID_SIZE, GAME_ID_SIZE
from creepnet.protocol.identity import Identity, valid_public_key, verify_signature
from creepnet.protocol.text import valid_name

JOIN_DOMAIN = b"creepnet/join/v1\x00"
GAME_DOMAIN = b"creepnet/game/v1\x00"
GAME_NONCE_SIZE = 16
MAX_PLAYER_NAME = 32
REQUEST_FIELDS = ("game", "genesis", "seat", "key", "anchor", "player", "sig")


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


def derive_game_id(host_key: bytes, nonce: bytes) -> bytes:
    """The id of the game whose genesis host_key signs with this nonce."""
    return hashlib.sha256(GAME_DOMAIN + host_key + nonce).digest()[:GAME_ID_SIZE]


class JoinError(ValueError):
    """A join request that is malformed, forged, or meant for another game or seat."""


def check_player_name(name: Any) -> str:
    if not valid_name(name, MAX_PLAYER_NAME):
        raise JoinError(
            f"a player name must be 1-{MAX_PLAYER_NAME} printable code points (no control, "
            "separator or invisible format character)"
        )
    return name


@dataclass(frozen=True)
class JoinRequest:
    """A player's own signed consent to take one seat of one game, with its commitments."""

    game: bytes
    genesis: bytes  # the id of the game's genesis event
    seat: int
    key: bytes
    anchor: bytes
    player: str
    sig: bytes

    def _unsigned(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "genesis": self.genesis,
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
        genesis: bytes,
        seat: int,
        player: str,
        onion_length: int,
    ) -> JoinRequest:
        unsigned = cls(
            game=game,
            genesis=genesis,
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
        if not isinstance(value, dict) or set(value) != set(REQUEST_FIELDS):
            raise JoinError(f"a join request needs exactly {', '.join(REQUEST_FIELDS)}")
        if not (isinstance(value["game"], bytes) and len(value["game"]) == GAME_ID_SIZE):
            raise JoinError("join request: bad game id")
        if not (isinstance(value["genesis"], bytes) and len(value["genesis"]) == EVENT_ID_SIZE):
            raise JoinError("join request: bad genesis id")
        if not (isinstance(value["key"], bytes) and valid_public_key(value["key"])):
            raise JoinError("join request: not a valid Ed25519 public key (docs/PROTOCOL.md §2)")
        if not (isinstance(value["anchor"], bytes) and len(value["anchor"]) == onion.SECRET_SIZE):
            raise JoinError("join request: bad randomness anchor")
        seat = value["seat"]
        if type(seat) is not int or seat < 0:
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
