"""Serving the web face: Hypercorn's trio worker on 127.0.0.1, behind the token guard.

Hypercorn is configured, not patched: one bind on loopback (the OS picks the port), no access
log, its error log into ours.  The server lives in the caller's nursery,
so it stops when the node's command ends.
"""

from __future__ import annotations

import logging
import webbrowser
from typing import Any

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
    binds = await nursery.start(_serve, guard, config)
    guard.port = int(binds[0].rsplit(":", 1)[1])
    return WebServer(guard)


async def _serve(app: ASGIApp, config: Config, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Hypercorn's serve, which returns by itself only when a KeyboardInterrupt was raised in one
    of its own tasks: trio raises Ctrl-C in whichever task runs when the signal lands (on a
    loaded machine often not the one waiting), and Hypercorn takes it there for its shutdown
    signal and swallows it.  The page would stop and the command wait on for ever: Ctrl-C is
    raised again here, so the command stops as at any other Ctrl-C."""
    # the ignore: Hypercorn types its app more narrowly than the ASGI callables the guard wraps
    await serve(app, config, task_status=task_status)  # type: ignore[arg-type]
    raise KeyboardInterrupt


async def open_browser(url: str) -> bool:
    """Open the player's browser at url (in a thread: some browsers block while starting)."""
    return await trio.to_thread.run_sync(webbrowser.open, url)
