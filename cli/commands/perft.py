"""`creepnet perft KIND DEPTH`: count move sequences from a position, to check and time a
game's rules engine (for the games whose record has a perft)."""

from __future__ import annotations

import argparse

from creepnet.cli.faces import FACES


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("perft", help="count move sequences of a given depth (engine check)")
    games = [kind for kind in FACES if FACES[kind].perft is not None]
    parser.add_argument("game", choices=games, help="which game's rules")
    parser.add_argument("depth", type=int, help="plies to look ahead (0 or more)")
    parser.add_argument("--divide", action="store_true", help="also print the count per first move")
    parser.add_argument(
        "--after",
        default="",
        metavar="MOVES",
        help="start after these space-separated moves from the start position, e.g. 'e7-d6 b7-c6'",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    perft = FACES[args.game].perft
    assert perft is not None  # the parser offers only games that have one
    return perft(args)
