"""The mesh: every seat of a game connects to every other seat, so no seat (the host included)
stands between two others, and losing one seat leaves the others connected.

Who dials whom: a seat dials every seat below its own except the host (seat 0), whom it
dialled to join.  So each pair has one connection and two never cross (two crossing dials
would each replace the other).  The host dials nobody; a spectator dials the seat it watches
at, and, while it is connected to no seat of the game, every seat it was told of (until one
answers).

How addresses are learned (node layer only: the signed log and its events are untouched):

* ``listen {port}``: a seat tells each other seat it is connected to, once per connection,
  the TCP port it accepts connections on.  That peer's address is then the IP its connection
  came from with that port; a peer we dialled is at the address we dialled.  We share only
  these addresses of peers we are connected to, never hearsay of hearsay;
* ``addresses {game, items: [{key, address}]}``: a seat tells the other seats (and the
  spectators) of a game where it reaches the seats it is connected to;
* over the internet carrier (node/wan) a seat is named ``wan:<libp2p peer id>`` alone: the
  receiver dials it at its own relays, so no peer ever names a relay (an IP) for us to dial,
  and IP addresses heard over a ``wan:`` connection are refused.

What is believed: nothing, until a handshake at the address proves the expected key (as
relocation.py does for a moved host); a dial that meets another key hangs up at once and the
address is never dialled for that key again.  A hostile seat can therefore make us dial
addresses, but only within these bounds:

* only a peer seated in the game is heard, only about other keys seated in the game (never
  our own or the sender's: that one comes first hand with ``listen``), so nothing is dialled
  for a key that is not seated in the game, and only while the game is unfinished;
* one address per (sender, key): a new one replaces the sender's old one, at most
  ``MAX_CHANGES`` times per sender and game, so a key has at most one candidate per other seat;
  an address where a handshake proved the key is kept first, whatever anyone says later;
* an address must be an IP literal with a port (no name is resolved on a peer's word), not
  unspecified, multicast or broadcast, and in the node's scope (``Scope``): ``loopback`` (a node
  listening on 127.0.0.1: tests), ``lan`` (the default: private, link-local and loopback
  addresses, a game among friends on a LAN) or ``any``; a loopback address is only heard over
  a loopback connection, so a LAN peer cannot make us connect to our own machine's services.

Each candidate costs at most one connect and one handshake per back-off pause (from
``Timeouts.retry``, doubling to 30 s), and ends when the key is reached some other way.
"""

from __future__ import annotations

import enum
import ipaddress
from collections import Counter
from dataclasses import dataclass, field

import trio

from creepnet.node import messages, updates
from creepnet.node.connections import Connections
from creepnet.node.game import ACTIVE, GameRuntime
from creepnet.node.peer import Peer
from creepnet.node.reporter import Reporter
from creepnet.node.storage import write_private_file
from creepnet.node.transport import address_host, parse_address
from creepnet.node.wan.invite import (
    WAN_PREFIX,
    InviteError,
    parse_peer_id,
    parse_wan_address,
    wan_address,
)
from creepnet.protocol.identity import fingerprint

MAX_CHANGES = 8  # new addresses one sender may give per game (hosts do move, rarely)
MAX_REPORTS = 32  # refused addresses reported per game (a flood is not news)
MESH_FILE = "mesh"  # in the game's folder: where the seats we dial were reached


class Scope(enum.Enum):
    """Which addresses a node dials on a peer's word."""

    LOOPBACK = "loopback"  # 127.0.0.0/8 and ::1 only (tests, demos on one machine)
    LAN = "lan"  # private (RFC 1918, fc00::/7), link-local and loopback: the default
    ANY = "any"  # any unicast address (a game across the Internet)

    @classmethod
    def for_listener(cls, host: str) -> Scope:
        """A node that listens on loopback only reaches loopback; any other: the LAN."""
        try:
            return cls.LOOPBACK if ipaddress.ip_address(host).is_loopback else cls.LAN
        except ValueError:
            return cls.LAN


def address_refusal(
    address: str, heard_over: str, scope: Scope, relays: tuple[str, ...] | None = ()
) -> str | None:
    """Why we will not dial address, told over a connection from IP heard_over (None: we may).
    relays: those our internet carrier uses (None: any, for our own records of past dials)."""
    if address.startswith(WAN_PREFIX):
        return _wan_refusal(address, relays)
    if heard_over.startswith(WAN_PREFIX):
        return f"{address} is an IP address, told by a peer met over the internet"
    try:
        host, _port = parse_address(address)
        ip = _as_dialled(host)
    except ValueError:
        return f"{address!r} is not an IP address with a port"
    if ip.is_unspecified or ip.is_multicast or str(ip) == "255.255.255.255":
        return f"{address} is not a unicast address"
    if ip.is_loopback and not _is_loopback(heard_over):
        return f"{address} is a loopback address, told by a peer that is not on this machine"
    if scope is Scope.LOOPBACK and not ip.is_loopback:
        return f"{address} is not a loopback address (this node listens on loopback only)"
    if scope is Scope.LAN and not (ip.is_private or ip.is_link_local or ip.is_loopback):
        return f"{address} is not a LAN address"
    return None


def _wan_refusal(address: str, relays: tuple[str, ...] | None) -> str | None:
    """An internet address is dialled only through relays we chose ourselves: a peer says
    ``wan:<peer id>`` (we dial it at our relays), and a peer's word never makes us connect to
    a relay (a new IP) we did not choose; our own records (relays None) name the relays used."""
    try:
        if "@" in address:
            _peer, via = parse_wan_address(address)
        else:
            parse_peer_id(address[len(WAN_PREFIX) :])
            via = ()
    except InviteError as exc:
        return str(exc)
    if relays is None:
        return None
    if not relays:
        return f"{address} is an internet address, and this node is not on the internet"
    if not set(via) <= set(relays):
        return f"{address} names a relay this node does not use"
    return None


def dialable(address: str, relays: tuple[str, ...]) -> str:
    """A heard ``wan:<peer id>`` as the address we dial: that peer id at our relays."""
    if address.startswith(WAN_PREFIX) and "@" not in address and relays:
        return wan_address(address[len(WAN_PREFIX) :], relays)
    return address


def _as_dialled(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The IP a dial to host reaches: an IPv4-mapped IPv6 address (``::ffff:127.0.0.1``) is
    its IPv4 address to a dual-stack socket, so it is judged as that (as an IPv6 address it
    is neither loopback nor broadcast, and Python calls the whole range private)."""
    ip = ipaddress.ip_address(host)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _is_loopback(host: str) -> bool:
    try:
        return _as_dialled(host).is_loopback
    except ValueError:
        return False


def peer_ip(peer: Peer) -> str:
    """The IP address a peer's connection comes from (or goes to); for a peer met over the
    internet carrier, ``wan:<its peer id>`` (no IP we could dial)."""
    stream = peer.conn.stream
    # A dialled TCP connection is labelled with the address we dialled, which may be a name.
    if peer.dialed is not None and isinstance(stream, trio.SocketStream):
        try:
            return str(stream.socket.getpeername()[0])
        except (OSError, IndexError):
            pass
    return address_host(peer.conn.label)  # an accepted connection's IP, or a `wan:` peer id


def first_hand(peer: Peer) -> str | None:
    """Where we would dial peer again: the address we dialled (as an IP: others resolve no
    names), or its IP with the port it says it listens on.  A peer met over the internet
    carrier: ``wan:<its libp2p peer id>`` (which libp2p's Noise handshake proved), to be dialled
    at the receiver's own relays — a seat that joined by an invite keeps a reservation at
    exactly the relays the invite names, which every invited seat uses."""
    if peer.conn.label.startswith(WAN_PREFIX):
        return _wan_first_hand(peer)
    port = peer.listen_port
    if peer.dialed is not None:
        try:
            host, port = parse_address(peer.dialed)
            ipaddress.ip_address(host)
            return peer.dialed
        except ValueError:
            pass
    if port is None:
        return None
    ip = peer_ip(peer)
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _wan_first_hand(peer: Peer) -> str | None:
    """``wan:<peer id>``: the receiver dials it at its own relays (and the address stays
    short: ``addresses`` items are at most 64 characters)."""
    try:
        peer_id = (
            parse_wan_address(peer.dialed)[0]
            if peer.dialed is not None
            else peer.conn.label[len(WAN_PREFIX) :]
        )
    except InviteError:
        return None
    address = f"{WAN_PREFIX}{peer_id}"
    return None if _wan_refusal(address, None) else address


@dataclass
class AddressBook:
    """One game's candidate addresses of its seats, by who told us."""

    heard: dict[tuple[bytes, bytes], str] = field(default_factory=dict)  # (sender, key) → addr
    changes: Counter[bytes] = field(default_factory=Counter)  # per sender
    refused: set[tuple[bytes, str]] = field(default_factory=set)  # (key, address) proved wrong
    believed: dict[bytes, str] = field(default_factory=dict)  # where a handshake proved the key
    reported: set[tuple[bytes, str]] = field(default_factory=set)  # (sender, address) refused
    # Said before our copy of the log showed who is seated (a spectator hears the seats'
    # addresses as soon as it follows, before it has the log): each follower's last message.
    early: dict[bytes, tuple[Peer, list[dict]]] = field(default_factory=dict)

    def first_report(self, sender: bytes, address: str) -> bool:
        """Whether a refusal of sender's address is news (said once; at most MAX_REPORTS)."""
        if (sender, address) in self.reported or len(self.reported) >= MAX_REPORTS:
            return False
        self.reported.add((sender, address))
        return True

    def candidates(self, key: bytes) -> list[str]:
        """Where to dial key: where it was reached before (no hearsay displaces that), then
        what each seat said."""
        found = {a for (_, k), a in self.heard.items() if k == key and (k, a) not in self.refused}
        first = [self.believed[key]] if key in self.believed else []
        return first + sorted(found - set(first))

    def hear(self, sender: bytes, key: bytes, address: str) -> bool:
        """Note sender's address for key; False when it is no news or over the bound."""
        old = self.heard.get((sender, key))
        if old == address or (key, address) in self.refused:
            return False
        if old is not None:
            if self.changes[sender] >= MAX_CHANGES:
                return False
            self.changes[sender] += 1
        self.heard[(sender, key)] = address
        return True

    def refuse(self, key: bytes, address: str) -> None:
        self.refused.add((key, address))
        if self.believed.get(key) == address:
            del self.believed[key]
        for entry in [e for e, a in self.heard.items() if e[1] == key and a == address]:
            del self.heard[entry]


class Mesh:
    def __init__(
        self,
        games: dict[bytes, GameRuntime],
        connections: Connections,
        reporter: Reporter,
        scope: Scope,
    ) -> None:
        self.games = games
        self.connections = connections
        self.reporter = reporter
        self.scope = scope
        self.port = 0  # ours, told to every peer; set once we listen
        self.books: dict[bytes, AddressBook] = {}
        connections.mesh_wants = self.wants
        connections.on_wrong_key = self.wrong_key

    # ----- what we tell -------------------------------------------------------------------

    def refresh(self) -> None:
        """Tell the seats (and spectators) of each game where the seats are, and dial those
        we should."""
        for runtime in self.games.values():
            if runtime.state not in ACTIVE:
                continue
            self._hear_early(runtime)
            if runtime.session.local_seat is not None:
                self._share(runtime)
                self._dial(runtime)
            elif not runtime.hosted:
                self._dial_as_spectator(runtime)

    def _share(self, runtime: GameRuntime) -> None:
        keys = runtime.session.seat_keys
        peers = self.connections.peers
        known = [(key, first_hand(peers[key])) for key in keys if key in peers]
        for follower in list(runtime.followers.values()):
            seat = follower.key in keys
            # A spectator hears where the seats are too, to watch at another when it loses
            # ours; it is never told where we listen (no seat dials a spectator).
            if seat and not follower.told_port and self.port:
                follower.told_port = True  # where we listen: it tells the seats that dial us
                follower.send(messages.listen(self.port))
            over_wan = follower.conn.label.startswith(WAN_PREFIX)  # it refuses IP addresses
            items = [
                (key, address)
                for key, address in known
                if address is not None
                and key != follower.key
                and (runtime.game, key, address) not in follower.told
                and (address.startswith(WAN_PREFIX) or not over_wan)
            ]
            if items:
                follower.told.update((runtime.game, key, address) for key, address in items)
                follower.send(messages.addresses(runtime.game, items))

    def _dial(self, runtime: GameRuntime) -> None:
        book = self.books.get(runtime.game)
        if book is None or self.connections.nursery is None:
            return  # nothing known, or not listening yet (games load first)
        peers = self.connections.peers
        for key in self._to_dial(runtime):
            if key in peers:
                dialed = peers[key].dialed
                if dialed is not None and book.believed.get(key) != dialed:
                    book.believed[key] = dialed  # the handshake there proved the key
                    self._save(runtime, book)
                continue
            for address in book.candidates(key):
                self.connections.ensure_dialer(address, expect=key)

    def _dial_as_spectator(self, runtime: GameRuntime) -> None:
        """A spectator watches at any seat it can reach: while no seat of the game is
        connected, it dials every seat at every address the seats gave (the first handshake
        that proves a seat's key ends the others' dialers: ``wants``)."""
        book = self.books.get(runtime.game)
        if book is None or self.connections.nursery is None or self._at_a_seat(runtime):
            return
        for key in runtime.session.seat_keys:
            for address in book.candidates(key):
                self.connections.ensure_dialer(address, expect=key)

    def _at_a_seat(self, runtime: GameRuntime) -> bool:
        return any(key in self.connections.peers for key in runtime.session.seat_keys)

    @staticmethod
    def _to_dial(runtime: GameRuntime) -> list[bytes]:
        """The seats we dial: those below ours, but not the host (seat 0), nor a seat the
        table retired (it plays no more: redialling it would only fail, or bother it)."""
        session = runtime.session
        seat = session.local_seat
        below = range(1, seat) if seat else range(0)
        return [session.seat_keys[s] for s in below if s not in session.retired]

    # ----- what a restart needs ------------------------------------------------------------

    def _save(self, runtime: GameRuntime, book: AddressBook) -> None:
        """Where each seat we dial was reached (``games/<hex>/mesh``: key hex and address per
        line), so a restart finds the other seats even when the host is gone."""
        lines = "".join(f"{key.hex()} {address}\n" for key, address in book.believed.items())
        path = runtime.store.folder / MESH_FILE
        try:
            write_private_file(path, lines.encode())
        except OSError as exc:
            self.reporter.publish(
                updates.STORAGE_ERROR, f"cannot store {path}: {exc}", runtime.game
            )

    def load(self, runtime: GameRuntime) -> None:
        """What _save wrote: addresses a handshake proved, for the seats we dial (checked
        against the policy again; anything else in the file is skipped)."""
        try:
            lines = (runtime.store.folder / MESH_FILE).read_text().splitlines()
        except (OSError, UnicodeDecodeError):
            return
        book = self.books.setdefault(runtime.game, AddressBook())
        for line in lines:
            key_hex, _, address = line.partition(" ")
            try:
                key = bytes.fromhex(key_hex)
            except ValueError:
                continue
            # our own record: a wan address names relays we used (the carrier may start later)
            if key in runtime.session.seat_keys and not address_refusal(
                address, address_host(address), self.scope, None
            ):
                book.believed[key] = address

    # ----- what we hear -------------------------------------------------------------------

    def on_listen(self, peer: Peer, port: int) -> None:
        """A peer's port, once per connection: a listener does not move while connected, and
        each change would be passed on to every other seat."""
        if peer.listen_port is not None:
            return
        peer.listen_port = port
        address = first_hand(peer)
        for runtime in self.games.values():
            if address is not None and peer.key in runtime.session.seat_keys:
                self._hear(runtime, peer, peer.key, address)
        self.refresh()

    def on_addresses(self, runtime: GameRuntime, peer: Peer, items: list[dict]) -> None:
        if runtime.state not in ACTIVE:
            return
        if peer.key not in runtime.session.seat_keys:
            if not runtime.session.started and runtime.followers.get(peer.key) is peer:
                # perhaps a seat our copy of the log does not show yet: kept until it does
                # (one message per follower, replaced by its next; none for one that left,
                # as fresh keys cost nothing: bounded by the peers connected)
                book = self.books.setdefault(runtime.game, AddressBook())
                book.early = {k: v for k, v in book.early.items() if not v[0].closed.is_set()}
                book.early[peer.key] = (peer, items)
            return  # only a seat of an unfinished game may say where the others are
        self._hear_items(runtime, peer, items)
        self.refresh()

    def _hear_early(self, runtime: GameRuntime) -> None:
        book = self.books.get(runtime.game)
        if book is None:
            return
        for sender, (peer, items) in list(book.early.items()):
            if peer.key in runtime.session.seat_keys or runtime.session.started:
                del book.early[sender]
                if peer.key in runtime.session.seat_keys and not peer.closed.is_set():
                    self._hear_items(runtime, peer, items)

    def _hear_items(self, runtime: GameRuntime, peer: Peer, items: list[dict]) -> None:
        """A seat's word on where the other seats are (never on us, or on itself)."""
        keys = runtime.session.seat_keys
        ours = runtime.session.identity.public_key if runtime.session.identity else None
        for item in items:
            key, address = item["key"], item["address"]
            if key in keys and key not in (ours, peer.key):
                self._hear(runtime, peer, key, address)

    def _hear(self, runtime: GameRuntime, sender: Peer, key: bytes, address: str) -> None:
        book = self.books.setdefault(runtime.game, AddressBook())
        refusal = address_refusal(
            address, peer_ip(sender), self.scope, self.connections.carrier_relays
        )
        if refusal is not None:
            if not book.first_report(sender.key, address):
                return  # a flood of bad addresses is reported once each, and not forever
            self.reporter.publish(
                updates.ADDRESS_REFUSED,
                f"not dialling {address} for {fingerprint(key)} on the word of {sender.label}: "
                f"{refusal}",
                runtime.game,
                sender,
                data={"address": address, "key": key},
            )
            return
        book.hear(sender.key, key, dialable(address, self.connections.carrier_relays))

    # ----- what the dialers ask -----------------------------------------------------------

    def wants(self, address: str, key: bytes) -> bool:
        """Whether an unfinished game still needs us to dial key at address."""
        if key in self.connections.peers:
            return False  # reached another way
        return any(
            runtime.state in ACTIVE
            and (
                key in self._to_dial(runtime)
                or (self._spectating(runtime) and key in runtime.session.seat_keys)
            )
            and address in self.books.get(runtime.game, AddressBook()).candidates(key)
            for runtime in self.games.values()
        )

    def _spectating(self, runtime: GameRuntime) -> bool:
        """A game we watch without a seat, at no seat right now."""
        return (
            runtime.session.local_seat is None
            and not runtime.hosted
            and not self._at_a_seat(runtime)
        )

    def wrong_key(self, address: str, expected: bytes, found: bytes) -> None:
        """A dial for expected met another key: that address is not believed for it again."""
        for book in self.books.values():
            book.refuse(expected, address)
        self.reporter.publish(
            updates.ADDRESS_REFUSED,
            f"{address} was given as the address of {fingerprint(expected)}, but the node "
            f"there proved key {fingerprint(found)}; not dialling it for that key again",
            data={"address": address, "key": expected},
        )
