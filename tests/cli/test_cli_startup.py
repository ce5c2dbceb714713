"""Start-up (issue 26.17): a command imports what it runs, and nothing of a game it does not
play.  Each check runs a fresh interpreter that prints ``sys.modules`` when the command ends."""

from __future__ import annotations

import argparse
import subprocess
import sys

from creepnet.cli.main import SUMMARIES, build_parser, command_names

TIMEOUT = 120

PRINT_MODULES = """
import sys
from creepnet.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("MODULES", " ".join(sorted(sys.modules)))
"""


def modules_of(*words: str, stdin: str = "") -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PRINT_MODULES, *words],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:])


def game_modules(loaded: set[str], *words: str) -> set[str]:
    return {m for m in loaded if m.startswith("creepnet") and any(w in m for w in words)}


def test_creepnet_help_imports_no_command_node_protocol_or_game():
    loaded = modules_of("--help")
    ours = {m for m in loaded if m.startswith("creepnet")}
    assert ours <= {"creepnet", "creepnet.cli", "creepnet.cli.main", "creepnet.cli.commands"}
    assert "trio" not in loaded and "nacl" not in loaded and "zeroconf" not in loaded


def test_a_creeper_game_at_the_terminal_loads_no_racer_or_deck_module(tmp_path):
    loaded = modules_of(
        "play", "creeper", "--vs", "random", "--player", "me", "--home", str(tmp_path),
        stdin="quit\n",
    )  # fmt: skip
    assert "creepnet.cli.creeper.console" in loaded  # it did show the game
    # Every game's record in the CLI registry is read (its command-line choices); nothing else.
    records = {"creepnet.cli.racer", "creepnet.cli.racer.face"}
    assert game_modules(loaded, "racer", "deck") - records == set()


def test_a_racer_bot_named_on_the_command_line_is_still_checked(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "creepnet.cli", "play", "creeper", "--vs", "nobody"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 2 and "invalid choice: 'nobody'" in done.stderr
    assert "heuristic" in done.stderr and "greedy" in done.stderr  # every game's bots listed


def test_every_command_is_listed_with_its_own_words():
    """SUMMARIES lets `--help` list commands without importing them; it must say what each
    command's own parser says."""
    assert set(SUMMARIES) == set(command_names())
    for name in command_names():
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        (registered,) = sub._choices_actions
        assert (registered.dest, registered.help) == (name, SUMMARIES[name])


def test_printed_commands_work_as_typed_when_creepnet_is_not_on_path(tmp_path, monkeypatch):
    """Issue 26.16: after `python3 -m venv .venv && .venv/bin/pip install -e .` creepnet is not
    on PATH, yet the demo ended with "check it yourself: creepnet verify …"."""
    import shutil

    from creepnet.cli.main import runnable

    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "creepnet").write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "executable", str(tmp_path / ".venv" / "bin" / "python"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert runnable() == ".venv/bin/creepnet"
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/local/bin/creepnet")
    assert runnable() == "creepnet"
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python3"))  # no script beside it
    assert runnable() == f"{tmp_path / 'python3'} -m creepnet.cli"
