"""The `creepnet` command: discovers subcommands in creepnet.cli.commands and runs one."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import pkgutil
import sys
from collections.abc import Sequence

from creepnet.cli import commands
from creepnet.cli.options import Failure, UsageError, fail


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="creepnet",
        description="Serverless, cheat-proof LAN play of Creeper and Creepy Racer.",
    )
    parser.add_argument("--version", action="version", version=f"creepnet {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def version() -> str:
    try:
        return importlib.metadata.version("creepnet")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
