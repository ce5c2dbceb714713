"""Invites and internet addresses: plain text, no libp2p needed to read or write them.

An **invite** is one line a friend can paste::

    creepnet:<game id>[.<genesis nonce>[.<ticket>]]:<host fingerprint>:<host peer id>:<relay>[,…]

(the game id, the nonce and the ticket 32 hex digits each; an invite without the nonce or the
ticket, as hosts wrote them before, is still read).

``relay`` is a relay's libp2p multiaddr (``/ip4/203.0.113.7/tcp/4001/p2p/12D3Koo…``).  It names
no server of ours: the relays are whoever the host chose to use.

Why a pasted invite cannot be used to impersonate the host: the joiner refuses the node it
reaches unless the game's genesis nonce with that node's handshake key rebuilds the invite's
game id (``GameSync.check_host``), and the id (128 bits of SHA-256) commits to the host's key
(PROTOCOL.md §5.1).  The nonce is the invite's own where it has one (the host writes it: a
round trip less, no listing before the join), else the node's listing's.  The nonce is no
secret (any node listing the game shows it) and a wrong one only gets the join refused.  The
peer id and the relays only say where to knock; a relay, or anyone who owns the peer id, gets
no further than a refused join.  The fingerprint is for people: read it to your friend over
the phone.

The **ticket** is what lets a friend in.  Without it, anyone who learns where the host is (its
peer id and a relay: every relay it uses learns both) could dial it, list its games and take the
seat meant for the friend.  Over the internet the host seats only joiners whose ``join`` carries
the game's ticket (node/sync.py); on the LAN nothing changes (anyone there may join an open
game, as always).  The ticket is a keyed BLAKE2b (RFC 7693) of the game id under the host's
ticket key (``<home>/invite.key``, made once): a pseudorandom function, so a ticket says nothing
of any other game's, and the host keeps no list of them (a resumed or rematched game has its
own at once).  It is a bearer secret: whoever has the invite can take the seat, so send it to
your friend only.  It travels sealed (the relay never sees it).

An **internet address** (what a game stores to redial, like ``HOST:PORT`` on a LAN) is
``wan:<peer id>@<relay>[,<relay>…]``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from creepnet.protocol.event import GAME_ID_SIZE
from creepnet.protocol.lobby import GAME_NONCE_SIZE

PREFIX = "creepnet:"
WAN_PREFIX = "wan:"
MAX_RELAYS = 4
MAX_INVITE = 2000  # characters: an invite is pasted, not streamed
TICKET_SIZE = 16  # bytes: 128 bits, guessed by nobody
_TICKET_PERSON = b"creepnet-ticket"  # BLAKE2b personalisation: this key derives nothing else


class InviteError(ValueError):
    """Not an invite (or an internet address); the message says what is wrong."""


@dataclass(frozen=True)
class Invite:
    game: bytes
    host: str  # the host key's fingerprint
    peer: str  # the host's libp2p peer id
    relays: tuple[str, ...]
    nonce: bytes | None = None  # the game's genesis nonce: proves the host with no listing
    ticket: bytes | None = None  # lets its holder take a seat over the internet

    def __str__(self) -> str:
        game = self.game.hex()
        if self.nonce is not None:
            game += f".{self.nonce.hex()}" + (
                f".{self.ticket.hex()}" if self.ticket is not None else ""
            )
        return f"{PREFIX}{game}:{self.host}:{self.peer}:{','.join(self.relays)}"

    @property
    def address(self) -> str:
        return wan_address(self.peer, self.relays)

    @classmethod
    def parse(cls, text: str) -> Invite:
        text = text.strip()
        if len(text) > MAX_INVITE or not text.startswith(PREFIX):
            raise InviteError(f"an invite starts with {PREFIX!r} and is one line")
        parts = text[len(PREFIX) :].split(":", 3)
        if len(parts) != 4:
            raise InviteError("an invite has four fields: game id, fingerprint, peer id, relays")
        game_field, host, peer, relays = parts
        game_hex, *rest = game_field.split(".")
        if len(rest) > 2:
            raise InviteError("an invite's first field is GAME[.NONCE[.TICKET]]")
        game = _hex(game_hex)
        if len(game) != GAME_ID_SIZE:
            raise InviteError(
                f"the invite's game id must be {2 * GAME_ID_SIZE} hex digits, not {game_hex!r}"
            )
        nonce = _hex(rest[0]) if rest else None
        if nonce is not None and len(nonce) != GAME_NONCE_SIZE:
            raise InviteError(
                f"the invite's genesis nonce must be {2 * GAME_NONCE_SIZE} hex digits, "
                f"not {rest[0]!r}"
            )
        ticket = _hex(rest[1]) if len(rest) == 2 else None
        if ticket is not None and len(ticket) != TICKET_SIZE:
            raise InviteError(
                f"the invite's ticket must be {2 * TICKET_SIZE} hex digits, not {rest[1]!r}"
            )
        if not host or not _plain(host):
            raise InviteError(f"the invite's host fingerprint is not valid: {host!r}")
        peer, found = _peer_and_relays(peer, relays)
        return cls(game, host, peer, found, nonce, ticket)


def ticket_for(key: bytes, game: bytes) -> bytes:
    """The ticket to game under a host's ticket key (keyed BLAKE2b, personalised)."""
    return hashlib.blake2b(game, key=key, person=_TICKET_PERSON, digest_size=TICKET_SIZE).digest()


def _hex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        return b""


def wan_address(peer: str, relays: tuple[str, ...] | list[str]) -> str:
    return f"{WAN_PREFIX}{peer}@{','.join(relays)}"


def parse_wan_address(address: str) -> tuple[str, tuple[str, ...]]:
    """``wan:<peer>@<relays>`` → (peer id, relays)."""
    if not address.startswith(WAN_PREFIX) or "@" not in address:
        raise InviteError(f"not an internet address (wan:PEER@RELAY,…): {address!r}")
    peer, _, relays = address[len(WAN_PREFIX) :].partition("@")
    return _peer_and_relays(peer, relays)


def parse_peer_id(text: str) -> str:
    """A libp2p peer id as we accept one (plain characters, bounded), or InviteError."""
    if not text or not _plain(text) or len(text) > 128:
        raise InviteError(f"not a peer id: {text!r}")
    return text


def _plain(text: str) -> bool:
    return text.isascii() and all(c.isalnum() or c in "-_" for c in text)


def _peer_and_relays(peer: str, relays: str) -> tuple[str, tuple[str, ...]]:
    parse_peer_id(peer)
    found = tuple(r for r in relays.split(",") if r)
    if not found:
        raise InviteError("no relay given: the host's invite must name at least one relay")
    if len(found) > MAX_RELAYS:
        raise InviteError(f"at most {MAX_RELAYS} relays, not {len(found)}")
    for relay in found:
        if not relay.startswith("/") or "/p2p/" not in relay or any(c.isspace() for c in relay):
            raise InviteError(f"a relay is a multiaddr ending in /p2p/ID, not {relay!r}")
    return peer, found
