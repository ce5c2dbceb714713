"""Who gets a connection slot: bounded handshakes per address, seated players before strangers.

Anyone on the LAN can open sockets and make fresh keys, so neither may exhaust what honest
players need:

* at most ``MAX_HANDSHAKES`` unauthenticated connections at once, and ``PER_ADDRESS`` of them
  from one IP address, so one host's idle sockets cannot hold every slot (each slot also ends
  at the handshake timeout, and frames before it are at most 2 KiB: node/framing.py);
* at most ``MAX_PEERS`` authenticated peers; when full, a key seated in (or hosting) one of our
  games takes the place of an *anonymous* peer — one with no seat in any game we hold — so
  throw-away keys sending pings cannot lock a player out of its own game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping

from creepnet.node.peer import Peer

MAX_PEERS = 64
MAX_HANDSHAKES = 16  # concurrent unauthenticated connections; more are refused at once
PER_ADDRESS = 4  # of those, from one IP address


class Admission:
    """Counts handshakes in progress by address; picks an anonymous peer to make room."""

    def __init__(self) -> None:
        self._handshakes: Counter[str] = Counter()

    def enter(self, address: str) -> str | None:
        """Claim a handshake slot for a connection from address, or the reason it is refused."""
        if sum(self._handshakes.values()) >= MAX_HANDSHAKES:
            return "too many connections in handshake; try again"
        if self._handshakes[address] >= PER_ADDRESS:
            return f"too many connections in handshake from {address}; try again"
        self._handshakes[address] += 1
        return None

    def leave(self, address: str) -> None:
        self._handshakes[address] -= 1
        if self._handshakes[address] <= 0:
            del self._handshakes[address]

    @staticmethod
    def make_room(
        peers: Mapping[bytes, Peer], key: bytes, players: Collection[bytes]
    ) -> str | None:
        """Admit key (evicting an anonymous peer if key is a player), or the reason not to."""
        if len(peers) < MAX_PEERS or key in peers:
            return None
        if key in players:
            for peer in peers.values():
                if peer.key not in players and not peer.close_reason:
                    peer.close("replaced by a seated player (this node is full)")
                    return None
        return f"this node already has {MAX_PEERS} peers"


def remote_address(label: str) -> str:
    """The IP part of a connection label ``host:port`` (``[v6]:port`` too)."""
    return label.rpartition(":")[0].strip("[]") or label
