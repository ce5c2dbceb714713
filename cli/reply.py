"""What a game console answers to a typed line (shared by every game's console)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Reply:
    """What the console says, what to send (a session action), and whether to leave."""

    text: str = ""
    action: str | None = None
    quit: bool = False
