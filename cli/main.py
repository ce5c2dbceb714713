"""The `creepnet` command: discovers subcommands in creepnet.cli.commands and runs one."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from creepnet.cli import commands
from creepnet.cli.options import Failure, UsageError, fail


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or only the subcommand ``only`` when it names one.

    Subcommand modules import what they run (trio, the node, zeroconf); loading just the one
    asked for keeps `creepnet verify` from paying ~0.3 s of imports it never uses.
    """
    parser = argparse.ArgumentParser(
        prog="creepnet",
        description="Serverless, cheat-proof LAN play of board and card games.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    for name in [only] if only in names else names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        module.register(sub)
    return parser


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
    parser = build_parser(arguments[0] if arguments else None)
    args = parser.parse_args(arguments)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except UsageError as exc:
        return fail(str(exc), 2)
    except Failure as exc:
        return fail(str(exc), 1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`creepnet replay LOG | head`): stop quietly.  Point stdout at
        # /dev/null so the interpreter's final flush does not fail a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a command killed by the signal would exit


if __name__ == "__main__":
    sys.exit(main())
