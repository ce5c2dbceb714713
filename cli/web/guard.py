"""Who may drive this node's web face: a browser holding its session cookie, on this machine,
from its page.

The page is served on 127.0.0.1 only, but that alone does not make it private: another local user
can connect to the port, and any web page the player visits can make the browser send requests
to 127.0.0.1 (cross-site requests, or DNS rebinding a hostile name onto 127.0.0.1). So every
HTTP request and WebSocket handshake must pass three checks, before any route runs:

* the **session cookie** (``HttpOnly``, ``SameSite=Strict``, named per port so two nodes on one
  machine do not overwrite each other's): a 192-bit random secret, compared in constant time.
  It never appears in a URL or a command line.  A browser gets one by opening a link with a
  **one-time code** (``?code=``): the node swaps the code for a fresh session cookie and forgets
  it, so the link — which sits on the launched browser's command line, readable by every local
  user in /proc — is useless after its first use or ``CODE_TTL`` seconds.  A code offered again
  means someone raced the browser to it: the session its first use got is revoked and
  ``on_reuse`` tells the player (a fresh link is printed).  What such a racer did in the
  moment before the browser came stands: a code read from /proc while the browser starts is
  a window of that start-up, no longer of the node's life (opening the browser on a 0600 file
  that holds the link, as Jupyter does, would close it; sandboxed browsers cannot always read
  one).  Cookies do not tell ports apart, so the browser also sends this cookie to any other
  server on 127.0.0.1 the player opens by hand: whoever runs one would hold it.  So the node's
  API, its game streams and its game files also want the session's **page key**
  (``PAGE_KEY_PATHS``), a second secret the code's answer hands to the page's script alone,
  which keeps it in ``localStorage``: that is per origin, port included, so no other server
  ever sees it.  The page sends it as ``?token=`` (a WebSocket can carry no header of its
  own); a script or test may send the ``x-creepnet-key`` header instead;
* the **Host** header must name this server (``127.0.0.1:PORT`` or ``localhost:PORT``), which
  defeats DNS rebinding: a rebound page sends its own host name;
* the **Origin** header, when the browser sends one (it always does for WebSockets and for
  cross-site POSTs), must be this server's own origin; ``null`` is refused.

A refused request gets 403 and a sentence saying why; nothing reaches the node.

Every answer, refusals too, forbids being shown in another page's frame (``NO_FRAMES``): a page
on another port of 127.0.0.1 is the same *site* as ours, so the browser sends it our
``SameSite=Strict`` cookie inside a frame, and it could lay our page under its own and have the
player click *Leave* or *Host* unawares.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = ("127.0.0.1", "localhost")
CODE_TTL = 30.0  # seconds a one-time code is good for (the browser uses it as it starts)
MAX_CODES = 64  # codes not yet used (the oldest goes first)
MAX_SESSIONS = 64  # browsers holding a session cookie (the oldest goes first)
# What wants the page key besides the cookie: everything that reads or moves a game.
PAGE_KEY_PATHS = ("/api/", "/ws/", "/games/")
KEY_HEADER = "x-creepnet-key"
# On every HTTP answer: no other page may frame ours (the CSP says it to today's browsers, the
# older header to the rest), nor run or style any of our answers as what it is not.
NO_FRAMES = (
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def _digest(secret: str) -> bytes:
    """Secrets are kept by their hash: a lookup's timing says nothing about a stored one."""
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).digest()


class Guard:
    """ASGI middleware: refuses what fails the checks above, passes the rest to ``app``.

    ``port`` is set once the server is bound (the port is chosen by the OS); ``clock`` is
    ``time.monotonic`` unless a test moves time on."""

    def __init__(
        self,
        app: ASGIApp,
        port: int = 0,
        *,
        code_ttl: float = CODE_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.port = port
        self.code_ttl = code_ttl
        self.clock = clock
        self.on_reuse: Callable[[], None] = lambda: None  # a used code came back
        self._codes: OrderedDict[bytes, float] = OrderedDict()  # unused code -> deadline
        self._used: OrderedDict[bytes, tuple[float, bytes]] = OrderedDict()  # -> its session
        # session cookie digest -> its page key's digest
        self._sessions: OrderedDict[bytes, bytes] = OrderedDict()

    @property
    def cookie_name(self) -> str:
        return f"creepnet_{self.port}"

    @property
    def page_key_item(self) -> str:
        """The ``localStorage`` item the page keeps its key in (common.js reads it)."""
        return f"creepnet-key-{self.port}"

    def hosts(self) -> set[str]:
        return {f"{name}:{self.port}" for name in LOCAL_NAMES}

    def origins(self) -> set[str]:
        return {f"http://{host}" for host in self.hosts()}

    def issue_code(self, ttl: float | None = None) -> str:
        """A fresh one-time code for a link (``?code=``), good for ``ttl`` seconds (default
        ``code_ttl``)."""
        self._expire()
        code = new_token()
        self._codes[_digest(code)] = self.clock() + (self.code_ttl if ttl is None else ttl)
        while len(self._codes) > MAX_CODES:
            self._codes.popitem(last=False)
        return code

    def _expire(self) -> None:
        now = self.clock()
        for table in (self._codes, self._used):
            for key in [k for k, v in table.items() if (v if isinstance(v, float) else v[0]) < now]:
                del table[key]

    def _redeem(self, code: str) -> tuple[str, str] | None:
        """A new session secret and its page key for a valid unused code (which is then
        forgotten), else None.  A code used before revokes the session its first use got."""
        self._expire()
        key = _digest(code)
        if self._codes.pop(key, None) is not None:
            session, page_key = new_token(), new_token()
            self._sessions[_digest(session)] = _digest(page_key)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
            self._used[key] = (self.clock() + self.code_ttl, _digest(session))
            return session, page_key
        used = self._used.pop(key, None)
        if used is not None:
            self._sessions.pop(used[1], None)  # whoever came first may not be the player
            self.on_reuse()
        return None

    def refusal(self, scope: Scope) -> str | None:
        """Why this request is refused whatever it carries (Host, Origin), or None."""
        headers = self._headers(scope)
        if headers.get("host") not in self.hosts():
            return "this page is served for 127.0.0.1 only (foreign Host header)"
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins():
            return "requests from other web pages are not accepted (foreign Origin header)"
        if scope["type"] == "websocket" and origin is None:
            return "a WebSocket must come from this node's own page (no Origin header)"
        return None

    @staticmethod
    def _headers(scope: Scope) -> dict[str, str]:
        return {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }

    def _has_session(self, cookie_header: str) -> bool:
        cookie = SimpleCookie()
        try:
            cookie.load(cookie_header)
        except Exception:  # a malformed cookie header is simply no session
            return False
        if self.cookie_name not in cookie:
            return False
        offered = _digest(cookie[self.cookie_name].value)
        return any(hmac.compare_digest(offered, known) for known in self._sessions)

    def _has_page_key(self, scope: Scope) -> bool:
        """Whether the request carries the page key of a live session (``?token=`` or the
        header).  Not paired with the cookie: a second link in another tab gives the browser
        a new cookie while the first tab's page still holds the key it was given."""
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        offered = [value for name, value in query if name == "token"]
        header = self._headers(scope).get(KEY_HEADER)
        if header is not None:
            offered.append(header)
        known = list(self._sessions.values())
        return any(
            hmac.compare_digest(_digest(value), digest) for value in offered for digest in known
        )

    def set_cookie_header(self, session: str) -> tuple[bytes, bytes]:
        value = f"{self.cookie_name}={session}; Path=/; HttpOnly; SameSite=Strict"
        return b"set-cookie", value.encode("latin-1")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        if scope["type"] == "http":
            send = _framed_by_nobody(send)
        reason = self.refusal(scope)
        if reason is None and self._has_session(self._headers(scope).get("cookie", "")):
            if not scope["path"].startswith(PAGE_KEY_PATHS) or self._has_page_key(scope):
                await self.app(scope, receive, send)
                return
            reason = "no page key: open the link `creepnet ui` printed (each link works once)"
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        code = next((value for name, value in query if name == "code"), None)
        if reason is None and code and scope["type"] == "http":
            redeemed = self._redeem(code)
            if redeemed is not None:
                rest = urlencode([(n, v) for n, v in query if n != "code"])
                path = scope["path"] + (f"?{rest}" if rest else "")
                await self._enter(send, *redeemed, path)
                return
            reason = "this link was already used or has expired: open a fresh one"
        if reason is None:
            reason = "no session: open the link `creepnet ui` printed (each link works once)"
        await self._refuse(scope, receive, send, reason)

    async def _enter(self, send: Send, session: str, page_key: str, path: str) -> None:
        """The code's answer: the session cookie, the page key into this origin's
        ``localStorage`` (``page_key_item``), and on to the page without the code.  A page, not
        a redirect: the next request then starts from our own origin, so a ``SameSite=Strict``
        cookie goes with it whoever opened the link."""
        path = path if path.startswith("/") else "/"
        target = html.escape(path, quote=True)
        # JSON strings, with '<' escaped, are safe inside a script element
        item, key, go = (
            json.dumps(v).replace("<", "\\u003c") for v in (self.page_key_item, page_key, path)
        )
        body = (
            f'<!doctype html><meta charset="utf-8"><title>creepnet</title>'
            f"<script>localStorage.setItem({item}, {key}); location.replace({go});</script>"
            f'<a href="{target}">open your page</a>\n'
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                    (b"referrer-policy", b"no-referrer"),
                    self.set_cookie_header(session),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

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


def _framed_by_nobody(send: Send) -> Send:
    """``send``, adding ``NO_FRAMES`` to the answer's headers."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *NO_FRAMES]}
        await send(message)

    return sending
