"""The terminal side of play, without a game in it: typed lines in, lines and one status line out.

* ``StdinLines``: one thread reads stdin for the whole command, so a line typed while one part
  of the command stops listening (the game ends, "play again?" is asked) is kept for the next.
* ``Screen``: lines that stay, and one status line for news that only matters until the next
  news (redial attempts, "not delivered yet").  On a terminal the status line is rewritten in
  place; in a pipe or a test only the first note of a run is printed, so retries cannot scroll
  the useful lines away.  On a terminal the status line has a row of its own above the prompt,
  so what the user types never runs on from it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import AsyncIterator, Callable

import trio

Out = Callable[[str], None]
CLEAR_LINE = "\r\x1b[K"
CURSOR_UP = "\x1b[A"
NOTE_WIDTH = 80


class StdinLines:
    """Lines typed by the user, read by one daemon thread into a channel."""

    read = 0  # lines read from stdin in this process, by any reader (the Screen watches it)

    def __init__(self, read: Callable[[], str] = sys.stdin.readline) -> None:
        self._read = read
        self._send, self._receive = trio.open_memory_channel[str | None](64)
        self._started = False
        self._ended = False

    def _pump(self, token: trio.lowlevel.TrioToken) -> None:
        while True:
            line = self._read()
            StdinLines.read += 1
            try:
                trio.from_thread.run(self._send.send, line or None, trio_token=token)
            except (trio.RunFinishedError, trio.Cancelled):  # the run ended, or is ending
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
    """Permanent lines through ``out``; a status line and prompt through ``live`` (a TTY).

    On a terminal the bottom of the screen is a block of at most two rows, redrawn whole: the
    status line (when there is news) on a row of its own, then the prompt, where what the user
    types is echoed.  Typed text therefore never runs on from a status line, and a new status
    replaces the old one instead of scrolling.  Once the user has pressed Enter (a line was
    read from stdin) the block has scrolled up with their line and stays as it is: it is
    history now, and the block is drawn afresh below it.
    """

    def __init__(self, out: Out = print, live: Callable[[str], None] | None = None) -> None:
        self.out = out
        self.live = live
        self.status = ""  # the status line on screen (live), or the note already printed
        self.prompt = ""
        self._drawn = 0  # rows of the block on screen (live): 0, 1 (prompt) or 2 (status too)
        self._typed = StdinLines.read  # lines typed when the block was drawn

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
        self._draw()

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
        self.status = text[: NOTE_WIDTH - 1]  # one physical row, or the wipe would leave a tail
        self._draw()

    def set_prompt(self, prompt: str) -> None:
        if prompt != self.prompt:
            self._wipe()
            self.prompt = prompt
            self._draw()

    def _draw(self) -> None:
        if self.live is None:
            return
        if self.status:
            self.live(self.status + "\n")
        if self.status or self.prompt:
            self.live(self.prompt)
        self._drawn = bool(self.status) + bool(self.status or self.prompt)
        self._typed = StdinLines.read

    def _wipe(self) -> None:
        """Erase the block, leaving the cursor where its first row began."""
        if self.live is None or not self._drawn:
            return
        if self._typed != StdinLines.read:  # Enter was pressed: the block is history
            self._drawn = 0
            return
        self.live(CLEAR_LINE + (CURSOR_UP + CLEAR_LINE) * (self._drawn - 1))
        self._drawn = 0

    def close(self) -> None:
        """Leave the cursor on a fresh line."""
        if self.live is not None and self._drawn and self._typed == StdinLines.read:
            self.live("\n")
        self._drawn = 0
