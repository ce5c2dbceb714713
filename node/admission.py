"""Who gets a connection slot: bounded handshakes by address and address block, room kept for
our seated players, seated players before strangers among the authenticated peers.

Anyone on the LAN can open sockets and make fresh keys, so neither may exhaust what honest
players need:

* at most ``MAX_HANDSHAKES`` unauthenticated connections at once, ``PER_BLOCK`` of them from one
  address block (an IPv4 /24, an IPv6 /64: one host of IPv6 holds a whole /64) and
  ``PER_ADDRESS`` from one address; frames before the handshake are at most 2 KiB
  (node/framing.py) and each slot ends at the handshake timeout;
* **when slots are scarce the oldest gives way**: a newcomer that finds no room evicts the
  oldest connection still in its handshake for longer than ``HELLO_GRACE`` that is not
  shielded, taken from the fullest block (the one holding the most slots).  An honest peer
  sends its hello at once and is through in milliseconds; idle sockets are what ages;
* **a hello's key is a claim**, and seated keys are public: a seated key shields two slots at
  most, the newest to show it from its *home* (the address that key last proved itself at,
  remembered for seated keys only) and the newest to show it from anywhere else.  Claims
  renewed from other addresses as fast as they give way cannot take the shield of the
  player's own reconnection, however far away the player is (with one shield per key they
  did: a player 5 ms away was kept out for half a minute); a player back from a new address
  has the second shield;
* **room for our players**: a newcomer that finds no room and nothing to evict is let in on
  probation, in a pool of ``PROBATION`` slots beyond the limits, on the condition that its
  hello shows a key seated in (or hosting) one of our games — any other key is refused at its
  hello.  The key is only known after the hello, hence the condition.  When the pool is full
  its oldest member that is not shielded gives way at once, whatever its age: idle
  sockets cannot hold it, and a seated player's hello, sent at once, is in within
  milliseconds (to push it out before its hello a flood would need ``PROBATION`` new
  connections in that time);
* at most ``MAX_PEERS`` authenticated peers; when full, a key seated in (or hosting) one of our
  games takes the place of an *anonymous* peer — one with no seat in any game we hold, the
  newest of the address holding the most — so
  throw-away keys sending pings cannot lock a player out of its own game, and anyone takes
  the place of an anonymous peer of the address holding the most of them (two more than its
  own): one machine cannot keep joiners and spectators out either.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

import trio

from creepnet.node.peer import Peer

MAX_PEERS = 64
MAX_HANDSHAKES = 16  # concurrent unauthenticated connections (beyond: evict the oldest, or refuse)
PER_BLOCK = 8  # of those, from one /24 (IPv4) or /64 (IPv6)
PER_ADDRESS = 4  # of those, from one address
PROBATION = 16  # more, only for a connection whose hello shows one of our seated keys
# Seconds in handshake after which a connection may be evicted for a newcomer: an honest peer's
# whole handshake takes a few round trips (1.6 ms on loopback), so only idle sockets get this
# old; a flood that keeps every slot of a block younger must open PER_BLOCK / HELLO_GRACE
# (32) connections a second from it.
HELLO_GRACE = 0.25


def address_block(address: str) -> str:
    """The block an address is budgeted in: its /24 (IPv4) or /64 (IPv6); a label that is no
    IP address is its own block."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = 24 if ip.version == 4 else 64
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


@dataclass(eq=False)
class Slot:
    """One connection in its handshake."""

    address: str
    block: str
    started: float
    probation: bool = False  # beyond the limits: its hello must show a seated key
    seated: bool = False  # shielded: the newest hello showing this seated key (from its home
    # address, or from elsewhere): never evicted
    home: bool = False  # it shows a seated key from the address that key last proved itself at
    key: bytes = b""  # the key its hello showed
    evicted: str = ""  # why it was made to give way
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)


class Admission:
    """Handshake slots (see the module docstring); picks an anonymous peer to make room."""

    def __init__(self, clock: Callable[[], float] = trio.current_time) -> None:
        self.clock = clock
        self.grace = HELLO_GRACE
        self._slots: list[Slot] = []
        self._homes: dict[bytes, str] = {}  # seated key -> the address it last proved itself at
        self.evictions = 0

    @property
    def in_handshake(self) -> int:
        return len(self._slots)

    def enter(self, address: str) -> Slot | str:
        """A handshake slot for a connection from address (run the handshake inside its
        ``scope``: an eviction cancels it), or the reason it is refused."""
        slot = Slot(address, address_block(address), self.clock())
        normal = [s for s in self._slots if not s.probation]
        if self._by_address(normal, address) >= PER_ADDRESS:
            # Its own address is full: only its own idle sockets may give way.
            if not self._evict([s for s in normal if s.address == address]):
                return f"too many connections in handshake from {address}; try again"
        elif self._by_block(normal, slot.block) >= PER_BLOCK:
            if not self._evict([s for s in normal if s.block == slot.block]):
                return self._on_probation(slot)
        elif len(normal) >= MAX_HANDSHAKES and not self._evict(normal):
            return self._on_probation(slot)
        self._slots.append(slot)
        return slot

    def _on_probation(self, slot: Slot) -> Slot | str:
        pool = [s for s in self._slots if s.probation]
        if len(pool) >= PROBATION and not self._evict(pool, grace=0.0):
            return "too many connections in handshake; try again"
        slot.probation = True
        self._slots.append(slot)
        return slot

    def hello(self, slot: Slot, key: bytes, seated: Collection[bytes]) -> str | None:
        """The connection's hello showed key: None to go on, or the reason to refuse it.

        A hello's key is only a claim until the signature after it, and seated keys are
        public (they are in the game's log): so only the newest slot showing a key from the
        key's home address, and the newest showing it from elsewhere, are kept from eviction;
        an older one of the same kind gives that up.  A flood naming a player's key then
        shields one socket, not every slot, and cannot take the shield of the player's own
        hello from its home."""
        slot.key = key
        slot.seated = key in seated
        if slot.probation and not slot.seated:
            return "too many connections in handshake; try again"
        if slot.seated:
            slot.home = self._homes.get(key) == slot.address
            for other in self._slots:
                if other is not slot and other.key == key and other.home == slot.home:
                    other.seated = False
        return None

    def proven(self, key: bytes, address: str, seated: Collection[bytes]) -> None:
        """A connection from address proved key (its handshake, or its end): a seated key's
        home.  Only seated keys are kept, so throw-away keys cannot push a player's out."""
        self._homes = {k: a for k, a in self._homes.items() if k in seated}
        if key in seated:
            self._homes[key] = address

    def leave(self, slot: Slot) -> None:
        if slot in self._slots:
            self._slots.remove(slot)

    def _evict(self, candidates: list[Slot], grace: float | None = None) -> bool:
        """Make one candidate give way, False when none may: of those in their handshake for
        longer than the grace and not seated, the oldest of the block holding the most slots
        (a flood from one block gives way before a lone connection from elsewhere)."""
        now, grace = self.clock(), self.grace if grace is None else grace
        old = [s for s in candidates if not s.seated and now - s.started >= grace]
        if not old:
            return False
        held = Counter(s.block for s in self._slots)
        victim = min(old, key=lambda s: (-held[s.block], s.started))
        victim.evicted = "slots are scarce and it was the oldest in its handshake"
        victim.scope.cancel()
        self._slots.remove(victim)
        self.evictions += 1
        return True

    @staticmethod
    def _by_address(slots: list[Slot], address: str) -> int:
        return sum(1 for s in slots if s.address == address)

    @staticmethod
    def _by_block(slots: list[Slot], block: str) -> int:
        return sum(1 for s in slots if s.block == block)

    @staticmethod
    def make_room(
        peers: Mapping[bytes, Peer], key: bytes, players: Collection[bytes], address: str = ""
    ) -> str | None:
        """Admit key from address (evicting an anonymous peer if key is a player, or if the
        address holding the most anonymous peers holds at least two more than ``address``),
        or the reason not to.  So a joiner — not seated yet — is not kept out by one machine
        holding every slot with throw-away keys.  Addresses are the connections' ``origin``:
        over the internet carrier the IP a stream comes from, not its free peer id."""
        if len(peers) < MAX_PEERS or key in peers:
            return None
        anonymous = [p for p in peers.values() if p.key not in players and not p.close_reason]
        held = Counter(p.conn.origin for p in anonymous)
        fullest = max(held, key=held.__getitem__, default=None)
        seated = key in players and bool(anonymous)
        if seated or (fullest is not None and held[fullest] >= held[address] + 2):
            # The newest of that address goes: the oldest ones were there first.  A seat too
            # (not the oldest anonymous peer): a seat coming and going (anyone may take a seat
            # in an open lobby) pushed out the spectators one by one while a machine's
            # throw-away keys refilled every slot.
            victim = [p for p in anonymous if p.conn.origin == fullest][-1]
            victim.close(
                "replaced by a seated player (this node is full)"
                if seated
                else f"replaced: this node is full and {fullest} held the most peers"
            )
            return None
        return f"this node already has {MAX_PEERS} peers"
