"""Options and helpers shared by the subcommands (home folder, errors)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from creepnet.cli.text import printable_lines
from creepnet.protocol.log import LogFile, Rejection, split_log


def add_home_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        type=Path,
        default=None,
        help="folder for the identity and game logs (default: $CREEPNET_HOME or the user data dir)",
    )


def home_dir(args: argparse.Namespace) -> Path:
    if getattr(args, "home", None):
        return Path(args.home)
    if os.environ.get("CREEPNET_HOME"):
        return Path(os.environ["CREEPNET_HOME"])
    import platformdirs  # here: ~8 ms of start-up that `creepnet verify` never needs

    return Path(platformdirs.user_data_dir("creepnet", appauthor=False))


def kept_options(args: argparse.Namespace, iface: bool = True) -> str:
    """The options a printed "run this again" command must repeat to reach the same game:
    ``--home`` (another home has none of it) and ``--iface`` (where the user kept it)."""
    import shlex

    words = [f" --home {shlex.quote(str(args.home))}"] if getattr(args, "home", None) else []
    if iface:
        words += [f" --iface {shlex.quote(a)}" for a in getattr(args, "iface", None) or []]
    return "".join(words)


def fail(message: str, code: int = 2) -> int:
    """Print an error for the user (made printable: it may quote a peer) and return the code."""
    print(f"creepnet: error: {printable_lines(message)}", file=sys.stderr)
    return code


def read_file(path: str) -> bytes:
    """Read a file, turning OS errors into a one-line message (raised as UsageError)."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


class UsageError(Exception):
    """A problem with the command line or the files it names: exit code 2."""


class Failure(Exception):
    """The command could not do its job (e.g. the file is no creepnet log): exit code 1."""


def read_log(path: str) -> LogFile:
    """A log file cut into its events; UsageError if unreadable, Failure if not a log."""
    try:
        return split_log(read_file(path))
    except Rejection as exc:
        raise Failure(exc.describe()) from None


NAME_FILE = "player-name"  # in the home folder: the name set with `creepnet id --name`


def saved_player_name(home: Path) -> str | None:
    """The player name saved in this home, if any (a damaged file counts as none)."""
    try:
        name = (home / NAME_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name or None


def save_player_name(home: Path, name: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / NAME_FILE).write_text(name + "\n", encoding="utf-8")
