"""Creepy Racer's record in the CLI's registry: its console, replay, page, choices and demo.

Only this module names Racer's CLI rooms; it imports them when a function here is first called,
so reading the record (as the command line does for every game) loads no engine or deck code.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creepnet.cli.faces import Console, GameFace, PageFace, Story
from creepnet.cli.game_options import GameChoices
from creepnet.protocol.rules import GameRuleError

if TYPE_CHECKING:
    from creepnet.protocol.session import Session

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"


def console(session: Session, colour: bool = False) -> Console:
    """The Racer console over a networked session: the adapter's seat view and public view."""
    from creepnet.cli.racer.console import RacerConsole
    from creepnet.cli.racer.session_game import SessionGame
    from creepnet.protocol.games.racer import public_observation, seat_view

    return RacerConsole(SessionGame(session, seat_view, public_observation), colour=colour)


def replay(raws: list[bytes], args: argparse.Namespace) -> int:
    from creepnet.cli.racer.replay import replay_racer

    return replay_racer(raws, args)


def teller() -> Any:
    from creepnet.cli.racer.replay import RacerTeller

    return RacerTeller()


def page_view(session: Session) -> dict[str, Any] | None:
    from creepnet.cli.web import racer_view

    return racer_view.view(session)


def keep(game: Any) -> Any:
    return game.state


def position(kept: Any, final: Any) -> dict[str, Any] | None:
    from creepnet.cli.web import racer_view

    return racer_view.replay_table(kept, final)


def story(session: Session) -> Story:
    from creepnet.cli.web import racer_view

    return racer_view.story(session)


def typed_actions(session: Session, text: str) -> Iterator[str]:
    from creepnet.cli.web import racer_view
    from creepnet.engine.racer import IllegalAction

    try:
        yield from racer_view.typed_actions(session, text)
    except IllegalAction as exc:
        raise GameRuleError(exc.reason) from None


def narrate(type: str, body: dict[str, Any]) -> str | None:
    """An action in its notation; deck work by its step (both public)."""
    if type == "act":
        return f"acts: {body['action']}"
    if type == "deck":
        return f"deck work: {body['op']}" + (f" {body['pool']}" if "pool" in body else "")
    return None


# Withdrawn declarations a turn of a hosted game allows: room for a change of mind or two, and
# never an endless declare-withdraw loop that keeps the table from retiring a stalling seat.
WITHDRAWALS_PER_TURN = 3


def local_demo(players: int, seed: int) -> int:
    from creepnet.cli.racer.local_demo import run_local_demo

    return run_local_demo(players, seed)


FACE = GameFace(
    kind="racer",
    title="Creepy Racer",
    choices=GameChoices(
        "heuristic",
        "heuristic",
        3,
        limit_option="turn_limit",
        limit_words="Turn limit",
        demo_limit=200,
        demo_pace=0.02,
        # docs/spec-racer.md §8, and §2: a seat cannot stall the table by withdrawing for ever
        hosted_options=(("release_ahead", 1), ("withdrawals_per_turn", WITHDRAWALS_PER_TURN)),
    ),
    console=console,
    replay=replay,
    page=PageFace(
        view=page_view,
        folder=STATIC,
        script="racer.js",
        styles=("racer.css",),
        words={
            "placeholder": "type: 3 1b, attack 1b with a go, ask 1, pass…",
            "waiting": "dealing the cards…",
        },
        keep=keep,
        position=position,
        story=story,
        typed_actions=typed_actions,
    ),
    local_demo=local_demo,
    narrate=narrate,
    teller=teller,
)
