"""The node: listens, dials, gossips, catches up, stores, advertises — and drives the sessions.

Every event, ours or a peer's, takes one path (``_settle``): the session has accepted it, the
node writes it to the game's log file (fsync), and only then sends it to the game's peers and
announces it in ``have``.  The node never judges an event itself: it hands raw bytes to
``Session.receive`` and reports what the session said.
"""

from __future__ import annotations

import collections
import ipaddress
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from creepnet.node import messages, updates
from creepnet.node.admission import Admission, remote_address
from creepnet.node.discovery import Discovery, Found, GameAd, open_discovery
from creepnet.node.framing import FrameError
from creepnet.node.game import GameRuntime
from creepnet.node.handshake import WIRE_VERSION, HandshakeError, handshake
from creepnet.node.peer import Peer, ProtocolViolation
from creepnet.node.storage import GameStore, Home, StorageError
from creepnet.node.transport import Connection, Timeouts, TransportError, connect
from creepnet.node.updates import Broadcaster, Update
from creepnet.protocol.event import Event
from creepnet.protocol.identity import Identity, fingerprint
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.log import EquivocationProof, Rejection
from creepnet.protocol.onion import OnionExhausted
from creepnet.protocol.session import Session

MAX_REJECTIONS = 16  # refused events from one peer before we hang up on it
MAX_RETRY = 30.0
REDISCOVER_AFTER = 2  # failed redials of a game's host before we look for it by zeroconf
REDISCOVER_WAIT = 3.0  # shortest browse for a host that moved (seconds)
ACTIVE = ("lobby", "playing")


class NodeError(Exception):
    """A node operation failed; the message is meant for the user."""


class JoinRefused(NodeError):
    """The host refused our join request; the message carries its reason."""


class _Dialer:
    """Keeps one outgoing connection alive while some game needs that address."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.peer: Peer | None = None
        self.error: str | None = None
        self.changed = trio.Event()

    def notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()


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
        self.peers: dict[bytes, Peer] = {}
        self.discovery: Discovery | None = None
        self._broadcaster = Broadcaster(name or self.identity.fingerprint)
        self._dialers: dict[str, _Dialer] = {}
        self._admission = Admission()
        self._nursery: trio.Nursery | None = None
        self._ads_dirty = trio.Event()
        # The port our unfinished hosted games were served on before, when it was taken and
        # we listen elsewhere (their players find us again by zeroconf).
        self.port_taken: int | None = None

    # ----- life cycle ---------------------------------------------------------------------

    @classmethod
    @asynccontextmanager
    async def open(cls, home: Path, **options: Any) -> AsyncIterator[Node]:
        node = cls(home, **options)
        async with trio.open_nursery() as nursery:
            await node._start(nursery)
            try:
                yield node
            finally:
                nursery.cancel_scope.cancel()

    async def _start(self, nursery: trio.Nursery) -> None:
        self._nursery = nursery
        # Games first: which port to ask for depends on the hosted games we resume.
        for game in self.home.stored_games():
            await self._load(game)
        await self._listen(nursery)
        self._record_port()
        if self.use_discovery:
            self.discovery = await nursery.start(self._run_discovery)
        for runtime in self.games.values():
            self._redial(runtime)
        moved = f" (port {self.port_taken}, used before, is taken)" if self.port_taken else ""
        self._publish(
            updates.LISTENING, f"listening on {self.address}{moved} as {self.fingerprint}"
        )

    async def _listen(self, nursery: trio.Nursery) -> None:
        listeners = await self._open_listeners()
        self.port = listeners[0].socket.getsockname()[1]
        nursery.start_soon(trio.serve_listeners, self._accept, listeners)

    async def _open_listeners(self) -> list[trio.SocketListener]:
        """The port asked for; asked for any (0), where our hosted games were served before."""
        if self.port:
            return await trio.open_tcp_listeners(self.port, host=self.host)  # the caller's choice
        previous = self._previous_ports()
        listeners: list[trio.SocketListener] | None = None
        for port in previous:
            try:
                listeners = await trio.open_tcp_listeners(port, host=self.host)
                break
            except OSError:
                continue  # taken (another program, or another node on this home)
        if listeners is None:
            listeners = await trio.open_tcp_listeners(0, host=self.host)
        if previous and listeners[0].socket.getsockname()[1] != previous[0]:
            self.port_taken = previous[0]
        return listeners

    def _previous_ports(self) -> list[int]:
        """Ports our unfinished hosted games were served on, most common first: their
        players redial the address they know, so listening there again is how they find us."""
        ports = [rt.store.load_port() for rt in self._hosted_active()]
        counts = collections.Counter(port for port in ports if port)
        return [port for port, _ in counts.most_common()]

    def _hosted_active(self) -> list[GameRuntime]:
        return [rt for rt in self.games.values() if rt.hosted and rt.state in ACTIVE]

    def _record_port(self) -> None:
        for runtime in self._hosted_active():
            if runtime.store.load_port() != self.port:
                self._save_port(runtime)

    def _save_port(self, runtime: GameRuntime) -> None:
        try:
            runtime.store.save_port(self.port)
        except StorageError as exc:  # only a hint for the next restart: the game goes on
            self._publish(updates.STORAGE_ERROR, str(exc), runtime.game)

    async def start_discovery(self) -> None:
        """Turn zeroconf on in a node opened without it (advertise, find moved hosts)."""
        if self.discovery is None:
            assert self._nursery is not None
            self.use_discovery = True
            self._ads_dirty.set()
            self.discovery = await self._nursery.start(self._run_discovery)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def fingerprint(self) -> str:
        return self.identity.fingerprint

    # ----- the update stream ---------------------------------------------------------------

    def updates(self, buffer: int = 1024) -> Any:
        """``async with node.updates() as channel: async for update in channel: ...``"""
        return self._broadcaster.subscribe(buffer)

    def _publish(
        self,
        kind: str,
        text: str,
        game: bytes | None = None,
        peer: Peer | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self._broadcaster.publish(
            Update(kind, text, game, peer.fingerprint if peer else None, data or {})
        )

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
        kind: str = "creeper",
        name: str = "game",
        *,
        seats: int = 2,
        player: str = "host",
        options: dict[str, Any] | None = None,
    ) -> bytes:
        """Create a game (we sign its genesis and take seat 0); returns its id."""
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
        store = self.home.game(session.game)
        store.save_secrets(secrets.to_bytes())  # before the genesis that commits to them
        runtime = self._register(session, store)
        async with runtime.lock:
            await self._settle(runtime)
        if runtime.stored == 0:
            raise NodeError(f"cannot store the new game: {runtime.storage_error}")
        self._save_port(runtime)
        return session.game  # type: ignore[return-value]

    async def join(
        self, address: str, game: bytes | str | None = None, *, player: str = "player"
    ) -> bytes:
        """Join a lobby game at address: fetch its log, ask for the next seat, wait to be seated.

        ``game`` may be the id, a hex prefix (as discovery shows it) or None when the host
        holds exactly one open lobby."""
        peer = await self.connect(address)
        info = await self._pick_remote_game(peer, game, lobby=True)
        game_id = info["game"]
        if game_id in self.games:
            runtime = self.games[game_id]
            if runtime.session.local_seat is not None:
                return game_id  # already seated (e.g. after a restart): just follow
        else:
            secrets = SeatSecrets.generate()
            store = self.home.game(game_id)
            store.save_secrets(secrets.to_bytes())  # before the request that commits to them
            runtime = self._register(Session.follow(game_id, self.identity, secrets), store)
        self._follow_through(runtime, peer, address)
        await self.wait_for(
            game_id,
            lambda rt: rt.stored >= info["length"] and bool(rt.session.log.events),
            timeout=self.timeouts.handshake,
        )
        async with runtime.lock:
            try:
                request = runtime.session.join_request(player)
            except Rejection as exc:
                raise JoinRefused(f"cannot join {info['name']!r}: {exc.reason}") from None
        runtime.join_refused = None
        peer.send({"type": "join", "game": game_id, "request": request})
        await self.wait_for(
            game_id,
            lambda rt: rt.session.local_seat is not None or rt.join_refused is not None,
            timeout=self.timeouts.handshake,
        )
        if runtime.session.local_seat is None:
            raise JoinRefused(f"the host refused: {runtime.join_refused}")
        return game_id

    async def watch(self, address: str, game: bytes | str | None = None) -> bytes:
        """Follow a game read-only (as a spectator); returns its id once its log is fetched."""
        peer = await self.connect(address)
        info = await self._pick_remote_game(peer, game, lobby=False)
        game_id = info["game"]
        runtime = self.games.get(game_id)
        if runtime is None:
            runtime = self._register(Session.follow(game_id), self.home.game(game_id))
        self._follow_through(runtime, peer, address)
        await self.wait_for(
            game_id, lambda rt: rt.stored >= info["length"], timeout=self.timeouts.handshake
        )
        return game_id

    def _follow_through(self, runtime: GameRuntime, peer: Peer, address: str) -> None:
        runtime.dial.add(address)
        self._save_dial(runtime)
        runtime.followers[peer.key] = peer
        peer.send(messages.have(runtime.game, runtime.stored))

    async def play(self, game: bytes, action: str) -> Event:
        """The local player's decision; raises Rejection (not your turn, illegal) with a reason,
        or StorageError if the move could not be stored (it is then not sent either)."""
        runtime = self._runtime(game)
        async with runtime.lock:
            event = runtime.session.play(action)
            await self._settle(runtime)
        if runtime.stored <= event.seq:
            raise StorageError(runtime.storage_error or "the move was not stored")
        return event

    async def flush(self, game: bytes) -> bool:
        """Retry storing (then sending) events held back by a storage error; True when done."""
        runtime = self._runtime(game)
        async with runtime.lock:
            await self._settle(runtime)
        return runtime.storage_error is None

    def _retry_storage_later(self, runtime: GameRuntime) -> None:
        if not runtime.retrying_storage and self._nursery is not None:
            runtime.retrying_storage = True
            self._nursery.start_soon(self._retry_storage, runtime)

    async def _retry_storage(self, runtime: GameRuntime) -> None:
        """A full disk often clears (a download ends, files are deleted): keep trying, backing
        off, so the game resumes by itself.  Nothing was sent meanwhile, so nothing is lost."""
        delay = self.timeouts.retry
        try:
            while runtime.storage_error is not None:
                await trio.sleep(delay)  # a back-off timer, not synchronisation
                delay = min(delay * 2, MAX_RETRY)
                async with runtime.lock:
                    if runtime.storage_error is not None:
                        await self._settle(runtime)
        finally:
            runtime.retrying_storage = False
        self._publish(updates.STORAGE_OK, "the disk took the held-back events", runtime.game)

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
        """Wait until every connected follower has acknowledged all our stored events."""
        await self.wait_for(game, lambda rt: rt.synced())

    async def wait_changed(self, game: bytes) -> None:
        await self._runtime(game).changed.wait()

    def describe_games(self) -> list[dict[str, Any]]:
        return [runtime.describe() for runtime in self.games.values()]

    async def list_games(self, address: str) -> list[dict[str, Any]]:
        """The games a node at address holds (as its `games` reply)."""
        return await self._list(await self.connect(address))

    # ----- loading and registering games ---------------------------------------------------

    def _register(self, session: Session, store: GameStore, stored: int = 0) -> GameRuntime:
        runtime = GameRuntime(session, store, stored=stored, published=stored)
        self.games[runtime.game] = runtime
        for peer in self.peers.values():
            peer.send(messages.have(runtime.game, stored))
        self._ads_dirty.set()
        return runtime

    async def _load(self, game: bytes) -> None:
        """Reload a stored game: drop a torn tail, replay and re-verify every event, resume."""
        store = self.home.game(game)
        raws = await trio.to_thread.run_sync(store.load)
        if store.dropped_tail:
            self._publish(
                updates.ERROR,
                f"dropped a torn tail of {store.dropped_tail} bytes "
                "(an append cut short by a crash; it was never acknowledged)",
                game,
            )
        secret_bytes = store.load_secrets()
        secrets = SeatSecrets.from_bytes(secret_bytes) if secret_bytes else None
        identity = self.identity if secrets else None
        session: Session | None = None
        while session is None:
            try:
                session = (
                    Session.from_log(raws, identity, secrets)
                    if raws
                    else Session.follow(game, identity, secrets)
                )
            except Rejection as exc:
                # Our own file holds only events the session accepted; a bad one means the
                # file was damaged.  Keep the verified prefix and say so loudly.
                keep = exc.seq if exc.seq is not None and exc.seq < len(raws) else 0
                self._publish(
                    updates.ERROR,
                    f"stored log invalid at {exc.describe()}; keeping the {keep} events before it",
                    game,
                )
                raws = raws[:keep]
                await trio.to_thread.run_sync(store.truncate_events, raws)
        runtime = self._register(session, store, stored=len(raws))
        async with runtime.lock:
            await self._settle(runtime)  # anything we owe (e.g. a reveal cut off by the crash)
        runtime.dial.update(store.load_peers())

    def _redial(self, runtime: GameRuntime) -> None:
        if runtime.state in ACTIVE:
            for address in sorted(runtime.dial):
                self._ensure_dialer(address)

    def _save_dial(self, runtime: GameRuntime) -> None:
        try:
            runtime.store.save_peers(sorted(runtime.dial))
        except StorageError as exc:
            self._publish(updates.STORAGE_ERROR, str(exc), runtime.game)

    # ----- connections ---------------------------------------------------------------------

    async def _accept(self, stream: trio.SocketStream) -> None:
        conn = Connection(stream, self.timeouts)
        address = remote_address(conn.label)
        refusal = self._admission.enter(address)
        if refusal is not None:
            await conn.send_error(refusal)
            await conn.aclose()
            return
        try:
            hello = await handshake(conn, self.identity, name=self.name, version=self.version)
        except HandshakeError as exc:
            self._publish(updates.HANDSHAKE_FAILED, str(exc))
            return
        finally:
            self._admission.leave(address)
        players = {key for rt in self.games.values() for key in rt.session.seat_keys}
        refusal = self._admission.make_room(self.peers, hello.key, players)
        if refusal is not None:
            await conn.send_error(refusal)
            await conn.aclose()
            return
        await self._serve(Peer(conn, hello))

    async def connect(self, address: str) -> Peer:
        """A live, authenticated peer at address (dialling it if needed)."""
        dialer = self._ensure_dialer(address)
        with trio.fail_after(self.timeouts.connect + self.timeouts.handshake + 1):
            while dialer.peer is None or dialer.peer.closed.is_set():
                if dialer.error is not None:
                    raise NodeError(dialer.error)
                await dialer.changed.wait()
        return dialer.peer

    def _ensure_dialer(self, address: str) -> _Dialer:
        dialer = self._dialers.get(address)
        if dialer is None:
            dialer = self._dialers[address] = _Dialer(address)
            assert self._nursery is not None
            self._nursery.start_soon(self._dial_loop, dialer)
        dialer.error = None
        return dialer

    def _games_at(self, address: str) -> list[GameRuntime]:
        """The unfinished games that need the node at address."""
        return [rt for rt in self.games.values() if address in rt.dial and rt.state in ACTIVE]

    def _wanted(self, address: str) -> bool:
        return bool(self._games_at(address))

    async def _dial_loop(self, dialer: _Dialer) -> None:
        """Dial, serve until the connection drops, redial with backoff while a game needs it."""
        delay = self.timeouts.retry
        failures = 0
        try:
            while True:
                try:
                    conn = await connect(dialer.address, self.timeouts)
                    hello = await handshake(
                        conn, self.identity, name=self.name, version=self.version
                    )
                except (TransportError, HandshakeError) as exc:
                    dialer.error = str(exc)
                    dialer.notify()
                    if not self._wanted(dialer.address):
                        return
                    failures += 1
                    self._publish(updates.ERROR, f"{exc}; retrying in {delay:.1f}s")
                    await self._pause_before_redial(dialer.address, delay, failures)
                    if not self._wanted(dialer.address):
                        return  # every game that needed it was found elsewhere
                    delay = min(delay * 2, MAX_RETRY)
                    continue
                delay, failures = self.timeouts.retry, 0
                dialer.peer, dialer.error = Peer(conn, hello, dialed=dialer.address), None
                dialer.notify()
                await self._serve(dialer.peer)
                dialer.notify()
                if not self._wanted(dialer.address):
                    return
                await trio.sleep(delay)
        finally:
            self._dialers.pop(dialer.address, None)

    async def _pause_before_redial(self, address: str, delay: float, failures: int) -> None:
        """Back off; once a host keeps failing and zeroconf is on, spend the pause looking for
        its games elsewhere (a restarted host whose port was taken listens on a new one)."""
        if self.discovery is None or failures < REDISCOVER_AFTER:
            await trio.sleep(delay)  # a back-off timer, not synchronisation
            return
        with trio.move_on_after(max(delay, REDISCOVER_WAIT)):
            await self._find_moved(self.discovery, address)

    async def _find_moved(self, discovery: Discovery, address: str) -> None:
        """Browse for the games we need from address; move each one advertised elsewhere.
        Returns once all are found (the caller bounds the time)."""
        missing = {rt.game.hex()[:8]: rt for rt in self._games_at(address)}
        async with discovery.browse() as channel:
            async for item in channel:
                runtime = missing.get(item.game) if isinstance(item, Found) else None
                if runtime is None or not self._is_new_home(runtime, item, address):
                    continue
                self._move(runtime, address, item.address)
                del missing[item.game]
                if not missing:
                    return

    @staticmethod
    def _is_new_home(runtime: GameRuntime, found: Found, old: str) -> bool:
        """An advert of this game at another address, by the key that signed its genesis."""
        events = runtime.session.log.events
        host = fingerprint(events[0].author) if events else None
        parts = found.title.rsplit(" ", 2)
        return (
            bool(found.address)
            and found.address != old
            and len(parts) == 3
            and parts[1] == host
            and runtime.game.hex().startswith(parts[2])
        )

    def _move(self, runtime: GameRuntime, old: str, new: str) -> None:
        """Follow the game's host to its new address, and remember it for restarts."""
        runtime.dial.discard(old)
        runtime.dial.add(new)
        self._save_dial(runtime)
        self._publish(
            updates.HOST_MOVED,
            f"found the host again at {new} by zeroconf (it was at {old}); reconnecting",
            runtime.game,
            data={"old": old, "new": new},
        )
        self._ensure_dialer(new)

    async def _serve(self, peer: Peer) -> None:
        old = self.peers.get(peer.key)
        if old is not None:
            old.close("replaced by a newer connection from the same key")
        self.peers[peer.key] = peer
        self._publish(updates.PEER_CONNECTED, f"connected to {peer.label}", peer=peer)
        for runtime in self.games.values():
            # Announce what we hold: a peer that follows the game subscribes us and catches up.
            peer.send(messages.have(runtime.game, runtime.stored))
        key = peer.key
        try:
            await peer.run(self._dispatch)
        finally:
            if self.peers.get(key) is peer:
                del self.peers[key]
            for runtime in self.games.values():
                if runtime.followers.get(key) is peer:
                    del runtime.followers[key]
                    runtime.notify()  # e.g. wait_synced no longer waits for this peer
            self._publish(
                updates.PEER_DISCONNECTED,
                f"{peer.label} disconnected: {peer.close_reason}",
                peer=peer,
            )

    # ----- incoming messages ----------------------------------------------------------------

    async def _dispatch(self, peer: Peer, message: dict[str, Any]) -> None:
        message = messages.check(message)
        kind = message["type"]
        if kind == "list":
            peer.send({"type": "games", "items": self.describe_games()})
            return
        if kind == "games":
            peer.deliver_reply(message)
            return
        runtime = self.games.get(message["game"])
        if runtime is None:
            return  # a game we do not hold: nothing to say about it
        if kind != "join-refused" and peer.key not in runtime.followers:
            runtime.followers[peer.key] = peer
            if kind != "have":
                peer.send(messages.have(runtime.game, runtime.stored))
        if kind == "have":
            await self._on_have(runtime, peer, message)
        elif kind == "get":
            self._send_from(runtime, peer, message["from"])
        elif kind == "events":
            await self._on_events(runtime, peer, message)
        elif kind == "join":
            await self._on_join(runtime, peer, message)
        elif kind == "join-refused":
            runtime.join_refused = message["reason"][:300]
            self._publish(updates.JOIN_REFUSED, runtime.join_refused, runtime.game, peer)
            runtime.notify()

    async def _on_have(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        newly = runtime.followers.get(peer.key) is not peer
        runtime.followers[peer.key] = peer
        if newly:
            peer.send(messages.have(runtime.game, runtime.stored))
        theirs = message["length"]
        if theirs > runtime.acked.get(peer.key, -1):
            runtime.acked[peer.key] = theirs
            runtime.notify()
        if theirs < runtime.stored:
            self._send_from(runtime, peer, theirs)
        elif theirs > len(runtime.session.log) and runtime.session.halted is None:
            peer.send(messages.get(runtime.game, len(runtime.session.log)))

    def _send_from(self, runtime: GameRuntime, peer: Peer, start: int) -> None:
        """One batch of stored events from start; the peer asks again for more."""
        raws = [event.raw for event in runtime.session.log.events[: runtime.stored]]
        if start < len(raws):
            peer.send(
                messages.events(runtime.game, start, messages.batch(raws, start), runtime.stored)
            )

    async def _on_events(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        session = runtime.session
        async with runtime.lock:
            before = len(session.log)
            for raw in message["items"]:
                receipt = session.receive(raw, sender=peer.key)
                for rejection in receipt.rejections:
                    if receipt.status == "equivocation":
                        continue
                    data = {"kind": rejection.kind, "seq": rejection.seq}
                    if receipt.status == "rejected":
                        peer.rejections += 1
                        text = f"rejected event from peer {peer.label}: {rejection.describe()}"
                        self._publish(updates.REJECTED, text, runtime.game, peer, data)
                    else:
                        # A buffered event that failed once its turn came: it arrived earlier,
                        # maybe from another peer, so this peer is not to blame for it.
                        text = f"rejected a held event: {rejection.describe()}"
                        self._publish(updates.REJECTED, text, runtime.game, None, data)
                if receipt.status == "equivocation" and receipt.proof is not None:
                    await self._on_equivocation(runtime, receipt.proof, raw)
                if session.halted is not None:
                    break
            await self._settle(runtime, source=peer, received=set(message["items"]))
            after = len(session.log)
        if peer.rejections > MAX_REJECTIONS:
            peer.close(f"sent {peer.rejections} events that were refused")
            return
        # The sender has stored everything it sent us: that is its acknowledgement.
        claimed = min(message["length"], runtime.stored)
        if claimed > runtime.acked.get(peer.key, 0):
            runtime.acked[peer.key] = claimed
        if after > before:
            # Acknowledge what is now on our disk, so the sender knows we are caught up
            # (a finished player's node waits for this before it goes away).
            peer.send(messages.have(runtime.game, runtime.stored))
        # Ask for the rest when the sender has more and this batch moved us (or showed a gap);
        # never on a batch that taught us nothing, so a lying `length` cannot start a loop.
        if (
            message["length"] > after
            and session.halted is None
            and (after > before or message["from"] > before)
        ):
            peer.send(messages.get(runtime.game, after))

    async def _on_join(self, runtime: GameRuntime, peer: Peer, message: dict[str, Any]) -> None:
        async with runtime.lock:
            session = runtime.session
            if not runtime.hosted or session.next_free_seat is None:
                reason = "this node is not the host of an open lobby for that game"
            else:
                try:
                    session.admit(message["request"])
                except Rejection as exc:
                    reason = exc.reason
                else:
                    await self._settle(runtime)
                    return
        peer.send({"type": "join-refused", "game": runtime.game, "reason": reason})

    async def _on_equivocation(
        self, runtime: GameRuntime, proof: EquivocationProof, raw: bytes
    ) -> None:
        author = fingerprint(proof.author)
        path = runtime.store.folder / "equivocation"
        try:
            await trio.to_thread.run_sync(path.write_bytes, proof.to_bytes())
        except OSError as exc:
            self._publish(updates.STORAGE_ERROR, f"cannot store the proof: {exc}", runtime.game)
        self._publish(
            updates.HALTED,
            f"game stopped: {author} signed two different events at one position (proof stored)",
            runtime.game,
            data={"author": proof.author},
        )
        # Pass the conflicting event on, so every honest peer sees the proof and stops too.
        seq = len(runtime.session.log.events) - 1
        for follower in runtime.followers.values():
            follower.send(messages.events(runtime.game, seq, [proof.second], runtime.stored))

    # ----- the one path of every accepted event ----------------------------------------------

    async def _settle(
        self, runtime: GameRuntime, source: Peer | None = None, received: set[bytes] | None = None
    ) -> None:
        """Author what we owe, store every new event durably, then gossip it and report.

        Caller holds runtime.lock."""
        session = runtime.session
        if session.halted is None:
            try:
                session.owed()
            except OnionExhausted as exc:
                self._note(runtime, "exhausted", str(exc), updates.ERROR)
        new = session.log.events[runtime.stored :]
        if new:
            # Applied events are news at once, so a UI redraws while the disk write runs.
            # Waiters (bots, wait_for) wake only after it: what they see is stored, and
            # nothing leaves this node before it is stored.
            self._announce(runtime, wake=False)
            raws = [event.raw for event in new]
            try:
                # Shielded: a cancelled append would leave the file and `stored` disagreeing.
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(runtime.store.append, raws)
            except StorageError as exc:
                runtime.storage_error = str(exc)
                self._publish(
                    updates.STORAGE_ERROR,
                    f"{exc}; not sending or acknowledging the new events until they are "
                    "stored (retrying)",
                    runtime.game,
                )
                self._retry_storage_later(runtime)
                runtime.notify()
                return
            start, runtime.stored, runtime.storage_error = runtime.stored, len(session.log), None
            echo = received is None or not all(raw in received for raw in raws)
            for offset in range(0, len(raws), messages.MAX_BATCH):
                chunk = messages.batch(raws, offset)
                message = messages.events(runtime.game, start + offset, chunk, runtime.stored)
                for peer in list(runtime.followers.values()):
                    if peer is not source or echo:
                        peer.send(message)
        self._announce(runtime)
        self._ads_dirty.set()

    def _announce(self, runtime: GameRuntime, wake: bool = True) -> None:
        """Publish events not yet announced and whom the game waits for; wake waiters."""
        session = runtime.session
        for event in session.log.events[runtime.published :]:
            self._publish(
                updates.EVENT,
                self._describe_event(session, event),
                runtime.game,
                data={"seq": event.seq, "type": event.type},
            )
        runtime.published = len(session.log)
        self._report(runtime)
        if wake:
            runtime.notify()

    @staticmethod
    def _describe_event(session: Session, event: Event) -> str:
        seat = next((i for i, s in enumerate(session.seats) if s.key == event.author), None)
        who = f"seat {seat}" if seat is not None else fingerprint(event.author)
        detail = event.body.get("move", "") if event.type == "move" else ""
        return f"#{event.seq} {event.type} {detail} by {who}".replace("  ", " ")

    def _note(self, runtime: GameRuntime, key: str, text: str, kind: str) -> None:
        """Publish once per distinct value (waiting-for, game over...)."""
        if runtime.reported.get(key) != text:
            runtime.reported[key] = text
            self._publish(kind, text, runtime.game)

    def _report(self, runtime: GameRuntime) -> None:
        session = runtime.session
        if session.local_seat is not None:
            self._note(
                runtime,
                "seated",
                f"seated at {session.seat_label(session.local_seat)}",
                updates.SEATED,
            )
        if session.finished:
            self._note(runtime, "over", f"game over: {session.outcome_text}", updates.GAME_OVER)
            return
        waiting = session.waiting_for()
        if waiting is not None:
            self._note(
                runtime,
                "waiting",
                f"{waiting.describe()} (since #{waiting.since_seq})",
                updates.WAITING,
            )
            if session.my_turn() is not None:
                self._note(runtime, "turn", f"your turn (#{len(session.log)})", updates.YOUR_TURN)

    # ----- remote game lists ------------------------------------------------------------------

    async def _list(self, peer: Peer) -> list[dict[str, Any]]:
        peer.send({"type": "list"})
        try:
            with trio.fail_after(self.timeouts.handshake):
                reply = await peer.next_reply()
        except TransportError as exc:
            raise NodeError(str(exc)) from None
        except trio.TooSlowError:
            raise NodeError(f"{peer.label} did not list its games") from None
        items = []
        for item in reply["items"]:
            if (
                isinstance(item, dict)
                and isinstance(item.get("game"), bytes)
                and len(item["game"]) == 16
                and isinstance(item.get("length"), int)
                and all(isinstance(item.get(k), str) for k in ("kind", "name", "state"))
                and all(isinstance(item.get(k), int) for k in ("seats", "taken"))
            ):
                items.append(item)
        return items

    async def _pick_remote_game(
        self, peer: Peer, game: bytes | str | None, lobby: bool
    ) -> dict[str, Any]:
        items = await self._list(peer)
        if isinstance(game, bytes):
            chosen = [item for item in items if item["game"] == game]
        elif isinstance(game, str):
            chosen = [item for item in items if item["game"].hex().startswith(game.lower())]
        else:
            chosen = [
                item
                for item in items
                if item["state"] == "lobby" or (not lobby and item["state"] == "playing")
            ]
        if len(chosen) != 1:
            listing = (
                ", ".join(f"{i['game'].hex()[:8]} {i['name']!r} ({i['state']})" for i in items)
                or "none"
            )
            what = "no" if not chosen else "more than one"
            raise NodeError(f"{what} matching game at {peer.conn.label}; it holds: {listing}")
        return chosen[0]

    # ----- discovery -------------------------------------------------------------------------

    async def _run_discovery(self, task_status: trio.TaskStatus[Discovery]) -> None:
        async with open_discovery(self.iface) as discovery:
            task_status.started(discovery)
            advertised: dict[bytes, GameAd] = {}
            while True:
                await self._ads_dirty.wait()
                self._ads_dirty = trio.Event()
                wanted = {ad.game: ad for ad in self._desired_ads()}
                for game in list(advertised):
                    if game not in wanted:
                        await discovery.withdraw(game)
                        del advertised[game]
                for game, ad in wanted.items():
                    if advertised.get(game) != ad:
                        await discovery.advertise(ad)
                        advertised[game] = ad

    def _desired_ads(self) -> list[GameAd]:
        ads = []
        for runtime in self._hosted_active():
            session = runtime.session
            ads.append(
                GameAd(
                    game=runtime.game,
                    name=session.name,
                    kind=session.kind,
                    fingerprint=self.fingerprint,
                    port=self.port,
                    seats_taken=len(session.seats),
                    seats_total=session.seat_count,
                    state=runtime.state,
                    addresses=tuple(self._advertised_addresses()),
                )
            )
        return ads

    def _advertised_addresses(self) -> list[str]:
        if self.iface:
            return list(self.iface)
        if self.host not in ("", "0.0.0.0", "::"):
            return [self.host]
        import ifaddr  # a zeroconf dependency

        found = []
        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                if isinstance(ip.ip, str) and not ipaddress.ip_address(ip.ip).is_loopback:
                    found.append(ip.ip)
        return found or ["127.0.0.1"]


__all__ = ["FrameError", "JoinRefused", "Node", "NodeError", "ProtocolViolation", "Timeouts"]
