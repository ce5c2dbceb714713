"""Zeroconf (mDNS/DNS-SD) discovery of games: advertise, browse, withdraw.

Zeroconf runs its own thread and its sync API blocks, so every call goes through
``trio.to_thread.run_sync``; browser callbacks arrive on zeroconf's thread and are forwarded
into a trio memory channel with ``trio.from_thread.run_sync`` and the run's token.  Discovery
is only a hint: whether a game is really there is decided by connecting to it over TCP.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import ipaddress
import itertools
import logging
import os
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import trio
from zeroconf import (
    BadTypeInNameException,
    DNSQuestionType,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
    service_type_name,
)

from creepnet.node.handshake import WIRE_VERSION

log = logging.getLogger("creepnet.node")

SERVICE_TYPE = "_creepnet._tcp.local."
SERVICE_TYPE_ENV = "CREEPNET_SERVICE_TYPE"


def service_type() -> str:
    """The DNS-SD type to advertise and browse.  $CREEPNET_SERVICE_TYPE gives a test (or a
    separate party on one LAN) a type of its own, so it never sees anyone else's games; a
    ValueError says what is wrong with one zeroconf would refuse (deep in a browse thread)."""
    return _checked_service_type(os.environ.get(SERVICE_TYPE_ENV) or SERVICE_TYPE)


@functools.lru_cache(maxsize=8)
def _checked_service_type(chosen: str) -> str:
    """Checked once per value: ``service_type`` is read for every advert a browse parses."""
    try:
        return service_type_name(chosen)
    except BadTypeInNameException as exc:
        raise ValueError(
            f"${SERVICE_TYPE_ENV} must be a DNS-SD service type such as {SERVICE_TYPE}: {exc}"
        ) from None


STATES = ("lobby", "playing")
# A browser queries at once (after 20-120 ms), again one second later, then at growing
# intervals (RFC 6762 §5.2); answers come within 20-120 ms (§6).  An answer that did not change
# over the first two rounds is stable: a responder that missed the first query answers the second.
QUERY_ROUNDS = 1.3  # seconds
QUIET = 0.3  # seconds without news after the last change
ANNOUNCE_TIMEOUT = 10.0  # seconds for zeroconf to take an advert (its loop is ours alone)
RESOLVERS = 8  # adverts resolved at once by one browse (each in a worker thread)
MAX_PENDING = 64  # adverts waiting to be resolved; more notices are dropped (a hint)
MAX_NAMES = 1024  # advert names one browse keeps track of (a flood of names forgets the oldest)


@dataclass(frozen=True)
class GameAd:
    """What a host says about one of its games (only short fields: TXT must stay small)."""

    game: bytes
    name: str
    kind: str
    fingerprint: str  # the host key's short fingerprint
    port: int
    seats_taken: int
    seats_total: int
    state: str  # lobby | playing
    addresses: Sequence[str] = ("127.0.0.1",)
    player: str = ""  # the host player's name, shown by `creepnet games`

    @property
    def short_game(self) -> str:
        return self.game.hex()[:8]

    def instance(self) -> str:
        # DNS-SD instance names are free UTF-8 up to 63 bytes; keep them readable and unique.
        safe = re.sub(r"[^A-Za-z0-9 _-]", "", self.name).strip()[:32] or "game"
        return f"{safe} {self.fingerprint} {self.short_game}"

    def txt(self) -> dict[str, str]:
        return {
            "v": str(WIRE_VERSION),
            "kind": self.kind[:16],
            "game": self.short_game,
            "seats": f"{self.seats_taken}/{self.seats_total}",
            "state": self.state,
            **({"player": self.player[:32]} if self.player else {}),
        }

    def info(self) -> ServiceInfo:
        return ServiceInfo(
            service_type(),
            f"{self.instance()}.{service_type()}",
            addresses=[socket.inet_aton(address) for address in self.addresses],
            port=self.port,
            properties=self.txt(),
            server=f"creepnet-{self.fingerprint}.local.",
        )


@dataclass(frozen=True)
class Found:
    """A game seen on the network (parsed TXT; fields the host sent wrong become defaults)."""

    instance: str  # full service name
    addresses: list[str]
    port: int
    version: str
    kind: str
    game: str  # short id (hex prefix)
    seats_taken: int
    seats_total: int
    state: str
    txt: dict[str, str] = field(default_factory=dict)
    player: str = ""  # the host player's name as the advert says it: a hint, unchecked

    @property
    def address(self) -> str:
        return f"{self.addresses[0]}:{self.port}" if self.addresses else ""

    @property
    def title(self) -> str:
        return self.instance.removesuffix("." + service_type())

    @property
    def name(self) -> str:
        """The game's name: the title is "NAME HOST-FINGERPRINT ID-PREFIX"."""
        parts = self.title.rsplit(" ", 2)
        return parts[0] if len(parts) == 3 else self.title

    @property
    def host(self) -> str | None:
        """The host's fingerprint as the advert names it: a claim that only a handshake checks."""
        parts = self.title.rsplit(" ", 2)
        return parts[1] if len(parts) == 3 else None


@dataclass(frozen=True)
class Lost:
    instance: str


class BadAdvert(ValueError):
    """An advert that is not one a creepnet host sends: skipped (and counted), never raised on."""


# What a host puts in an advert (GameAd), and so all a browser reads.  Anything else on the
# LAN under our service type is skipped: an advert is a hint, and a hint must never crash
# the browser (`"²".isdigit()` is true, `int("²")` raises: digits are matched as ASCII).
MAX_INSTANCE = 160  # characters of a full instance name (ours are under 80)
MAX_TXT_ENTRIES = 16
MAX_TXT_VALUE = 128  # bytes of one TXT value (a name of 32 characters of up to 4 bytes each)
MAX_SEATS = 99
_TITLE = re.compile(r"([A-Za-z0-9 _-]{1,32}) ([a-z2-7]{4}-[a-z2-7]{4}) ([0-9a-f]{8})")
_SEATS = re.compile(r"([0-9]{1,2})/([0-9]{1,2})")
_VERSION = re.compile(r"[0-9]{1,3}")
_KIND = re.compile(r"[a-z0-9_-]{1,16}")
_KEY = re.compile(r"[a-z]{1,9}")


def parse_advert(
    instance: str,
    properties: Mapping[bytes, bytes | None],
    port: int | None,
    addresses: Sequence[str],
) -> Found:
    """A game advert as a host sends it (GameAd), or BadAdvert saying what is wrong with it.

    Strict on purpose: ASCII digits, bounded lengths, valid UTF-8, a port 1-65535, at least one
    usable IPv4 address, an instance name of the form "NAME FINGERPRINT ID8" agreeing with TXT
    ``game``.  Unknown TXT keys are allowed (a later version may add some), within bounds."""
    if not isinstance(instance, str) or len(instance) > MAX_INSTANCE:
        raise BadAdvert("instance name too long")
    title = instance.removesuffix("." + service_type())
    names = _TITLE.fullmatch(title)
    if names is None:
        raise BadAdvert("instance name is not 'NAME FINGERPRINT ID'")
    if len(properties) > MAX_TXT_ENTRIES:
        raise BadAdvert(f"more than {MAX_TXT_ENTRIES} TXT entries")
    txt: dict[str, str] = {}
    for raw_key, raw_value in properties.items():
        value = raw_value or b""
        if not isinstance(raw_key, bytes) or not isinstance(value, bytes):
            raise BadAdvert("TXT entries must be bytes")
        if len(value) > MAX_TXT_VALUE:
            raise BadAdvert(f"a TXT value longer than {MAX_TXT_VALUE} bytes")
        try:
            key, text = raw_key.decode("ascii"), value.decode("utf-8")
        except UnicodeDecodeError:
            raise BadAdvert("TXT is not valid UTF-8 (keys: ASCII)") from None
        if _KEY.fullmatch(key) is None:
            raise BadAdvert("a TXT key that is not a short lowercase word")
        txt[key] = text
    version, kind, game = txt.get("v", ""), txt.get("kind", ""), txt.get("game", "")
    seats = _SEATS.fullmatch(txt.get("seats", ""))
    if _VERSION.fullmatch(version) is None:
        raise BadAdvert("TXT v is not a version number")
    if _KIND.fullmatch(kind) is None:
        raise BadAdvert("TXT kind is not a game kind")
    if game != names[3]:
        raise BadAdvert("TXT game is not the id in the instance name")
    if seats is None:
        raise BadAdvert("TXT seats is not TAKEN/TOTAL in ASCII digits")
    taken, total = int(seats[1]), int(seats[2])
    if not 0 < total <= MAX_SEATS or taken > total:
        raise BadAdvert("TXT seats out of range")
    if txt.get("state") not in STATES:
        raise BadAdvert(f"TXT state is not one of {STATES}")
    player = txt.get("player", "")
    if len(player) > 32:
        raise BadAdvert("TXT player longer than 32 characters")
    if type(port) is not int or not 0 < port < 65536:
        raise BadAdvert("no port in 1-65535")
    usable = [address for address in addresses if _usable_ipv4(address)]
    if not usable:
        raise BadAdvert("no usable IPv4 address")
    return Found(
        instance=instance,
        addresses=usable,
        port=port,
        version=version,
        kind=kind,
        game=game,
        seats_taken=taken,
        seats_total=total,
        state=txt["state"],
        txt=txt,
        player=player,
    )


def _usable_ipv4(address: str) -> bool:
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return not (ip.is_unspecified or ip.is_multicast or ip.is_reserved)  # 255.255.255.255 too


def _parse(info: ServiceInfo) -> Found:
    """What zeroconf resolved, parsed strictly (BadAdvert when it is not a creepnet advert)."""
    try:
        addresses = info.parsed_addresses(IPVersion.V4Only)
    except ValueError:
        raise BadAdvert("unreadable address records") from None
    return parse_advert(info.name, info.properties, info.port, addresses)


class Discovery:
    """One Zeroconf instance shared by the node's adverts and browsers."""

    def __init__(self, zc: Zeroconf, interfaces: list[str] | None) -> None:
        self.zc = zc
        self.interfaces = interfaces
        self._ads: dict[bytes, ServiceInfo] = {}
        # Adverts under our service type that were skipped, by reason (a hint that fails to
        # parse is dropped, never raised on: one bad advert must not stop a browser).
        self.skipped: collections.Counter[str] = collections.Counter()

    async def advertise(self, ad: GameAd) -> None:
        """Publish or refresh the advert of ad.game."""
        if ad.state not in STATES:
            raise ValueError(f"state must be one of {STATES}")
        info = ad.info()
        old = self._ads.get(ad.game)
        if old is None:
            # No probing for a unique name: ours is unique by construction (it holds the host
            # key's fingerprint and the game id), so the three probes would only delay the
            # advert by 1.2 s.  A forger copying the name gains nothing: joiners believe the
            # handshake with the genesis key, never the advert.
            await trio.to_thread.run_sync(
                self._announce,
                lambda: self.zc.async_register_service(
                    info, allow_name_change=True, cooperating_responders=True
                ),
            )
        else:
            info = ServiceInfo(
                service_type(),
                old.name,
                addresses=info.addresses,
                port=info.port,
                properties=info.properties,
                server=info.server,
            )
            await trio.to_thread.run_sync(
                self._announce, functools.partial(self.zc.async_update_service, info)
            )
        self._ads[ad.game] = info

    def _announce(self, start: Callable[[], Coroutine[Any, Any, Awaitable[None]]]) -> None:
        """Run a zeroconf (re)registration on its event loop (from a worker thread); return
        once the record is in place and announcing.  The sync API would also sit out the
        three announcements (450 ms), holding back the next advert behind them."""
        assert self.zc.loop is not None
        asyncio.run_coroutine_threadsafe(start(), self.zc.loop).result(ANNOUNCE_TIMEOUT)

    async def withdraw(self, game: bytes) -> None:
        info = self._ads.pop(game, None)
        if info is not None:
            await trio.to_thread.run_sync(self.zc.unregister_service, info)

    async def _resolve(self, name: str, limiter: trio.CapacityLimiter) -> Found | None:
        """The advert named name, parsed; None (and counted) when it is not one of ours."""
        try:
            info = await trio.to_thread.run_sync(
                functools.partial(self.zc.get_service_info, service_type(), name, timeout=3000),
                limiter=limiter,
            )
            if info is None:
                return None  # gone, or never complete (no address): nothing to show
            return _parse(info)
        except BadAdvert as exc:
            reason = str(exc)
        except Exception as exc:  # zeroconf's own parsing of a hostile record: still a hint
            reason = f"unreadable ({type(exc).__name__})"
        self.skipped[reason] += 1
        log.info("skipped an advert %r: %s", name[:MAX_INSTANCE], reason)
        return None

    @asynccontextmanager
    async def browse(self, buffer: int = 64) -> AsyncIterator[trio.MemoryReceiveChannel]:
        """A channel of Found / Lost items until the block exits."""
        send, receive = trio.open_memory_channel[Found | Lost](buffer)
        names: trio.MemorySendChannel
        names, name_receive = trio.open_memory_channel[tuple[str, ServiceStateChange]](buffer)
        token = trio.lowlevel.current_trio_token()

        def forward(item: tuple[str, ServiceStateChange]) -> None:
            # Discovery is a hint: dropping a notice under load is harmless.
            with suppress(trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                names.send_nowait(item)

        def on_change(
            zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
        ) -> None:  # runs on zeroconf's thread
            with suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(forward, (name, state_change), trio_token=token)

        # Names are resolved side by side: an advert that never completes (no address record)
        # holds one resolver for its timeout, not every advert behind it.  A name's newest
        # notice wins (``latest``), so a slow resolve cannot bring back a game that left.
        limiter = trio.CapacityLimiter(RESOLVERS)
        latest: dict[str, int] = {}
        tickets = itertools.count()

        async def resolve_one(name: str, ticket: int) -> None:
            try:
                found = await self._resolve(name, limiter)
                if found is not None and latest.get(name) == ticket:
                    await send.send(found)
            finally:
                pending.discard(ticket)

        pending: set[int] = set()

        async def resolve(nursery: trio.Nursery) -> None:
            async for name, change in name_receive:
                if change is ServiceStateChange.Removed:
                    latest.pop(name, None)
                    await send.send(Lost(name))
                elif len(pending) < MAX_PENDING:  # else dropped: discovery is a hint
                    latest.pop(name, None)  # re-inserted last: the oldest names go first
                    while len(latest) >= MAX_NAMES:
                        latest.pop(next(iter(latest)))
                    ticket = latest[name] = next(tickets)
                    pending.add(ticket)
                    nursery.start_soon(resolve_one, name, ticket)

        # Multicast (QM) questions from the first one: a unicast answer to a QU question goes
        # to one of the sockets sharing port 5353 on the asking host, often not ours, and the
        # games it names would show up only after the second query, a second later.
        browser = await trio.to_thread.run_sync(
            lambda: ServiceBrowser(
                self.zc, service_type(), handlers=[on_change], question_type=DNSQuestionType.QM
            )
        )
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(resolve, nursery)
                try:
                    yield receive
                finally:
                    nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(browser.cancel)
                await names.aclose()


@asynccontextmanager
async def open_discovery(interfaces: list[str] | None = None) -> AsyncIterator[Discovery]:
    """Start zeroconf on the given interface addresses (None: all, for real users)."""
    chosen = list(interfaces) if interfaces else None

    def start() -> Zeroconf:
        if chosen is None:
            return Zeroconf(ip_version=IPVersion.V4Only)
        return Zeroconf(interfaces=chosen, ip_version=IPVersion.V4Only)

    zc = await trio.to_thread.run_sync(start)
    discovery = Discovery(zc, chosen)
    try:
        yield discovery
    finally:
        with trio.CancelScope(shield=True):
            for game in list(discovery._ads):
                await discovery.withdraw(game)
            await trio.to_thread.run_sync(zc.close)


async def browse_until_stable(
    discovery: Discovery, wait: float = 3.0, rounds: float = QUERY_ROUNDS, quiet: float = QUIET
) -> list[Found]:
    """The games on the LAN, as soon as the answer is stable: once the browser's first query
    rounds (``rounds`` seconds) are answered and ``quiet`` seconds passed without news; after
    ``wait`` seconds at most (a LAN where adverts keep changing)."""
    seen: dict[str, Found] = {}
    async with discovery.browse() as channel:
        started = trio.current_time()
        limit = started + wait
        with trio.CancelScope(deadline=min(limit, started + max(rounds, quiet))) as window:
            async for item in channel:
                if isinstance(item, Found):
                    seen[item.instance] = item
                else:
                    seen.pop(item.instance, None)
                settled = max(started + rounds, trio.current_time() + quiet)
                window.deadline = min(limit, settled)
    return list(seen.values())
