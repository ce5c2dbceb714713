"""Who may drive this node's web face: the holder of its token, on this machine, from its page.

The page is served on 127.0.0.1 only, but that alone does not make it private: another local user
can connect to the port, and any web page the player visits can make the browser send requests
to 127.0.0.1 (cross-site requests, or DNS rebinding a hostile name onto 127.0.0.1). So every
HTTP request and WebSocket handshake must pass three checks, before any route runs:

* the **token**: a 192-bit random secret, given in the URL the player opens (``?token=``) or
  in the cookie the first load sets (``HttpOnly``, ``SameSite=Strict``, named per port so two
  nodes on one machine do not overwrite each other's); compared in constant time;
* the **Host** header must name this server (``127.0.0.1:PORT`` or ``localhost:PORT``), which
  defeats DNS rebinding: a rebound page sends its own host name;
* the **Origin** header, when the browser sends one (it always does for WebSockets and for
  cross-site POSTs), must be this server's own origin; ``null`` is refused.

A refused request gets 403 and a sentence saying why; nothing reaches the node.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = ("127.0.0.1", "localhost")


def new_token() -> str:
    return secrets.token_urlsafe(24)


class Guard:
    """ASGI middleware: refuses what fails the checks above, passes the rest to ``app``.

    ``port`` is set once the server is bound (the port is chosen by the OS)."""

    def __init__(self, app: ASGIApp, token: str, port: int = 0) -> None:
        self.app = app
        self.token = token
        self.port = port

    @property
    def cookie_name(self) -> str:
        return f"creepnet_{self.port}"

    def hosts(self) -> set[str]:
        return {f"{name}:{self.port}" for name in LOCAL_NAMES}

    def origins(self) -> set[str]:
        return {f"http://{host}" for host in self.hosts()}

    def refusal(self, scope: Scope) -> str | None:
        """Why this request is refused, or None when it may pass."""
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }
        if headers.get("host") not in self.hosts():
            return "this page is served for 127.0.0.1 only (foreign Host header)"
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins():
            return "requests from other web pages are not accepted (foreign Origin header)"
        if scope["type"] == "websocket" and origin is None:
            return "a WebSocket must come from this node's own page (no Origin header)"
        if not self._has_token(scope, headers.get("cookie", "")):
            return "the link lacks this node's token: open the URL `creepnet ui` printed"
        return None

    def _has_token(self, scope: Scope, cookie_header: str) -> bool:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        offered = query.get("token", [])
        cookie = SimpleCookie()
        try:
            cookie.load(cookie_header)
        except Exception:  # a malformed cookie header is simply no token
            cookie = SimpleCookie()
        if self.cookie_name in cookie:
            offered.append(cookie[self.cookie_name].value)
        return any(hmac.compare_digest(o.encode(), self.token.encode()) for o in offered)

    def set_cookie_header(self) -> tuple[bytes, bytes]:
        value = f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"
        return b"set-cookie", value.encode("latin-1")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        reason = self.refusal(scope)
        if reason is not None:
            await self._refuse(scope, receive, send, reason)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), self.set_cookie_header()]
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, reason: str) -> None:
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
            return
        body = f"refused: {reason}\n".encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
