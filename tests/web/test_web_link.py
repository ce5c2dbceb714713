"""The page's link works once and for seconds; the session it gives never leaves the node in a
URL or a command line (issue 21.3).  Tested as another local user would try it: the link read
from the launched browser's /proc/PID/cmdline, replayed after the browser used it, replayed
after it expired, or sent with a hand-written Host header."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import trio
from conftest import page_key_of
from test_web_guard import http, request, served

from creepnet.cli.web.guard import Guard


def code_of(url: str) -> str:
    return url.rpartition("?code=")[2]


def cookie_of(reply: str) -> str:
    line = next(x for x in reply.split("\r\n") if x.lower().startswith("set-cookie:"))
    return line.split(":", 1)[1].strip()


async def test_a_link_works_once_and_a_second_use_revokes_the_first(tmp_path):
    async with served(tmp_path) as (_, server):
        here, reused = f"127.0.0.1:{server.port}", []
        server.guard.on_reuse = lambda: reused.append(True)
        code = code_of(server.url("/game/ab"))
        status, rest = await request(server, http("GET", f"/game/ab?code={code}&x=1", here))
        assert status == 200
        cookie = cookie_of(rest)
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and code not in cookie
        assert 'href="/game/ab?x=1"' in rest and code not in rest.partition("\r\n\r\n")[2]
        holder = "Cookie: " + cookie.split(";")[0] + "\r\n" + page_key_of(rest)
        assert (await request(server, http("GET", "/api/lobby", here, holder)))[0] == 200

        # Whoever took the link from the browser's command line comes too late...
        status, rest = await request(server, http("GET", f"/?code={code}", here))
        assert status == 403 and "already used or has expired" in rest
        assert "set-cookie" not in rest.lower()
        # ...and, not knowing whether the first use was the player's, the node revokes it.
        assert reused == [True]
        assert (await request(server, http("GET", "/api/lobby", here, holder)))[0] == 403
        # Another fresh link still works (the player is given one).
        status, _ = await request(server, http("GET", f"/?code={code_of(server.url())}", here))
        assert status == 200


async def test_a_link_is_refused_after_it_expires():
    now = [1000.0]
    served_app: list[str] = []

    async def app(scope, receive, send):
        served_app.append(scope["path"])

    guard = Guard(app, 4000, code_ttl=5.0, clock=lambda: now[0])
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    def scope(code: str) -> dict:
        return {
            "type": "http",
            "path": "/",
            "query_string": f"code={code}".encode(),
            "headers": [(b"host", b"127.0.0.1:4000")],
        }

    late, early = guard.issue_code(), guard.issue_code()
    now[0] += 4.9
    await guard(scope(early), receive, send)
    assert sent[0]["status"] == 200  # within its seconds
    now[0] += 0.2
    sent.clear()
    await guard(scope(late), receive, send)
    assert sent[0]["status"] == 403 and b"expired" in sent[1]["body"]
    assert not served_app


async def test_a_forged_host_header_is_refused_and_spends_no_code(tmp_path):
    async with served(tmp_path) as (node, server):
        code = code_of(server.url())
        for host in ("evil.example", f"attacker.example:{server.port}", ""):
            status, rest = await request(server, http("GET", f"/?code={code}", host))
            assert status == 403 and "Host" in rest and "set-cookie" not in rest.lower()
        status, _ = await request(server, http("GET", f"/?code={code}", f"localhost:{server.port}"))
        assert status == 200


FAKE_BROWSER = textwrap.dedent(
    """
    import json, os, sys, time, urllib.error, urllib.request
    url, out = sys.argv[1], os.environ["FAKE_BROWSER_OUT"]
    try:
        with urllib.request.urlopen(url, timeout=20) as reply:
            status, cookie = reply.status, reply.headers.get("set-cookie", "")
    except urllib.error.HTTPError as exc:
        status, cookie = exc.code, ""
    with open(out + ".tmp", "w") as f:
        json.dump({"pid": os.getpid(), "status": status, "cookie": cookie}, f)
    os.rename(out + ".tmp", out)
    deadline = time.monotonic() + 60
    while not os.path.exists(out + ".done") and time.monotonic() < deadline:
        time.sleep(0.05)  # a browser stays open: its command line stays readable
    """
)


async def wait_for_file(path: Path, seconds: float = 60) -> None:
    with trio.fail_after(seconds):
        while not path.exists():
            await trio.sleep(0.05)  # polling a file another process writes


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
async def test_the_link_on_the_browsers_command_line_is_spent_when_another_user_reads_it(tmp_path):
    script, out = tmp_path / "browser.py", tmp_path / "browser.json"
    script.write_text(FAKE_BROWSER)
    env = {
        **os.environ,
        "CREEPNET_HOME": str(tmp_path / "home"),
        "BROWSER": f"{sys.executable} {script} %s &",  # webbrowser runs it in the background
        "FAKE_BROWSER_OUT": str(out),
        "PYTHONUNBUFFERED": "1",
    }
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "creepnet.cli", "ui", "--iface", "127.0.0.1", "--player", "victim"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    printed = b""
    try:
        with trio.fail_after(60):
            while b"?code=" not in printed:
                chunk = await process.stdout.receive_some(4096)
                assert chunk, printed.decode()
                printed += chunk
        await wait_for_file(out)
        browser = json.loads(out.read_text())
        # What any local user sees of the launched browser:
        cmdline = Path(f"/proc/{browser['pid']}/cmdline").read_bytes().decode()
        link = re.search(r"http://127\.0\.0\.1:(\d+)/\?code=[\w-]+", cmdline)
        assert link is not None and browser["status"] == 200 and "HttpOnly" in browser["cookie"]
        session = browser["cookie"].split(";")[0].split("=", 1)[1]
        assert session not in cmdline and session.encode() not in printed
        assert code_of(link[0]) not in printed.decode()  # the printed link has its own code
        port = int(link[1])
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with stream:
            path = link[0].partition(f":{port}")[2]
            await stream.send_all(http("GET", path, f"127.0.0.1:{port}").encode() + b"\r\n")
            reply = b""
            with trio.fail_after(10):
                while chunk := await stream.receive_some(4096):  # until the server closes
                    reply += chunk
        assert b" 403 " in reply.split(b"\r\n")[0] and b"already used" in reply
    finally:
        (tmp_path / "browser.json.done").touch()
        process.terminate()
        with trio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()
