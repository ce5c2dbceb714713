"""Discovery advertising: keep our zeroconf adverts equal to our unfinished hosted games.

Any change that may alter an advert (a seat taken, a game started, finished or halted, a game
hosted or resumed) calls ``refresh``; one task then re-advertises what differs and withdraws
what ended.  An advert is only a hint: joiners believe the handshake and the signed log.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import ifaddr  # a zeroconf dependency
import trio

from creepnet.node.discovery import Discovery, GameAd, open_discovery
from creepnet.node.game import GameRuntime, hosted_active
from creepnet.node.updates import log

RETRY = 5.0  # seconds before an advert zeroconf refused is tried again


class Advertiser:
    def __init__(
        self, games: dict[bytes, GameRuntime], fingerprint: str, host: str, iface: list[str] | None
    ) -> None:
        self.games = games
        self.fingerprint = fingerprint
        self.host = host
        self.iface = iface
        self.port = 0  # set once the node listens
        self.discovery: Discovery | None = None  # while running
        self._dirty = trio.Event()

    def refresh(self) -> None:
        self._dirty.set()

    # task_status is a trio.TaskStatus[Discovery]; typed Any because the wan extra's
    # trio-typing stubs, which shadow trio's own types for mypy, do not have that name.
    async def run(self, task_status: Any) -> None:
        """Start zeroconf, hand it to the caller, and advertise until cancelled."""
        self._dirty.set()  # what we host now
        async with open_discovery(self.iface) as discovery:
            self.discovery = discovery
            task_status.started(discovery)
            try:
                await self._keep_advertising(discovery)
            finally:
                self.discovery = None

    async def _keep_advertising(self, discovery: Discovery) -> None:
        advertised: dict[bytes, GameAd] = {}
        while True:
            await self._dirty.wait()
            self._dirty = trio.Event()
            try:
                await self._update(discovery, advertised)
            except Exception as exc:  # zeroconf refusing an advert: log, try again later
                log.error("advertising failed; retrying in %gs", RETRY, exc_info=exc)
                await trio.sleep(RETRY)  # a back-off timer, not synchronisation
                self._dirty.set()

    async def _update(self, discovery: Discovery, advertised: dict[bytes, GameAd]) -> None:
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
        for runtime in hosted_active(self.games):
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
                    addresses=tuple(self._addresses()),
                    player=session.seats[0].player if session.seats else "",
                )
            )
        return ads

    def _addresses(self) -> list[str]:
        if self.iface:
            return list(self.iface)
        if self.host not in ("", "0.0.0.0", "::"):
            return [self.host]
        found = []
        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                if isinstance(ip.ip, str) and not ipaddress.ip_address(ip.ip).is_loopback:
                    found.append(ip.ip)
        return found or ["127.0.0.1"]
