"""The internet carrier: byte streams between libp2p peer ids, direct after a hole punch, else
through a circuit relay.  It decides nothing about creepnet: our handshake, sealing and protocol
run over each stream exactly as over TCP.

Built on py-libp2p (trio-native): TCP with Noise and yamux, circuit relay v2 (reservations with
limits), DCUtR (hole punching by TCP simultaneous open from the listen port, SO_REUSEPORT) and
identify (how a relay sees our address).  No bootstrap, mDNS, UPnP or DHT: a carrier only ever
talks to the relays it is given and the peers it dials or that dial it through them.

Two verbs, one object:

* ``Carrier.open_stream(peer, relays)`` — a ``CarrierStream`` (a ``trio.abc.Stream``) to that
  peer: a direct connection if it already exists, else one through a relay, upgraded to direct
  by a hole punch when the NATs allow it (bounded in time; the stream then prefers the direct
  connection, and the relayed one is left to close);
* ``Carrier.incoming`` — streams other peers opened to us.

A carrier with ``relay_limits`` is a relay (``creepnet relay``): it accepts reservations and
relays circuits, within those limits.

Settings of ours, each measured (docs/NODE.md, "Measured per path"):

* ``PY_YAMUX_RELEASE_ON_READ=0`` (py-libp2p's own tuning variable, unless already set): by
  default its yamux sends a window update after *every* read, before the read returns —
  through a relay that is an extra frame per message on each of the relay's legs and on each
  end's circuit, each one Python Noise and a context switch on the way to the data.  Off,
  credit still flows (an update whenever read bytes are owed, at the latest on the next read)
  and the relay's CPU per round trip drops by about a third.
* A dial waits for the hole punch only as long as a punch can plausibly take on this path
  (``punch_wait``: a floor plus a multiple of what the relay circuit took to set up, at most
  ``HOLE_PUNCH_WAIT``), and moves on the moment a direct connection exists (a libp2p notifee,
  not DCUtR's own polling); the punch itself runs on in the background, so a late success
  still turns later streams direct.
* A late success takes the game off the relay: ``RELAY_GRACE`` after a direct connection to a
  peer comes up, its relayed connections are closed (py-libp2p waits 60 s), and the node's
  redial opens the next stream on the direct one.
* multistream-select pipelined (``PipelinedSelect``: the header and the first proposal in one
  flight, as the spec allows), on every stream and connection upgrade: a round trip less on
  each negotiation.
* No circuit relay *client* role on the transport: with it, py-libp2p's circuit dial makes a
  reservation first (three relay round trips); our reservations are made by ``_keep_relays``.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import multiaddr
import trio
from libp2p import new_host
from libp2p.abc import INotifee
from libp2p.crypto.ed25519 import create_new_key_pair
from libp2p.custom_types import TProtocol
from libp2p.network.stream.exceptions import StreamError
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo, info_from_p2p_addr
from libp2p.protocol_muxer.exceptions import (
    MultiselectClientError,
    MultiselectCommunicatorError,
    ProtocolNotSupportedError,
)
from libp2p.protocol_muxer.multiselect_client import (
    DEFAULT_NEGOTIATE_TIMEOUT,
    MULTISELECT_PROTOCOL_ID,
    PROTOCOL_NOT_FOUND_MSG,
    MultiselectClient,
)
from libp2p.relay.circuit_v2.config import RelayConfig, RelayRole
from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol
from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID, STOP_PROTOCOL_ID, CircuitV2Protocol
from libp2p.relay.circuit_v2.protocol_buffer import StatusCode
from libp2p.relay.circuit_v2.resources import RelayLimits
from libp2p.relay.circuit_v2.transport import CircuitV2Transport
from libp2p.tools.anyio_service import background_trio_service

STREAM_PROTOCOL = TProtocol("/creepnet/stream/2")  # our framed, sealed frames
KEEP_RELAYS_EVERY = 2.0  # seconds between checks that each relay is connected and reserved
HOLE_PUNCH_WAIT = 5.0  # seconds at most a dial waits for a direct path before using the relay
# A punch costs about as many round trips as setting up the relay circuit did (DCUtR's
# exchange, a TCP simultaneous open, Noise, two protocol negotiations): wait that long twice,
# plus a floor for a busy machine, before the relay carries the game.
PUNCH_FLOOR, PUNCH_PER_CIRCUIT = 2.0, 2.0
HOLE_PUNCH_LIMIT = 20.0  # seconds a hole punch may go on in the background (DCUtR's 3 rounds)
# Once a direct connection to a peer holds, its relayed ones are closed after this long
# (py-libp2p waits 60 s): a punch that landed after the dial stopped waiting takes the game
# off the relay within seconds, the node redialling onto the direct connection.
RELAY_GRACE = 3.0
READ_CHUNK = 65536
INCOMING_QUEUE = 16  # streams opened to us, not yet taken by the node

log = logging.getLogger(__name__)

os.environ.setdefault("PY_YAMUX_RELEASE_ON_READ", "0")  # see the module docstring


class CarrierError(Exception):
    """The carrier could not reach a peer or a relay; the message says which and why."""


@dataclass(frozen=True)
class Limits:
    """What a relay gives away (circuit relay v2 limits)."""

    reservations: int = 64  # peers holding a reservation at once
    per_ip: int = 8  # of those, from one IP address (peer ids cost nothing to make)
    circuits: int = 32  # relayed connections at once
    duration: int = 2 * 3600  # seconds one relayed connection may last
    data: int = 64 * 1024 * 1024  # bytes one relayed connection may carry
    reservation_ttl: int = 3600  # seconds; clients refresh before it runs out

    def to_libp2p(self) -> RelayLimits:
        return RelayLimits(
            duration=self.duration,
            data=self.data,
            max_circuit_conns=self.circuits,
            max_reservations=self.reservations,
            reservation_ttl=self.reservation_ttl,
        )


class _Hop(CircuitV2Protocol):
    """py-libp2p's circuit relay, reserving only for the peer that asks, a few per IP.

    Its RESERVE handler reserves for whatever peer id the message names (the spec's RESERVE
    names none: the reservation is the connection's peer's): one connection could fill a
    relay's reservations with made-up ids, each held for an hour, and no host could reserve
    there.  Without the field py-libp2p takes the connection's peer, which Noise proved (a
    py-libp2p client names itself, so nothing changes for an honest one).  And peer ids cost
    nothing to make, so one IP address holds at most ``per_ip`` reservations (go-libp2p's
    relay has the same rule, 8 by default).  Its circuit limit counts per reserved
    destination, so ``max_circuit_conns`` circuits are also all it carries at once, and
    ``per_ip`` of them from one IP address: else one machine could hold them all.

    And py-libp2p files its circuits by peer id, one entry per id: when a circuit ended it
    closed the streams filed under the destination's id, which are those of the newest
    circuit to that peer, another peer's.  A host that closed one guest's relayed connection
    after a hole punch cut off another guest whose only path was that relay.  Here each
    circuit closes its own two streams, and the index by peer id stays empty."""

    def __init__(self, host: Any, *, limits: RelayLimits, allow_hop: bool, per_ip: int) -> None:
        super().__init__(host, limits=limits, allow_hop=allow_hop)
        self._active_relays = _Unfiled()
        self.per_ip = per_ip
        self._ip_of: dict[ID, str] = {}  # reservation holders, by the IP they reserved from
        # CONNECTs being served, by the IP they came from (a handler lasts as its circuit)
        self._circuits: Counter[str] = Counter()

    async def _handle_connect(self, stream: Any, msg: Any) -> None:
        ip, circuits = _remote_ip(stream.muxed_conn), self._circuits
        reason = None
        if sum(circuits.values()) >= self.limits.max_circuit_conns:
            reason = f"this relay carries at most {self.limits.max_circuit_conns} circuits"
        elif circuits[ip] >= self.per_ip:
            reason = f"at most {self.per_ip} circuits from one IP address"
        if reason is not None:
            await self._send_status(stream, StatusCode.RESOURCE_LIMIT_EXCEEDED, reason)
            await trio.sleep(0.5)  # as py-libp2p's own refusals: the status is read, then reset
            with contextlib.suppress(Exception):
                await stream.reset()
            return
        circuits[ip] += 1
        try:
            await super()._handle_connect(stream, msg)
        finally:
            circuits[ip] -= 1
            if not circuits[ip]:
                del circuits[ip]

    async def _relay_data(self, source: Any, destination: Any, *args: Any) -> None:
        """One direction of a circuit; when it ends, so does the circuit (both its streams:
        the other direction's read then ends too)."""
        try:
            await super()._relay_data(source, destination, *args)
        finally:
            with trio.CancelScope(shield=True):
                await self._close_stream(source)
                await self._close_stream(destination)

    @property
    def carrying(self) -> int:
        """Circuits being relayed now."""
        return sum(self._circuits.values())

    async def _handle_reserve(self, stream: Any, msg: Any) -> None:
        msg.ClearField("peer")
        peer, ip = stream.muxed_conn.peer_id, _remote_ip(stream.muxed_conn)
        held = self.resource_manager.has_reservation
        self._ip_of = {p: i for p, i in self._ip_of.items() if held(p)}
        if not held(peer) and sum(i == ip for i in self._ip_of.values()) >= self.per_ip:
            reason = f"at most {self.per_ip} reservations per IP address"
            await self._send_status(stream, StatusCode.RESOURCE_LIMIT_EXCEEDED, reason)
            return
        await super()._handle_reserve(stream, msg)
        if held(peer):
            self._ip_of[peer] = ip


class _Unfiled(dict[Any, Any]):
    """py-libp2p's index of its circuits by peer id, kept empty (see ``_Hop``): what it
    closes through it would be some other circuit's streams."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def _remote_ip(conn: Any) -> str:
    """The IP address a connection comes from: over a circuit, the relay's (a circuit's own
    address, ``/p2p/R/p2p-circuit/p2p/P``, names none); "?" when libp2p does not say (one
    bucket)."""
    for addr in _transport_addrs(conn):
        for protocol in ("ip4", "ip6"):
            with contextlib.suppress(Exception):
                return str(addr.value_for_protocol(protocol))
    relay = _relay_connection(conn)
    return "?" if relay is None else _remote_ip(relay)


# How py-libp2p layers a connection: muxer -> secure session -> Noise framing -> raw
# connection; a circuit's raw connection is a stream on the connection to the relay.
_LAYERS = ("secured_conn", "conn", "read_writer", "read_write_closer", "stream")


def _relay_connection(conn: Any) -> Any | None:
    """The connection to the relay under a circuit, or None for a direct connection."""
    layer = conn
    for _ in range(2 * len(_LAYERS)):  # bounded: a layer that wraps itself ends the walk
        below = next(
            (found for name in _LAYERS if (found := getattr(layer, name, None)) is not None),
            None,
        )
        if below is None:
            return None
        relay = getattr(below, "muxed_conn", None)
        if relay is not None and relay is not conn:
            return relay
        layer = below
    return None


class PipelinedSelect(MultiselectClient):
    """multistream-select as its spec lets a dialer speak it: the header and the first
    proposal in one flight, both answers read after (go-libp2p's dialers do the same).
    py-libp2p's own client waits for the header's echo before it proposes: a round trip more
    for every stream.  A listener answers both in order either way; a refused first proposal
    falls back to proposing the others one by one."""

    async def select_one_of(
        self,
        protocols: Any,
        communicator: Any,
        negotiate_timeout: int = DEFAULT_NEGOTIATE_TIMEOUT,
    ) -> Any:
        if not protocols:
            raise MultiselectClientError("no protocol to propose")
        first, *others = list(protocols)
        with trio.move_on_after(negotiate_timeout):
            try:
                await communicator.write(MULTISELECT_PROTOCOL_ID)
                await communicator.write(first)
                header = await communicator.read()
                answer = await communicator.read()
            except MultiselectCommunicatorError as exc:
                raise MultiselectClientError(f"negotiating {first}: {exc}") from exc
            if header != MULTISELECT_PROTOCOL_ID:
                raise MultiselectClientError(f"not multistream-select: {header!r}")
            if answer == first:
                return first
            if answer != PROTOCOL_NOT_FOUND_MSG:
                raise MultiselectClientError(f"unexpected answer to {first}: {answer!r}")
            for protocol in others:
                with contextlib.suppress(ProtocolNotSupportedError):
                    return await self.try_select(communicator, protocol)
            raise MultiselectClientError(f"none of {list(protocols)} is supported")
        raise MultiselectClientError(f"no answer to {list(protocols)} in {negotiate_timeout}s")


def pipeline_negotiations(host: Any) -> list[str]:
    """Give host's every multistream-select dialer the pipelined client; which ones got it.

    The streams' client is the host's public ``multiselect_client``.  The connection
    upgrades' (security, then muxer: on the relay connection, inside the circuit, on the
    punched one) are reached only through an attribute py-libp2p does not publish
    (``_selector``); should a release move it, those upgrades only keep their extra round
    trip (``tests/node/test_node_wan_invite.py`` fails to say so)."""
    host.multiselect_client = PipelinedSelect()
    done = ["streams"]
    upgrader = getattr(host.get_network(), "upgrader", None)
    for stage in ("security_multistream", "muxer_multistream"):
        selector: Any = getattr(getattr(upgrader, stage, None), "_selector", None)
        if isinstance(getattr(selector, "multiselect_client", None), MultiselectClient):
            selector.multiselect_client = PipelinedSelect()
            done.append(stage)
    return done


class CarrierStream(trio.abc.Stream):
    """One libp2p stream as a trio byte stream (what ``node.transport.Connection`` wraps)."""

    def __init__(self, stream: Any, peer: str) -> None:
        self._stream = stream
        self.peer = peer
        self.closed = trio.Event()

    @property
    def relayed(self) -> bool:
        """True while the stream rides a relay circuit, False on a direct connection."""
        return is_relayed(self._stream.muxed_conn)

    @property
    def origin(self) -> str:
        """The IP address its connection comes from: the peer's over a direct connection, the
        relay's over a circuit ("?" when libp2p does not say).  Where the node's peer slots
        see it come from (``Connection.origin``)."""
        return _remote_ip(self._stream.muxed_conn)

    @property
    def remote(self) -> str:
        """The connection's transport address as libp2p reports it (for reports only)."""
        try:
            return " ".join(str(a) for a in _transport_addrs(self._stream.muxed_conn))
        except Exception:  # noqa: BLE001 - a label, never a decision
            return "?"

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        try:
            await self._stream.write(bytes(data))
        except (StreamError, Exception) as exc:  # libp2p raises many kinds
            raise trio.BrokenResourceError(f"stream to {self.peer} broke: {exc}") from None

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        try:
            return bytes(await self._stream.read(max_bytes or READ_CHUNK))
        except StreamError:
            return b""  # EOF or reset: the reader sees the end of the stream
        except Exception as exc:  # noqa: BLE001 - a transport fault, reported as one
            raise trio.BrokenResourceError(f"stream from {self.peer} broke: {exc}") from None

    async def aclose(self) -> None:
        self.closed.set()
        with trio.CancelScope(shield=True), trio.move_on_after(2), contextlib.suppress(Exception):
            await self._stream.reset()


def _transport_addrs(conn: Any) -> list[Any]:
    for candidate in (conn, getattr(conn, "secured_conn", None), getattr(conn, "raw_conn", None)):
        getter = getattr(candidate, "get_transport_addresses", None)
        if getter is not None:
            with contextlib.suppress(Exception):
                addrs = getter()
                if addrs:
                    return list(addrs)
    return []


def is_relayed(conn: Any) -> bool:
    return any("/p2p-circuit" in str(addr) for addr in _transport_addrs(conn)) or (
        "circuit" in type(getattr(conn, "secured_conn", conn)).__name__.lower()
    )


def punch_wait(circuit_seconds: float, limit: float = HOLE_PUNCH_WAIT) -> float:
    """How long a dial waits for a hole punch, given how long the relay circuit took."""
    return min(limit, PUNCH_FLOOR + PUNCH_PER_CIRCUIT * circuit_seconds)


class _Watcher(INotifee):
    """Wakes the carrier whenever libp2p opens a connection (a hole punch may have landed)."""

    def __init__(self, carrier: Carrier) -> None:
        self.carrier = carrier

    async def connected(self, network: Any, conn: Any) -> None:
        self.carrier._notify()
        peer = getattr(getattr(conn, "muxed_conn", None), "peer_id", None)
        if peer is not None and not is_relayed(conn):
            self.carrier._retire_relayed(peer)

    async def disconnected(self, network: Any, conn: Any) -> None:
        pass

    async def opened_stream(self, network: Any, stream: Any) -> None:
        pass

    async def closed_stream(self, network: Any, stream: Any) -> None:
        pass

    async def listen(self, network: Any, multiaddr: Any) -> None:
        pass

    async def listen_close(self, network: Any, multiaddr: Any) -> None:
        pass


def relay_info(address: str) -> PeerInfo:
    """A relay's ``/ip4/…/tcp/…/p2p/ID`` multiaddr → PeerInfo, with a clear error."""
    try:
        return info_from_p2p_addr(multiaddr.Multiaddr(address))
    except Exception as exc:  # noqa: BLE001 - multiaddr raises many kinds
        raise CarrierError(
            f"not a relay address (/ip4/HOST/tcp/PORT/p2p/ID): {address!r}: {exc}"
        ) from None


def peer_id_of(text: str) -> ID:
    try:
        return ID.from_base58(text)
    except Exception as exc:  # noqa: BLE001
        raise CarrierError(f"not a libp2p peer id: {text!r}: {exc}") from None


class Carrier:
    """A libp2p host that carries creepnet streams (see the module docstring)."""

    def __init__(
        self,
        seed: bytes,
        *,
        listen: Iterable[str] = ("/ip4/0.0.0.0/tcp/0",),
        relays: Iterable[str] = (),
        relay_limits: Limits | None = None,
        announce: Iterable[str] = (),
    ) -> None:
        self._key_pair = create_new_key_pair(seed)
        self._listen = [multiaddr.Multiaddr(a) for a in listen]
        relays = list(relays)
        self.relays = [relay_info(a) for a in relays]
        self.relay_addresses = list(relays)
        self.relay_limits = relay_limits
        # No bootstrap, no mDNS, no UPnP: only the relays given and the peers we meet.
        self.host: Any = new_host(
            key_pair=self._key_pair,
            announce_addrs=[multiaddr.Multiaddr(a) for a in announce] or None,
        )
        pipeline_negotiations(self.host)
        self._incoming_send, self.incoming = trio.open_memory_channel[CarrierStream](INCOMING_QUEUE)
        self.reserved: dict[str, bool] = {str(info.peer_id): False for info in self.relays}
        self._reserved_on: dict[str, Any] = {}  # relay → the connection its reservation is on
        self.changed = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._punching: set[ID] = set()
        self._retiring: set[ID] = set()  # peers whose relayed connections are being closed
        self._hop: _Hop | None = None  # the circuit relay protocol, once running
        self.host.get_network().register_notifee(_Watcher(self))

    @property
    def peer_id(self) -> str:
        return str(self.host.get_id())

    @property
    def carrying(self) -> int:
        """Circuits this relay is relaying now (0 before it runs, and for a non-relay)."""
        return self._hop.carrying if self._hop is not None else 0

    def listen_addresses(self) -> list[str]:
        return [str(a) for a in self.host.get_addrs()]

    def _notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        limits = (self.relay_limits or Limits()).to_libp2p()
        hop = self.relay_limits is not None
        # No CLIENT role: with it, py-libp2p's circuit dial first makes a reservation of its
        # own on a stream of its own (three round trips to the relay before the CONNECT).
        # Reservations are ours to make (_keep_relays, with the transport's public reserve).
        # And circuits are dialled by a transport of their own, one that never reserved: a
        # dial attaches its transport's last reservation voucher to the CONNECT, and a relay
        # that restarted since refuses a voucher it did not issue (PERMISSION_DENIED) for as
        # long as the voucher has not expired (an hour).
        roles = RelayRole.STOP | (RelayRole.HOP if hop else RelayRole(0))
        per_ip = (self.relay_limits or Limits()).per_ip
        circuit = self._hop = _Hop(self.host, limits=limits, allow_hop=hop, per_ip=per_ip)
        async with self.host.run(listen_addrs=self._listen), trio.open_nursery() as nursery:
            self._nursery = nursery
            self.host.set_stream_handler(PROTOCOL_ID, circuit._handle_hop_stream)
            self.host.set_stream_handler(STOP_PROTOCOL_ID, circuit._handle_stop_stream)
            self.host.set_stream_handler(STREAM_PROTOCOL, self._on_stream)
            async with background_trio_service(circuit):
                self.transport = CircuitV2Transport(
                    self.host, circuit, RelayConfig(roles=roles, limits=limits)
                )
                self._dialer = CircuitV2Transport(
                    self.host, circuit, RelayConfig(roles=RelayRole.STOP, limits=limits)
                )
                self.dcutr = DCUtRProtocol(self.host)
                async with background_trio_service(self.dcutr):
                    nursery.start_soon(self._keep_relays)
                    task_status.started()
                    await trio.sleep_forever()

    async def _on_stream(self, stream: Any) -> None:
        carried = CarrierStream(stream, str(stream.muxed_conn.peer_id))
        try:
            self._incoming_send.send_nowait(carried)
        except trio.WouldBlock:
            await carried.aclose()  # the node is not taking streams: refuse, do not queue
            return
        await carried.closed.wait()  # libp2p ends the stream when its handler returns

    # ----- relays: stay connected and reserved -------------------------------------------

    async def _keep_relays(self) -> None:
        while True:
            for info in self.relays:
                key = str(info.peer_id)
                # A reservation lives on the connection it was made on: one the relay lost
                # (it restarted) is gone even when a dial has connected us again meanwhile.
                live = [conn.muxed_conn for conn in self._connections(info.peer_id)]
                if self.reserved[key] and any(c is self._reserved_on.get(key) for c in live):
                    continue
                self.reserved[key] = False
                try:
                    with trio.fail_after(10):
                        await self._connect_relay(info)
                        stream = await self.host.new_stream(info.peer_id, [PROTOCOL_ID])
                        assert self._nursery is not None
                        ok = await self.transport.reserve(stream, info.peer_id, self._nursery)
                        self._reserved_on[key] = stream.muxed_conn
                        with contextlib.suppress(Exception):
                            await stream.close()
                except Exception as exc:  # noqa: BLE001 - a relay down is normal; retry
                    log.info("relay %s unreachable: %s", key, exc)
                    ok = False
                if ok != self.reserved[key] or ok:
                    self.reserved[key] = ok
                    self._notify()
            await trio.sleep(KEEP_RELAYS_EVERY)  # a keep-alive timer, not synchronisation

    async def _connect_relay(self, info: PeerInfo) -> None:
        # libp2p refuses for a minute to redial a peer whose addresses all failed, and keeps
        # the addresses the relay announced (0.0.0.0 for one listening on all): a relay that
        # restarts is back sooner than that, at the address we were given.
        self.host.get_network().unblock_peer(info.peer_id)
        self.host.get_peerstore().clear_addrs(info.peer_id)
        await self.host.connect(info)

    async def wait_reserved(self, timeout: float) -> bool:
        """Wait until some relay holds a reservation for us (others can then dial us)."""
        with trio.move_on_after(timeout):
            while not any(self.reserved.values()):
                await self.changed.wait()
            return True
        return False

    # ----- dialling -----------------------------------------------------------------------

    def _connections(self, peer: ID) -> list[Any]:
        conns = self.host.get_network().connections.get(peer) or []
        return conns if isinstance(conns, list) else [conns]

    def _direct(self, peer: ID) -> bool:
        return any(not is_relayed(conn) for conn in self._connections(peer))

    def _retire_relayed(self, peer: ID) -> None:
        """A direct connection to peer came up: its relayed ones go after RELAY_GRACE."""
        if self._nursery is not None and peer not in self._retiring:
            self._retiring.add(peer)
            self._nursery.start_soon(self._close_relayed, peer)

    async def _close_relayed(self, peer: ID) -> None:
        try:
            await trio.sleep(RELAY_GRACE)  # a grace period, not synchronisation
            if not self._direct(peer):
                return  # never strand the peer: the direct connection went again
            for conn in self._connections(peer):
                if is_relayed(conn):
                    log.info("closing the relayed connection to %s: a direct one holds", peer)
                    with contextlib.suppress(Exception):
                        await conn.close()
        finally:
            self._retiring.discard(peer)

    async def open_stream(
        self, peer: str, relays: Iterable[str], *, punch: float = HOLE_PUNCH_WAIT
    ) -> CarrierStream:
        """A stream to peer: direct when there is (or a hole punch makes) a direct
        connection, else through the first relay that connects us."""
        peer_id = peer_id_of(peer)
        relays = list(relays)
        if not self._direct(peer_id):
            started = trio.current_time()
            await self._circuit(peer, relays)
            if punch > 0 and not self._direct(peer_id):
                await self._punch(peer_id, punch_wait(trio.current_time() - started, punch))
        try:
            stream = await self.host.new_stream(peer_id, [STREAM_PROTOCOL])
        except Exception:  # noqa: BLE001 - a failed punch can take the circuit with it
            await self._circuit(peer, relays)
            try:
                stream = await self.host.new_stream(peer_id, [STREAM_PROTOCOL])
            except Exception as exc:  # noqa: BLE001
                raise CarrierError(f"cannot open a stream to {peer}: {exc}") from None
        return CarrierStream(stream, peer)

    async def _punch(self, peer_id: ID, wait: float) -> None:
        """Start a hole punch (unless one runs) and wait up to ``wait`` for a direct path."""
        if peer_id not in self._punching:
            assert self._nursery is not None
            self._punching.add(peer_id)
            self._nursery.start_soon(self._hole_punch, peer_id)
        with trio.move_on_after(wait):
            while not self._direct(peer_id) and peer_id in self._punching:
                await self.changed.wait()

    async def _hole_punch(self, peer_id: ID) -> None:
        try:
            with trio.move_on_after(HOLE_PUNCH_LIMIT), contextlib.suppress(Exception):
                await self.dcutr.initiate_hole_punch(peer_id)
        finally:
            self._punching.discard(peer_id)
            self._notify()  # a waiting dial stops waiting: the punch is over, either way

    async def _circuit(self, peer: str, relays: list[str]) -> None:
        """A relayed connection to peer through the first relay that gives one."""
        errors = []
        for relay in relays:
            try:
                relay_peer = relay_info(relay)
                if relay_peer.peer_id not in self.host.get_connected_peers():
                    await self._connect_relay(relay_peer)
                await self._dialer.dial(multiaddr.Multiaddr(f"{relay}/p2p-circuit/p2p/{peer}"))
                return
            except Exception as exc:  # noqa: BLE001 - libp2p raises many kinds
                errors.append(f"{relay}: {exc}")
        if not self._direct(peer_id_of(peer)):
            raise CarrierError(f"cannot reach {peer}: " + ("; ".join(errors) or "no relay"))
