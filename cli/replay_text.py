"""`creepnet replay` told step by step (cli/replay_story.py: a seat's move with the work that
serves it), with the game's board each time the board changes.

Shared by the games whose record draws a board as text (a game with another story to tell, such
as one told turn by turn, names its own replay in its record).  The positions counted by
``--at N`` are the boards drawn: 0 the start, then one per change (a move, a roll), so ``--at``
counts what a player calls moves, never the events in between.  ``--event SEQ`` shows one event
in words and the board after it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from creepnet.cli.options import fail
from creepnet.cli.replay_story import Step, tell_log
from creepnet.cli.text import printable
from creepnet.protocol.session import Session
from creepnet.protocol.verify import abandonment_text

Board = Callable[[Session], str]  # the position as text ("" before the game starts)


def no_board(session: Session) -> str:
    return ""


def step_lines(step: Step) -> list[str]:
    """The step and, under it, each event of work folded into it."""
    lines = [f"seq {step.seq}: {step.line}"]
    lines.extend(printable(f"    seq {work.seq}: {work.who} {work.text}") for work in step.work)
    return lines


def replay_boards(raws: list[bytes], args: argparse.Namespace, board: Board = no_board) -> int:
    if args.event is not None and not 0 <= args.event < len(raws):
        return fail(f"--event must be between 0 and {len(raws) - 1}")
    if args.at is not None and args.at < 0:
        return fail("--at must be 0 (the start) or more")
    drawn: list[str] = []  # the board after each good event
    story = tell_log(raws, lambda session, seq: drawn.append(board(session)))
    if args.event is not None and args.event < len(drawn):
        print(f"seq {args.event}: {story.words[args.event]}")
        print(drawn[args.event] or "(the game has not started yet)")
        return 0
    shown, positions = "", -1  # the last board drawn, and how many came after the start
    for step in story.steps:
        text = drawn[step.last]
        changed = bool(text) and text != shown
        if changed:
            shown, positions = text, positions + 1
        if args.at is None:
            print("\n".join(step_lines(step)))
            if changed:
                print(text)
        elif changed and positions == args.at:
            print("\n".join(step_lines(step)))
            print(text)
            return 0
    if story.error is not None:
        print(f"INVALID: {story.error.describe()}")
        return 1
    if args.at is not None:
        return fail(f"--at {args.at}: the game has only {max(positions, 0)} moves")
    session = story.session
    if session.finished:
        print(f"result: {printable(session.outcome_text or '')}")
    elif session.abandoned is not None:
        print(printable(abandonment_text(session) or ""))
    else:
        waiting = session.waiting_for()
        print(f"unfinished: {waiting.describe() if waiting else 'stuck'}")
    return 0
