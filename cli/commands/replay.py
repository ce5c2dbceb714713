"""`creepnet replay FILE [--at SEQ]`: the game event by event, with the board and who did what."""

from __future__ import annotations

import argparse
from pathlib import Path

from creepnet.cli.narration import describe
from creepnet.cli.network import run_trio
from creepnet.cli.options import fail, read_file, read_log
from creepnet.cli.web.run import add_web_options, serve_replay
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("replay", help="replay a game log, showing the board after each move")
    parser.add_argument("file", help="a game log file")
    parser.add_argument(
        "--at", type=int, metavar="SEQ", help="show only the position after event SEQ"
    )
    add_web_options(parser)
    parser.set_defaults(func=run)


def board(session: Session) -> str:
    from creepnet.engine import creeper

    game = session.game_state
    if game is None:
        return ""
    return creeper.render(game.state, game.last_move)


def run(args: argparse.Namespace) -> int:
    if args.web:  # the viewer checks the file itself, and says what is wrong with it
        read_file(args.file)
        return run_trio(lambda a: serve_replay(Path(a.file), a), args)
    log_file = read_log(args.file)
    if args.at is not None and not 0 <= args.at < len(log_file.items):
        return fail(f"--at must be between 0 and {len(log_file.items) - 1}")
    session = Session()
    for seq, raw in enumerate(log_file.items):
        try:
            session.accept(raw)
        except Rejection as exc:
            print(f"INVALID: {exc.describe()}")
            return 1
        if args.at is None:
            print(describe(session, seq))
            if session.log.events[seq].type in {"move", "start"}:
                print(board(session))
        elif seq == args.at:
            print(describe(session, seq))
            print(board(session) or "(the game has not started yet)")
            return 0
    if session.finished:
        print(f"result: {session.outcome_text}")
    else:
        waiting = session.waiting_for()
        print(f"unfinished: {waiting.describe() if waiting else 'stuck'}")
    return 0
