"""For the browser tests: the system Chromium, driven by Playwright, against `creepnet ui`
processes.  (Not a conftest.py: other rooms' tests `import conftest`, which must stay theirs.)

Each node is a real `creepnet` process on 127.0.0.1 (zeroconf bound to loopback too) with its own
home; the test reads the page's link (with its one-time code) from what the command prints.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("CREEPNET_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
URL = re.compile(r"(http://127\.0\.0\.1:\d+/\S*\?code=\S+)")  # a link that works once
START_TIMEOUT = 30.0
# Short Racer games for tables of nodes in one test (as tests/racer/test_racer_retire_network.py
# plays them), escrowed as every face hosts a table of three or four, so it plays on without one.
SHORT_RACER = {"creeps_per_player": 3, "face_up_creeps": 1, "turn_limit": 10, "escrow": 1}


CLI = [sys.executable, "-m", "creepnet.cli"]


class Process:
    """A running creepnet command, its printed lines collected by a reader thread (``cli``:
    how the command is started, e.g. with a test-only game registered first)."""

    def __init__(self, args: list[str], home: Path, cli: list[str] = CLI) -> None:
        # PYTHONFAULTHANDLER: a command that will not stop can be made to print every thread's
        # stack (interrupt), so a failure says where it hung.
        env = {
            **os.environ,
            "CREEPNET_HOME": str(home),
            "PYTHONUNBUFFERED": "1",
            "PYTHONFAULTHANDLER": "1",
        }
        self.popen = subprocess.Popen(
            [*cli, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self.seen = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            with self.seen:
                self.lines.append(line.rstrip("\n"))
                self.seen.notify_all()
        with self.seen:
            self.seen.notify_all()

    def wait_line(self, pattern: re.Pattern[str], timeout: float = START_TIMEOUT) -> re.Match:
        def found() -> re.Match | None:
            return next((m for line in self.lines if (m := pattern.search(line))), None)

        with self.seen:
            if not self.seen.wait_for(
                lambda: found() is not None or self.popen.poll() is not None, timeout
            ):
                raise AssertionError(f"no {pattern.pattern!r} in {self.lines}")
            match = found()
            assert match is not None, f"exited {self.popen.poll()}: {self.lines}"
            return match

    @property
    def url(self) -> str:
        return self.wait_line(URL).group(1)

    def interrupt(self, timeout: float = 60.0) -> int:
        """Ctrl-C, then its exit status; one that has not exited within ``timeout`` is made to
        print its threads' stacks (SIGABRT, with the fault handler on) into the failure."""
        self.popen.send_signal(signal.SIGINT)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired as hung:
            self.popen.send_signal(signal.SIGABRT)
            self.popen.wait(10)
            with self.seen:
                self.seen.wait_for(lambda: False, 2.0)  # the reader takes the last lines
                tail = "\n".join(self.lines[-80:])
            raise AssertionError(f"no exit {timeout} s after Ctrl-C; it printed:\n{tail}") from hung

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


@contextmanager
def chromium(profile: Path) -> Iterator:
    """One headless Chromium with a fresh profile (Playwright driving the system's build)."""
    if not shutil.which(CHROMIUM):
        import pytest

        pytest.fail(
            f"no Chromium at {CHROMIUM}: the browser tests need it "
            "(apt-get install -y chromium chromium-driver, as .ci/run does)"
        )
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)  # generous: six engineers share two cores

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(20_000)
        try:
            yield context
        finally:
            context.close()


def card_ids(value: object) -> set[int]:
    """Every card id anywhere in a page's view (the values under "card" keys)."""
    if isinstance(value, dict):
        found = {value["card"]} if isinstance(value.get("card"), int) else set()
        return found.union(*(card_ids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(card_ids(v) for v in value))
    return set()


async def paste_invite(guest_app, host: Any, invite: str, game: str, player: str) -> None:
    """The guest's page joins with the invite the host's page showed: it answers with the
    hosted game (its hex id), the host seats ``player`` and the game starts."""
    status, joined = await call(guest_app, "POST", "/api/join-invite", {"invite": invite})
    assert status == 200, joined
    assert joined["game"] == game  # type: ignore[index]
    game_id = bytes.fromhex(game)
    await host.wait_for(game_id, lambda rt: rt.session.started, timeout=30)
    assert host.session(game_id).seats[1].player == player


async def call(app, method: str, path: str, body: object = None) -> tuple[int, object]:
    """One request to an ASGI app in this trio run, no server and no browser: (status, the
    JSON it answers, or its text when it is not JSON)."""
    import json

    raw = b"" if body is None else json.dumps(body).encode()
    path, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},  # no disconnect watch: we stay
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    requests = [{"type": "http.request", "body": raw, "more_body": False}]
    answer: dict = {"status": 0, "body": b""}

    async def receive() -> dict:
        return requests.pop(0) if requests else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["type"] = dict(message.get("headers", [])).get(b"content-type", b"")
        elif message["type"] == "http.response.body":
            answer["body"] += message.get("body", b"")

    await app(scope, receive, send)
    text = answer["body"].decode()
    return answer["status"], json.loads(text) if b"json" in answer["type"] else text


@asynccontextmanager
async def web_node(home: Path, name: str, **node: Any) -> AsyncIterator[tuple[Any, Any, Any]]:
    """A node on ``home`` (``node``: Node.open's options) with its page's face running as
    ``name``, and the page's app over it: (node, face, app), in this trio run, no server."""
    import trio

    from creepnet.cli.web.app import build_app
    from creepnet.cli.web.face import WebFace
    from creepnet.node.node import Node

    async with Node.open(home, **node) as opened, trio.open_nursery() as nursery:
        face = WebFace(opened, name)
        await nursery.start(face.run)
        yield opened, face, build_app(face)
        nursery.cancel_scope.cancel()


async def view_until(face, app, path: str, predicate) -> dict:
    """The game view at ``path`` once ``predicate`` holds, asked again after each change the
    face sees (no polling timer)."""
    while True:
        changed = face.changed
        status, view = await call(app, "GET", path)
        assert status == 200, view
        if predicate(view):
            return view
        await changed.wait()
