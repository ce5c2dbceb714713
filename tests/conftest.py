"""Shared fixtures and helpers for the node and CLI tests: loopback-only sockets."""

from __future__ import annotations

import copy
import copyreg
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

import proof_memo
import pytest
import trio
from proof_memo import ProofMemo

from creepnet.node import updates
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.node.transport import Connection, Timeouts
from creepnet.protocol.games import get_game
from creepnet.protocol.verify import verify_log_bytes

# Where PYTHONDONTWRITEBYTECODE is set (as on these machines), every pytest process (three
# workers a run) would rewrite every test module's asserts and compile every module afresh, each
# run: about 2.5 s of CPU per process.  The suite keeps them in __pycache__ (ignored by git), as
# Python and pytest do by default; the commands the tests start read the product's too.
sys.dont_write_bytecode = False

LOOPBACK = "127.0.0.1"
FAST = Timeouts(connect=2.0, handshake=2.0, ping=0.5, idle=3.0, send=2.0, retry=0.05)
# For a node that catches up on a long log (or is slowed on purpose): silence is measured per
# batch, and a batch of escrow proofs outlasted FAST's 2 s on a loaded machine (0 of 109 events
# stored, CI on 2026-12-05).  The tests that use it are about what is caught up, not the timeout.
CATCHING_UP = replace(FAST, handshake=30.0)

# The longest test files (their tests' wall time summed, in a whole run at -n 3 on the shared
# 2-core machine; longest first), started first: the README's command runs the suite in
# pytest-xdist workers a file at a time (--dist loadfile), and one of these begun last would
# leave the other workers idle while it runs alone.  Only the order changes; every test still
# runs.  A new slow file goes in here, at its place.
LONGEST_FIRST = (
    "vectors/test_vectors.py",
    "racer/test_racer_retire_four.py",
    "web/test_web_browser.py",
    "node/test_node_wan.py",
    "racer/test_racer_retire.py",
    "node/test_node_mesh.py",
    "cli/test_cli_network.py",
    "node/test_node_wan_mesh.py",
    "racer/test_racer_processes.py",
    "racer/test_racer_network.py",
    "racer/test_racer_retire_hostage.py",
    "cli/test_cli_first_use.py",
    "web/test_web_racer_browser.py",
    "protocol/test_session_property.py",
    "cli/test_cli_feel.py",
    "racer/test_racer_adapter_rejections.py",
    "node/test_node_retire_objection.py",
    "creeper/test_creeper_search.py",
    "racer/test_racer_planner.py",
    "cli/test_cli_replay.py",
    "racer/test_racer_cheats.py",
    "web/test_web_replay.py",
    "deck/test_deck_escrow_messages.py",
    "web/test_web_racer_views.py",
    "racer/test_racer_retire_complaint.py",
    "web/test_web_replay_browser.py",
    "cli/test_cli_resume.py",
    "racer/test_racer_replay.py",
    "racer/test_racer_retire_network.py",
    "racer/test_racer_games.py",
    "racer/test_racer_session.py",
    "creeper/test_creeper_abandon.py",
    "deck/test_deck_none_of.py",
    "node/test_node_resume.py",
    "deck/test_deck_class.py",
    "node/test_node_adverts.py",
    "cli/test_racer_terminal_feel.py",
    "creeper/test_creeper_properties.py",
    "node/test_node_recovery.py",
    "racer/test_racer_session_game.py",
)


def pytest_configure(config: pytest.Config) -> None:
    # xdist's loadfile would otherwise hand out the files with the most tests first.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.path.as_posix()
        return next(
            (i for i, name in enumerate(LONGEST_FIRST) if path.endswith("/tests/" + name)),
            len(LONGEST_FIRST),
        )

    items.sort(key=rank)  # stable: each file's own order, and the rest's, are kept


@pytest.fixture(scope="module")
def proofs_checked_in_module() -> ProofMemo:
    return ProofMemo()


@pytest.fixture
def memoized_proofs(proofs_checked_in_module: ProofMemo) -> Iterator[ProofMemo]:
    """For the slow whole-game harness tests only (``pytest.mark.usefixtures(
    "memoized_proofs")``): while the test runs, each deck proof check runs for real once per
    distinct input in its file, and a repeat of exactly those bytes by another replica, or by
    the final ``verify_log_bytes``, returns that first success (tests/proof_memo.py says why
    that is sound).  Never for the cheat, rejection, property or vector tests, nor any test of
    a refusal: they run every check for real."""
    with proof_memo.memoized_proofs(proofs_checked_in_module) as memo:
        yield memo


T = TypeVar("T")


def deep_copy(value: T, memo: dict[int, Any] | None = None) -> T:
    """``copy.deepcopy`` (``memo`` as there: what maps to itself is shared), which alone cannot
    copy the read-only maps the engine's frozen states hold.  For tests that hand each test a
    copy of one game played once: the copy shares nothing mutable and goes on as it would."""
    copyreg.pickle(MappingProxyType, lambda m: (MappingProxyType, (dict(m),)))
    try:
        return copy.deepcopy(value, memo)
    finally:
        copyreg.dispatch_table.pop(MappingProxyType, None)


@pytest.fixture(autouse=True)
def private_zeroconf_type(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test advertises and browses a DNS-SD type of its own (the commands it starts
    inherit it), so other creepnet runs on this machine are invisible to it, and it to them."""
    from creepnet.node.discovery import SERVICE_TYPE_ENV

    kind = f"_cnt{secrets.token_hex(6)}._tcp.local."  # a service name has at most 15 characters
    monkeypatch.setenv(SERVICE_TYPE_ENV, kind)
    return kind


@asynccontextmanager
async def loopback_pair(
    timeouts: Timeouts = FAST,
) -> AsyncIterator[tuple[trio.SocketStream, trio.SocketStream]]:
    """Two ends of one real TCP connection on 127.0.0.1."""
    listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
    port = listeners[0].socket.getsockname()[1]
    try:
        client = await trio.open_tcp_stream(LOOPBACK, port)
        server = await listeners[0].accept()
    finally:
        for listener in listeners:
            await listener.aclose()
    try:
        yield client, server
    finally:
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)


@asynccontextmanager
async def connection_pair(
    timeouts: Timeouts = FAST,
) -> AsyncIterator[tuple[Connection, Connection]]:
    async with loopback_pair(timeouts) as (client, server):
        yield Connection(client, timeouts, label="a"), Connection(server, timeouts, label="b")


@pytest.fixture
def fast() -> Timeouts:
    return FAST


async def raw_peer(address: str, identity, timeouts: Timeouts = FAST, **kwargs) -> Connection:
    """A hand-driven peer: connected and through the handshake, then free to misbehave."""
    from creepnet.node.handshake import handshake
    from creepnet.node.transport import connect

    conn = await connect(address, timeouts)
    await handshake(conn, identity, **kwargs)
    return conn


async def next_update(channel, predicate, seconds: float = 10):
    """The first update on channel that satisfies predicate."""
    with trio.fail_after(seconds):
        async for update in channel:
            if predicate(update):
                return update
    raise AssertionError("update stream ended")


def faults_reported(news) -> list[str]:
    """The texts of the internal faults (errors with a ``fault``) a node's updates channel
    holds now: a hostile frame must be refused, never run into a bug of ours."""
    faults = []
    while True:
        try:
            update = news.receive_nowait()
        except trio.WouldBlock:
            return faults
        if update.kind == updates.ERROR and "fault" in update.data:
            faults.append(update.text)


async def finish(game: bytes, *players) -> None:
    """Random bots play every given node's seat until the game ends."""
    async with trio.open_nursery() as nursery:
        for seed, node in enumerate(players):
            nursery.start_soon(run_bot, node, game, "random", seed + 10)


async def play_until_stored(game: bytes, host: Node, guest: Node, events: int) -> None:
    """Bots play the game (``finish``) until ``host`` has stored ``events`` events; then they
    stop, mid-game."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(finish, game, host, guest)
        await host.wait_for(game, lambda rt: rt.stored >= events)
        nursery.cancel_scope.cancel()


@asynccontextmanager
async def seated_pair(
    host_home: Path,
    guest_home: Path,
    name: str,
    players: tuple[str, str] = ("a", "b"),
    timeouts: Timeouts | None = None,
    **options: int,
) -> AsyncIterator[tuple[Node, Node, bytes]]:
    """Two loopback nodes: the first hosts a Creeper game (with these options), the second has
    joined it."""
    async with (
        Node.open(host_home, host=LOOPBACK, timeouts=timeouts) as host,
        Node.open(guest_home, host=LOOPBACK, timeouts=timeouts) as guest,
    ):
        game = await host.host_game("creeper", name, player=players[0], options=options)
        await guest.join(host.address, game, player=players[1])
        yield host, guest, game


def only_log(home: Path) -> Path:
    logs = sorted((home / "games").glob("*/log"))
    assert len(logs) == 1, logs
    return logs[0]


def same_finished_log(host_home: Path, guest_home: Path, game_prefix: str) -> tuple[Path, Path]:
    """Both homes hold one log of the game, byte-identical and verified as finished."""
    host_log, guest_log = only_log(host_home), only_log(guest_home)
    assert host_log.parent.name.startswith(game_prefix)
    data = host_log.read_bytes()
    assert data == guest_log.read_bytes()
    verdict = verify_log_bytes(data)
    assert verdict.valid and verdict.finished, verdict.error
    return host_log, guest_log


class Said:
    """What an in-process console printed (pass ``out``), and a wait for a line of it."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._changed = trio.Event()

    def out(self, text: str) -> None:
        self.lines.append(text)
        self._changed.set()
        self._changed = trio.Event()

    async def until(self, wanted: str) -> None:
        while not any(wanted in line for line in self.lines):
            await self._changed.wait()


# --- real creepnet processes -----------------------------------------------------------------


class Output:
    """A process's merged stdout/stderr, read continuously (a full pipe would stall it)."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.done = False
        self._changed = trio.Event()

    async def pump(self) -> None:
        assert self.process.stdout is not None
        pending = b""
        async for chunk in self.process.stdout:
            pending += chunk
            *complete, pending = pending.split(b"\n")
            self._add([line.decode(errors="replace") for line in complete])
        self._add([pending.decode(errors="replace")] if pending else [])
        self.done = True
        self._add([])

    def _add(self, lines: list[str]) -> None:
        self.lines.extend(lines)
        self._changed.set()
        self._changed = trio.Event()

    async def until(self, wanted: str | Callable[[str], bool]) -> str:
        """The first line containing wanted (or satisfying it); fails if the output ends."""
        test = wanted if callable(wanted) else (lambda line: wanted in line)
        seen = 0
        while True:
            for line in self.lines[seen:]:
                if test(line):
                    return line
            seen = len(self.lines)
            if self.done:
                raise AssertionError(f"never saw {wanted!r} in:\n{self.text}")
            await self._changed.wait()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


async def start(nursery: trio.Nursery, *words: str) -> Output:
    """Run `creepnet WORDS` with its output pumped into an Output."""
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "creepnet.cli", *words],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output = Output(process)
    nursery.start_soon(output.pump)
    return output


async def until_guest_decides(node: Node, game: bytes) -> None:
    """Play the host's moves until the game waits on the guest's decision (not on a step its
    node answers by itself, such as the opening coin's reveal)."""
    session = node.session(game)
    bot = get_game(session.kind).make_bot("random", 0)
    while True:
        turn = session.expected()
        if turn is not None and turn.seat == 1 and not turn.automatic:
            return
        if session.my_turn() is not None:
            await node.play(game, bot.choose(session.local_view(), 0))
        else:
            await node.wait_changed(game)


def page_key_of(reply: str) -> str:
    """The page key a link's answer leaves in the browser's storage (cli/web/guard.py), as
    the ``x-creepnet-key`` header line a script sends it in."""
    key = reply.split("localStorage.setItem(", 1)[1].split(", ", 1)[1].split('"')[1]
    return f"x-creepnet-key: {key}"
