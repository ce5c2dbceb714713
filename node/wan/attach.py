"""Put a node on the internet: a libp2p carrier under its connections.

``async with internet(node, relays=[…]) as carrier`` starts the carrier (node/wan/carrier.py),
makes ``wan:`` addresses dialable by the node (``Connections.carriers``) and serves every
stream opened to us exactly as an accepted TCP connection: the same handshake, admission,
sealing and protocol.  Leaving the block stops the carrier and its streams.

The carrier's libp2p key is ``<home>/wan.key`` (0600): the peer id in a host's invite must stay
the same across restarts so that players can redial it.  It is not the creepnet identity — the
carrier only says where to knock, the handshake says who answers.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from creepnet.node.node import Node
from creepnet.node.storage import write_private_file
from creepnet.node.transport import Connection, Timeouts, TransportError
from creepnet.node.wan import require
from creepnet.node.wan.invite import WAN_PREFIX, Invite, parse_wan_address, ticket_for

if TYPE_CHECKING:  # the carrier module needs the optional extra
    from creepnet.node.wan.carrier import Carrier

KEY_FILE = "wan.key"
TICKET_KEY_FILE = "invite.key"  # what the tickets of our games' invites are made with
RESERVE_WAIT = 20.0  # seconds a host waits for a relay reservation before it says so


def carrier_seed(home: Path) -> bytes:
    """The carrier's 32-byte key seed, made once per home."""
    return _home_secret(home, KEY_FILE)


def ticket_key(home: Path) -> bytes:
    """The 32-byte key of our invites' tickets, made once per home: removing the file voids
    every invite not yet used."""
    return _home_secret(home, TICKET_KEY_FILE)


def _home_secret(home: Path, name: str) -> bytes:
    path = Path(home) / name
    if path.is_file():
        seed = path.read_bytes()
        if len(seed) == 32:
            return seed
    seed = secrets.token_bytes(32)
    write_private_file(path, seed)
    return seed


@asynccontextmanager
async def internet(
    node: Node, *, relays: Sequence[str], listen: str = "/ip4/0.0.0.0/tcp/0"
) -> AsyncIterator[Carrier]:
    require()
    from creepnet.node.wan.carrier import HOLE_PUNCH_WAIT, Carrier, CarrierError

    carrier = Carrier(carrier_seed(node.home.path), listen=[listen], relays=relays)
    connections = node.connections

    slack = HOLE_PUNCH_WAIT + 5  # a relay circuit, then a hole punch, before the stream

    async def dial(address: str, timeouts: Timeouts) -> Connection:
        try:
            peer, via = parse_wan_address(address)
        except ValueError as exc:
            raise TransportError(str(exc)) from None
        with trio.move_on_after(timeouts.connect + slack) as scope:
            try:
                stream = await carrier.open_stream(peer, via)
            except CarrierError as exc:
                raise TransportError(str(exc)) from None
        if scope.cancelled_caught:
            raise TransportError(f"cannot reach {peer} over the internet: no answer in time")
        return Connection(stream, timeouts, label=address)

    async with trio.open_nursery() as nursery:
        await nursery.start(carrier.run)

        async def accept() -> None:
            async for stream in carrier.incoming:
                nursery.start_soon(connections.accept_stream, stream, f"{WAN_PREFIX}{stream.peer}")

        nursery.start_soon(accept)
        connections.carriers[WAN_PREFIX] = dial
        connections.carrier_relays = tuple(carrier.relay_addresses)  # the mesh dials through
        connections.carrier_slack = slack  # node.connect waits for the dial's whole budget
        node.ticket_key = ticket_key(node.home.path)  # seats over the carrier want a ticket
        try:
            yield carrier
        finally:
            node.ticket_key = None
            connections.carriers.pop(WAN_PREFIX, None)
            connections.carrier_relays = ()
            connections.carrier_slack = 0.0
            nursery.cancel_scope.cancel()


def invite(node: Node, carrier: Carrier, game: bytes) -> Invite:
    """The invite to a game we host, with its genesis nonce (a joiner proves us with it) and
    its ticket (we seat the joiner with it)."""
    # The key the node checks joins with while `internet` runs: the page asks for an invite at
    # every refresh of a game's view, and the file need not be read each time.
    key = node.ticket_key or ticket_key(node.home.path)
    events = node.session(game).log.events
    nonce = events[0].body.get("nonce") if events else None
    return Invite(
        game,
        node.fingerprint,
        carrier.peer_id,
        tuple(carrier.relay_addresses),
        nonce if isinstance(nonce, bytes) else None,
        ticket_for(key, game),
    )


def path_of(connection: Connection) -> str:
    """Whether it is "direct" or "relayed", for a connection the carrier made, "lan" for TCP."""
    relayed = getattr(connection.stream, "relayed", None)
    return "lan" if relayed is None else ("relayed" if relayed else "direct")
