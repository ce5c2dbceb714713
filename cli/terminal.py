"""The terminal side of play, without a game in it: typed lines in, lines and one status line out.

* ``StdinLines``: one thread reads stdin for the whole command, so a line typed while one part
  of the command stops listening (the game ends, "play again?" is asked) is kept for the next.
* ``Screen``: lines that stay, and one status line for news that only matters until the next
  news (redial attempts, "not delivered yet").  On a terminal the status line is rewritten in
  place; in a pipe or a test only the first note of a run is printed, so retries cannot scroll
  the useful lines away.  A prompt is shown on a terminal when the console asks for input.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import AsyncIterator, Callable

import trio

Out = Callable[[str], None]
CLEAR_LINE = "\r\x1b[K"
NOTE_WIDTH = 80


class StdinLines:
    """Lines typed by the user, read by one daemon thread into a channel."""

    def __init__(self, read: Callable[[], str] = sys.stdin.readline) -> None:
        self._read = read
        self._send, self._receive = trio.open_memory_channel[str | None](64)
        self._started = False
        self._ended = False

    def _pump(self, token: trio.lowlevel.TrioToken) -> None:
        while True:
            line = self._read()
            try:
                trio.from_thread.run(self._send.send, line or None, trio_token=token)
            except trio.RunFinishedError:
                return
            if not line:
                return

    async def next(self) -> str | None:
        """The next line, or None once input has ended (then, and on every later call)."""
        if not self._started:
            self._started = True
            token = trio.lowlevel.current_trio_token()
            threading.Thread(target=self._pump, args=(token,), daemon=True).start()
        if self._ended:
            await trio.lowlevel.checkpoint()
            return None
        try:
            line = await self._receive.receive()
        except trio.EndOfChannel:  # another reader took the end
            line = None
        if line is None:
            # Remembered at once, with no checkpoint in between: a reader cancelled just after
            # taking the end (the game over while stdin closed) used to lose it, and the
            # "play again?" question then waited forever.
            self._ended = True
            self._send.close()
        return line

    async def __aiter__(self) -> AsyncIterator[str]:
        while (line := await self.next()) is not None:
            yield line


class Screen:
    """Permanent lines through ``out``; a status line and prompt through ``live`` (a TTY)."""

    def __init__(self, out: Out = print, live: Callable[[str], None] | None = None) -> None:
        self.out = out
        self.live = live
        self.status = ""  # the status line on screen (live), or the note already printed
        self.prompt = ""
        self._on_screen = False  # something without a newline is on the last line (live)

    @classmethod
    def for_stdout(cls) -> Screen:
        if not sys.stdout.isatty():
            return cls()

        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()

        return cls(print, write)

    def say(self, text: str) -> None:
        """A line that stays."""
        self._wipe()
        self.status = ""
        self.out(text)
        self._show_prompt()

    def note(self, text: str, key: str | None = None) -> None:
        """News that replaces the previous note.  Without a terminal, a note is printed only
        when its key (what it is about; default: the text) differs from the one before."""
        key = key or text
        if self.live is None:
            if key != self.status:
                self.out(text)
            self.status = key
            return
        self._wipe()
        self.status = text
        self.live(text[: NOTE_WIDTH - 1])  # one physical line, or the wipe would leave a tail
        self._on_screen = True

    def set_prompt(self, prompt: str) -> None:
        if prompt != self.prompt:
            self.prompt = prompt
            if not self.status:
                self._wipe()
                self._show_prompt()

    def _show_prompt(self) -> None:
        if self.live is not None and self.prompt:
            self.live(self.prompt)
            self._on_screen = True

    def _wipe(self) -> None:
        if self.live is not None and self._on_screen:
            self.live(CLEAR_LINE)
            self._on_screen = False

    def close(self) -> None:
        """Leave the cursor on a fresh line."""
        if self.live is not None and self._on_screen:
            self.live("\n")
            self._on_screen = False
