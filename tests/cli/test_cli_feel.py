"""What two friends ran into in their first games (issue #14), as they would run into it:
real commands, real nodes, loopback only."""

from __future__ import annotations

import functools
import re
import subprocess
import sys

import pytest
import trio
from conftest import FAST, Said, finish, seated_pair

from creepnet.cli.main import runnable
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.terminal import Screen
from creepnet.engine import creeper
from creepnet.node import Node, updates

LOOPBACK = "127.0.0.1"
CLI = [sys.executable, "-m", "creepnet.cli"]
TIMEOUT = 120  # generous: these machines are slow and shared


def cli(*words: str, stdin: str = "", timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *words], input=stdin, capture_output=True, text=True, timeout=timeout
    )


async def run_cli(*words: str, stdin: bytes = b"") -> tuple[int, str, str]:
    result = await trio.run_process(
        [*CLI, *words], stdin=stdin, capture_stdout=True, capture_stderr=True, check=False
    )
    return result.returncode, result.stdout.decode(), result.stderr.decode()


async def test_a_finished_game_never_shadows_a_new_game_of_the_same_name(tmp_path):
    """Rematch by name: the guest's `creepnet join friday` takes the new game, not the old."""
    guest_home = tmp_path / "guest"
    async with seated_pair(tmp_path / "host", guest_home, "friday", max_plies=6) as (
        host,
        guest,
        first,
    ):
        with trio.fail_after(TIMEOUT):
            await finish(first, host, guest)
    async with Node.open(tmp_path / "host", host=LOOPBACK) as host:
        second = await host.host_game("creeper", "friday", player="h", options={"max_plies": 6})
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:

                async def host_plays() -> None:
                    await host.wait_for(second, lambda rt: rt.session.started)
                    await finish(second, host)

                nursery.start_soon(host_plays)
                code, out, err = await run_cli(
                    "join", "friday", "--addr", host.address, "--home", str(guest_home),
                    "--bot", "random",
                )  # fmt: skip
    assert code == 0, out + err
    assert "that game is over" not in out and "joined at" in out and "game over" in out
    assert host.session(second).finished and len(host.session(second).seats) == 2


async def test_a_full_game_suggests_watch_and_a_failed_join_leaves_no_ghost(tmp_path):
    async with seated_pair(tmp_path / "host", tmp_path / "guest", "full") as (host, guest, game):
        with trio.fail_after(TIMEOUT):
            code, out, err = await run_cli(
                "join", "full", "--addr", host.address, "--home", str(tmp_path / "late")
            )
            assert code == 1 and "no free seat" in err and f"creepnet watch {game.hex()[:8]}" in err
            assert not list((tmp_path / "late").glob("games/*"))
            # Refused after the game was fetched (a name the protocol refuses): nothing is kept.
            other = await host.host_game("creeper", "open", player="h")
            code, out, err = await run_cli(
                "join", "open", "--addr", host.address, "--home", str(tmp_path / "late"),
                "--player", "bad\x07name",
            )  # fmt: skip
    assert code == 2 and "printable" in err, out + err
    assert not (tmp_path / "late" / "games" / other.hex()).exists()


def test_the_host_answers_in_the_lobby_and_quit_stops_hosting(tmp_path):
    result = cli(
        "host", "creeper", "--name", "lobby", "--no-discovery", "--iface", LOOPBACK,
        "--home", str(tmp_path), "--player", "ann",
        stdin="help\nboard\nmoves\nquit\n",
    )  # fmt: skip
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "waiting for an opponent to join (1/2 seats taken)" in out
    assert "commands:" in out and "has not started" in out
    assert "--addr 127.0.0.1:" in out and "<this-host>" not in out
    assert f"it waits for you: {runnable()} host creeper --name lobby" in out  # as typed here
    again = cli(
        "host", "creeper", "--name", "lobby", "--no-discovery", "--iface", LOOPBACK,
        "--home", str(tmp_path), stdin="quit\n",
    )  # fmt: skip
    assert "resuming game 'lobby'" in again.stdout  # the same lobby, not a second one


def test_a_bot_game_left_with_quit_resumes_with_its_bot(tmp_path):
    home = str(tmp_path)
    left = cli("play", "creeper", "--vs", "random", "--max-plies", "8", "--home", home,
               stdin="quit\n")  # fmt: skip
    assert left.returncode == 0, left.stdout + left.stderr
    assert f"it waits for you: {runnable()} play creeper --vs random" in left.stdout
    joined = cli("join", "--home", home, "--wait", "1")
    assert "creepnet play creeper --vs random" in joined.stdout and joined.returncode == 1
    # Our seat played by a bot too: the game can only end if the resumed opponent bot moves.
    resumed = cli("play", "creeper", "--vs", "random", "--home", home, "--bot", "greedy")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming your game against the random bot" in resumed.stdout
    assert "game over" in resumed.stdout
    assert len(list((tmp_path / "games").iterdir())) == 1  # the same game, finished


def test_a_status_line_updates_in_place_on_a_terminal_and_is_said_once_elsewhere():
    printed: list[str] = []
    screen = Screen(printed.append)
    for attempt in range(5):
        screen.note(f"cannot connect; retrying in {attempt}s", "redial")
    screen.note("move not delivered yet", "delivery")
    screen.say("your opponent is connected")
    screen.note("cannot connect; retrying in 9s", "redial")
    assert printed == [
        "cannot connect; retrying in 0s",
        "move not delivered yet",
        "your opponent is connected",
        "cannot connect; retrying in 9s",
    ]


class Terminal:
    """Just enough of a VT100 to see what a person sees: text, CR, LF, erase to the end of
    the line (ESC [ K) and cursor up (ESC [ A)."""

    def __init__(self) -> None:
        self.rows = [""]
        self.row = self.column = 0

    def write(self, text: str) -> None:
        for token in re.findall(r"\x1b\[[AK]|.|\n", text, re.S):
            if token == "\n":
                self.row += 1
                self.column = 0
                if self.row == len(self.rows):
                    self.rows.append("")
            elif token == "\r":
                self.column = 0
            elif token == "\x1b[K":
                self.rows[self.row] = self.rows[self.row][: self.column]
            elif token == "\x1b[A":
                self.row = max(0, self.row - 1)
            else:
                line = self.rows[self.row].ljust(self.column)
                self.rows[self.row] = line[: self.column] + token + line[self.column + 1 :]
                self.column += 1

    def type(self, text: str) -> None:
        """What the user types is echoed at the cursor (Enter moves to a new line)."""
        self.write(text)


def tty_screen() -> tuple[Screen, Terminal]:
    terminal = Terminal()
    return Screen(lambda text: terminal.write(text + "\n"), terminal.write), terminal


def test_on_a_terminal_the_status_line_has_its_own_row_above_the_prompt():
    """Issue 26.1: typed input was glued to the status ("…on reconnectionattack 2b")."""
    screen, terminal = tty_screen()
    screen.say("your turn (light)")
    screen.set_prompt("> ")
    screen.note("* your move is saved but not delivered yet; it goes out on reconnection")
    terminal.type("e7-d6")
    assert terminal.rows[-2:] == [
        "* your move is saved but not delivered yet; it goes out on reconnection",
        "> e7-d6",
    ]
    screen, terminal = tty_screen()
    screen.note("* a status before any prompt")  # not the player's turn: an empty prompt row
    terminal.type("board")
    assert terminal.rows[-2:] == ["* a status before any prompt", "board"]


def test_a_new_status_replaces_the_old_one_and_a_line_that_stays_clears_it():
    """Issue 26.2: redial attempts must not scroll; one status row, redrawn."""
    screen, terminal = tty_screen()
    screen.say("the board")
    screen.set_prompt("> ")
    for attempt in range(5):
        screen.note(f"* cannot connect to 10.0.0.1:4000; retrying in {attempt}.0s", "redial")
    assert terminal.rows == [
        "the board",
        "* cannot connect to 10.0.0.1:4000; retrying in 4.0s",
        "> ",
    ]
    screen.note("x" * 200)  # one row at most, or erasing it would leave a tail behind
    assert len(terminal.rows[-2]) < 80
    screen.say("* seat 0 is back; the game goes on")
    screen.set_prompt("")
    screen.close()
    assert terminal.rows == ["the board", "* seat 0 is back; the game goes on", ""]


def test_after_enter_the_status_and_the_typed_line_stay_as_history(monkeypatch):
    from creepnet.cli.terminal import StdinLines

    screen, terminal = tty_screen()
    screen.set_prompt("> ")
    screen.note("* not delivered yet")
    terminal.type("e7-d6\n")
    monkeypatch.setattr(StdinLines, "read", StdinLines.read + 1)  # the reader got the line
    screen.say("not sent: not your turn")
    assert terminal.rows == ["* not delivered yet", "> e7-d6", "not sent: not your turn", "> "]


def moving(runtime) -> bool:
    """Seats taken and colours drawn: someone is to move."""
    turn = runtime.session.expected()
    return turn is not None and "move" in turn.types


async def test_when_the_host_dies_the_guest_sees_one_line_and_an_undelivered_move(tmp_path):
    said = Said()
    redials = 0
    several_redials = trio.Event()
    host_gone = trio.Event()
    hosted_send, hosted = trio.open_memory_channel(1)

    async with Node.open(tmp_path / "me", host=LOOPBACK, timeouts=FAST) as me:

        async def count_redials() -> None:
            nonlocal redials
            async with me.updates() as stream:
                async for update in stream:
                    if update.kind == updates.ERROR and "retrying" in update.text:
                        redials += 1
                        if redials >= 4:
                            several_redials.set()

        async def host_side() -> None:
            """Host, make the first move if it is ours, then go away with the guest to move."""
            async with Node.open(tmp_path / "host", host=LOOPBACK, timeouts=FAST) as host:
                game = await host.host_game("creeper", "outage", player="h")
                await hosted_send.send((game, host.address))
                await host.wait_for(game, moving)
                if host.session(game).my_turn() is not None:
                    move = creeper.legal_moves(host.session(game).engine_state)[0]
                    await host.play(game, creeper.format_move(move))
                await host.wait_for(game, lambda rt: rt.synced() and bool(rt.followers))
            host_gone.set()

        async def lines():
            await host_gone.wait()
            runtime = await me.wait_for(game, lambda rt: rt.session.my_turn() is not None)
            yield creeper.format_move(creeper.legal_moves(runtime.session.engine_state)[0])
            await said.until("not delivered yet")
            await several_redials.wait()
            yield "quit"

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(count_redials)
                nursery.start_soon(host_side)
                game, address = await hosted.receive()
                await me.join(address, game, player="me")
                await play_in_terminal(me, game, lines=lines(), out=said.out)
                nursery.cancel_scope.cancel()
    text = "\n".join(said.lines)
    assert "disconnected; the game waits" in text and "not delivered yet" in text
    assert sum("retrying" in line for line in said.lines) == 1 and redials >= 4


async def test_play_again_opens_a_new_game_of_the_same_name_with_the_same_players(tmp_path):
    """Both players say yes once: a second game under the same name, colours drawn anew."""
    import queue
    from types import SimpleNamespace

    from creepnet.cli.seat_runner import run_seat
    from creepnet.cli.terminal import StdinLines

    args = SimpleNamespace(bot=None, colour=False, seed=0, pace=0.0)

    def human(node: Node, typed: queue.Queue, said: list[str]):
        """Reads the screen: moves when told it is its turn, says yes to the first rematch."""

        def out(text: str) -> None:
            said.append(text)
            if "your turn" in text:
                for session in (node.session(g) for g in node.games):
                    if session.my_turn() is not None:
                        move = creeper.legal_moves(session.engine_state)[0]
                        typed.put(creeper.format_move(move) + "\n")
            if text.startswith("play again?"):
                typed.put("y\n" if sum(t.startswith("play again?") for t in said) == 1 else "n\n")

        return out

    host_typed, guest_typed = queue.Queue(), queue.Queue()
    host_said: list[str] = []
    guest_said: list[str] = []
    async with seated_pair(tmp_path / "host", tmp_path / "guest", "series", max_plies=4) as (
        host,
        guest,
        first,
    ):
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                for node, typed, said, name in (
                    (host, host_typed, host_said, "h"),
                    (guest, guest_typed, guest_said, "g"),
                ):
                    nursery.start_soon(
                        functools.partial(
                            run_seat,
                            node,
                            first,
                            args,
                            lines=StdinLines(typed.get),
                            out=human(node, typed, said),
                            player=name,
                        )
                    )
        games = [host.session(g) for g in host.games]
    host_typed.put("")  # input ends: the reader threads finish
    guest_typed.put("")
    assert len(games) == 2 and all(s.name == "series" and s.finished for s in games)
    assert all(len(s.seats) == 2 and s.game_state.light_seat is not None for s in games)
    assert [s.seats[1].key for s in games] == [guest.identity.public_key] * 2
    assert any("hosting the rematch 'series'" in t for t in host_said)
    assert any("joined the rematch" in t for t in guest_said)


def test_the_demo_names_the_game_and_its_spectator_reads_what_you_type(tmp_path):
    result = cli(
        "demo", "creeper", "--pace", "0.3", "--max-plies", "16", "--seed", "2",
        "--out", str(tmp_path), stdin="help\n",
    )  # fmt: skip
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "watching 'demo-2-" in out and "you are watching:" in out  # help was answered
    watching = next(line for line in out.splitlines() if line.startswith("watching"))
    assert re.fullmatch(
        r"watching 'demo-2-\w+' \(\w{8}\) at 127\.0\.0\.1:\d+ as a spectator node", watching
    )


async def test_history_lists_past_games_with_names_opponents_dates_and_outcomes(tmp_path):
    from creepnet.cli.main import main

    ann_home, bob_home = tmp_path / "ann", tmp_path / "bob"
    async with seated_pair(ann_home, bob_home, "friday", ("Ann", "Bob"), max_plies=6) as (
        ann,
        bob,
        played,
    ):
        with trio.fail_after(TIMEOUT):
            await finish(played, ann, bob)
        waiting = await ann.host_game("creeper", "saturday", player="Ann")
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()) as captured:
        assert main(["history", "--home", str(tmp_path / "ann")]) == 0
    printed = captured.getvalue().splitlines()
    assert printed[0].split() == ["WHEN", "GAME", "OPPONENT", "RESULT"]
    friday = next(line for line in printed if f"friday ({played.hex()[:8]})" in line)
    assert "Bob" in friday and "draw: move limit of 6 plies" in friday
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d", friday)
    saturday = next(line for line in printed if f"({waiting.hex()[:8]})" in line)
    assert "nobody yet" in saturday and "lobby" in saturday
    assert all(len(line) <= 80 for line in printed[:-1])


async def test_games_shows_the_host_players_name_within_80_columns(tmp_path):
    async with Node.open(
        tmp_path / "host", host=LOOPBACK, discovery=True, iface=[LOOPBACK]
    ) as node:
        game = await node.host_game("creeper", "a rather long game name", player="Ann")
        with trio.fail_after(TIMEOUT):
            code, out, err = await run_cli(
                "games", "--wait", "4", "--iface", LOOPBACK, "--home", str(tmp_path / "g")
            )
    assert code == 0, out + err
    row = next(line for line in out.splitlines() if game.hex()[:8] in line)
    assert row.startswith("a rather long ga Ann ")  # the name cut at 16 columns
    assert all(len(line) <= 80 for line in out.splitlines())


async def test_a_peers_words_reach_the_terminal_without_control_characters(tmp_path):
    """A node that refuses us with terminal escapes and a fake second line in its reason."""
    from creepnet.node.framing import encode_frame

    evil = "\x1b[2J\x1b]0;owned\x07bye\ncreepnet: joined at 10.0.0.1"

    async def hostile_node(stream: trio.SocketStream) -> None:
        await stream.send_all(encode_frame({"type": "error", "reason": evil}))
        with trio.move_on_after(TIMEOUT):
            while await stream.receive_some(4096):
                pass

    async with trio.open_nursery() as nursery:
        serve = functools.partial(trio.serve_tcp, hostile_node, 0, host=LOOPBACK)
        listeners = await nursery.start(serve)
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(TIMEOUT):
            code, out, err = await run_cli(
                "join", "x", "--addr", f"{LOOPBACK}:{port}", "--home", str(tmp_path)
            )
        nursery.cancel_scope.cancel()
    assert code == 1 and "bye" in err, err
    assert "\x1b" not in err and "\x07" not in err and len(err.strip().splitlines()) == 1


def test_in_a_terminal_a_prompt_asks_for_the_move(tmp_path):
    """A pty, as a person would have it: after 'your turn' the line ends in a '> ' prompt."""
    import os
    import pty
    import select
    import time

    main, terminal = pty.openpty()
    process = subprocess.Popen(
        [*CLI, "play", "creeper", "--vs", "random", "--home", str(tmp_path), "--player", "me"],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        close_fds=True,
    )
    os.close(terminal)
    seen = b""

    def read_until(wanted: bytes) -> None:
        nonlocal seen
        deadline = time.monotonic() + TIMEOUT
        while wanted not in seen:
            ready, _, _ = select.select([main], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"never saw {wanted!r} in {seen[-600:]!r}"
            seen += os.read(main, 4096)

    try:
        read_until(b"your turn")
        read_until(b"\n> ")  # the prompt: on a line of its own, waiting for the move
        os.write(main, b"quit\n")
        read_until(b"it waits for you")
        assert process.wait(timeout=TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)


def test_the_first_game_at_a_terminal_asks_for_a_name_once(tmp_path, capsys):
    from types import SimpleNamespace

    from creepnet.cli.options import saved_player_name
    from creepnet.cli.seat_runner import ask_name_once, player_name

    args = SimpleNamespace(home=tmp_path, player=None, bot=None)
    asked: list[str] = []

    def answer(question: str) -> str:
        asked.append(question)
        return "Ann"

    ask_name_once(args, answer, interactive=False)  # no terminal: nobody to ask
    assert not asked and saved_player_name(tmp_path) is None
    ask_name_once(args, answer, interactive=True)
    assert len(asked) == 1 and saved_player_name(tmp_path) == "Ann"
    assert player_name(args, saved_player_name(tmp_path)) == "Ann"
    ask_name_once(args, answer, interactive=True)
    assert len(asked) == 1  # once only
    ask_name_once(SimpleNamespace(home=tmp_path / "x", player=None, bot=None),
                  lambda q: "\x1bbad", interactive=True)  # fmt: skip
    assert saved_player_name(tmp_path / "x") is None and "not saved" in capsys.readouterr().out


async def test_a_stranger_cannot_take_the_seat_kept_for_a_rematch(tmp_path):
    from creepnet.node.node import JoinRefused

    async with (
        seated_pair(tmp_path / "host", tmp_path / "guest", "series") as (host, guest, _),
        Node.open(tmp_path / "stranger", host=LOOPBACK) as stranger,
    ):
        rematch = await host.host_game(
            "creeper", "series", player="a", reserved_for=frozenset({guest.identity.public_key})
        )
        with trio.fail_after(TIMEOUT):
            with pytest.raises(JoinRefused, match="kept for the players of the last game"):
                await stranger.join(host.address, rematch, player="mallory")
            await guest.join(host.address, rematch, player="b")
        assert host.session(rematch).seats[1].key == guest.identity.public_key


async def test_a_game_followed_before_its_genesis_arrives_gets_its_console_then(tmp_path):
    """A host may list a game before its genesis is stored; the spectator's screen waits for
    the genesis (the kind of game) instead of failing with 'no terminal console'."""
    from creepnet.protocol.session import Session

    output: list[str] = []
    introduced = trio.Event()

    def out(text: str) -> None:
        output.append(text)
        if "you are watching" in text:
            introduced.set()

    async def lines():
        await introduced.wait()
        yield "quit"

    async with (
        seated_pair(tmp_path / "host", tmp_path / "guest", "early") as (host, _, game),
        Node.open(tmp_path / "watcher", host=LOOPBACK) as watcher,
    ):
        watcher._register(Session.follow(game), watcher.home.game(game))  # nothing yet
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(
                    functools.partial(play_in_terminal, watcher, game, lines=lines(), out=out)
                )
                await watcher.watch(host.address, game)
    assert any("creeper game 'early'" in text for text in output)


async def test_play_against_a_bot_offers_a_new_game_against_the_same_bot(tmp_path, monkeypatch):
    """`creepnet play --vs BOT` asks "play again?" as host and join do; yes: a new game, the
    same bot joins it and plays; no: the command ends."""
    import queue
    from contextlib import asynccontextmanager

    from creepnet.cli.commands import play
    from creepnet.cli.main import build_parser
    from creepnet.cli.rematch import QUESTION
    from creepnet.cli.terminal import StdinLines

    args = build_parser("play").parse_args(
        ["play", "creeper", "--vs", "random", "--max-plies", "4", "--home", str(tmp_path),
         "--player", "me"]
    )  # fmt: skip
    typed: queue.Queue[str] = queue.Queue()
    said: list[str] = []
    nodes: list[Node] = []

    def out(text: str) -> None:
        said.append(text)
        if "your turn" in text:
            node = nodes[0]
            for session in (node.session(g) for g in node.games):
                if session.my_turn() is not None:
                    move = creeper.legal_moves(session.engine_state)[0]
                    typed.put(creeper.format_move(move) + "\n")
        if text.startswith(QUESTION.rstrip()):
            typed.put("y\n" if sum(t.startswith("play again?") for t in said) == 1 else "n\n")

    real_open_node = play.open_node

    @asynccontextmanager
    async def remembering(*a, **kw):
        async with real_open_node(*a, **kw) as node:
            nodes.append(node)  # our node, to read the board the screen talks about
            yield node

    monkeypatch.setattr(play, "open_node", remembering)
    with trio.fail_after(TIMEOUT):
        code = await play._play(args, lines=StdinLines(typed.get), out=out)
    typed.put("")  # input ends: the reader thread finishes
    assert code == 0
    assert sum(t.startswith("play again?") for t in said) == 2
    assert any("a new game against the random bot" in t for t in said)
    async with Node.open(tmp_path / "bots" / "random") as bot:
        games = [bot.session(g) for g in bot.games]
    assert len(games) == 2 and all(s.finished and s.local_seat == 1 for s in games)
    assert all(s.seats[0].player == "me" for s in games)


async def test_the_end_of_input_is_kept_for_every_later_question():
    """Once stdin has ended, every later read says so at once, even if the reader that took the
    end went away (cancelled when the game ended): "play again?" used to wait forever."""
    import queue

    from creepnet.cli.terminal import StdinLines

    typed: queue.Queue[str] = queue.Queue()
    for line in ("resign\n", ""):  # one line, then the end of input
        typed.put(line)
    lines = StdinLines(typed.get)
    assert await lines.next() == "resign\n"
    assert await lines.next() is None
    while True:  # what a reader cancelled mid-read would have left: an empty channel
        try:
            lines._receive.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel):
            break
    with trio.fail_after(5):
        assert await lines.next() is None
        assert await lines.next() is None


@pytest.mark.parametrize("verbose", [False, True])
def test_redial_warnings_are_not_printed_to_stderr_unless_asked_for(verbose):
    """Issue 26.2: "k3xq-7mfa error: cannot connect …; retrying in 4.0s" scrolled once per
    retry under the status line: logging's last-resort handler printed the node's warnings."""
    code = (
        "import argparse\n"
        "from creepnet.cli.network import setup_logging\n"
        "from creepnet.node import updates\n"
        f"setup_logging(argparse.Namespace(verbose={verbose}))\n"
        "updates.Broadcaster('k3xq-7mfa').publish(\n"
        "    updates.Update(updates.ERROR, 'cannot connect to 10.0.0.1:1; retrying in 4.0s'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    assert ("retrying in 4.0s" in done.stderr) is verbose, done.stderr


async def test_the_host_of_a_rematch_is_told_the_guest_left_and_can_quit_waiting(tmp_path):
    """Issue 26.3: host says yes, guest says no: the host waited forever, deaf to help/quit."""
    import queue

    from creepnet.cli.rematch import WAITING_HELP, rematch
    from creepnet.cli.terminal import StdinLines

    said = Said()
    typed: queue.Queue[str] = queue.Queue()
    async with Node.open(tmp_path / "host", host=LOOPBACK) as host:
        first = await host.host_game("creeper", "series", player="h", options={"max_plies": 4})
        async with Node.open(tmp_path / "guest", host=LOOPBACK) as guest:
            await guest.join(host.address, first, player="g")
            with trio.fail_after(TIMEOUT):
                await finish(first, host, guest)
                await host.wait_for(first, lambda rt: rt.synced())
        # The guest answered no: its command ended and its node closed.
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                result: list[bytes | None] = []

                async def host_says_yes() -> None:
                    result.append(
                        await rematch(host, first, "h", Screen(said.out), StdinLines(typed.get))
                    )

                nursery.start_soon(host_says_yes)
                await said.until("left without joining the rematch")
                typed.put("help\n")
                await said.until(WAITING_HELP)
                typed.put("quit\n")
    typed.put("")  # input ends: the reader thread finishes
    assert result == [None]
    text = "\n".join(said.lines)
    assert "hosting the rematch 'series'" in text and "creepnet join series" in text
    assert "stopped waiting for the rematch" in text
    assert all(len(row) <= 80 for row in text.splitlines())
    # Named as a player, not as a seat of the last game's verdict: that read "* seat 1, g
    # (…), light left without …", and at a Racer table "…, retired left without …".
    gone = next(line for line in said.lines if "left without joining" in line)
    assert re.match(r"\* g \(\w{4}-\w{4}\) left without joining the rematch", gone), gone


def test_one_name_rule_tells_two_seats_of_one_bot_apart():
    """Issue 26.8: two `join --bot heuristic` seats were both "heuristic-bot"."""
    from types import SimpleNamespace

    from creepnet.cli.seat_runner import bot_player_name, player_name

    args = SimpleNamespace(player=None, bot="heuristic")
    first, second = player_name(args, None, "k3xq-7mfa"), player_name(args, None, "b9zz-0aaa")
    assert (first, second) == ("heuristic-bot-k3xq", "heuristic-bot-b9zz")
    assert bot_player_name("greedy", "k3xq-7mfa") == "greedy-bot-k3xq"  # play and demo too
    assert player_name(SimpleNamespace(player="ann", bot="greedy"), None, "k3xq") == "ann"


async def test_a_spectators_saved_name_is_shown_to_the_players(tmp_path):
    """Issue 26.8: the name set with `creepnet id --name` never reached the players."""
    from argparse import Namespace

    from creepnet.cli.creeper.console import CreeperConsole
    from creepnet.cli.network import open_node

    async with seated_pair(tmp_path / "host", tmp_path / "guest", "watched") as (host, _, game):
        args = Namespace(home=tmp_path / "zoe", iface=[LOOPBACK], verbose=False, trace=None)
        with trio.fail_after(TIMEOUT):
            async with (
                host.updates() as stream,
                open_node(args, discovery=False, name="zoe") as zoe,
            ):
                await zoe.watch(host.address, game)
                async for update in stream:
                    if update.kind == updates.FOLLOWER_ARRIVED and update.peer == zoe.fingerprint:
                        break
        news = CreeperConsole(host.session(game)).peer_news(True, update.peer, update.text)
    assert news == f"* zoe ({zoe.fingerprint}) is watching"  # not "… at ADDR follows the game"
