"""For the browser tests: the system Chromium, driven by Playwright, against `creepnet ui`
processes.  (Not a conftest.py: other rooms' tests `import conftest`, which must stay theirs.)

Each node is a real `creepnet` process on 127.0.0.1 (zeroconf bound to loopback too) with its own
home; the test reads the page's link (with its one-time code) from what the command prints.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

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


def card_ids(value: object) -> set[int]:
    """Every card id anywhere in a page's view (the values under "card" keys)."""
    if isinstance(value, dict):
        found = {value["card"]} if isinstance(value.get("card"), int) else set()
        return found.union(*(card_ids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(card_ids(v) for v in value))
    return set()
