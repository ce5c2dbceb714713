"""`creepnet demo KIND`: bot nodes as separate processes (the game's demo seat count, or
`--players N`) play over loopback, found by zeroconf on 127.0.0.1, while this process watches as
one more node; then every log is verified and compared byte for byte.  A game whose record has
a local demo plays it in this process with `--local`; one with a cheat demo shows, with
`--cheat`, the guest's cheats caught against the finished log.  Seats, bots, pace and the limit
are the game's own (its record's choices)."""

from __future__ import annotations

import argparse
import contextlib
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import trio

from creepnet.cli.faces import face_for
from creepnet.cli.game_options import BotChoices, add_game_options, check_bot, seats_and_options
from creepnet.cli.main import runnable
from creepnet.cli.network import find_game, run_trio
from creepnet.cli.options import fail
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.terminal import StdinLines
from creepnet.cli.text import printable
from creepnet.node.node import Node, NodeError
from creepnet.protocol.verify import Verdict, verify_log_bytes

LOOPBACK = "127.0.0.1"  # demos never leave this machine
NODE = [sys.executable, "-m", "creepnet.cli"]  # how one bot node of the demo is started


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="watch bots play a real game between real nodes")
    add_game_options(parser)
    parser.add_argument("--seed", type=int, default=1, help="bots' seed (default 1)")
    parser.add_argument("--out", type=Path, default=Path("demo-out"), help="where logs go")
    parser.add_argument("--bot", choices=BotChoices(), metavar="BOT", help="host's bot")
    parser.add_argument("--vs", choices=BotChoices(), metavar="BOT", help="guests' bot")
    parser.add_argument("--pace", type=float, default=None, help="seconds between bot moves")
    parser.add_argument("--quiet", action="store_true", help="do not draw the board live")
    parser.add_argument(
        "--cheat", action="store_true", help="afterwards, let the guest cheat and watch it caught"
    )
    parser.add_argument("--timeout", type=float, default=300, help="give up after this long")
    parser.add_argument(
        "--local", action="store_true", help="play in this process only (games that have it)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        face = face_for(args.kind)
    except ValueError as exc:
        return fail(str(exc))
    choices = face.choices
    args.players = args.players or choices.demo_players
    args.bot = args.bot or choices.demo_host_bot
    args.vs = args.vs or choices.default_bot
    if args.pace is None:
        args.pace = choices.demo_pace
    if args.local:
        if face.local_demo is None:
            return fail(f"{args.kind} has no local demo")
        return face.local_demo(args.players, args.seed)
    try:
        seats, options = seats_and_options(args)
        check_bot(args.kind, args.bot)
        check_bot(args.kind, args.vs)
    except ValueError as exc:
        return fail(str(exc))
    if args.cheat and face.cheat_demo is None:
        return fail(f"{args.kind} has no cheat demo")
    args.limit_flag = choices.limit_flag
    args.limit = options.get(choices.limit_option, choices.demo_limit)
    return run_trio(_demo, args)


def _command(args: argparse.Namespace, *words: str) -> list[str]:
    return [
        *NODE,
        *words,
        "--iface",
        LOOPBACK,
        "--pace",
        str(args.pace),
    ]


async def _demo(args: argparse.Namespace) -> int:
    out: Path = args.out
    guests = [f"guest{k}" if args.players > 2 else "guest" for k in range(1, args.players)]
    homes = {role: out / f"{role}-home" for role in ("host", *guests, "watcher")}
    for home in homes.values():
        shutil.rmtree(home, ignore_errors=True)  # a demo is a fresh game, not a resumed one
    out.mkdir(parents=True, exist_ok=True)
    name = f"demo-{args.seed}-{secrets.token_hex(2)}"
    commands = {
        "host": _command(
            args,
            "host",
            args.kind,
            "--name",
            name,
            "--players",
            str(args.players),
            args.limit_flag,
            str(args.limit),
            "--bot",
            args.bot,
            "--seed",
            str(args.seed),
            "--home",
            str(homes["host"]),
        ),
    }
    for k, role in enumerate(guests, start=1):
        commands[role] = _command(
            args,
            "join",
            name,
            "--wait",
            "30",
            "--bot",
            args.vs,
            "--seed",
            str(args.seed + k),
            "--home",  # each bot names itself by the one rule (seat_runner.bot_player_name)
            str(homes[role]),
        )
    bots = f"{args.bot} (host) vs {len(guests)} x {args.vs}"
    print(f"demo: {args.kind}, {bots} in game {name!r}; logs in {out}/")
    processes: dict[str, trio.Process] = {}
    with contextlib.ExitStack() as files:
        outputs = {role: files.enter_context(open(out / f"{role}.out", "wb")) for role in commands}
        return await _run_processes(args, out, homes, name, commands, processes, outputs)


async def _run_processes(
    args: argparse.Namespace,
    out: Path,
    homes: dict[str, Path],
    name: str,
    commands: dict[str, list[str]],
    processes: dict[str, trio.Process],
    outputs: dict,
) -> int:
    try:
        with trio.move_on_after(args.timeout) as deadline:
            async with trio.open_nursery() as nursery:
                for role, command in commands.items():
                    processes[role] = await trio.lowlevel.open_process(
                        command, stdout=outputs[role], stderr=subprocess.STDOUT
                    )
                if not args.quiet:
                    nursery.start_soon(_watch, name, homes["watcher"])
                for process in processes.values():
                    await process.wait()
                nursery.cancel_scope.cancel()
    finally:
        for process in processes.values():
            if process.returncode is None:
                process.kill()
    if deadline.cancelled_caught:
        return fail(f"the demo did not finish within {args.timeout:g}s (see {out}/*.out)", 1)
    return _report(out, homes, processes, face_for(args.kind).cheat_demo if args.cheat else None)


async def _watch(name: str, home: Path) -> None:
    """One more node, found nothing by address: it browses zeroconf like a real user would."""
    async with Node.open(home, host=LOOPBACK, discovery=False) as node:
        try:
            found = await find_game(name, [LOOPBACK], 30)
            game = await node.watch(found.address, found.game)
        except (LookupError, NodeError) as exc:
            print(f"(live view unavailable: {exc})")
            return
        title = printable(found.name)
        print(f"watching {title!r} ({found.game}) at {found.address} as a spectator node")
        # The spectator reads what you type ('board', 'help', 'quit' ends the live view only);
        # without a terminal it simply watches to the end.
        try:
            await play_in_terminal(node, game, lines=StdinLines(), leave_on_eof=False)
        except ValueError as exc:  # no terminal face for this game: follow it all the same
            print(f"({exc}: following the game without drawing it)")
            await node.wait_for(game, lambda rt: rt.state in ("finished", "halted"))


def _report(
    out: Path,
    homes: dict[str, Path],
    processes: dict[str, trio.Process],
    cheat: Callable[[bytes, Path], bool] | None,
) -> int:
    logs: dict[str, bytes] = {}
    for role in processes:
        if processes[role].returncode != 0:
            tail = (out / f"{role}.out").read_text(errors="replace")[-800:]
            return fail(f"the {role} node failed (exit {processes[role].returncode}):\n{tail}", 1)
        stored = sorted((homes[role] / "games").glob("*/log"))
        if len(stored) != 1:
            return fail(f"the {role} node stored {len(stored)} game logs, expected one", 1)
        logs[role] = stored[0].read_bytes()
        shutil.copyfile(stored[0], out / f"{role}.log")
    watched = sorted((homes["watcher"] / "games").glob("*/log"))
    if watched:
        logs["watcher"] = watched[0].read_bytes()
        shutil.copyfile(watched[0], out / "watcher.log")
    ok = True
    verdicts: dict[bytes, Verdict] = {}  # a function of the bytes: identical logs verified once
    for role, data in logs.items():
        if data not in verdicts:
            verdicts[data] = verify_log_bytes(data)
        verdict = verdicts[data]
        state = "finished" if verdict.finished else "unfinished"
        print(
            f"{out / (role + '.log')}: {'valid' if verdict.valid else 'INVALID'}, "
            f"{verdict.events} events, {state}"
        )
        if verdict.error:
            print(f"  {verdict.error.describe()}")
        ok = ok and verdict.valid and verdict.finished
    identical = len(set(logs.values())) == 1
    print(f"logs byte-identical: {'yes' if identical else 'NO'} ({', '.join(logs)})")
    if ok and identical and cheat is not None and not cheat(logs["guest"], homes["guest"]):
        return fail("a cheat was not caught as expected", 1)
    if ok and identical:
        print(f"outcome: {verdicts[logs['host']].outcome}")
        me = runnable()  # commands that work as typed, on PATH or not
        log = out / "host.log"
        print(f"check it yourself:\n  {me} verify {log}\n  {me} replay {log}")
        return 0
    return 1
