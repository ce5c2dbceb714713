"""The `creepnet` command: discovers subcommands in creepnet.cli.commands and runs one."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from creepnet.cli import commands

# One line per command for `creepnet --help`, so the list is printed without importing any
# command (together they import trio, the node, both games and the deck: ~0.4 s, 17× a bare
# Python).  Each must equal its module's own `help=` (a test compares them); a command missing
# here is still listed, by importing it.
SUMMARIES = {
    "demo": "watch bots play a real game between real nodes",
    "games": "list games on the LAN",
    "history": "list your past and unfinished games",
    "host": "host a game on the LAN and play it (run again: resume it)",
    "id": "create or show your identity and fingerprint",
    "join": "join a game on the LAN (or resume one) and play it",
    "log": "print the events of a game log",
    "perft": "count move sequences of a given depth (engine check)",
    "play": "play against a bot (a second node on this machine; run again: resume)",
    "relay": "run a relay for internet play (needs: pip install 'creepnet[wan]')",
    "replay": "replay a game log, showing the board after each move",
    "ui": "play in your browser: a page served by your own node on 127.0.0.1",
    "verify": "verify game logs offline, rules and crypto included",
    "watch": "follow a game on the LAN as a spectator",
}


def command_names() -> list[str]:
    """The modules in creepnet.cli.commands (read from the folder: pkgutil would import
    inspect, ~10 ms, for the same list)."""
    return sorted(
        entry.name.removesuffix(".py")
        for folder in commands.__path__
        for entry in os.scandir(folder)
        if entry.name.endswith(".py") and not entry.name.startswith("_")
    )


def build_parser(only: str | None = None, *, lazy: bool = False) -> argparse.ArgumentParser:
    """The whole command line, or only the subcommand ``only`` when it names one.

    Subcommand modules import what they run (trio, the node, zeroconf); loading just the one
    asked for keeps `creepnet verify` from paying ~0.3 s of imports it never uses.  ``lazy``
    (what `creepnet` itself uses): without a command (`creepnet --help`, a mistyped name) the
    list comes from SUMMARIES, importing none.
    """
    parser = argparse.ArgumentParser(
        prog="creepnet",
        description="Serverless, cheat-proof LAN play of board and card games.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = command_names()
    for name in names:
        if only in names and name != only:
            continue
        if lazy and name != only and name in SUMMARIES:
            sub.add_parser(name, help=SUMMARIES[name])
        else:
            importlib.import_module(f"{commands.__name__}.{name}").register(sub)
    return parser


def runnable() -> str:
    """How to type `creepnet` so that it runs here, for commands we print: `creepnet` when it is
    on PATH, else this interpreter's own script (`.venv/bin/creepnet` after the README's first
    command, which does not activate the venv), else `python -m creepnet.cli`."""
    import shlex
    import shutil
    from pathlib import Path

    if shutil.which("creepnet"):
        return "creepnet"
    script = Path(sys.executable).parent / "creepnet"
    if script.is_file():
        try:
            return shlex.quote(str(script.absolute().relative_to(Path.cwd())))
        except ValueError:  # not below the current folder
            return shlex.quote(str(script.absolute()))
    return f"{shlex.quote(sys.executable)} -m creepnet.cli"


class _Version(argparse.Action):
    """--version, looked up only when asked for (importlib.metadata costs ~40 ms to import)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"creepnet {version()}")
        parser.exit()


def version() -> str:
    import importlib.metadata  # here, not at the top: see _Version

    try:
        return importlib.metadata.version("creepnet")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(arguments[0] if arguments else None, lazy=True)
    args = parser.parse_args(arguments)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from creepnet.cli.options import Failure, UsageError, fail  # after parsing: not for --help

    try:
        return int(args.func(args))
    except UsageError as exc:
        return fail(str(exc), 2)
    except Failure as exc:
        return fail(str(exc), 1)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (cli/network.py's Stopped)
        import signal

        signum = getattr(exc, "signum", signal.SIGINT)
        print("interrupted" if signum == signal.SIGINT else "terminated", file=sys.stderr)
        return 128 + signum
    except BrokenPipeError:
        # The reader went away (`creepnet replay LOG | head`): stop quietly.  Point stdout at
        # /dev/null so the interpreter's final flush does not fail a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a command killed by the signal would exit


if __name__ == "__main__":
    sys.exit(main())
