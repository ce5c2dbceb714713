"""Finding a host that moved: when a followed game's host stops answering at the address we
know, look for the game's advert elsewhere on the LAN and follow it there.

A dialler that failed ``REDISCOVER_AFTER`` times in a row spends its back-off pause browsing
(at least ``REDISCOVER_WAIT`` seconds) for the games it needs from that address.  The browse
lives inside the dial task, bounded by ``move_on_after``, so nothing outlives it.

An advert proves nothing: its name, fingerprint and game id can be copied by anyone on the LAN.
So the finder moves a game only after a handshake at the advertised address with the key that
signed the game's genesis (the handshake proves possession of that key).  Until then the game
keeps its old address; a node there with any other key is reported (``advert-refused``) and
hung up on.  A liar can make us dial it once per back-off pause, no more — and only at an
address the node would dial on a seated peer's word (``mesh.address_refusal``, the node's
scope): a loopback node dials only loopback, a LAN node only private addresses, and a loopback
address only for a host that was on this machine.  Anything else is reported, never dialled.

A game picked by name (``creepnet join NAME``, ``watch``, the page's list) is dialled at its
advert's address under the same scope (``advert_refusal``, ``Node.advert_address``): the advert
is heard as from the LAN, or from this machine when zeroconf runs on loopback alone (nobody else
can multicast there), so a LAN advert naming 127.0.0.1 cannot point a joiner at its own
machine's services, nor one naming a public address send it across the Internet.  The user who
means it dials the address by hand (``--addr``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

import trio

from creepnet.node import updates
from creepnet.node.advertiser import Advertiser
from creepnet.node.connections import Connections
from creepnet.node.discovery import Discovery, Found
from creepnet.node.errors import NodeError
from creepnet.node.game import GameRuntime, games_at
from creepnet.node.mesh import Scope, address_refusal
from creepnet.node.reporter import Reporter
from creepnet.node.transport import address_host
from creepnet.node.wan.invite import WAN_PREFIX
from creepnet.protocol.identity import fingerprint

REDISCOVER_AFTER = 2  # failed redials of a game's host before we look for it by zeroconf
REDISCOVER_WAIT = 3.0  # shortest browse for a host that moved (seconds)


class HostFinder:
    def __init__(
        self,
        games: dict[bytes, GameRuntime],
        connections: Connections,
        advertiser: Advertiser,
        reporter: Reporter,
        scope: Scope,
    ) -> None:
        self.games = games
        self.connections = connections
        self.advertiser = advertiser  # its zeroconf, while discovery is on
        self.reporter = reporter
        self.scope = scope  # which addresses an advert may make us dial (the mesh's)

    async def pause_before_redial(self, address: str, delay: float, failures: int) -> None:
        """Back off; once a host keeps failing and zeroconf is on, spend the pause looking for
        its games elsewhere (a restarted host whose port was taken listens on a new one)."""
        discovery = self.advertiser.discovery
        if discovery is None or failures < REDISCOVER_AFTER:
            await trio.sleep(delay)  # a back-off timer, not synchronisation
            return
        with trio.move_on_after(max(delay, REDISCOVER_WAIT)):
            await self._find_moved(discovery, address)

    async def _find_moved(self, discovery: Discovery, address: str) -> None:
        """Browse for the games we need from address; move each one advertised elsewhere.
        Returns once all are found (the caller bounds the time)."""
        missing = {rt.game.hex()[:8]: rt for rt in games_at(self.games, address)}
        async with discovery.browse() as channel:
            async for item in channel:
                runtime = missing.get(item.game) if isinstance(item, Found) else None
                if runtime is None or not _claims_new_home(runtime, item, address):
                    continue
                if self._out_of_scope(runtime, item.address, address):
                    continue
                if not await self._host_answers_at(runtime, item.address):
                    continue
                self._move(runtime, address, item.address)
                del missing[item.game]
                if not missing:
                    return

    def _out_of_scope(self, runtime: GameRuntime, address: str, old: str) -> bool:
        """Whether an advert names an address we never dial on anyone's word (reported).
        It is heard as if from where the host was: loopback only for a host on this machine."""
        was = address_host(old)
        # An advert is heard on the LAN, whatever carried the host before: not over the internet.
        refusal = address_refusal(address, "" if was.startswith(WAN_PREFIX) else was, self.scope)
        if refusal is None:
            return False
        self.reporter.publish(
            updates.ADVERT_REFUSED,
            f"ignored an advert of this game at {address}: {refusal}; not dialled",
            runtime.game,
            data={"address": address, "key": None},
        )
        return True

    async def _host_answers_at(self, runtime: GameRuntime, address: str) -> bool:
        """Whether the node at address proves, by the handshake, to hold the game's host key."""
        try:
            peer = await self.connections.connect(address)
        except (NodeError, trio.TooSlowError):
            return False  # nobody there (any more): a stale advert
        if peer.key == runtime.host_key:
            return True
        self.reporter.publish(
            updates.ADVERT_REFUSED,
            f"ignored an advert of this game at {address}: the node there is "
            f"{peer.fingerprint}, not the game's host; still looking for it where it was",
            runtime.game,
            peer,
            data={"address": address, "key": peer.key},
        )
        if not self.connections.wanted(address):
            peer.close("it advertised a game it does not host")
        return False

    def _move(self, runtime: GameRuntime, old: str, new: str) -> None:
        """Follow the game's host to its new address, and remember it for restarts."""
        runtime.dial.discard(old)
        runtime.dial.add(new)
        self.reporter.save_hint(runtime, runtime.save_dial)
        self.reporter.publish(
            updates.HOST_MOVED,
            f"found the host again at {new} by zeroconf (it was at {old}); reconnecting",
            runtime.game,
            data={"old": old, "new": new},
        )
        self.connections.ensure_dialer(new)


def advert_refusal(address: str, scope: Scope, interfaces: Sequence[str] | None) -> str | None:
    """Why a node browsing zeroconf on ``interfaces`` (None: all) does not dial an advert's
    address (None: it may): the scope a seated peer's word has (``mesh.address_refusal``),
    the advert heard on loopback only when zeroconf runs on nothing else."""
    local = bool(interfaces) and all(_loopback(i) for i in interfaces or ())
    return address_refusal(address, "127.0.0.1" if local else "", scope)


def _loopback(interface: str) -> bool:
    try:
        return ipaddress.ip_address(interface).is_loopback
    except ValueError:
        return False


def _claims_new_home(runtime: GameRuntime, found: Found, old: str) -> bool:
    """An advert of this game at another address, naming the host's fingerprint (a claim that
    is cheap to check and cheap to forge: the handshake decides)."""
    host = fingerprint(runtime.host_key) if runtime.host_key else None
    parts = found.title.rsplit(" ", 2)
    return (
        bool(found.address)
        and found.address != old
        and len(parts) == 3
        and parts[1] == host
        and runtime.game.hex().startswith(parts[2])
    )
