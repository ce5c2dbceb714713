"""Shared fixtures for the node tests: loopback-only sockets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio

from creepnet.node.transport import Connection, Timeouts

LOOPBACK = "127.0.0.1"
FAST = Timeouts(connect=2.0, handshake=2.0, ping=0.5, idle=3.0, send=2.0, retry=0.05)


@asynccontextmanager
async def loopback_pair(
    timeouts: Timeouts = FAST,
) -> AsyncIterator[tuple[trio.SocketStream, trio.SocketStream]]:
    """Two ends of one real TCP connection on 127.0.0.1."""
    listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
    port = listeners[0].socket.getsockname()[1]
    try:
        client = await trio.open_tcp_stream(LOOPBACK, port)
        server = await listeners[0].accept()
    finally:
        for listener in listeners:
            await listener.aclose()
    try:
        yield client, server
    finally:
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)


@asynccontextmanager
async def connection_pair(timeouts: Timeouts = FAST) -> AsyncIterator[tuple[Connection, Connection]]:
    async with loopback_pair(timeouts) as (client, server):
        yield Connection(client, timeouts, label="a"), Connection(server, timeouts, label="b")


@pytest.fixture
def fast() -> Timeouts:
    return FAST
