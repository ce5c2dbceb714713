"""The web face drives a node: only its own page, holding its token, on 127.0.0.1 may use it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio

from creepnet.cli.web.app import build_app
from creepnet.cli.web.face import WebFace
from creepnet.cli.web.server import WebServer, start_web
from creepnet.node.node import Node

HOST_BODY = b'{"kind": "creeper", "name": "forged"}'


@asynccontextmanager
async def served(tmp_path) -> AsyncIterator[tuple[Node, WebServer]]:
    async with Node.open(tmp_path / "home") as node, trio.open_nursery() as nursery:
        face = WebFace(node, "alice")
        await nursery.start(face.run)
        server = await start_web(nursery, build_app(face))
        yield node, server
        nursery.cancel_scope.cancel()


async def request(server: WebServer, head: str, body: bytes = b"") -> tuple[int, str]:
    """One raw HTTP/1.1 exchange, so the test chooses every header (a browser would not).
    Returns the status and the rest of the reply (headers and body)."""
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    async with stream:
        await stream.send_all(head.encode() + b"\r\n" + body)
        reply = b""
        with trio.fail_after(10):
            while not complete(reply):
                chunk = await stream.receive_some(65536)
                if not chunk:
                    break
                reply += chunk
    status_line, _, rest = reply.decode("latin-1").partition("\r\n")
    return int(status_line.split()[1]), rest


def complete(reply: bytes) -> bool:
    """Headers seen, and as much body as they announce (a switch to WebSocket has none)."""
    head, found, body = reply.partition(b"\r\n\r\n")
    if not found:
        return False
    if b" 101 " in head.split(b"\r\n")[0]:
        return True
    for line in head.lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return False


def http(method: str, path: str, host: str, *extra: str, length: int = 0) -> str:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close", *extra]
    if method == "POST":
        lines += ["Content-Type: application/json", f"Content-Length: {length}"]
    return "\r\n".join(lines) + "\r\n"


def websocket(path: str, host: str, *extra: str) -> str:
    return http(
        "GET",
        path,
        host,
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        *extra,
    ).replace("Connection: close\r\n", "")


async def test_the_page_with_its_token_is_served_and_leaves_a_cookie(tmp_path):
    async with served(tmp_path) as (_, server):
        token, here = server.guard.token, f"127.0.0.1:{server.port}"
        status, rest = await request(server, http("GET", f"/?token={token}", here))
        assert status == 200 and "<title>creepnet" in rest
        assert f"creepnet_{server.port}={token}" in rest and "SameSite=Strict" in rest
        cookie = f"Cookie: creepnet_{server.port}={token}"
        status, rest = await request(server, http("GET", "/api/lobby", here, cookie))
        assert status == 200 and '"player":"alice"' in rest


@pytest.mark.parametrize("query", ["", "?token=", "?token=guessed-wrong"])
async def test_a_request_without_the_token_is_refused(tmp_path, query):
    async with served(tmp_path) as (node, server):
        here = f"127.0.0.1:{server.port}"
        status, rest = await request(server, http("GET", f"/api/lobby{query}", here))
        assert status == 403 and "token" in rest
        status, _ = await request(
            server, http("POST", f"/api/host{query}", here, length=len(HOST_BODY)), HOST_BODY
        )
        assert status == 403 and not node.games


@pytest.mark.parametrize("host", ["evil.example:80", "evil.example", "192.168.1.9:{port}", ""])
async def test_a_foreign_host_header_is_refused_even_with_the_token(tmp_path, host):
    """DNS rebinding: a hostile name resolved to 127.0.0.1 still sends its own Host."""
    async with served(tmp_path) as (_, server):
        head = http("GET", f"/api/lobby?token={server.guard.token}", host.format(port=server.port))
        status, rest = await request(server, head)
        assert status == 403 and "Host" in rest


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1"])
async def test_a_post_from_another_origin_is_refused_and_hosts_nothing(tmp_path, origin):
    async with served(tmp_path) as (node, server):
        head = http(
            "POST",
            f"/api/host?token={server.guard.token}",
            f"127.0.0.1:{server.port}",
            f"Origin: {origin}",
            length=len(HOST_BODY),
        )
        status, rest = await request(server, head, HOST_BODY)
        assert status == 403 and "Origin" in rest
        assert not node.games


async def test_the_same_post_from_its_own_page_hosts_a_game(tmp_path):
    """The control for the refusals above: the checks refuse the intruder, not the page."""
    async with served(tmp_path) as (node, server):
        for name in ("127.0.0.1", "localhost"):
            here = f"{name}:{server.port}"
            head = http(
                "POST",
                f"/api/host?token={server.guard.token}",
                here,
                f"Origin: http://{here}",
                length=len(HOST_BODY),
            )
            status, rest = await request(server, head, HOST_BODY)
            assert status == 200 and '"game"' in rest
        assert len(node.games) == 2


async def test_websockets_need_the_token_and_the_pages_own_origin(tmp_path):
    async with served(tmp_path) as (node, server):
        game = (await node.host_game("creeper", "ws", player="alice")).hex()
        token, here = server.guard.token, f"127.0.0.1:{server.port}"
        own = f"Origin: http://{here}"
        refused = [
            websocket(f"/ws/game/{game}", here, own),  # no token
            websocket(f"/ws/game/{game}?token={token}", here, "Origin: http://evil.example"),
            websocket(f"/ws/game/{game}?token={token}", here),  # no Origin: not a page
            websocket(f"/ws/game/{game}?token={token}", "evil.example", own),
        ]
        for head in refused:
            status, _ = await request(server, head)
            assert status == 403, head
        status, _ = await request(server, websocket(f"/ws/game/{game}?token={token}", here, own))
        assert status == 101


async def test_the_page_is_served_on_loopback_only(tmp_path):
    async with served(tmp_path) as (_, server):
        assert server.url().startswith(f"http://127.0.0.1:{server.port}/?token=")
        assert len(server.guard.token) >= 32


async def test_an_oversized_or_malformed_request_gets_words_and_changes_nothing(tmp_path):
    async with served(tmp_path) as (node, server):
        here = f"127.0.0.1:{server.port}"
        for body, words in ((b"[" * 5000, "too large"), (b"{nope", "not JSON"), (b"[]", "object")):
            head = http("POST", f"/api/host?token={server.guard.token}", here, length=len(body))
            status, rest = await request(server, head, body)
            assert status == 400 and words in rest
        assert not node.games
