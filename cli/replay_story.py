"""A game log told step by step, for people: the one source of words of `creepnet replay` and of
the replay page.

The events are grouped into *steps* and the steps into *turns*.  A step is a seat's move, or a
step the table takes as a whole (the deal, a retirement, the end).  Every other event is *work*
— deck work, randomness reveals, the shares and steps the table publishes for a retired seat —
and is folded into the move it serves: the move before it, or, for work that prepares a move
(the deck work that lets a seat see the card it draws), the move after it.  Work is told in
words too, never in the protocol's jargon.

The session's own events (the lobby, reveals, retirements, an abandonment) are told here for
every game.  A game's own events are told by its record (``GameFace.teller``, built afresh for
each log: a teller may remember what it saw); a game without one has each of its events told
as a move in its record's ``narrate`` words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from creepnet.cli.faces import FACES
from creepnet.cli.narration import status
from creepnet.cli.text import printable
from creepnet.protocol.log import Rejection, split_log
from creepnet.protocol.session import Session
from creepnet.protocol.verify import ended_by

LOBBY = "Before the game"
TABLE = "the table"  # the author of a step the table takes as a whole


@dataclass(frozen=True)
class TurnMark:
    """The turn an event belongs to: its title, and its number when the game counts turns."""

    title: str
    number: int | None = None


@dataclass(frozen=True)
class Before:
    """What the replay knew just before an event: the game, and the step the session awaited."""

    game: Any  # the game's state (None before the start)
    what: str | None  # the protocol's text of the step owed, e.g. "release deck:3[12] to seat 0"
    seat: int | None  # the seat that owed it


@dataclass(frozen=True)
class Told:
    """One event in words."""

    move: str | None = None  # a step of its own, in the words the live page uses
    work: str | None = None  # folded into a move
    ahead: bool = False  # work that serves the next move (a draw's deck work), not the last
    news: tuple[str, ...] = ()  # what the event brought about: added to the move it finishes
    turn: TurnMark | None = None  # the turn of the move (None: the turn under way)
    by_table: bool = False  # a step the table takes (the deal, the end), not the author's


class Teller(Protocol):
    """A game's words for its own events (and reveals): None leaves the event to the default."""

    def tell(self, before: Before, session: Session, seq: int) -> Told | None: ...

    def waiting(self, what: str) -> str:
        """The protocol's text of a step the table waits on, in the words the live page uses."""
        ...


@dataclass(frozen=True)
class Work:
    seq: int
    who: str
    text: str


@dataclass
class Step:
    seq: int  # the move's event (a step of work only: its first event)
    first: int  # the first event folded into it
    last: int  # the last: the position shown is the one after it
    turn: int  # index into ``Story.turns``
    who: str
    text: str
    work: list[Work] = field(default_factory=list)

    @property
    def line(self) -> str:
        """The step in one line: who, what (a step of the table's is told without a who)."""
        return printable(self.text if self.who == TABLE else f"{self.who}: {self.text}")


@dataclass
class Story:
    session: Session  # after the last good event
    turns: list[TurnMark] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    words: list[str] = field(default_factory=list)  # per event: who did what, in words
    status: list[str] = field(default_factory=list)  # per event: what the game does after it
    step_of: list[int] = field(default_factory=list)  # per event: the step it is folded into
    error: Rejection | None = None  # why the log stops being valid (None: it is valid so far)


Watch = Callable[[Session, int], None]  # called after each good event, e.g. to keep its board


def name(session: Session, seat: int) -> str:
    return f"{session.seats[seat].player} (seat {seat})" if seat < len(session.seats) else "?"


def author(session: Session, seq: int, short: bool = False) -> str:
    """Who signed the event: its seat by name and number (``short``: the name only)."""
    event = session.log.events[seq]
    keys = session.seat_keys
    if event.author not in keys:
        return event.author_fingerprint
    seat = keys.index(event.author)
    return session.seats[seat].player if short else name(session, seat)


def listed(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 2 else items)


def session_told(session: Session, seq: int) -> Told | None:
    """The session's events, the same for every game."""
    event = session.log.events[seq]
    body = event.body
    if event.type == "genesis":
        return Told(f"hosts {body['kind']} game {body['name']!r} for {body['seats']} seats")
    if event.type == "seat":
        return Told(f"seats {body['join']['player']} at seat {body['join']['seat']}")
    if event.type == "start":
        return Told("starts the game")
    if event.type == "retire":
        gone = name(session, body["seat"])
        voters = listed([name(session, vote[0]) for vote in body["votes"]])
        after = (
            "nothing of them could take their place, so the game ends unfinished"
            if ended_by(session, event)
            else "the table plays on without them"
        )
        return Told(  # a leave notice is no event: the log cannot tell a leave from a silence
            f"{gone} left the game or stopped answering, and was retired at seq {event.seq} "
            f"by the votes of {voters}; {after}",
            by_table=True,
        )
    if event.type == "abandon":
        gone = name(session, body["seat"])
        return Told(
            f"claims the game abandoned at seq {event.seq}: {gone} is gone, and with two seats "
            "left nobody can play on; the game ends unfinished"
        )
    return None


def default_told(session: Session, seq: int, moves: int) -> Told:
    """A game event told by its record's ``narrate`` (each a move of its own turn)."""
    event = session.log.events[seq]
    if event.type == "reveal":
        return Told(work=f"reveals randomness for draw {event.body['draw']}")
    narrate = FACES[session.kind].narrate if session.kind in FACES else None
    words = (narrate(event.type, event.body) if narrate is not None else None) or event.type
    return Told(words, turn=TurnMark(f"Move {moves + 1}: {author(session, seq)}", moves + 1))


def tell_log(data: bytes | Sequence[bytes], watch: Watch | None = None) -> Story:
    """Every good event of a log told and folded into steps (``data``: the file, or its events)."""
    session = Session()
    story = Story(session)
    try:
        raws = split_log(data).items if isinstance(data, bytes) else list(data)
    except Rejection as exc:
        story.error = exc
        return story
    teller: Teller | None = None
    ahead: list[Work] = []  # work waiting for the move it serves
    moves = 0  # the game's moves told by the default (its turns are counted by them)
    for seq, raw in enumerate(raws):
        waiting = session.waiting_for()
        before = Before(
            session.game_state if session.started else None,
            waiting.what if waiting is not None else None,
            waiting.seat if waiting is not None else None,
        )
        try:
            session.accept(raw)
        except Rejection as exc:
            story.error = exc
            break
        if teller is None and session.kind in FACES and FACES[session.kind].teller is not None:
            teller = FACES[session.kind].teller()  # type: ignore[misc]
        told = session_told(session, seq)
        if told is not None and not session.started:
            told = Told(told.move, turn=TurnMark(LOBBY))
        if told is None and teller is not None:
            told = teller.tell(before, session, seq)
        if told is None:
            told = default_told(session, seq, moves)
            moves += told.move is not None
        who = TABLE if told.by_table else author(session, seq)
        if told.move is not None:
            mark = told.turn or (story.turns[-1] if story.turns else TurnMark(LOBBY))
            if not story.turns or story.turns[-1] != mark:
                story.turns.append(mark)
            story.steps.append(
                Step(
                    seq,
                    ahead[0].seq if ahead else seq,
                    seq,
                    len(story.turns) - 1,
                    who,
                    told.move,
                    ahead,
                )
            )
            ahead = []
            if told.work is not None:  # a table's step shown by the work of this event
                story.steps[-1].work.append(Work(seq, author(session, seq, True), told.work))
            story.words.append(story.steps[-1].line)
        else:
            text = told.work or session.log.events[seq].type
            work = Work(seq, author(session, seq, True), text)
            story.words.append(printable(f"{author(session, seq)}: {text}"))
            if told.ahead or not story.steps:
                ahead.append(work)
            else:
                story.steps[-1].work.append(work)
                story.steps[-1].last = seq
        if told.news and story.steps:
            step = story.steps[-1]
            step.text = "; ".join([step.text, *told.news])
        story.status.append(replay_status(session, teller))
        if watch is not None:
            watch(session, seq)
    if ahead:  # work under way when the log ends: the move it serves is not in the log yet
        if not story.turns:
            story.turns.append(TurnMark(LOBBY))
        first = ahead[0].seq
        story.steps.append(
            Step(
                first,
                first,
                ahead[-1].seq,
                len(story.turns) - 1,
                TABLE,
                "the table prepares the next move",
                ahead,
            )
        )
    story.step_of = [0] * len(story.words)
    for index, step in enumerate(story.steps):
        for seq in (step.seq, *(item.seq for item in step.work)):
            story.step_of[seq] = index
    return story


def replay_status(session: Session, teller: Teller | None) -> str:
    """The live status line, with the step waited on in the game's words when it has a teller."""
    waiting = session.waiting_for()
    if teller is None or waiting is None or session.finished or session.halted is not None:
        return status(session)
    return printable(f"waiting for {name(session, waiting.seat)} to {teller.waiting(waiting.what)}")


def work_summary(work: Sequence[Work]) -> list[str]:
    """The work of a step in words, the same words one after another told once, with who."""
    runs: list[tuple[str, list[str]]] = []
    for item in work:
        if runs and runs[-1][0] == item.text:
            if item.who not in runs[-1][1]:
                runs[-1][1].append(item.who)
        else:
            runs.append((item.text, [item.who]))
    return [printable(f"{text} ({', '.join(who)})") for text, who in runs]
