"""A local Creepy Racer game between heuristic bots, told in words and shown as seat 0 sees it.

The full-information driver plays it through the same engine API the network protocol uses
(``LocalGame``); the story is the one the console shows, and every few turns the demo prints
the console's own screen from seat 0's chair, so the demo shows what a player sees.
"""

from __future__ import annotations

import sys
from typing import TextIO

from creepnet.cli.racer.console import RacerConsole
from creepnet.cli.racer.local_game import LocalGame
from creepnet.engine import racer

DEMO_TURN_LIMIT = 400
SCREEN_EVERY = 10  # turns between two screens


def run_local_demo(players: int, seed: int, out: TextIO | None = None) -> int:
    """Play one bot game with ``players`` seats from ``seed`` and print its story to ``out``
    (default: the current ``sys.stdout``, looked up at call time so capture works)."""
    out = out if out is not None else sys.stdout
    if not 2 <= players <= 4:
        print("Creepy Racer is for 2 to 4 players", file=sys.stderr)
        return 2
    options = racer.Options(players=players, turn_limit=DEMO_TURN_LIMIT)
    bots = {seat: racer.make_bot("heuristic", seed * 10 + seat) for seat in range(players)}
    table = LocalGame.new(options, seed, local_seat=0, bots=bots)
    console = RacerConsole(table)
    print(
        f"Creepy Racer - local demo: {players} players, seed {seed}, heuristic bots, "
        "full-information driver",
        file=out,
    )
    shown_turn = 0
    while table.advance(1):
        for line in table.new_story():
            print(line, file=out)
        obs = table.observation()
        turn = obs.turn_number if obs is not None else 0
        due = turn and (shown_turn == 0 or turn >= shown_turn + SCREEN_EVERY)
        if (
            due
            and obs is not None
            and obs.turn_seat is not None
            and obs.request == racer.Decide(obs.turn_seat, "move")
        ):
            _screen(console, out, f"seat 0's screen at turn {turn}")
            shown_turn = turn
    for line in table.new_story():
        print(line, file=out)
    _screen(console, out, "seat 0's screen at the end")
    return 0


def _screen(console: RacerConsole, out: TextIO, title: str) -> None:
    rule = f"--- {title} "
    print(rule + "-" * (80 - len(rule)), file=out)
    print(console.board(), file=out)
    print(console.status(), file=out)
    print("-" * 80, file=out)
