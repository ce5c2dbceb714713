"""`creepnet demo creeper`: two bot nodes as separate processes play over loopback, found by
zeroconf on 127.0.0.1, while this process watches as a third node; then both logs are verified
and compared.  `creepnet demo racer --local` plays Creepy Racer with the local driver."""

from __future__ import annotations

import argparse
import contextlib
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import trio

from creepnet.cli.network import find_game, run_trio
from creepnet.cli.options import fail
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.terminal import StdinLines
from creepnet.cli.text import printable
from creepnet.node.node import Node, NodeError
from creepnet.protocol.games import bot_names
from creepnet.protocol.verify import verify_log_bytes

LOOPBACK = "127.0.0.1"  # demos never leave this machine


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="watch bots play a real game between real nodes")
    parser.add_argument("kind", choices=["creeper", "racer"], help="the game")
    parser.add_argument("--seed", type=int, default=1, help="bots' seed (default 1)")
    parser.add_argument("--out", type=Path, default=Path("demo-out"), help="where logs go")
    parser.add_argument("--bot", choices=bot_names(), default="search", help="host's bot")
    parser.add_argument("--vs", choices=bot_names(), default="greedy", help="guest's bot")
    parser.add_argument("--max-plies", type=int, default=300, help="draw after this many plies")
    parser.add_argument("--pace", type=float, default=0.15, help="seconds between bot moves")
    parser.add_argument("--quiet", action="store_true", help="do not draw the board live")
    parser.add_argument(
        "--cheat", action="store_true", help="afterwards, let the guest cheat and watch it caught"
    )
    parser.add_argument("--timeout", type=float, default=300, help="give up after this long")
    parser.add_argument("--local", action="store_true", help="racer: play in this process only")
    parser.add_argument("--players", type=int, default=3, help="racer: number of players (2-4)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.kind == "racer":
        if not args.local:
            return fail("Creepy Racer over the network is not built yet; use `demo racer --local`")
        from creepnet.cli.racer.local_demo import run_local_demo

        return run_local_demo(args.players, args.seed)
    return run_trio(_demo, args)


def _command(args: argparse.Namespace, *words: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "creepnet.cli",
        *words,
        "--iface",
        LOOPBACK,
        "--pace",
        str(args.pace),
    ]


async def _demo(args: argparse.Namespace) -> int:
    out: Path = args.out
    homes = {role: out / f"{role}-home" for role in ("host", "guest", "watcher")}
    for home in homes.values():
        shutil.rmtree(home, ignore_errors=True)  # a demo is a fresh game, not a resumed one
    out.mkdir(parents=True, exist_ok=True)
    name = f"demo-{args.seed}-{secrets.token_hex(2)}"
    commands = {
        "host": _command(
            args,
            "host",
            "creeper",
            "--name",
            name,
            "--bot",
            args.bot,
            "--seed",
            str(args.seed),
            "--max-plies",
            str(args.max_plies),
            "--player",
            f"{args.bot}-bot",
            "--home",
            str(homes["host"]),
        ),
        "guest": _command(
            args,
            "join",
            name,
            "--wait",
            "30",
            "--bot",
            args.vs,
            "--seed",
            str(args.seed + 1),
            "--player",
            f"{args.vs}-bot",
            "--home",
            str(homes["guest"]),
        ),
    }
    print(f"demo: {args.bot} (host) vs {args.vs} (guest) in game {name!r}; logs in {out}/")
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
    return _report(out, homes, processes, args.cheat)


async def _watch(name: str, home: Path) -> None:
    """A third node, found nothing by address: it browses zeroconf like a real user would."""
    async with Node.open(home, host=LOOPBACK, discovery=False) as node:
        try:
            found = await find_game(name, [LOOPBACK], 30)
            game = await node.watch(found.address, found.game)
        except (LookupError, NodeError) as exc:
            print(f"(live view unavailable: {exc})")
            return
        title = printable(found.title.rsplit(" ", 2)[0])
        print(f"watching {title!r} ({found.game}) at {found.address} as a spectator node")
        # The spectator reads what you type ('board', 'help', 'quit' ends the live view only);
        # without a terminal it simply watches to the end.
        await play_in_terminal(node, game, lines=StdinLines(), leave_on_eof=False)


def _report(
    out: Path, homes: dict[str, Path], processes: dict[str, trio.Process], cheat: bool
) -> int:
    logs: dict[str, bytes] = {}
    for role in ("host", "guest"):
        if processes[role].returncode != 0:
            tail = (out / f"{role}.out").read_text(errors="replace")[-800:]
            return fail(f"the {role} node failed (exit {processes[role].returncode}):\n{tail}", 1)
        stored = sorted((homes[role] / "games").glob("*/log"))
        if len(stored) != 1:
            return fail(f"the {role} node stored {len(stored)} game logs, expected one", 1)
        logs[role] = stored[0].read_bytes()
        shutil.copyfile(stored[0], out / f"{role}.log")
    ok = True
    for role, data in logs.items():
        verdict = verify_log_bytes(data)
        state = "finished" if verdict.finished else "unfinished"
        print(
            f"{out / (role + '.log')}: {'valid' if verdict.valid else 'INVALID'}, "
            f"{verdict.events} events, {state}"
        )
        if verdict.error:
            print(f"  {verdict.error.describe()}")
        ok = ok and verdict.valid and verdict.finished
    identical = logs["host"] == logs["guest"]
    print(f"logs byte-identical: {'yes' if identical else 'NO'}")
    if ok and identical and cheat:
        from creepnet.cli.creeper.cheat_demo import run_cheats

        if not run_cheats(logs["guest"], homes["guest"]):
            return fail("a cheat was not caught as expected", 1)
    if ok and identical:
        print(f"outcome: {verify_log_bytes(logs['host']).outcome}")
        print(
            f"check it yourself:  creepnet verify {out / 'host.log'}   "
            f"creepnet replay {out / 'host.log'}"
        )
        return 0
    return 1
