"""The node: a small façade over the parts that do the work.

* ``connections.Connections`` — the listener, dialers and redial, the authenticated peers
* ``sync.GameSync`` — what each peer message does: gossip, have/get catch-up, joins, lists
* ``ledger.Ledger`` — the one path of every accepted event: store (fsync), then gossip, report;
  storage retry after a disk error
* ``advertiser.Advertiser`` / ``relocation.HostFinder`` — zeroconf adverts of our hosted games,
  and finding a followed game's host that moved
* ``mesh.Mesh`` — every seat connects to every other seat: addresses learned, bounded, and
  believed only after a handshake with the key
* ``stalls.watch_stalls`` — a node waiting on a seat asks every peer before it says "stalled"
* ``reporter.Reporter`` — the update stream a UI reads

The node never judges an event itself: it hands raw bytes to ``Session.receive`` and reports
what the session said.  ``Node`` holds the games and wires the parts together; its public
methods are what the CLI, the bots and the tests use.
"""

from __future__ import annotations

import collections
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from creepnet.node import updates
from creepnet.node.advertiser import Advertiser
from creepnet.node.connections import Connections
from creepnet.node.discovery import Discovery, Found
from creepnet.node.errors import JoinRefused, NodeError
from creepnet.node.framing import FrameError
from creepnet.node.game import GameRuntime, hosted_active
from creepnet.node.handshake import WIRE_VERSION
from creepnet.node.ledger import Ledger
from creepnet.node.loading import load_session
from creepnet.node.mesh import Mesh, Scope
from creepnet.node.peer import Peer, ProtocolViolation
from creepnet.node.relocation import HostFinder, advert_refusal
from creepnet.node.reporter import Reporter
from creepnet.node.retirement import Retirements
from creepnet.node.stalls import ASK_AFTER, watch_stalls
from creepnet.node.storage import GameStore, Home, StorageError
from creepnet.node.sync import GameSync
from creepnet.node.trace import EventTrace
from creepnet.node.transport import Timeouts
from creepnet.node.updates import Broadcaster
from creepnet.protocol.event import Event
from creepnet.protocol.identity import Identity
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session

# How long a join waits for the host's seat event (or refusal) after its request: the host signs,
# stores and sends it, over a relay too, on a machine that may be busy; a 10 s handshake timeout
# here ended a join the host had already seated (the table then waited on a seat nobody ran).
SEATING_PATIENCE = 60.0
LEAVING_PATIENCE = 3.0  # seconds a leave waits for its notice to be written to the peers


class Node:
    """See the module docstring; create with ``async with Node.open(home, ...) as node``."""

    def __init__(
        self,
        home: Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        name: str = "",
        timeouts: Timeouts | None = None,
        discovery: bool = False,
        iface: list[str] | None = None,
        version: int = WIRE_VERSION,
        trace: Path | None = None,
        mesh: Scope | None = None,
        ask_after: float = ASK_AFTER,
    ) -> None:
        self.home = Home(home)
        self.host = host
        self.port = port
        self.name = name
        self.timeouts = timeouts or Timeouts()
        self.use_discovery = discovery
        self.iface = iface
        self.version = version
        self.identity: Identity = self.home.identity()
        self.games: dict[bytes, GameRuntime] = {}
        # The port our unfinished hosted games were served on before, when it was taken and
        # we listen elsewhere (their players find us again by zeroconf).
        self.port_taken: int | None = None
        self._nursery: trio.Nursery | None = None
        self._broadcaster = Broadcaster(name or self.identity.fingerprint)
        self._reporter = Reporter(self._broadcaster)
        self._advertiser = Advertiser(self.games, self.fingerprint, host, iface)
        self._ledger = Ledger(self._reporter, self.timeouts.retry, self._advertiser.refresh)
        self._trace_path = trace
        self._sync = GameSync(self.games, self._ledger, self._reporter, self.timeouts.handshake)
        self._connections = Connections(
            self.identity, self.games, self._reporter, self.timeouts, name=name, version=version
        )
        self._connections.handler = self._sync.dispatch
        self._sync.shun = self._connections.shun
        self._retirements = Retirements(
            self.games, self._ledger, self._reporter, self.identity, meter=self._sync
        )
        self._sync.retirements = self._retirements
        # The mesh: which addresses a peer (or an advert) may make us dial (mesh.py); by
        # default what the listener reaches (loopback for a node on 127.0.0.1, else the LAN).
        self.mesh_scope = mesh or Scope.for_listener(host)
        finder = HostFinder(
            self.games, self._connections, self._advertiser, self._reporter, self.mesh_scope
        )
        self._connections.pause_before_redial = finder.pause_before_redial
        self._mesh = Mesh(self.games, self._connections, self._reporter, self.mesh_scope)
        self._sync.mesh = self._mesh
        self._connections.on_connected = self._sync.greet
        self._connections.on_disconnected = self._forget
        self._ledger.on_settled = self._settled
        self.ask_after = ask_after

    # ----- life cycle ---------------------------------------------------------------------

    @classmethod
    @asynccontextmanager
    async def open(cls, home: Path, **options: Any) -> AsyncIterator[Node]:
        node = cls(home, **options)
        trace = EventTrace(node._trace_path) if node._trace_path else None
        node._ledger.trace = trace
        try:
            async with trio.open_nursery() as nursery:
                await node._start(nursery)
                try:
                    yield node
                finally:
                    nursery.cancel_scope.cancel()
        finally:
            if trace is not None:
                trace.close()

    async def _start(self, nursery: trio.Nursery) -> None:
        self._nursery = self._ledger.nursery = nursery
        # Games first: which port to ask for depends on the hosted games we resume.
        for game in self.home.stored_games():
            try:
                await self._load(game)
            except OSError as exc:  # a failing disk under one game: it stays shut, not the home
                text = f"cannot open the stored game {game.hex()[:8]}: {exc}; left as it is"
                self._reporter.publish(updates.STORAGE_ERROR, text, game)
        previous = self._previous_ports()
        self.port = await self._connections.listen(nursery, self.host, self.port, previous)
        self._mesh.port = self.port
        if previous and self.port != previous[0]:
            self.port_taken = previous[0]
        self._advertiser.port = self.port
        for runtime in hosted_active(self.games):
            if runtime.store.load_port() != self.port:
                self._save_port(runtime)
        if self.use_discovery:
            await nursery.start(self._advertiser.run)
        await nursery.start(self._retirements.run)
        for runtime in self.games.values():
            self._connections.redial(runtime)
        self._mesh.refresh()  # and the other seats of our games, where we reached them before
        moved = f" (port {self.port_taken}, used before, is taken)" if self.port_taken else ""
        self._reporter.publish(
            updates.LISTENING, f"listening on {self.address}{moved} as {self.fingerprint}"
        )

    def _forget(self, peer: Peer) -> None:
        self._sync.forget(peer)
        self._mesh.refresh()  # a seat we dial is redialled

    def _settled(self) -> None:
        self._advertiser.refresh()
        self._mesh.refresh()  # new seats: tell the others where they are, dial them

    def _previous_ports(self) -> list[int]:
        """Ports our unfinished hosted games were served on, most common first: their
        players redial the address they know, so listening there again is how they find us."""
        ports = [rt.store.load_port() for rt in hosted_active(self.games)]
        counts = collections.Counter(port for port in ports if port)
        return [port for port, _ in counts.most_common()]

    def _save_port(self, runtime: GameRuntime) -> None:
        self._reporter.save_hint(runtime, lambda: runtime.store.save_port(self.port))

    async def start_discovery(self) -> None:
        """Turn zeroconf on in a node opened without it (advertise, find moved hosts)."""
        if self.discovery is None:
            assert self._nursery is not None
            self.use_discovery = True
            await self._nursery.start(self._advertiser.run)

    @property
    def discovery(self) -> Discovery | None:
        """Our zeroconf (browse with it), while discovery is on."""
        return self._advertiser.discovery

    @property
    def connections(self) -> Connections:
        """The listener, dialers and peers (another carrier plugs in here: node/wan)."""
        return self._connections

    @property
    def ticket_key(self) -> bytes | None:
        """The key of our invites' tickets while the internet carrier runs (node/wan): a
        player who joins over it must show the game's ticket."""
        return self._sync.ticket_key

    @ticket_key.setter
    def ticket_key(self, key: bytes | None) -> None:
        self._sync.ticket_key = key

    @property
    def peers(self) -> dict[bytes, Peer]:
        return self._connections.peers

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def fingerprint(self) -> str:
        return self.identity.fingerprint

    def updates(self, buffer: int = 1024) -> Any:
        """``async with node.updates() as channel: async for update in channel: ...``"""
        return self._broadcaster.subscribe(buffer)

    # ----- games: host, join, watch, play -----------------------------------------------------

    def session(self, game: bytes) -> Session:
        return self._runtime(game).session

    def _runtime(self, game: bytes) -> GameRuntime:
        try:
            return self.games[game]
        except KeyError:
            raise NodeError(f"no game {game.hex()[:8]} on this node") from None

    async def host_game(
        self,
        kind: str,
        name: str = "game",
        *,
        seats: int = 2,
        player: str = "host",
        options: dict[str, Any] | None = None,
        reserved_for: frozenset[bytes] = frozenset(),
    ) -> bytes:
        """Create a game of a registered kind (we sign its genesis and take seat 0); returns
        its id.  With ``reserved_for``, only those keys may take its seats (a rematch)."""
        secrets = SeatSecrets.generate()
        try:
            session = Session.host(
                self.identity,
                secrets,
                kind=kind,
                name=name,
                seats=seats,
                player=player,
                options=options,
            )
        except Rejection as exc:
            raise NodeError(f"cannot host this game: {exc.reason}") from None
        assert session.game is not None  # a hosted game's id comes with its genesis
        store = self.home.game(session.game)
        store.save_secrets(secrets.to_bytes())  # before the genesis that commits to them
        if reserved_for:
            store.save_reserved(reserved_for)  # before anyone can see the game and ask a seat
        runtime = self._register(session, store)
        runtime.reserved_for = reserved_for
        async with runtime.lock:
            await self._ledger.settle(runtime)
        if runtime.stored == 0:
            raise NodeError(f"cannot store the new game: {runtime.storage_error}")
        self._save_port(runtime)
        return session.game

    async def join(
        self,
        address: str,
        game: bytes | str | None = None,
        *,
        player: str = "player",
        host: str | None = None,
        listed: list[dict[str, Any]] | None = None,
        nonce: bytes | None = None,
        ticket: bytes | None = None,
    ) -> bytes:
        """Join a lobby game at address: fetch its log, ask for the next seat, wait to be seated.

        ``game`` may be the id, a hex prefix (as discovery shows it) or None when the host
        holds exactly one open lobby; ``host``, the host's fingerprint where an advert named
        it; ``listed``, the games the node at address just listed (``list_games``), so that
        they are not asked for again; ``nonce``, with ``game`` an id, the game's genesis nonce
        (an invite's): the host is proved with it and nothing is listed at all; ``ticket``, an
        invite's, which a host reached over the internet wants before it seats us.  The node at
        address must prove it hosts the game before we say a word about it (JoinRefused
        otherwise): a forged advert leads nowhere; the proof is checked against the key of the
        connection we join on, whichever connection gave the listing or the nonce."""
        peer = await self.connect(address)
        info: dict[str, Any]
        if nonce is not None and isinstance(game, bytes) and listed is None:
            info = {"game": game, "nonce": nonce}  # check_host proves it, as for a listing
        else:
            info = await self._sync.pick_remote_game(peer, game, lobby=True, items=listed)
        game_id = info["game"]
        try:
            self._sync.check_host(peer, info, host)
        except JoinRefused:
            if not self._connections.wanted(address):
                peer.close("it does not host the game it lists")
            raise
        if game_id in self.games:
            runtime = self.games[game_id]
            if runtime.session.local_seat is not None:
                return game_id  # already seated (e.g. after a restart): just follow
        else:
            secrets = SeatSecrets.generate()
            store = self.home.game(game_id)
            store.save_secrets(secrets.to_bytes())  # before the request that commits to them
            # Pinned to the key we listed the game from: only a host can seat us.
            session = Session.follow(game_id, self.identity, secrets, host=peer.key)
            runtime = self._register(session, store)
        self._follow_through(runtime, peer, address)
        length = info.get("length")
        if length is None:  # not listed: the host's `have` answering ours says how far it is
            try:
                await self.wait_for(
                    game_id, lambda rt: peer.key in rt.acked, timeout=self.timeouts.handshake
                )
            except trio.TooSlowError:
                raise NodeError(
                    f"{peer.label} said nothing about game {game_id.hex()[:8]}"
                ) from None
            length = runtime.acked[peer.key]
        await self._catch_up(runtime, max(length, 1))
        name = runtime.session.name
        # Several players may ask for the same free seat at once: the host seats one, refuses
        # the others, and a refused player asks again for the seat that is now free.
        for _ in range(runtime.session.seat_count or 1):
            async with runtime.lock:
                try:
                    seat = runtime.session.next_free_seat
                    request = runtime.session.join_request(player)
                except Rejection as exc:
                    raise JoinRefused(f"cannot join {name!r}: {exc.reason}") from None
            runtime.join_refused = None
            ask = {"type": "join", "game": game_id, "request": request}
            peer.send(ask if ticket is None else {**ask, "ticket": ticket})
            try:
                await self.wait_for(
                    game_id,
                    lambda rt: rt.session.local_seat is not None or rt.join_refused is not None,
                    timeout=max(SEATING_PATIENCE, self.timeouts.handshake),
                )
            except trio.TooSlowError:
                raise NodeError(
                    f"{peer.label} neither seated us in {name!r} nor refused within "
                    f"{SEATING_PATIENCE:.0f} s; run the same join again to retry"
                ) from None
            free = runtime.session.next_free_seat
            if runtime.session.local_seat is not None or free is None or free == seat:
                break
        if runtime.session.local_seat is None:
            raise JoinRefused(f"the host refused: {runtime.join_refused}")
        return game_id

    async def watch(
        self,
        address: str,
        game: bytes | str | None = None,
        *,
        listed: list[dict[str, Any]] | None = None,
    ) -> bytes:
        """Follow a game read-only (as a spectator); returns its id once its log is fetched.
        ``listed``: the games the node at address just listed, so they are not asked again."""
        peer = await self.connect(address)
        info = await self._sync.pick_remote_game(peer, game, lobby=False, items=listed)
        game_id = info["game"]
        runtime = self.games.get(game_id)
        if runtime is None:
            runtime = self._register(Session.follow(game_id), self.home.game(game_id))
        self._follow_through(runtime, peer, address)
        await self._catch_up(runtime, info["length"])
        return game_id

    def _follow_through(self, runtime: GameRuntime, peer: Peer, address: str) -> None:
        runtime.dial.add(address)
        self._reporter.save_hint(runtime, runtime.save_dial)
        self._sync.follow(runtime, peer)

    async def _catch_up(self, runtime: GameRuntime, length: int) -> None:
        """Wait until length events of the game are stored.  A long log takes a while on a
        slow machine, so what fails is silence (no new event for the handshake timeout), not
        the total time."""
        while runtime.stored < length:
            before = runtime.stored

            def grew(rt: GameRuntime, before: int = before) -> bool:
                return rt.stored > before

            with trio.move_on_after(self.timeouts.handshake):
                await self.wait_for(runtime.game, grew)
                continue
            raise NodeError(
                f"game {runtime.game.hex()[:8]}: nothing new for {self.timeouts.handshake:g}s "
                f"while catching up ({runtime.stored} of {length} events stored)"
            )

    async def play(self, game: bytes, action: str) -> Event:
        """The local player's decision; raises Rejection (not your turn, illegal) with a reason,
        or StorageError if the move could not be stored (it is then not sent either)."""
        runtime = self._runtime(game)
        async with runtime.lock:
            event = runtime.session.play(action)
            await self._ledger.settle(runtime)
        if runtime.stored <= event.seq:
            raise StorageError(runtime.storage_error or "the move was not stored")
        return event

    async def leave(self, game: bytes) -> None:
        """Tell the table we leave for good (a signed notice): they may retire us at once.
        Returns once every connected peer has the notice written to its connection (at most
        ``LEAVING_PATIENCE``): a command that exits right after would otherwise close the
        connections with the notice still queued, and the table wait its full patience."""
        runtime = self._runtime(game)
        self._retirements.leave(runtime)
        with trio.move_on_after(LEAVING_PATIENCE):
            for peer in list(runtime.followers.values()):
                await peer.wait_written(peer.queued)

    async def claim(self, game: bytes) -> None:
        """Two seats left and the other is gone: claim the game abandoned (node/retirement.py)."""
        await self._retirements.claim(self._runtime(game))

    async def flush(self, game: bytes) -> bool:
        """Retry storing (then sending) events held back by a storage error; True when done."""
        runtime = self._runtime(game)
        async with runtime.lock:
            await self._ledger.settle(runtime)
        return runtime.storage_error is None

    async def wait_for(
        self, game: bytes, predicate: Callable[[GameRuntime], bool], timeout: float | None = None
    ) -> GameRuntime:
        """Wait until predicate(runtime) holds (checked after every change of the game)."""
        runtime = self._runtime(game)
        with trio.fail_after(timeout) if timeout is not None else trio.CancelScope():
            while not predicate(runtime):
                await runtime.changed.wait()
        return runtime

    async def wait_synced(self, game: bytes) -> None:
        """Wait until our whole log is stored and every connected follower acknowledged it."""
        await self.wait_for(game, lambda rt: rt.synced())

    async def wait_changed(self, game: bytes) -> None:
        await self._runtime(game).changed.wait()

    def describe_games(self) -> list[dict[str, Any]]:
        return [runtime.describe() for runtime in self.games.values()]

    def advert_address(self, found: Found) -> str:
        """The address to dial for a game picked from its advert (by name, or from a list):
        found's, when it is within this node's scope (relocation.advert_refusal); else
        NodeError saying why, reported (``advert-refused``).  An advert is anyone's word."""
        refusal = advert_refusal(found.address, self.mesh_scope, self.iface)
        if refusal is None:
            return found.address
        text = (
            f"not dialling {found.address}, where an advert puts game {found.game} "
            f"({found.name!r}): {refusal} (if you trust it, dial it yourself: "
            f"--addr {found.address})"
        )
        self._reporter.publish(
            updates.ADVERT_REFUSED, text, data={"address": found.address, "key": None}
        )
        raise NodeError(text)

    async def list_games(self, address: str) -> list[dict[str, Any]]:
        """The games a node at address holds (as its `games` reply)."""
        return await self._sync.list_remote(await self.connect(address))

    async def connect(self, address: str) -> Peer:
        """A live, authenticated peer at address (dialling it if needed)."""
        return await self._connections.connect(address)

    # ----- holding games ------------------------------------------------------------------

    def _register(self, session: Session, store: GameStore, stored: int = 0) -> GameRuntime:
        runtime = GameRuntime(session, store, stored=stored, published=stored)
        self.games[runtime.game] = runtime
        self._sync.announce(runtime, self.peers)
        self._advertiser.refresh()
        assert self._nursery is not None
        self._nursery.start_soon(
            watch_stalls, runtime, self._sync.ask_everyone, self._reporter, self.ask_after
        )
        return runtime

    async def _load(self, game: bytes) -> None:
        """Reload a stored game (re-verified) and resume it."""
        store = self.home.game(game)
        session, stored = await load_session(store, game, self.identity, self._reporter)
        # Read before the game is held: an unreadable `reserved` must not open its seats.
        reserved, peers = store.load_reserved(), store.load_peers()
        runtime = self._register(session, store, stored=stored)
        runtime.reserved_for = reserved
        async with runtime.lock:
            await self._ledger.settle(runtime)  # anything we owe (e.g. a reveal cut off by a crash)
        runtime.dial.update(peers)
        self._mesh.load(runtime)  # the other seats, where a handshake proved them before


__all__ = ["FrameError", "JoinRefused", "Node", "NodeError", "ProtocolViolation", "Timeouts"]
