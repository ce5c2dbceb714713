"""Run a relay: a libp2p circuit relay v2 for creepnet players, with bounded resources.

A relay carries the bytes of two peers who cannot reach each other directly (a symmetric NAT,
a strict firewall) and helps them try a hole punch first (DCUtR runs over its circuit).  What it
carries is creepnet's sealed frames inside libp2p's Noise channel to each end: it can read
neither, and forge nothing either end accepts (node/handshake.py).  It learns who talks to whom
(peer ids and IP addresses), when, and how much; it can drop or delay traffic, which pauses a
game exactly as a lost LAN connection does.

Limits (``Limits``): how many peers may hold a reservation, how many circuits at once, and how
long and how many bytes each circuit may carry; beyond them, requests are refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

from creepnet.node.wan import require
from creepnet.node.wan.attach import carrier_seed


async def run_relay(
    home: Path,
    listen: str,
    limits: object,
    *,
    announce: list[str] | None = None,
    ready: Callable[[list[str]], None] = lambda addresses: None,
) -> None:
    """Serve as a relay until cancelled; ``ready`` gets the relay's multiaddrs once it listens
    (``announce``: public HOST addresses to print instead of the ones it listens on)."""
    require()
    from creepnet.node.wan.carrier import Carrier, Limits

    assert isinstance(limits, Limits)
    host, _, port = listen.rpartition(":")
    Path(home).mkdir(parents=True, exist_ok=True)
    public = [f"/ip4/{address}/tcp/{port}" for address in announce or []]
    carrier = Carrier(
        carrier_seed(home),
        listen=[f"/ip4/{host or '0.0.0.0'}/tcp/{port}"],
        relay_limits=limits,
        announce=public,
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(carrier.run)
        listening = public or carrier.listen_addresses()
        ready([a if "/p2p/" in a else f"{a}/p2p/{carrier.peer_id}" for a in listening])
        await trio.sleep_forever()
