"""Zeroconf (mDNS/DNS-SD) discovery of games: advertise, browse, withdraw.

Zeroconf runs its own thread and its sync API blocks, so every call goes through
``trio.to_thread.run_sync``; browser callbacks arrive on zeroconf's thread and are forwarded
into a trio memory channel with ``trio.from_thread.run_sync`` and the run's token.  Discovery
is only a hint: whether a game is really there is decided by connecting to it over TCP.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import trio
from zeroconf import (
    DNSQuestionType,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)

from creepnet.node.handshake import WIRE_VERSION

SERVICE_TYPE = "_creepnet._tcp.local."
SERVICE_TYPE_ENV = "CREEPNET_SERVICE_TYPE"


def service_type() -> str:
    """The DNS-SD type to advertise and browse.  $CREEPNET_SERVICE_TYPE gives a test (or a
    separate party on one LAN) a type of its own, so it never sees anyone else's games."""
    return os.environ.get(SERVICE_TYPE_ENV) or SERVICE_TYPE


STATES = ("lobby", "playing")
# A browser queries at once (after 20-120 ms), again one second later, then at growing
# intervals (RFC 6762 §5.2); answers come within 20-120 ms (§6).  An answer that did not change
# over the first two rounds is stable: a responder that missed the first query answers the second.
QUERY_ROUNDS = 1.3  # seconds
QUIET = 0.3  # seconds without news after the last change
ANNOUNCE_TIMEOUT = 10.0  # seconds for zeroconf to take an advert (its loop is ours alone)


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


def _parse(info: ServiceInfo) -> Found:
    txt = {
        key.decode("utf-8", "replace"): (value or b"").decode("utf-8", "replace")
        for key, value in info.properties.items()
    }
    taken, _, total = txt.get("seats", "0/0").partition("/")
    return Found(
        instance=info.name,
        addresses=info.parsed_addresses(IPVersion.V4Only),
        port=info.port or 0,
        version=txt.get("v", ""),
        kind=txt.get("kind", ""),
        game=txt.get("game", ""),
        seats_taken=int(taken) if taken.isdigit() else 0,
        seats_total=int(total) if total.isdigit() else 0,
        state=txt.get("state", ""),
        txt=txt,
        player=txt.get("player", "")[:32],
    )


class Discovery:
    """One Zeroconf instance shared by the node's adverts and browsers."""

    def __init__(self, zc: Zeroconf, interfaces: list[str] | None) -> None:
        self.zc = zc
        self.interfaces = interfaces
        self._ads: dict[bytes, ServiceInfo] = {}

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

        async def resolve() -> None:
            async for name, change in name_receive:
                if change is ServiceStateChange.Removed:
                    await send.send(Lost(name))
                    continue
                info = await trio.to_thread.run_sync(
                    functools.partial(self.zc.get_service_info, service_type(), name, timeout=3000)
                )
                if info is not None:
                    await send.send(_parse(info))

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
                nursery.start_soon(resolve)
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


async def browse_once(discovery: Discovery, seconds: float = 3.0) -> list[Found]:
    """The games seen within a fixed number of seconds."""
    return await browse_until_stable(discovery, wait=seconds, rounds=seconds)
