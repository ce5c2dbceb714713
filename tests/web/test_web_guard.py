"""The web face drives a node: only its own page, holding its session cookie, on 127.0.0.1 may
use it.  (The one-time link that gives the cookie: test_web_link.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
from conftest import page_key_of
from web_support import web_node

from creepnet.cli.web.server import WebServer, start_web
from creepnet.node.node import Node

HOST_BODY = b'{"kind": "creeper", "name": "forged"}'


@asynccontextmanager
async def served(tmp_path) -> AsyncIterator[tuple[Node, WebServer]]:
    async with (
        web_node(tmp_path / "home", "alice") as (node, _, app),
        trio.open_nursery() as nursery,
    ):
        server = await start_web(nursery, app)
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


async def session(server: WebServer) -> str:
    """The Cookie header a browser holds after opening a fresh link of the server, and the
    page key its page then sends (two header lines)."""
    code = server.url().rpartition("?code=")[2]
    status, rest = await request(server, http("GET", f"/?code={code}", f"127.0.0.1:{server.port}"))
    assert status == 200, rest
    line = next(x for x in rest.split("\r\n") if x.lower().startswith("set-cookie:"))
    return "Cookie: " + line.split(":", 1)[1].split(";")[0].strip() + "\r\n" + page_key_of(rest)


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


async def test_the_page_with_its_session_is_served(tmp_path):
    async with served(tmp_path) as (_, server):
        here, cookie = f"127.0.0.1:{server.port}", await session(server)
        status, rest = await request(server, http("GET", "/", here, cookie))
        assert status == 200 and "<title>creepnet" in rest
        status, rest = await request(server, http("GET", "/api/lobby", here, cookie))
        assert status == 200 and '"player":"alice"' in rest


@pytest.mark.parametrize(
    "extra",
    ["", "Cookie: creepnet_{port}=guessed-wrong", "Cookie: creepnet_{port}=", "Cookie: ;;="],
)
async def test_a_request_without_a_session_is_refused(tmp_path, extra):
    async with served(tmp_path) as (node, server):
        here = f"127.0.0.1:{server.port}"
        cookie = [extra.format(port=server.port)] if extra else []
        status, rest = await request(server, http("GET", "/api/lobby?token=x", here, *cookie))
        assert status == 403 and "no session" in rest
        status, _ = await request(
            server, http("POST", "/api/host", here, *cookie, length=len(HOST_BODY)), HOST_BODY
        )
        assert status == 403 and not node.games


@pytest.mark.parametrize("host", ["evil.example:80", "evil.example", "192.168.1.9:{port}", ""])
async def test_a_foreign_host_header_is_refused_even_with_the_session(tmp_path, host):
    """DNS rebinding: a hostile name resolved to 127.0.0.1 still sends its own Host."""
    async with served(tmp_path) as (_, server):
        head = http("GET", "/api/lobby", host.format(port=server.port), await session(server))
        status, rest = await request(server, head)
        assert status == 403 and "Host" in rest


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1"])
async def test_a_post_from_another_origin_is_refused_and_hosts_nothing(tmp_path, origin):
    async with served(tmp_path) as (node, server):
        head = http(
            "POST",
            "/api/host",
            f"127.0.0.1:{server.port}",
            await session(server),
            f"Origin: {origin}",
            length=len(HOST_BODY),
        )
        status, rest = await request(server, head, HOST_BODY)
        assert status == 403 and "Origin" in rest
        assert not node.games


async def test_the_same_post_from_its_own_page_hosts_a_game(tmp_path):
    """The control for the refusals above: the checks refuse the intruder, not the page."""
    async with served(tmp_path) as (node, server):
        cookie = await session(server)
        for name in ("127.0.0.1", "localhost"):
            here = f"{name}:{server.port}"
            head = http(
                "POST", "/api/host", here, cookie, f"Origin: http://{here}", length=len(HOST_BODY)
            )
            status, rest = await request(server, head, HOST_BODY)
            assert status == 200 and '"game"' in rest
        assert len(node.games) == 2


async def test_websockets_need_the_session_and_the_pages_own_origin(tmp_path):
    async with served(tmp_path) as (node, server):
        game = (await node.host_game("creeper", "ws", player="alice")).hex()
        here, cookie = f"127.0.0.1:{server.port}", await session(server)
        own = f"Origin: http://{here}"
        path = f"/ws/game/{game}"
        refused = [
            websocket(path, here, own),  # no session
            websocket(f"{path}?code={server.url().rpartition('=')[2]}", here, own),  # codes: http
            websocket(path, here, cookie, "Origin: http://evil.example"),
            websocket(path, here, cookie),  # no Origin: not a page
            websocket(path, "evil.example", cookie, own),
        ]
        for head in refused:
            status, _ = await request(server, head)
            assert status == 403, head
        status, _ = await request(server, websocket(path, here, cookie, own))
        assert status == 101


async def test_the_cookie_alone_reaches_no_game_the_page_key_only_lives_in_our_origin(tmp_path):
    """Cookies do not tell ports apart: the browser sends ours to any other server on
    127.0.0.1 the player opens, and whoever runs it could replay it and drive the node (read
    her hand, move, leave).  The API, the streams and the game files now also want the page
    key, which the link's answer hands only to our page's script (its origin's storage)."""
    async with served(tmp_path) as (node, server):
        game = (await node.host_game("creeper", "key", player="alice")).hex()
        here = f"127.0.0.1:{server.port}"
        code = server.url().rpartition("?code=")[2]
        status, rest = await request(server, http("GET", f"/?code={code}", here))
        line = next(x for x in rest.split("\r\n") if x.lower().startswith("set-cookie:"))
        cookie = "Cookie: " + line.split(":", 1)[1].split(";")[0].strip()
        key = page_key_of(rest).partition(": ")[2]
        assert key not in line and f"creepnet-key-{server.port}" in rest
        own = f"Origin: http://{here}"
        stolen = [  # what another server that got the cookie can send
            http("GET", "/api/lobby", here, cookie),
            http("GET", f"/api/game/{game}", here, cookie),
            http("GET", "/api/lobby?token=guessed", here, cookie),
            http("POST", f"/api/game/{game}/leave", here, cookie, length=0),
            websocket(f"/ws/game/{game}", here, cookie, own),
        ]
        for head in stolen:
            status, rest = await request(server, head)
            assert status == 403 and ("page key" in rest or "Upgrade" in head), head
        status, _ = await request(server, http("GET", "/", here, cookie))
        assert status == 200  # the page itself holds nothing: its script asks with the key
        status, rest = await request(server, http("GET", f"/api/lobby?token={key}", here, cookie))
        assert status == 200 and '"player":"alice"' in rest
        ws = websocket(f"/ws/game/{game}?token={key}", here, cookie, own)
        assert (await request(server, ws))[0] == 101
        # the key without the cookie is nothing either
        assert (await request(server, http("GET", f"/api/lobby?token={key}", here)))[0] == 403


async def test_the_page_is_served_on_loopback_only(tmp_path):
    async with served(tmp_path) as (_, server):
        assert server.url().startswith(f"http://127.0.0.1:{server.port}/?code=")


async def test_an_oversized_or_malformed_request_gets_words_and_changes_nothing(tmp_path):
    async with served(tmp_path) as (node, server):
        here, cookie = f"127.0.0.1:{server.port}", await session(server)
        for body, words in ((b"[" * 5000, "too large"), (b"{nope", "not JSON"), (b"[]", "object")):
            head = http("POST", "/api/host", here, cookie, length=len(body))
            status, rest = await request(server, head, body)
            assert status == 400 and words in rest
        assert not node.games


async def test_a_ctrl_c_raised_in_the_web_servers_own_task_still_stops_the_command(monkeypatch):
    """trio raises Ctrl-C in whichever task runs when SIGINT lands: here Hypercorn's accept loop,
    which takes it for its own shutdown signal and swallows it.  The command must stop all the
    same (cli/network.py makes the KeyboardInterrupt exit 130), not serve nothing for ever."""
    import hypercorn.trio.run

    from creepnet.cli.network import leaf_error

    async def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    async def app(scope, receive, send):  # never asked: no request is made
        raise AssertionError(scope)

    monkeypatch.setattr(hypercorn.trio.run.trio, "serve_listeners", interrupted)
    with pytest.raises(BaseException) as stopped:  # noqa: PT011 (a group, unwrapped below)
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                await start_web(nursery, app)
                await trio.sleep_forever()
    assert isinstance(leaf_error(stopped.value), KeyboardInterrupt), stopped.value
