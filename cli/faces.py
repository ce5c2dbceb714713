"""The CLI's side of the game registry: one record per game (`GameFace`) that every face reads.

`creepnet.protocol.games` holds each game's rules and bots; this registry holds what the
commands and the page need besides: the terminal console, the replay renderer, the page's board
view and script, the command-line choices and limits, the words.  The shared commands, the play
loop and the web face ask it by the game's kind and never import a game, so a third game adds
its own rooms (``cli/<game>/``) and one line in ``FACES`` — or, from outside the package (a
test, a plug-in), ``FACES[kind] = record`` as ``GAMES[kind] = game`` does for the rules.

Each game's record module is imported the first time its kind is looked up, and keeps its own
heavy imports inside the functions it names: building the command line, which reads every
game's choices, loads no engine.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from creepnet.cli.reply import Reply
from creepnet.protocol.games import Registry

if TYPE_CHECKING:
    from creepnet.cli.game_options import GameChoices
    from creepnet.cli.replay_story import Teller
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


Story = Callable[[], Sequence[str]]  # the game in words so far, asked again at each view
Replay = Callable[[list[bytes], argparse.Namespace], int]  # (log events, arguments) -> exit code


@dataclass(frozen=True)
class PageFace:
    """A game on the page: the board JSON the node sends, and the script that draws it.

    The script (a file in ``folder``) calls ``registerView(kind, {draw, summary, …})``; the page
    loads it by the name the view JSON gives and knows no game itself.  ``words`` are what the
    shared page shows for this game: ``placeholder`` (the notation field), ``waiting`` (started,
    no board yet), ``hint`` (shown while the board offers clicks).
    """

    view: Callable[[Session], dict[str, Any] | None]  # a live game's board (None: none yet)
    folder: Path
    script: str
    styles: tuple[str, ...] = ()
    words: Mapping[str, str] = field(default_factory=dict)
    draw_offers: bool = False  # the page offers draws with a move and answers them
    resign: bool = False  # the page has a Resign button
    # The replay page: what to keep of the game after an event, and (kept, the final game) -> a
    # position: drawn once the whole log is read, so a log that ends by naming hidden cards
    # shows them at every step.
    keep: Callable[[Any], Any] | None = None
    position: Callable[[Any, Any], dict[str, Any] | None] | None = None
    # A game told by a teller that follows it as its log grows, rather than event by event.
    story: Callable[[Session], Story] | None = None
    # A game whose typed lines are not what the session takes: the session's text for each step
    # (GameRuleError says why a line cannot be sent).
    typed_actions: Callable[[Session, str], Iterator[str]] | None = None

    @property
    def files(self) -> tuple[str, ...]:
        """The files the page may fetch for this game (nothing else in ``folder`` is served)."""
        return (self.script, *self.styles)

    def labels(self, kind: str) -> dict[str, Any]:
        """What the page's shared script needs to know of this game."""
        return {
            "module": kind,
            "script": f"/games/{kind}/{self.script}",
            "styles": [f"/games/{kind}/{name}" for name in self.styles],
            "words": dict(self.words),
            "draw_offers": self.draw_offers,
            "resign": self.resign,
        }


@dataclass(frozen=True)
class GameFace:
    """Everything the CLI and the page know of one game, found by its kind."""

    kind: str
    title: str  # the game's name for people, e.g. "Creepy Racer"
    choices: GameChoices  # seats, default bots, the limit option, demo settings
    console: Callable[[Session, bool], Console]  # (session, colour) -> its terminal console
    replay: Replay  # `creepnet replay FILE` of this game's log
    page: PageFace | None = None  # None: the page shows seats, feed and typed actions only
    # `demo KIND --local`: (players, seed) -> exit code, a game in this process only.
    local_demo: Callable[[int, int], int] | None = None
    # `demo KIND --cheat`: (the finished log, the cheater's home) -> every cheat caught.
    cheat_demo: Callable[[bytes, Path], bool] | None = None
    perft: Callable[[argparse.Namespace], int] | None = None  # `creepnet perft KIND …`
    # The game's own events in words: (type, body) -> what its author did (None: just the type).
    narrate: Callable[[str, dict[str, Any]], str | None] | None = None
    # The replay's words for the game's events, folded into moves and turns (cli/replay_story.py;
    # built afresh for each log).  None: each game event is a move told by ``narrate``.
    teller: Callable[[], Teller] | None = None


def _face_of(module: str) -> Callable[[], GameFace]:
    return lambda: importlib.import_module(module).FACE


# Each record is imported from its module (its ``FACE``) on first lookup.
FACES: MutableMapping[str, GameFace] = Registry[GameFace](
    {"creeper": _face_of("creepnet.cli.creeper.face"), "racer": _face_of("creepnet.cli.racer.face")}
)


def face_for(kind: str) -> GameFace:
    """The game's record (ValueError naming the games the CLI knows, for an unknown kind)."""
    try:
        return FACES[kind]
    except KeyError:
        known = ", ".join(FACES)
        raise ValueError(f"no face for {kind or 'this'} game; this creepnet has {known}") from None


def page_of(kind: str) -> PageFace | None:
    return FACES[kind].page if kind in FACES else None


def console_for(session: Session, colour: bool = False) -> Console:
    if session.kind not in FACES:
        raise ValueError(f"no terminal console for {session.kind or 'this'} game yet")
    return FACES[session.kind].console(session, colour)
