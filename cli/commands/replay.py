"""`creepnet replay FILE [--at PLY | --event SEQ]`: the game event by event, with the board and
who did what."""

from __future__ import annotations

import argparse
from pathlib import Path

from creepnet.cli.faces import REPLAYS
from creepnet.cli.narration import describe
from creepnet.cli.network import run_trio
from creepnet.cli.options import fail, read_file, read_log
from creepnet.cli.text import printable
from creepnet.cli.web.run import add_web_options, serve_replay
from creepnet.protocol.log import Rejection
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


def board(session: Session) -> str:
    from creepnet.engine import creeper

    game = session.game_state
    if game is None:
        return ""
    return creeper.render(game.state, game.last_move)


def ply(session: Session) -> int | None:
    """How many moves the game has seen (None before it starts)."""
    return getattr(session.engine_state, "ply", None)


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
    replay_game = REPLAYS.get(kind_of(log_file.items))
    if replay_game is not None:
        return replay_game(log_file.items, args)
    if args.event is not None and not 0 <= args.event < len(log_file.items):
        return fail(f"--event must be between 0 and {len(log_file.items) - 1}")
    if args.at is not None and args.at < 0:
        return fail("--at must be 0 (the start) or more")
    session = Session()
    for seq, raw in enumerate(log_file.items):
        try:
            session.accept(raw)
        except Rejection as exc:
            print(f"INVALID: {exc.describe()}")
            return 1
        shows_board = session.log.events[seq].type in {"move", "start"}
        if args.at is None and args.event is None:
            print(describe(session, seq))
            if shows_board:
                print(board(session))
        elif seq == args.event or (args.at is not None and shows_board and ply(session) == args.at):
            print(describe(session, seq))
            print(board(session) or "(the game has not started yet)")
            return 0
    if args.at is not None:
        return fail(f"--at {args.at}: the game has only {ply(session) or 0} moves")
    if session.finished:
        print(f"result: {printable(session.outcome_text or '')}")
    else:
        waiting = session.waiting_for()
        print(f"unfinished: {waiting.describe() if waiting else 'stuck'}")
    return 0
