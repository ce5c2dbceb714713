"""Text from other people, made safe to print: a peer's name, game name or error reason must not
move the cursor, recolour the terminal or fake a line of our own.

Every character in a Unicode "other" category (control, format, surrogate, private use,
unassigned) or a line/paragraph separator becomes "?"; so do newlines and tabs, since one name
must stay on one line.  Only the display changes: logs keep what was signed.
"""

from __future__ import annotations

import textwrap
import unicodedata

REPLACEMENT = "?"


def printable(text: str) -> str:
    """text with every non-printing character replaced, for one line of terminal output."""
    return "".join(
        REPLACEMENT if unicodedata.category(char)[0] == "C" or char in "\u2028\u2029" else char
        for char in text
    )


def printable_lines(text: str) -> str:
    """Like printable, keeping line breaks (for our own multi-line messages)."""
    return "\n".join(printable(line) for line in text.split("\n"))


def fit(text: str, width: int = 80) -> str:
    """Our multi-line text wrapped to a terminal width (80×24 is the smallest we promise)."""
    return "\n".join(
        textwrap.fill(line, width, subsequent_indent="  ") if len(line) > width else line
        for line in text.split("\n")
    )
