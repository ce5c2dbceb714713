"""Browser tests: the system Chromium, driven by Playwright, against `creepnet ui` processes.

Each node is a real `creepnet` process on 127.0.0.1 (zeroconf bound to loopback too) with its own
home; the test reads the page's URL (with its token) from what the command prints.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

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
URL = re.compile(r"(http://127\.0\.0\.1:\d+/\S*\?token=\S+)")
START_TIMEOUT = 30.0


class Process:
    """A running creepnet command, its printed lines collected by a reader thread."""

    def __init__(self, args: list[str], home: Path) -> None:
        env = {**os.environ, "CREEPNET_HOME": str(home), "PYTHONUNBUFFERED": "1"}
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "creepnet.cli", *args],
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

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


@pytest.fixture
def creepnet(tmp_path) -> Iterator:
    """Start creepnet commands (each with its own home); all are stopped after the test."""
    started: list[Process] = []

    def start(home: str, *args: str) -> Process:
        process = Process(list(args), tmp_path / home)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory) -> Iterator:
    """One headless Chromium with a fresh profile; each test opens its own pages."""
    if not shutil.which(CHROMIUM):
        pytest.fail(
            f"no Chromium at {CHROMIUM}: the browser tests need it "
            "(apt-get install -y chromium chromium-driver, as .ci/run does)"
        )
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)  # generous: six engineers share two cores

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
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
