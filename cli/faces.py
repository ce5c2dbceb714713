"""The CLI's side of the game registry: each game's terminal face, found by the game's kind.

`creepnet.protocol.games` holds the rules and bots; a game adds its console here, so the shared
play loop never imports a game.  Each face is imported when a game of its kind is shown, as the
rules registry loads a game on first lookup: a Creeper command never loads Creepy Racer's
console, engine or deck (issue 26.17).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Protocol

from creepnet.cli.reply import Reply
from creepnet.protocol.session import Session


class Console(Protocol):
    """A game's terminal play without I/O: what to show, and what a typed line means."""

    resign_queued: bool
    redraw_after: frozenset[str]  # event types after which the whole board is shown again

    def ready(self) -> bool: ...
    def introduction(self) -> str: ...
    def board(self) -> str: ...
    def status(self) -> str: ...
    def prompt(self) -> str: ...  # shown on a terminal while the console expects input
    def peer_news(
        self, connected: bool, fingerprint: str | None, text: str, back: bool = False
    ) -> str: ...  # back: connected again after leaving
    def pending_action(self) -> str | None: ...
    def handle(self, line: str) -> Reply: ...


def creeper_console(session: Session, colour: bool = False) -> Console:
    from creepnet.cli.creeper.console import CreeperConsole

    return CreeperConsole(session, colour=colour)


def racer_console(session: Session, colour: bool = False) -> Console:
    """The Racer console over a networked session: the adapter's seat view and public view."""
    from creepnet.cli.racer.console import RacerConsole
    from creepnet.cli.racer.session_table import SessionTable
    from creepnet.protocol.games.racer import public_observation, seat_view

    table = SessionTable(session, seat_view, public_observation)
    return RacerConsole(table, colour=colour)


CONSOLES: dict[str, Callable[..., Console]] = {"creeper": creeper_console, "racer": racer_console}


def replay_racer(events: list[bytes], args: argparse.Namespace) -> int:
    from creepnet.cli.racer.replay import replay_racer as replay

    return replay(events, args)


# A game whose replay is not Creeper's board after each move: (log events, arguments) -> exit code.
REPLAYS: dict[str, Callable[[list[bytes], argparse.Namespace], int]] = {"racer": replay_racer}


def console_for(session: Session, colour: bool = False) -> Console:
    try:
        make = CONSOLES[session.kind]
    except KeyError:
        raise ValueError(f"no terminal console for {session.kind or 'this'} game yet") from None
    return make(session, colour=colour)
