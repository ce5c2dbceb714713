"""`creepnet replay` told event by event, with the game's board each time the board changes.

Shared by the games whose record draws a board as text (a game with another story to tell, such
as one told turn by turn, names its own replay in its record).  The positions counted by
``--at N`` are the boards drawn: 0 the start, then one per change (a move, a roll), so ``--at``
counts what a player calls moves, never the events in between.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from creepnet.cli.narration import describe
from creepnet.cli.options import fail
from creepnet.cli.text import printable
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session

Board = Callable[[Session], str]  # the position as text ("" before the game starts)


def no_board(session: Session) -> str:
    return ""


def replay_boards(raws: list[bytes], args: argparse.Namespace, board: Board = no_board) -> int:
    if args.event is not None and not 0 <= args.event < len(raws):
        return fail(f"--event must be between 0 and {len(raws) - 1}")
    if args.at is not None and args.at < 0:
        return fail("--at must be 0 (the start) or more")
    session = Session()
    shown, positions = "", -1  # the last board drawn, and how many came after the start
    for seq, raw in enumerate(raws):
        try:
            session.accept(raw)
        except Rejection as exc:
            print(f"INVALID: {exc.describe()}")
            return 1
        drawn = board(session)
        changed = bool(drawn) and drawn != shown
        if changed:
            shown, positions = drawn, positions + 1
        if args.at is None and args.event is None:
            print(describe(session, seq))
            if changed:
                print(drawn)
        elif seq == args.event or (args.at is not None and changed and positions == args.at):
            print(describe(session, seq))
            print(drawn or "(the game has not started yet)")
            return 0
    if args.at is not None:
        return fail(f"--at {args.at}: the game has only {max(positions, 0)} moves")
    if session.finished:
        print(f"result: {printable(session.outcome_text or '')}")
    else:
        waiting = session.waiting_for()
        print(f"unfinished: {waiting.describe() if waiting else 'stuck'}")
    return 0
