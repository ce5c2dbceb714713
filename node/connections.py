"""Connection management: the listener, the handshake slots, one dialer per address we need,
redial with back-off, and the table of authenticated peers (one live connection per key).

What a connection carries is not decided here: every peer is served with the handler the node
gives (game sync), and greeted and forgotten through it.  Where a failing host may have gone is
not decided here either: a dialler pauses between tries with ``pause_before_redial``, which the
node points at the zeroconf host finder.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from creepnet.node import updates
from creepnet.node.admission import Admission
from creepnet.node.errors import NodeError
from creepnet.node.game import ACTIVE, GameRuntime, games_at
from creepnet.node.handshake import HandshakeError, handshake
from creepnet.node.peer import Handler, Peer
from creepnet.node.reporter import Reporter
from creepnet.node.transport import Connection, Timeouts, TransportError, address_host, connect
from creepnet.protocol.identity import Identity, fingerprint

MAX_RETRY = 30.0  # seconds: the longest pause between two dials of one address
MAX_SHUNNED = 4096  # keys refused for a while (over their CPU budget)

Pause = Callable[[str, float, int], Awaitable[None]]  # (address, delay, failures in a row)
Dial = Callable[[str, Timeouts], Awaitable[Connection]]  # another carrier's dial (node/wan)


async def sleep_pause(address: str, delay: float, failures: int) -> None:
    await trio.sleep(delay)  # a back-off timer, not synchronisation


class Dialer:
    """Keeps one outgoing connection alive while some game needs that address.

    A dialer with ``expect`` dials a seat of the mesh (mesh.py): only that key is believed at
    the address, anyone else is hung up on at once."""

    def __init__(self, address: str, expect: bytes | None = None) -> None:
        self.address = address
        self.expect = expect
        self.peer: Peer | None = None
        self.error: str | None = None
        self.changed = trio.Event()

    def notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()


class Connections:
    def __init__(
        self,
        identity: Identity,
        games: dict[bytes, GameRuntime],
        reporter: Reporter,
        timeouts: Timeouts,
        *,
        name: str,
        version: int,
    ) -> None:
        self.identity = identity
        self.games = games
        self.reporter = reporter
        self.timeouts = timeouts
        self.name = name
        self.version = version
        self.peers: dict[bytes, Peer] = {}
        self.handler: Handler | None = None  # what serves each peer's messages
        self.on_connected: Callable[[Peer], None] = lambda peer: None
        self.on_disconnected: Callable[[Peer], None] = lambda peer: None
        self.pause_before_redial: Pause = sleep_pause
        # The mesh's dialers: whether (address, key) is still needed; a key found elsewhere.
        self.mesh_wants: Callable[[str, bytes], bool] = lambda address, key: False
        self.on_wrong_key: Callable[[str, bytes, bytes], None] = lambda address, e, f: None
        self.nursery: trio.Nursery | None = None  # where dialers run; set by listen()
        self._dialers: dict[tuple[str, bytes | None], Dialer] = {}
        self._admission = Admission()
        self._shunned: dict[bytes, float] = {}  # key -> until when its connections are refused
        # Addresses with these prefixes are dialled by another carrier (the internet one,
        # node/wan); everything else is HOST:PORT over TCP.
        self.carriers: dict[str, Dial] = {}
        self.carrier_relays: tuple[str, ...] = ()  # the internet carrier's relays (mesh.py)
        self.carrier_slack = 0.0  # seconds a carrier's dial may take beyond a TCP connect

    # ----- listening ----------------------------------------------------------------------

    async def listen(
        self, nursery: trio.Nursery, host: str, port: int, preferred: list[int]
    ) -> int:
        """Serve incoming connections; returns the port.  port 0 ("any") tries the preferred
        ports first (where our hosted games were served before), then any free one."""
        self.nursery = nursery
        listeners = await _open_listeners(host, port, preferred)
        nursery.start_soon(trio.serve_listeners, self._accept, listeners)
        return int(listeners[0].socket.getsockname()[1])

    async def _accept(self, stream: trio.abc.Stream, label: str = "") -> None:
        conn = Connection(stream, self.timeouts, label=label)
        try:
            await self._admit(conn)
        except Exception as exc:  # a bug: this connection ends, never the listener (the node)
            self.reporter.fault(f"accepting a connection at {conn.label}", exc)
            await conn.aclose()

    async def _admit(self, conn: Connection) -> None:
        # An internet stream's address is its peer id (`wan:<id>`): peer ids cost nothing, so
        # over the internet only the totals bound a flood, and probation keeps room for a seat.
        address = address_host(conn.label)
        slot = self._admission.enter(address)
        if isinstance(slot, str):
            await conn.send_error(slot)
            await conn.aclose()
            return
        try:
            with slot.scope:  # an eviction (slots scarce, this one the oldest) cancels it
                hello = await handshake(
                    conn,
                    self.identity,
                    name=self.name,
                    version=self.version,
                    on_hello=lambda h: (
                        self.shunned(h.key) or self._admission.hello(slot, h.key, self._players())
                    ),
                )
        except HandshakeError as exc:
            self.reporter.publish(updates.HANDSHAKE_FAILED, str(exc))
            return
        finally:
            self._admission.leave(slot)
        if slot.scope.cancelled_caught:
            await conn.send_error(f"handshake cut short: {slot.evicted}")
            await conn.aclose()
            self.reporter.publish(
                updates.HANDSHAKE_FAILED, f"{conn.label}: evicted: {slot.evicted}"
            )
            return
        self._admission.proven(hello.key, address, self._players())
        refusal = self._admission.make_room(self.peers, hello.key, self._players(), conn.origin)
        if refusal is not None:
            await conn.send_error(refusal)
            await conn.aclose()
            return
        await self._serve(Peer(conn, hello))

    async def accept_stream(self, stream: trio.abc.Stream, label: str) -> None:
        """Serve a stream another carrier accepted, as a TCP connection is served."""
        await self._accept(stream, label)

    async def _open(self, address: str) -> Connection:
        for prefix, dial in self.carriers.items():
            if address.startswith(prefix):
                return await dial(address, self.timeouts)
        return await connect(address, self.timeouts)

    def shun(self, key: bytes, seconds: float) -> None:
        """Refuse key's connections for a while (it overdrew its CPU budget: sync.py)."""
        now = trio.current_time()
        self._shunned = {k: t for k, t in self._shunned.items() if t > now}
        if len(self._shunned) < MAX_SHUNNED:
            self._shunned[key] = now + seconds

    def shunned(self, key: bytes) -> str | None:
        """Why key's connection is refused now, or None."""
        until = self._shunned.get(key)
        if until is None or until <= trio.current_time():
            return None
        left = until - trio.current_time()
        return f"refused for {left:.0f}s more: its events cost this node too much CPU"

    def _players(self) -> set[bytes]:
        """Keys seated in (or hosting) one of our games: they are let in before strangers."""
        return {key for rt in self.games.values() for key in rt.session.seat_keys}

    # ----- dialling -----------------------------------------------------------------------

    async def connect(self, address: str) -> Peer:
        """A live, authenticated peer at address (dialling it if needed)."""
        dialer = self.ensure_dialer(address)
        carried = any(address.startswith(prefix) for prefix in self.carriers)
        slack = self.carrier_slack if carried else 0.0  # e.g. a hole punch before the stream
        with trio.fail_after(self.timeouts.connect + self.timeouts.handshake + 1 + slack):
            while dialer.peer is None or dialer.peer.closed.is_set():
                if dialer.error is not None:
                    raise NodeError(dialer.error)
                await dialer.changed.wait()
        return dialer.peer

    def redial(self, runtime: GameRuntime) -> None:
        """Keep a connection to every address an unfinished game needs."""
        if runtime.state in ACTIVE:
            for address in sorted(runtime.dial):
                self.ensure_dialer(address)

    def ensure_dialer(self, address: str, expect: bytes | None = None) -> Dialer:
        dialer = self._dialers.get((address, expect))
        if dialer is None:
            dialer = self._dialers[(address, expect)] = Dialer(address, expect)
            assert self.nursery is not None
            self.nursery.start_soon(self._dial_loop, dialer)
        dialer.error = None
        return dialer

    def wanted(self, address: str) -> bool:
        return bool(games_at(self.games, address))

    def _still_wanted(self, dialer: Dialer) -> bool:
        if dialer.expect is None:
            return self.wanted(dialer.address)
        return self.mesh_wants(dialer.address, dialer.expect)

    async def _believed(self, dialer: Dialer, conn: Connection, key: bytes) -> bool:
        """A mesh dial: whether the key proved at the address is the one we dialled for."""
        if dialer.expect is None or key == dialer.expect:
            return True
        await conn.send_error(f"this address was given for key {fingerprint(dialer.expect)}")
        await conn.aclose()
        self.on_wrong_key(dialer.address, dialer.expect, key)
        return False

    async def _dial_loop(self, dialer: Dialer) -> None:
        """Dial, serve until the connection drops, redial with backoff while a game needs it."""
        delay = self.timeouts.retry
        failures = 0
        try:
            while True:
                try:
                    conn = await self._open(dialer.address)
                    hello = await handshake(
                        conn,
                        self.identity,
                        name=self.name,
                        version=self.version,
                        on_hello=lambda h: self.shunned(h.key),
                    )
                except Exception as exc:  # a bug in dialling is one more failed dial
                    if not isinstance(exc, TransportError | HandshakeError):
                        self.reporter.fault(f"dialling {dialer.address}", exc)
                    dialer.error = str(exc)
                    dialer.notify()
                    if not self._still_wanted(dialer):
                        return
                    failures += 1
                    self.reporter.publish(updates.ERROR, f"{exc}; retrying in {delay:.1f}s")
                    try:
                        await self.pause_before_redial(dialer.address, delay, failures)
                    except Exception as exc:  # e.g. zeroconf failing: back off all the same
                        self.reporter.fault(f"looking for {dialer.address} elsewhere", exc)
                        await trio.sleep(delay)
                    if not self._still_wanted(dialer):
                        return  # every game that needed it was found elsewhere
                    delay = min(delay * 2, MAX_RETRY)
                    continue
                if not await self._believed(dialer, conn, hello.key):
                    return  # the address is refused for that key: nothing needs it now
                if dialer.expect is not None and hello.key in self.peers:
                    await conn.aclose()  # reached meanwhile the other way: keep that one
                    return
                delay, failures = self.timeouts.retry, 0
                dialer.peer, dialer.error = Peer(conn, hello, dialed=dialer.address), None
                dialer.notify()
                await self._serve(dialer.peer)
                dialer.notify()
                if not self._still_wanted(dialer):
                    return
                await trio.sleep(delay)
        finally:
            self._dialers.pop((dialer.address, dialer.expect), None)

    # ----- serving ------------------------------------------------------------------------

    async def _serve(self, peer: Peer) -> None:
        old = self.peers.get(peer.key)
        if old is not None:
            old.close("replaced by a newer connection from the same key")
        self.peers[peer.key] = peer
        self.reporter.publish(updates.PEER_CONNECTED, f"connected to {peer.label}", peer=peer)
        key = peer.key
        assert self.handler is not None
        try:
            try:
                self.on_connected(peer)
            except Exception as exc:  # greeting it failed: it goes, nobody else does
                peer.fault = exc
                peer.close(f"internal error while greeting this peer ({type(exc).__name__})")
            await peer.run(self.handler)  # never raises: a fault is kept in peer.fault
        finally:
            if peer.dialed is None:  # it came from there: where a seat comes back from
                self._admission.proven(key, address_host(peer.conn.label), self._players())
            if self.peers.get(key) is peer:
                del self.peers[key]
            if peer.fault is not None:
                self.reporter.fault("serving a peer", peer.fault, peer)
            try:
                self.on_disconnected(peer)
            except Exception as exc:
                self.reporter.fault("forgetting a peer", exc, peer)
            self.reporter.publish(
                updates.PEER_DISCONNECTED,
                f"{peer.label} disconnected: {peer.close_reason}",
                peer=peer,
            )


async def _open_listeners(host: str, port: int, preferred: list[int]) -> list[trio.SocketListener]:
    if port:
        return list(await trio.open_tcp_listeners(port, host=host))  # the caller's choice
    for candidate in preferred:
        try:
            return list(await trio.open_tcp_listeners(candidate, host=host))
        except OSError:
            continue  # taken (another program, or another node on this home)
    return list(await trio.open_tcp_listeners(0, host=host))
