"""The docs quote only what exists: every file path, test name and command flag they name.

Docs drift silently: a module is renamed, a test is split, a flag is dropped, and a reader who
types what the README says gets an error.  This test reads every backticked span and every fenced
code block of README.md and the docs, and checks each quoted

* path (``protocol/onion.py``, ``docs/NODE.md``, a bare ``ledger.py``) names a file in the tree;
* test (``tests/x.py::test_y``, ``…::test_y``, a bare ``test_y``) names a test function;
* command (``creepnet host racer --players 4``) names a subcommand that takes every flag quoted;
* benchmark invocation (``benchmarks/deck.py --rounds 5``) names flags that script parses;
* bare flag (``--trace``) is taken by some subcommand or benchmark.
"""

from __future__ import annotations

import argparse
import re
from functools import cache
from pathlib import Path

import pytest

from creepnet.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    [
        ROOT / "README.md",
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("vectors/*.md"),
        *ROOT.glob("fuzz/*.md"),
        *ROOT.glob("tests/*.md"),
    ]
)
# Files that a command writes, so they exist only after it ran (the demo's output, a user's log).
OUTSIDE = {"DESIGN.md", "STYLE.md"}  # the house plan, in shared/ beside the repo
PRODUCED = re.compile(r"^(demo-out/|~|/|\$|<|[A-Z]+\.log$)|\b(FILE|DIR|LOG|GAME|NAME)\b")
PACKAGES = {"creepnet/protocol/": "protocol/", "creepnet/engine/": "engine/",
            "creepnet/node/": "node/", "creepnet/cli/": "cli/"}  # fmt: skip
EXTENSIONS = r"(?:py|md|js|html|css|json|txt|toml|sh)"
PATH = re.compile(rf"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.{EXTENSIONS})(?![\w/])")
TEST = re.compile(r"(?:([\w/.-]+\.py)|…|\.\.\.)?::(test_\w+)(…|\.\.\.)?")
BARE_TEST = re.compile(r"^(test_\w+)(…|\.\.\.)?(?:\[[^\]]*\])?$")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def quoted(text: str) -> list[str]:
    """Backticked spans, and the lines of fenced code blocks (each line one quote)."""
    spans: list[str] = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S):
        spans.extend(line.split(" #")[0] for line in block.splitlines())
    without_blocks = re.sub(r"```.*?```", "", text, flags=re.S)
    spans.extend(re.findall(r"`([^`\n]+)`", without_blocks))
    return [span.strip() for span in spans if span.strip()]


@cache
def tree_files() -> frozenset[str]:
    skip = {".git", ".venv", "node_modules", "__pycache__", ".hypothesis", "demo-out"}
    return frozenset(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if path.is_file() and not skip & set(path.relative_to(ROOT).parts)
    )


@cache
def basenames() -> frozenset[str]:
    return frozenset(Path(name).name for name in tree_files())


@cache
def functions_by_test_file() -> dict[str, frozenset[str]]:
    return {
        name: frozenset(re.findall(r"^(?:async )?def (test_\w+)", (ROOT / name).read_text(), re.M))
        for name in tree_files()
        if name.startswith("tests/") and name.endswith(".py")
    }


@cache
def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:  # argparse has no public accessor for its subparsers
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("creepnet has no subcommands")


def command_flags(name: str) -> frozenset[str]:
    return frozenset(subcommands()[name]._option_string_actions)


@cache
def script_flags(script: str) -> frozenset[str]:
    return frozenset(re.findall(r"[\"'](--[a-z][a-z0-9-]*)[\"']", (ROOT / script).read_text()))


@cache
def every_flag() -> frozenset[str]:
    flags: set[str] = {"--help", "--version"}
    for name in subcommands():
        flags |= command_flags(name)
    for script in tree_files():
        if script.endswith(".py") and not script.startswith("tests/"):
            flags |= script_flags(script)
    return frozenset(flags)


def path_problem(path: str) -> str | None:
    for prefix, folder in PACKAGES.items():
        if path.startswith(prefix):
            path = folder + path[len(prefix) :]
    if PRODUCED.search(path) or path.startswith(("http", "www.")) or "*" in path:
        return None
    if "/" not in path:
        return None if path in basenames() | OUTSIDE else f"no file named {path}"
    candidates = {path, f"docs/{path}", path.removeprefix("./")}
    if candidates & tree_files():
        return None
    if any(name.endswith(f"/{path}") for name in tree_files()):  # deck/pools.py, in protocol/
        return None
    return f"no file {path}"


def missing_test(file: str | None, name: str, prefix: bool = False) -> str | None:
    """None when the test exists (``prefix``: a name the doc cut short with an ellipsis)."""
    functions = functions_by_test_file()
    if file is not None:
        matching = [path for path in functions if path == file or Path(path).name == file]
        if not matching:
            return f"no test file {file}"
    else:
        matching = list(functions)
    for path in matching:
        if any(test == name or (prefix and test.startswith(name)) for test in functions[path]):
            return None
    return f"{file} has no {name}" if file else f"no test named {name}"


def command_problems(span: str) -> list[str]:
    words = span.split()
    problems = []
    for start, word in enumerate(words):
        if word != "creepnet" or start + 1 >= len(words):
            continue
        name = words[start + 1]
        if name.startswith("-"):
            flags = frozenset(build_parser(None)._option_string_actions)
            name = "creepnet"
        elif name not in subcommands():
            if re.fullmatch(r"[a-z]+", name):
                problems.append(f"no subcommand {name!r} in `{span}`")
            continue
        else:
            flags = command_flags(name)
        rest = " ".join(words[start + 1 :]).split(" creepnet ")[0]
        problems += [f"`creepnet {name}` takes no {flag}" for flag in FLAG.findall(rest)
                     if flag not in flags]  # fmt: skip
    return problems


def script_problems(span: str) -> list[str]:
    match = re.search(r"((?:benchmarks|fuzz|vectors)/[\w/]+\.py)(.*)", span)
    if not match or not (ROOT / match[1]).exists():
        return []
    return [f"{match[1]} takes no {flag}" for flag in FLAG.findall(match[2])
            if flag not in script_flags(match[1]) | {"--help"}]  # fmt: skip


def problems_in(span: str) -> list[str]:
    problems: list[str] = []
    for file, name, cut in TEST.findall(span):
        if problem := missing_test(file or None, name, bool(cut)):
            problems.append(problem)
    bare = BARE_TEST.match(span)
    if bare and (problem := missing_test(None, bare[1], bool(bare[2]))):
        problems.append(problem)
    for path in PATH.findall(TEST.sub("", span)):
        if problem := path_problem(path):
            problems.append(problem)
    if "creepnet" in span.split():
        problems += command_problems(span)
    elif re.search(r"(benchmarks|fuzz|vectors)/\w+\.py", span):
        problems += script_problems(span)
    elif re.fullmatch(r"(--[a-z][a-z0-9-]*)(\s.*)?", span):
        flag = FLAG.match(span)
        if flag and flag[1] not in every_flag():
            problems.append(f"no command or script takes {flag[1]}")
    return problems


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_path_test_and_flag_a_doc_quotes_exists(doc: Path) -> None:
    found = [f"{problem}  (in `{span}`)" for span in quoted(doc.read_text())
             for problem in problems_in(span)]  # fmt: skip
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "span",
    [
        "protocol/no_such_module.py",
        "tests/node/test_node_game.py::test_no_such_test",
        "creepnet host racer --no-such-flag",
        "creepnet frobnicate",
        "--no-such-flag",
    ],
)
def test_the_check_notices_what_does_not_exist(span: str) -> None:
    assert problems_in(span)


@pytest.mark.parametrize(
    "span",
    [
        "protocol/onion.py",
        "creepnet/protocol/onion.py",
        "ledger.py",
        "creepnet host creeper --name friday",
        "creepnet verify demo-out/host.log",
    ],
)
def test_the_check_accepts_what_exists(span: str) -> None:
    assert problems_in(span) == []
