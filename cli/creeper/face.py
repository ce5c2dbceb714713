"""Creeper's record in the CLI's registry: its console, replay, page, choices and demos.

Only this module names Creeper's CLI rooms; it imports them when a function here is first
called, so reading the record (as the command line does for every game) loads no engine.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creepnet.cli.faces import Console, GameFace, PageFace
from creepnet.cli.game_options import GameChoices

if TYPE_CHECKING:
    from creepnet.protocol.session import Session

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"


def console(session: Session, colour: bool = False) -> Console:
    from creepnet.cli.creeper.console import CreeperConsole

    return CreeperConsole(session, colour=colour)


def board(session: Session) -> str:
    from creepnet.engine import creeper

    game = session.game_state
    return "" if game is None else creeper.render(game.state, game.last_move)


def replay(raws: list[bytes], args: argparse.Namespace) -> int:
    from creepnet.cli.replay_text import replay_boards

    return replay_boards(raws, args, board)


def page_view(session: Session) -> dict[str, Any] | None:
    from creepnet.cli.web import creeper_view

    return creeper_view.view(session)


def typed_actions(session: Session, text: str) -> Iterator[str]:
    from creepnet.cli.web import creeper_view

    return creeper_view.typed_actions(session, text)


def position(game: Any) -> dict[str, Any]:
    from creepnet.cli.web import creeper_view

    return creeper_view.position(game)


def narrate(type: str, body: dict[str, Any]) -> str | None:
    if type == "move":
        return f"plays {body['move']}" + (" and offers a draw" if body.get("draw") else "")
    return {"resign": "resigns", "accept": "accepts the draw", "decline": "declines the draw"}.get(
        type
    )


def cheat_demo(log: bytes, cheater_home: Path) -> bool:
    from creepnet.cli.creeper.cheat_demo import run_cheats

    return run_cheats(log, cheater_home)


def perft(args: argparse.Namespace) -> int:
    from creepnet.cli.creeper.perft import run

    return run(args)


FACE = GameFace(
    kind="creeper",
    title="Creeper",
    choices=GameChoices(
        "greedy",
        "search",
        2,
        limit_option="max_plies",
        limit_words="Move limit (plies)",
        demo_limit=300,
        demo_pace=0.15,
    ),
    console=console,
    replay=replay,
    page=PageFace(
        view=page_view,
        folder=STATIC,
        script="board.js",
        words={
            "placeholder": "type a move: e7-d6, c3xc5, resign…",
            "waiting": "this game has no board on the page yet: type your actions",
            "hint": "Click a glowing pin, then where it should go — or type the move.",
        },
        draw_offers=True,
        resign=True,
        keep=position,
        position=lambda kept, final: kept,  # all of a Creeper position is public at once
        typed_actions=typed_actions,
    ),
    cheat_demo=cheat_demo,
    perft=perft,
    narrate=narrate,
)
