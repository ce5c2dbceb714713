"""`creepnet replay FILE [--at PLY | --event SEQ]`: the game event by event, with the board and
who did what, as the game's record in the registry tells it."""

from __future__ import annotations

import argparse
from pathlib import Path

from creepnet.cli.faces import FACES
from creepnet.cli.network import run_trio
from creepnet.cli.options import read_file, read_log
from creepnet.cli.replay_text import replay_boards
from creepnet.cli.web.run import add_web_options, serve_replay
from creepnet.protocol.log import LogFile, Rejection
from creepnet.protocol.session import Session


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("replay", help="replay a game log, showing the board after each move")
    parser.add_argument("file", help="a game log file")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--at", type=int, metavar="PLY", help="show only the position after move PLY (0: start)"
    )
    where.add_argument(
        "--event", type=int, metavar="SEQ", help="show only the position after event SEQ"
    )
    add_web_options(parser)
    parser.set_defaults(func=run)


def kind_of(raws: list[bytes]) -> str:
    """The game kind its genesis names ("" if the log does not start with a valid genesis)."""
    session = Session()
    try:
        session.accept(raws[0])
    except (Rejection, IndexError):
        return ""
    return session.kind


def run(args: argparse.Namespace) -> int:
    if args.web:  # the viewer checks the file itself, and says what is wrong with it
        read_file(args.file)
        return run_trio(lambda a: serve_replay(Path(a.file), a), args)
    log_file = read_log(args.file)
    if not log_file.items:
        return invalid(log_file)
    kind = kind_of(log_file.items)
    if kind in FACES:
        code = FACES[kind].replay(log_file.items, args)
    else:
        code = replay_boards(log_file.items, args)  # told in words: no board we could draw
    whole = args.at is None and args.event is None  # a position asked for is told as it was
    return invalid(log_file) if code == 0 and whole and log_file.torn else code


def invalid(log_file: LogFile) -> int:
    """The damage the events cannot show, in the words of `creepnet verify`: a file cut off
    in an event (its intact events were told), or no event at all."""
    if log_file.torn:
        damage = log_file.torn_tail_rejection()
    else:
        damage = Rejection(0, "empty", "the log holds no events")
    print(f"INVALID: {damage.describe()}")
    return 1
