"""`creepnet racer demo`: a local Creepy Racer bot game (temporary home until `demo racer`)."""

from __future__ import annotations

import argparse

from creepnet.cli.racer_demo import run_local_demo


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("racer", help="Creepy Racer tools")
    sub = parser.add_subparsers(dest="racer_command", metavar="ACTION", required=True)
    demo = sub.add_parser("demo", help="play a local bot game and print a summary")
    demo.add_argument("--players", type=int, default=2, help="2 to 4 (default 2)")
    demo.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    demo.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_local_demo(args.players, args.seed)
