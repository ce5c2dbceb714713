"""Running the local seat of a game to its end, by a human at the terminal or by a bot."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Awaitable, Callable

import trio

from creepnet.cli.game_options import BotChoices
from creepnet.cli.main import runnable
from creepnet.cli.options import home_dir, save_player_name, saved_player_name
from creepnet.cli.play_loop import Silences, play_in_terminal
from creepnet.cli.rematch import ask, rematch
from creepnet.cli.terminal import Out, Screen, StdinLines
from creepnet.cli.text import printable
from creepnet.node import retirement
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.lobby import JoinError, check_player_name
from creepnet.protocol.session import Phase, Session


def add_player_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--player", default=None, help="your display name (default: `creepnet id --name`)"
    )
    parser.add_argument(
        "--bot", choices=BotChoices(), metavar="BOT", help="let a bot play this seat"
    )
    parser.add_argument("--seed", type=int, default=0, help="the bot's seed")
    parser.add_argument(
        "--pace", type=pace_seconds, default=0.0, help="seconds a bot waits before moving"
    )
    add_colour_option(parser)


def pace_seconds(text: str) -> float:
    """--pace: a bot's wait before each move, 0 or more seconds (argparse says it is invalid)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text!r}")
    return value


def add_colour_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--colour", "--color", dest="colour", action="store_true", help="ANSI colours on the board"
    )


def bot_player_name(bot: str, fingerprint: str = "") -> str:
    """The one name rule for a seat a bot plays (`play`, `host`/`join --bot`, `demo`): the bot
    and the start of its node's fingerprint, so two seats of one bot are told apart."""
    return f"{bot}-bot-{fingerprint[:4]}" if fingerprint else f"{bot}-bot"


def player_name(args: argparse.Namespace, saved: str | None = None, fingerprint: str = "") -> str:
    """--player, else the bot's name (with our node's ``fingerprint``), else the name saved
    with `creepnet id --name`, else the OS user."""
    if args.player:
        return args.player[:32]
    if args.bot:
        return bot_player_name(args.bot, fingerprint)
    if saved:
        return saved[:32]
    import getpass

    try:
        return getpass.getuser()[:32] or "player"
    except (KeyError, OSError):
        return "player"


def ask_name_once(
    args: argparse.Namespace, ask: Callable[[str], str] = input, interactive: bool | None = None
) -> None:
    """The first game played at a terminal with no saved name asks for one and saves it, so
    two friends are not both "root"; `creepnet id --name` changes it later."""
    home = home_dir(args)
    if args.player or args.bot or saved_player_name(home) is not None:
        return
    if not (sys.stdin.isatty() if interactive is None else interactive):
        return
    default = player_name(args)
    try:
        answer = ask(f"your player name, as other players will see it [{default}]: ").strip()
    except EOFError:
        return
    try:
        save_player_name(home, check_player_name(answer or default))
    except (JoinError, OSError) as exc:
        print(f"not saved ({exc}); playing as {default}")
        return
    print("saved; change it any time with: creepnet id --name NAME")


# Opens the next game after "play again?" was answered yes: (last game, screen) -> the new
# game once we hold a seat in it, or None when there is none.
PlayAgain = Callable[[bytes, Screen], Awaitable[bytes | None]]


def over(node: Node, game: bytes) -> bool:
    """Nothing more can be played: finished, stopped on a fork, or claimed abandoned."""
    return node.session(game).over


async def run_seat(
    node: Node,
    game: bytes,
    args: argparse.Namespace,
    *,
    lines: StdinLines | None = None,
    out: Out | None = None,
    resume_hint: str = "",
    player: str | None = None,
    play_again: PlayAgain | None = None,
    others_wait: bool = True,
) -> int:
    """Play until the game ends or the player leaves; then make sure our last event reached
    the others, or say how to come back (``resume_hint``: the command that resumes it).
    With ``player`` (the name to play under), a human is asked to play again after a game;
    ``play_again`` opens that game (default: a rematch with the same players on the LAN).
    ``others_wait``: the other seats' nodes run on when we go (not bots of this command), so
    leaving says how long they wait for us."""
    say = out or print
    if args.bot:
        await node.wait_for(game, lambda rt: rt.session.started)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tell_table_news, node, game, say)
            outcome = await run_bot(node, game, args.bot, args.seed, pace=args.pace)
            nursery.cancel_scope.cancel()
        say(f"game over: {outcome}" if outcome else "game stopped: equivocation detected")
        return await wrap_up(node, game, say, resume_hint, others_wait)
    screen = Screen(out) if out is not None else Screen.for_stdout()
    lines = lines or StdinLines()
    if play_again is None and player is not None:
        play_again = functools.partial(_lan_rematch, node, player, lines)
    next_game: bytes | None = game
    while next_game is not None:
        game = next_game
        try:
            left = await play_in_terminal(
                node, game, lines=lines, screen=screen, colour=args.colour
            )
        except BaseException as exc:  # re-raised; a cancel is Ctrl-C or SIGTERM (cli/network.py)
            if cancelled(exc) and not over(node, game):
                say_how_to_return(node, game, screen.say, resume_hint, others_wait)
            raise
        hint = "" if left else resume_hint  # left for good: the game waits no more
        await wrap_up(node, game, screen.say, hint, others_wait)
        next_game = None
        if play_again is not None and node.session(game).finished and await ask(lines, screen):
            next_game = await play_again(game, screen)
    return 0


def cancelled(exc: BaseException) -> bool:
    """Only cancellation, maybe inside the exception groups nurseries wrap it in."""
    if isinstance(exc, BaseExceptionGroup):
        return exc.split(trio.Cancelled)[1] is None
    return isinstance(exc, trio.Cancelled)


# What a seat played by a bot still tells the person running it: a player went quiet (once per
# silence, and only after a while: play_loop.Silences), left, or was retired, or that the game
# may be claimed.
TABLE_NEWS = (retirement.RETIRING, retirement.RETIRED, retirement.CLAIMABLE)


async def tell_table_news(node: Node, game: bytes, say: Out) -> None:
    """Print the table's news for a bot's seat, which has no console: a countdown once per
    silence, each retirement and claim as it comes."""
    silences = Silences(node.session(game))
    told: set[tuple[int, int]] = set()
    async with node.updates() as stream:
        async for update in stream:
            if update.game != game or update.kind not in TABLE_NEWS:
                continue
            if update.kind == retirement.RETIRING and "seat" in update.data:  # a countdown
                silence = silences.lasting(update)
                if silence is None or silence in told:
                    continue
                told.add(silence)
            say(f"* {printable(update.text)}")


async def _lan_rematch(
    node: Node, player: str, lines: StdinLines, last: bytes, screen: Screen
) -> bytes | None:
    return await rematch(node, last, player, screen, lines)


async def wrap_up(
    node: Node, game: bytes, say: Out, resume_hint: str, others_wait: bool = False
) -> int:
    """A finished game: let the others fetch its end, say where its log is.  An unfinished
    one: say how to come back to it, and (``others_wait``) how long the others wait."""
    if over(node, game):
        await linger(node, game)
        store = node.home.game(game)
        say(f"log: {store.log_path}\nverify it with: {runnable()} verify {store.log_path}")
    else:
        say_how_to_return(node, game, say, resume_hint, others_wait)
    return 0


def say_how_to_return(
    node: Node, game: bytes, say: Out, resume_hint: str, others_wait: bool
) -> None:
    if not resume_hint:
        return
    session = node.session(game)
    if session.local_seat in session.retired:  # it plays on without us: nothing waits
        say("left the game; the table retired your seat, so it does not wait for you")
        return
    say(f"left the game; it waits for you: {resume_hint}")
    if others_wait and session.phase is Phase.PLAYING:
        say(patience_text(session))


def patience_text(session: Session) -> str:
    """How long the others wait for a player who went away (node/retirement.py's timer)."""
    wait = f"{session.retire_after:g} s"
    if session.retires_a_silence:
        return f"  (on your turn the others wait {wait}, then retire your seat and play on)"
    return f"  (on your turn your opponent waits {wait}, then may claim the game abandoned)"


async def linger(node: Node, game: bytes, seconds: float = 5.0) -> None:
    """Give peers a moment to fetch the final events before this node goes away: the game is
    over as soon as the session takes its last event, while the events our node then owes by
    itself (a Racer seat's audit reveal) may still be on their way to the disk and the others
    (``wait_synced`` waits for both)."""
    with trio.move_on_after(seconds):
        await node.wait_synced(game)
