"""Serving the web face: Hypercorn's trio worker on 127.0.0.1, behind the token guard.

Hypercorn is configured, not patched: one bind on loopback (the OS picks the port), no access
log, its error log into ours.  The server lives in the caller's nursery,
so it stops when the node's command ends.
"""

from __future__ import annotations

import logging
import webbrowser

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from creepnet.cli.web.guard import ASGIApp, Guard

log = logging.getLogger("creepnet.web")


class WebServer:
    """A running web face: its port, and links to open (each with a one-time code)."""

    def __init__(self, guard: Guard) -> None:
        self.guard = guard

    @property
    def port(self) -> int:
        return self.guard.port

    def url(self, path: str = "/", ttl: float | None = None) -> str:
        """A link to path that works once, within ttl seconds (default: the guard's)."""
        return f"http://127.0.0.1:{self.port}{path}?code={self.guard.issue_code(ttl)}"


async def start_web(nursery: trio.Nursery, app: ASGIApp, port: int = 0) -> WebServer:
    """Serve ``app`` on 127.0.0.1 (never another interface) until the nursery ends."""
    guard = Guard(app)
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = None
    config.errorlog = log
    config.graceful_timeout = 1.0
    binds = await nursery.start(serve, guard, config)
    guard.port = int(binds[0].rsplit(":", 1)[1])
    return WebServer(guard)


async def open_browser(url: str) -> bool:
    """Open the player's browser at url (in a thread: some browsers block while starting)."""
    return await trio.to_thread.run_sync(webbrowser.open, url)
