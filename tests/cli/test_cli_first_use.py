"""What a demanding first-time user ran into, following README.md with real commands and real
nodes (loopback only): each mistake gets one plain line and a non-zero exit, never a
traceback; a signal stops a command cleanly; leaving says what happens next, and a seat a bot
plays still tells its owner about the table."""

from __future__ import annotations

import argparse
import functools
import re
import signal
import socket
import subprocess
import sys
from contextlib import asynccontextmanager

import pytest
import trio
from conftest import Output, Said, only_log, seated_pair, start

from creepnet.cli.creeper.console import HELP as CREEPER_HELP
from creepnet.cli.main import runnable
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.racer.console import HELP as RACER_HELP
from creepnet.cli.racer.console import WIDTH
from creepnet.cli.seat_runner import run_seat, tell_table_news
from creepnet.engine import creeper
from creepnet.node import Node, retirement
from creepnet.node.updates import Update

LOOPBACK = "127.0.0.1"
CLI = [sys.executable, "-m", "creepnet.cli"]
TIMEOUT = 120  # generous: these machines are slow and shared
GAME_ID = "ab" * 16
# A relay address that reads as /ip4/…/p2p/ID but whose ID is no libp2p peer id.
BAD_RELAY = "/ip4/127.0.0.1/tcp/1/p2p/12D3KooWxyz"


def cli(*words: str, stdin: str = "", timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *words], input=stdin, capture_output=True, text=True, timeout=timeout
    )


def assert_one_plain_error(result: subprocess.CompletedProcess, *wanted: str) -> None:
    assert result.returncode not in (0, None), result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("creepnet: error: "), result.stderr
    for text in wanted:
        assert text in lines[0], lines[0]


# ----- mistakes: one line, never a traceback ----------------------------------------------


def test_an_invite_whose_relay_libp2p_cannot_read_is_one_plain_line(tmp_path):
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    invite = f"creepnet:{GAME_ID}:aaaa-bbbb:12D3KooWxyz:{BAD_RELAY}"
    result = cli("join", invite, "--home", str(tmp_path), "--iface", LOOPBACK, "--wait", "1")
    assert_one_plain_error(result, "not a relay address", BAD_RELAY)


def test_hosting_with_a_relay_libp2p_cannot_read_is_one_plain_line(tmp_path):
    pytest.importorskip("libp2p", reason="needs the optional extra: pip install 'creepnet[wan]'")
    result = cli(
        "host", "creeper", "--internet", "--relay", BAD_RELAY, "--no-discovery",
        "--iface", LOOPBACK, "--home", str(tmp_path), "--player", "ann", stdin="quit\n",
    )  # fmt: skip
    assert_one_plain_error(result, "not a relay address", BAD_RELAY)
    assert "hosting" not in result.stdout  # refused before any game was made


def test_hosting_on_a_port_already_in_use_says_so_and_what_to_do(tmp_path):
    with socket.socket() as taken:
        taken.bind((LOOPBACK, 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli(
            "host", "creeper", "--port", str(port), "--no-discovery", "--iface", LOOPBACK,
            "--home", str(tmp_path), "--player", "ann", stdin="quit\n",
        )  # fmt: skip
    assert_one_plain_error(result, f"port {port} is already in use", "--port")
    assert "Errno" not in result.stderr


def test_an_iface_address_this_machine_lacks_is_named(tmp_path):
    absent = "192.0.2.1"  # TEST-NET-1: no interface here has it, so the bind fails at once
    result = cli(
        "host", "creeper", "--no-discovery", "--iface", absent, "--home", str(tmp_path),
        "--player", "ann", stdin="quit\n",
    )  # fmt: skip
    assert_one_plain_error(result, f"cannot listen on {absent}", "--iface")
    assert "Errno" not in result.stderr


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (("host", "creeper", "--players", "3"), "creeper takes exactly 2 players"),
        (("host", "creeper", "--retire-after", "0"), "--retire-after must be 1-86400 seconds"),
        (("play", "creeper", "--pace", "-1"), "argument --pace: must be 0 or more seconds"),
    ],
)
def test_an_option_out_of_range_is_named_as_typed(tmp_path, words, said):
    result = cli(*words, "--home", str(tmp_path), stdin="quit\n")
    assert result.returncode == 2, result.stdout + result.stderr
    assert said in result.stderr.splitlines()[-1] and "Traceback" not in result.stderr
    assert not (tmp_path / "games").exists()  # refused before any node or game was made


# ----- stopping a command ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("signum", "said"), [(signal.SIGTERM, "terminated"), (signal.SIGINT, "interrupted")]
)
async def test_a_signal_stops_a_waiting_host_cleanly(tmp_path, signum, said):
    """SIGTERM (a `kill`, a closed session) ends the command as Ctrl-C does: its tasks are
    cancelled, it says how to come back and that it was stopped, instead of Python dying on
    the spot with nothing said."""
    process = await trio.lowlevel.open_process(
        [*CLI, "host", "creeper", "--name", "stopme", "--no-discovery", "--iface", LOOPBACK,
         "--home", str(tmp_path), "--player", "ann"],
        stdin=subprocess.PIPE,  # kept open: end of input would stop hosting by itself
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    output = Output(process)
    try:
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(output.pump)
                await output.until("waiting for an opponent to join")
                process.send_signal(signum)
                code = await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
    assert code == 128 + signum, output.text
    assert said in output.lines and "Traceback" not in output.text, output.text
    # Stopped mid-wait, the player is told how to come back, as after `quit`.
    hint = f"it waits for you: {runnable()} host creeper --name stopme --home {tmp_path}"
    assert hint in output.text, output.text
    again = cli(
        "host", "creeper", "--name", "stopme", "--no-discovery", "--iface", LOOPBACK,
        "--home", str(tmp_path), stdin="quit\n",
    )  # fmt: skip
    assert "resuming game 'stopme'" in again.stdout, again.stdout + again.stderr


async def test_a_second_command_on_a_home_in_use_is_refused_until_the_first_ends(tmp_path):
    """Two terminals, one (default) home: a second node would be online with the same key,
    each cutting the other's connections, both appending to one log.  It is refused, in one
    line naming the command that holds the home; once that one ends, the home is free."""
    process = await trio.lowlevel.open_process(
        [*CLI, "host", "creeper", "--name", "mine", "--no-discovery", "--iface", LOOPBACK,
         "--home", str(tmp_path), "--player", "ann"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    output = Output(process)
    try:
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(output.pump)
                await output.until("waiting for an opponent to join")
                second = await trio.to_thread.run_sync(
                    lambda: cli("join", "mine", "--addr", "127.0.0.1:9", "--home", str(tmp_path))
                )
                assert process.stdin is not None
                await process.stdin.send_all(b"quit\n")
                assert await process.wait() == 0, output.text
    finally:
        if process.returncode is None:
            process.kill()
    assert_one_plain_error(second, f"(pid {process.pid}) is using the home {tmp_path}", "--home")
    again = cli(
        "host", "creeper", "--name", "mine", "--no-discovery", "--iface", LOOPBACK,
        "--home", str(tmp_path), stdin="quit\n",
    )  # fmt: skip
    assert "resuming game 'mine'" in again.stdout, again.stdout + again.stderr


# ----- leaving ---------------------------------------------------------------------------


def test_both_consoles_list_leave_and_claim_in_their_help():
    for text in (CREEPER_HELP, RACER_HELP):
        commands = {line.split()[0] for line in text.splitlines() if line.startswith("  ")}
        assert {"quit", "leave", "claim"} <= commands, text
    assert max(len(line) for line in RACER_HELP.splitlines()) < WIDTH


async def test_leaving_for_good_says_what_follows_and_a_bot_seat_hears_of_it(tmp_path):
    """The guest types `leave`: told its opponent may claim the game, and not that the game
    waits for it.  The host's seat is played by a bot (`host --bot`): its terminal is told
    that the guest is gone and that the game can be claimed."""
    host_said, guest_said = Said(), Said()
    bot_seat = argparse.Namespace(bot="random", seed=1, pace=0.0, colour=False)
    person = argparse.Namespace(bot=None, colour=False)
    async with seated_pair(tmp_path / "host", tmp_path / "guest", "bye") as (host, guest, game):

        async def lines():
            await guest.wait_for(game, lambda rt: rt.session.started)
            yield "leave"

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(
                    lambda: run_seat(host, game, bot_seat, out=host_said.out, resume_hint="x")
                )
                await run_seat(
                    guest, game, person, lines=lines(), out=guest_said.out,  # type: ignore[arg-type]
                    resume_hint="creepnet join bye",
                )  # fmt: skip
                await host_said.until("you may claim the game abandoned")
                nursery.cancel_scope.cancel()  # the bot never claims: it would wait forever
    guest_text = "\n".join(guest_said.lines)
    assert "you left the game for good; your opponent may claim it abandoned" in guest_text
    assert "it waits for you" not in guest_text
    news = [line for line in host_said.lines if "you may claim" in line]
    assert len(news) == 1 and news[0].startswith("* b is gone"), host_said.lines


def test_a_quit_game_is_resumed_by_the_printed_command_with_its_home(tmp_path):
    """The hint names --home: typed as printed, it finds the game in that home, not in the
    user's real one."""
    home = str(tmp_path / "throwaway")
    left = cli("play", "creeper", "--vs", "random", "--home", home, stdin="quit\n")
    assert left.returncode == 0, left.stdout + left.stderr
    hint = f"it waits for you: {runnable()} play creeper --vs random --home {home}"
    assert hint in left.stdout, left.stdout
    assert "then may claim" not in left.stdout  # the bots stop with the command: no timer
    again = cli("play", "creeper", "--vs", "random", "--home", home, stdin="quit\n")
    assert "resuming your game against the random bot" in again.stdout, again.stdout


# ----- what the screen shows --------------------------------------------------------------


async def test_a_racer_set_up_is_a_status_line_not_a_page_of_waiting_lines(tmp_path):
    """Dealing a 3-seat Racer table takes dozens of steps each node takes by itself (shuffles,
    seals, reveals); each used to print a 'waiting for seat N to …' line, and the table
    scrolled away before the first turn.  Now a pipe gets the first of a run, a terminal one
    status line rewritten in place."""
    process = await trio.lowlevel.open_process(
        [*CLI, "play", "racer", "--players", "3", "--vs", "easy", "--home", str(tmp_path),
         "--player", "me"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    output = Output(process)
    try:
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(output.pump)
                await output.until("type 'help' for commands")  # the table is dealt
                assert process.stdin is not None
                await process.stdin.send_all(b"quit\n")
                assert await process.wait() == 0, output.text
    finally:
        if process.returncode is None:
            process.kill()
    intro = next(i for i, line in enumerate(output.lines) if line.startswith("Creepy Racer, 3"))
    set_up = output.lines[:intro]
    waits = [line for line in set_up if line.startswith("waiting for seat")]
    # One line per run of automatic steps, not one per step (there are some 150): a few runs
    # on a quiet machine; other news (a bot seat slow on a loaded one) may end a run early.
    assert len(waits) <= 30, output.text
    assert "all 3 seats taken: the game starts" in output.lines[:intro]


async def test_leave_before_the_game_starts_is_refused_and_says_what_works(tmp_path):
    """In a Racer lobby (2 of 3 seats taken) `leave` cannot free the seat; it says so, and
    nothing is sent: `quit` still works."""
    said = Said()
    async with (
        Node.open(tmp_path / "host", host=LOOPBACK) as host,
        Node.open(tmp_path / "me", host=LOOPBACK) as me,
    ):
        game = await host.host_game("racer", "lobby", seats=3, player="ann")
        await me.join(host.address, game, player="me")

        async def lines():
            yield "leave"
            await said.until("the game has not started")
            yield "quit"

        with trio.fail_after(TIMEOUT):
            left = await play_in_terminal(me, game, lines=lines(), out=said.out)
    assert not left  # not gone for good: the seat is still ours
    assert any("'quit' stops waiting, and your seat stays yours" in line for line in said.lines)
    assert not any("you left the game" in line for line in said.lines)


class _TableNode:
    """Just what ``tell_table_news`` reads of a node: the session's patience and log length,
    and a stream of updates the test sends."""

    def __init__(self) -> None:
        self.log: list[object] = []
        self.retire_after = 120
        self.send, self._receive = trio.open_memory_channel[Update](64)

    def session(self, game: bytes) -> _TableNode:
        return self

    @asynccontextmanager
    async def updates(self):
        yield self._receive


async def test_a_bot_seat_tells_a_silence_once_and_only_when_it_lasts(autojump_clock):
    """`host --bot`: the node counts down once a second while a player is silent; a person
    thinking for a few seconds is no news, a silence of 10 s is told once, and each
    retirement as it comes."""
    node, said, game = _TableNode(), Said(), b"g" * 16

    def countdown(silent: int) -> Update:
        text = f"waiting for Cat: no word for {silent} s, they will be retired in {120 - silent} s"
        return Update(retirement.RETIRING, text, game, None, {"seat": 3})

    async with trio.open_nursery() as nursery:
        nursery.start_soon(tell_table_news, node, game, said.out)
        for silent in range(1, 5):  # Cat thinks for 4 s, then moves
            await node.send.send(countdown(silent))
            await trio.sleep(1)
        node.log.append("Cat's move")
        for silent in range(1, 31):  # then goes quiet
            await node.send.send(countdown(silent))
            await trio.sleep(1)
        await node.send.send(Update(retirement.RETIRED, "Cat left the game", game, None, {}))
        await said.until("Cat left the game")
        nursery.cancel_scope.cancel()
    assert said.lines == [
        "* waiting for Cat: no word for 11 s, they will be retired in 109 s",
        "* Cat left the game",
    ]


# ----- a table that plays on ------------------------------------------------------------


async def test_three_friends_one_leaves_the_others_are_told_finish_and_verify_her_going(
    tmp_path,
):
    """`creepnet host racer --players 3 --bot …`, a bot joins, Cat joins by hand and types
    `leave` at her first prompt.  Each bot's terminal says its seat and that Cat left; both
    finish the game, and `creepnet verify` on each log is valid and names her retirement."""
    homes = {name: tmp_path / name for name in ("ann", "bob", "cat")}
    common = ["--iface", LOOPBACK, "--pace", "0"]
    outputs: dict[str, Output] = {}
    try:
        with trio.fail_after(4 * TIMEOUT):
            async with trio.open_nursery() as nursery:
                ann = outputs["ann"] = await start(
                    nursery, "host", "racer", "--players", "3", "--name", "three",
                    "--bot", "easy", "--seed", "1", "--turn-limit", "40",
                    "--home", str(homes["ann"]), *common,
                )  # fmt: skip
                await ann.until("(1/3 seated)")
                bob = outputs["bob"] = await start(
                    nursery, "join", "three", "--bot", "easy", "--seed", "2", "--wait", "60",
                    "--home", str(homes["bob"]), *common,
                )  # fmt: skip
                assert "you have seat 1; the easy bot plays it" in await bob.until("you have")
                process = await trio.lowlevel.open_process(
                    [*CLI, "join", "three", "--player", "Cat", "--wait", "60",
                     "--home", str(homes["cat"]), *common],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                )  # fmt: skip
                cat = outputs["cat"] = Output(process)
                nursery.start_soon(cat.pump)
                await cat.until("type 'help' for commands")  # the table is dealt
                assert process.stdin is not None
                await process.stdin.send_all(b"leave\n")
                assert await process.wait() == 0, cat.text
                for bot in (ann, bob):
                    await bot.until("* Cat left the game")
                    assert await bot.process.wait() == 0, bot.text
    finally:
        for output in outputs.values():
            if output.process.returncode is None:
                output.process.kill()
    assert "you left the game for good; the others retire your seat and play on" in cat.text
    assert "it waits for you" not in cat.text
    for name in ("ann", "bob"):
        assert "game over: " in outputs[name].text
        log = only_log(homes[name])
        verdict = cli("verify", str(log))
        assert verdict.returncode == 0, verdict.stdout + verdict.stderr
        assert "valid" in verdict.stdout and "finished" in verdict.stdout
        assert "seat 2 (Cat) retired by the table" in verdict.stdout, verdict.stdout


async def test_a_claimed_game_is_over_not_waiting_for_anyone(tmp_path):
    """Two seats, the opponent goes quiet, the host types `claim`: the terminal says the game
    is over and where its log is, and no longer that it waits for the host to come back."""
    said = Said()
    person = argparse.Namespace(bot=None, colour=False)
    async with seated_pair(tmp_path / "a", tmp_path / "b", "quiet", retire_after=2) as (
        host,
        guest,
        game,
    ):
        session = host.session(game)

        def decides(rt) -> bool:
            turn = rt.session.expected() if rt.session.started else None
            return turn is not None and not turn.automatic

        async def lines():
            await host.wait_for(game, decides)
            if session.my_turn() is not None:  # we play light: move once, then they owe one
                yield creeper.format_move(creeper.legal_moves(session.engine_state)[0])
            await said.until("you may claim the game abandoned")
            yield "claim"

        with trio.fail_after(TIMEOUT):
            await run_seat(
                host, game, person, lines=lines(), out=said.out,  # type: ignore[arg-type]
                resume_hint="creepnet host creeper --name quiet",
            )  # fmt: skip
    text = "\n".join(said.lines)
    assert "game over: unfinished: abandoned by seat 1, claimed by seat 0" in text, text
    assert "verify it with:" in text and "it waits for you" not in text, text
    assert "the game cannot continue" not in text


async def test_a_spectator_is_told_when_the_game_has_waited_on_one_player(tmp_path, monkeypatch):
    """A spectator's node runs no retirement timer, so its terminal showed nothing while a
    player was silent, until the verdict.  Now a status line says whose silence, how long,
    and what the table will do."""
    from creepnet.cli import play_loop

    monkeypatch.setattr(play_loop, "SILENCE_TOLD", 1.0)
    said = Said()
    async with (
        seated_pair(tmp_path / "a", tmp_path / "b", "slow", retire_after=300) as (host, _, game),
        Node.open(tmp_path / "eve", host=LOOPBACK) as eve,
    ):
        await eve.watch(host.address, game)

        async def no_lines():
            await trio.sleep_forever()
            yield ""  # never reached: a spectator who types nothing

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(
                    functools.partial(
                        play_in_terminal, eve, game, lines=no_lines(), out=said.out,
                        leave_on_eof=False,
                    )
                )  # fmt: skip
                await said.until("no word from")
                nursery.cancel_scope.cancel()
    told = [line for line in said.lines if "no word from" in line]
    assert len(told) == 1, said.lines  # a status line: once in a pipe, rewritten on a terminal
    assert re.fullmatch(
        r"\* no word from [ab] for \d+ s \(after 300 s the other may claim the game\)", told[0]
    ), told[0]
