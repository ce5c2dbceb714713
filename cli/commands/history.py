"""`creepnet history`: the games this home holds, newest first: when, which, against whom, how
it ended.  Read-only: logs are replayed and checked, never repaired (running `host`/`join`
does that)."""

from __future__ import annotations

import argparse
import datetime
import json
import textwrap
from dataclasses import asdict, dataclass
from pathlib import Path

from creepnet.cli.main import runnable
from creepnet.cli.options import add_home_option, home_dir
from creepnet.cli.text import printable
from creepnet.node.storage import KEY_FILE, load_or_create_identity
from creepnet.protocol.log import Rejection, split_log
from creepnet.protocol.session import Session
from creepnet.protocol.verify import abandonment_text

WIDTH = 80


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("history", help="list your past and unfinished games")
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per game")
    parser.set_defaults(func=run)


@dataclass(frozen=True)
class PastGame:
    game: str  # the id in hex
    name: str
    kind: str
    when: str  # the last event's time, from the log file (events carry no clock)
    opponents: str
    result: str  # from our side: won / lost / draw / unfinished / watched …
    log: str


def describe(folder: Path, me: bytes | None) -> PastGame | None:
    """One stored game, or None when its folder holds no readable log."""
    path = folder / "log"
    try:
        data = path.read_bytes()
        mtime = path.stat().st_mtime
    except OSError:
        return None
    session = Session()
    broken = ""
    try:
        for raw in split_log(data).items:
            session.accept(raw)
    except Rejection as exc:
        broken = f"damaged at {exc.describe()}"
    if not session.log.events:
        return None
    mine = next((i for i, seat in enumerate(session.seats) if seat.key == me), None)
    others = [seat.player for i, seat in enumerate(session.seats) if i != mine]
    return PastGame(
        game=folder.name,
        name=session.name,
        kind=session.kind,
        when=datetime.datetime.fromtimestamp(mtime).strftime("%Y-%m-%d %H:%M"),
        opponents=(" vs " if mine is None else ", ").join(others) or "nobody yet",
        result=broken or outcome(session, mine),
        log=str(path),
    )


def outcome(session: Session, mine: int | None) -> str:
    if session.halted is not None:
        return "stopped: equivocation"
    result = session.result
    if session.abandoned is not None:
        return abandonment_text(session) or "unfinished"
    if result is None:
        return "lobby" if not session.started else "unfinished"
    if result.winner is None:
        verdict = "draw"
    elif mine is None:
        verdict = f"seat {result.winner} won"
    else:
        verdict = "you won" if result.winner == mine else "you lost"
    return f"{verdict}: {result.reason}" + (", watched" if mine is None else "")


def run(args: argparse.Namespace) -> int:
    home = home_dir(args)
    me = load_or_create_identity(home)[0].public_key if (home / KEY_FILE).is_file() else None
    folders = sorted((home / "games").iterdir()) if (home / "games").is_dir() else []
    games = [game for folder in folders if (game := describe(folder, me)) is not None]
    games.sort(key=lambda g: g.when, reverse=True)
    if args.json:
        for game in games:
            print(json.dumps(asdict(game)))
        return 0
    if not games:
        print(f"no games in {home} yet")
        return 0
    print(f"{'WHEN':<16} {'GAME':<21} {'OPPONENT':<12} RESULT")
    for game in games:
        title = f"{game.name[:10]} ({game.game[:8]})"
        row = printable(f"{game.when:<16} {title:<21} {game.opponents[:12]:<12}")
        # A result longer than its column goes on under it: cut, it read 'keeping the last C'.
        result = textwrap.wrap(printable(game.result), WIDTH - len(row) - 1) or [""]
        print(row, result[0])
        for more in result[1:]:
            print(" " * len(row), more)
    print(f"replay the last one: {runnable()} replay {games[0].log}")
    return 0
