"""What four friends at one Creepy Racer table ran into (host, three joins, one goes home early,
the others finish; then replay and verify): the last node to finish hands the game's end to
the others before it goes, a retired seat is not told that the game waits for it, a player is
warned before the table retires a silence, and a damaged log replays to the verdict verify
gives."""

from __future__ import annotations

import re
import subprocess
import sys
from types import SimpleNamespace

import trio
import trio.testing
from conftest import Said, only_log, seated_pair

from creepnet.cli.commands.host import show_lobby
from creepnet.cli.narration import unseated_news
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.seat_runner import linger, say_how_to_return
from creepnet.engine import creeper
from creepnet.node import retirement
from creepnet.node.game import GameRuntime
from creepnet.node.node import Node
from creepnet.protocol.rules import Turn
from creepnet.protocol.session import Phase
from creepnet.protocol.verify import abandonment_text

CLI = [sys.executable, "-m", "creepnet.cli"]
LOOPBACK = "127.0.0.1"
TIMEOUT = 120  # generous: these machines are slow and shared


class OneGameNode:
    """A node's waits (Node.wait_for, Node.wait_synced) over one game's runtime, nothing more."""

    def __init__(self, runtime: GameRuntime) -> None:
        self.runtime = runtime

    def _runtime(self, game: bytes) -> GameRuntime:
        return self.runtime

    wait_for = Node.wait_for
    wait_synced = Node.wait_synced


async def first_decision(node: Node, game: bytes) -> Turn:
    """The first turn a person owes: the nodes deal, draw and reveal by themselves."""
    runtime = await node.wait_for(game, lambda rt: rt.session.waiting_for() is not None)
    while (turn := runtime.session.expected()) is None or turn.automatic:
        await node.wait_changed(game)
    return turn


async def guest_owes_a_move(host: Node, game: bytes) -> None:
    """A Creeper game of seated_pair, once the host has moved if it plays light."""
    turn = await first_decision(host, game)
    session = host.session(game)
    if turn.seat == session.local_seat:
        await host.play(game, creeper.format_move(creeper.legal_moves(session.engine_state)[0]))


async def quit_once_said(node: Node, game: bytes, said: Said, wanted: str) -> None:
    """Run node's console for its seat until it says ``wanted``, then type `quit`."""

    async def lines():
        await said.until(wanted)
        yield "quit"

    with trio.fail_after(TIMEOUT):
        await play_in_terminal(node, game, lines=lines(), out=said.out)


async def test_a_finished_node_stays_until_its_last_events_are_stored_and_acknowledged():
    """The game is over in memory as soon as the session takes its last event; the node's last
    events (a Racer seat's audit reveal, which it owes by itself) may still be on their way to
    the disk, and only then are they sent.  A node that went away then left the others
    waiting for good on an unfinished log, and offered to claim the game abandoned."""
    follower = b"k" * 32
    session = SimpleNamespace(log=[b"event"] * 3)  # three events taken, two stored
    runtime = GameRuntime(session=session, store=None, stored=2)  # type: ignore[arg-type]
    runtime.followers[follower] = None  # type: ignore[assignment]
    runtime.acked[follower] = 2  # the follower has everything stored so far
    node = OneGameNode(runtime)
    done = trio.Event()

    async def finish() -> None:
        await linger(node, b"game", seconds=TIMEOUT)  # type: ignore[arg-type]
        done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(finish)
        await trio.testing.wait_all_tasks_blocked()
        assert not done.is_set(), "went away before its last event was even stored"
        runtime.stored = 3
        runtime.notify()
        await trio.testing.wait_all_tasks_blocked()
        assert not done.is_set(), "went away before the others had its last event"
        runtime.acked[follower] = 3
        runtime.notify()
        with trio.fail_after(TIMEOUT):
            await done.wait()


class OneSessionNode:
    def __init__(self, session: SimpleNamespace) -> None:
        self._session = session

    def session(self, game: bytes) -> SimpleNamespace:
        return self._session


def test_a_retired_seat_that_quits_is_not_told_the_game_waits_for_it():
    """Ann thought too long and the table retired her; she watched on, then typed `quit` (or
    pressed Ctrl-C).  She was told the game waited for her and how long her opponent would
    wait on her turn: she has no turn any more, and nothing waits for her."""
    session = SimpleNamespace(
        local_seat=0,
        retired=[0],
        remaining=(1, 3),
        retires_a_silence=False,
        phase=Phase.PLAYING,
        retire_after=120.0,
    )
    said: list[str] = []
    hint = "creepnet host racer --name sun"
    say_how_to_return(OneSessionNode(session), b"game", said.append, hint, True)  # type: ignore[arg-type]
    text = "\n".join(said)
    assert "waits for you" not in text and "on your turn" not in text, text
    assert "retired your seat" in text, text
    # A seat still playing is told how to come back, and how long the others wait.
    session.retired = []
    said.clear()
    say_how_to_return(OneSessionNode(session), b"game", said.append, hint, True)  # type: ignore[arg-type]
    assert f"it waits for you: {hint}" in said[0] and "on your turn" in said[1], said


async def test_the_player_the_table_waits_on_is_warned_before_it_acts(tmp_path):
    """Ann sat at her prompt reading her hand; the others' screens counted down ('they will
    be retired in 6 s'), hers said nothing, and then 'the table retired you'.  Once half the
    table's patience is gone, her status line says how long she has left to move."""
    said = Said()
    async with seated_pair(tmp_path / "host", tmp_path / "guest", "slow", retire_after=4) as (
        host,
        guest,
        game,
    ):
        turn = await first_decision(host, game)  # after the colour coin
        to_move = host if turn.seat == host.session(game).local_seat else guest

        await quit_once_said(to_move, game, said, "your opponent may claim the game at any moment")
    # A status line: in a pipe, the first of the countdown and then that time is up.
    warnings = [line for line in said.lines if "may claim the game" in line]
    assert len(warnings) == 2, said.lines
    countdown = r"\* move within [12] s before your opponent may claim the game"
    assert re.fullmatch(countdown, warnings[0]), warnings
    up = "* silent for the table's 4 s: your opponent may claim the game at any moment"
    assert warnings[1] == up, warnings


def cli(*words: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *words], input=stdin, capture_output=True, text=True, timeout=TIMEOUT
    )


def test_a_damaged_log_replays_to_the_verdict_verify_gives(tmp_path):
    """A log cut short (a crash mid-write, a copy cut off) replayed its intact events and said
    'unfinished: waiting for …', exit 0, where `verify` says INVALID: torn tail; an empty file
    said 'unfinished: stuck'.  Replay now ends with verify's verdict, and exits 1."""
    home = tmp_path / "home"
    played = cli("play", "creeper", "--vs", "random", "--home", str(home), stdin="quit\n")
    assert played.returncode == 0, played.stdout + played.stderr
    data = only_log(home).read_bytes()
    cut, empty, torn_only = tmp_path / "cut.log", tmp_path / "empty.log", tmp_path / "bit.log"
    cut.write_bytes(data[:-5])
    empty.write_bytes(b"")
    torn_only.write_bytes(data[:3])
    for damaged in (cut, empty, torn_only):
        verdict = cli("verify", str(damaged))
        replay = cli("replay", str(damaged))
        said = verdict.stdout.splitlines()[1].strip()  # "seq N: why", under "FILE: INVALID"
        assert verdict.returncode == replay.returncode == 1, replay.stdout + replay.stderr
        assert replay.stdout.splitlines()[-1] == f"INVALID: {said}", replay.stdout
        assert "Traceback" not in replay.stderr, replay.stderr


async def test_a_bot_host_resuming_a_game_under_way_does_not_announce_its_start(tmp_path, capsys):
    """Ann quit mid-game and ran `host racer --name friday --bot easy` to let a bot finish
    her seat: the lobby was printed again, every seat '(4/4 seated)', then 'all seats taken:
    the game starts', of a game at turn 5.  The lobby is told only while it fills."""
    async with seated_pair(tmp_path / "host", tmp_path / "guest", "under way") as (host, _, game):
        await host.wait_for(game, lambda rt: rt.session.started)
        capsys.readouterr()
        with trio.fail_after(TIMEOUT):
            await show_lobby(host, game)
    assert capsys.readouterr().out == ""


async def test_a_racer_lobby_says_how_to_stop_waiting_as_creepers_does(tmp_path):
    """Two of four seats taken: Creeper's lobby says "'quit' stops waiting", Racer's said only
    'waiting for players to join (2/4 seats taken)', with no prompt, for as long as it took."""
    said = Said()
    async with (
        Node.open(tmp_path / "host", host=LOOPBACK) as host,
        Node.open(tmp_path / "me", host=LOOPBACK) as me,
    ):
        game = await host.host_game("racer", "lobby", seats=4, player="ann")
        await me.join(host.address, game, player="me")

        await quit_once_said(me, game, said, "waiting for players to join")
    waiting = [line for line in said.lines if "waiting for players to join" in line]
    assert waiting[-1].endswith("(2/4 seats taken); 'quit' stops waiting"), said.lines


def test_a_spectator_without_a_name_is_someone_not_a_bare_fingerprint():
    """`creepnet watch friday` from a home with no saved name: the players read
    '* (5ibz-kpwy) is watching', a line that starts with nobody."""
    text = "(5ibz-kpwy) at 127.0.0.1:4000 follows the game"
    assert unseated_news(text, connected=True, started=True) == "someone (5ibz-kpwy) is watching"
    gone = "(5ibz-kpwy) at 127.0.0.1:4000 stopped following the game"
    assert unseated_news(gone, connected=False, started=False) == "someone (5ibz-kpwy) left"
    named = "Dan (5ibz-kpwy) at 127.0.0.1:4000 follows the game"
    assert unseated_news(named, connected=True, started=True) == "Dan (5ibz-kpwy) is watching"


async def test_history_tells_the_whole_result_and_a_path_that_replays(tmp_path, capsys):
    """`creepnet history` cut each row at 80 columns, results too: 'you lost: keeping the last
    C', and it said 'replay one: creepnet replay HOME/games/<id>/log' where <id> is a folder
    of 32 hex digits the table shows 8 of.  A long result now goes on under its column, and
    the hint names the newest game's log."""
    from creepnet.cli.main import main, runnable

    ann_home = tmp_path / "ann"
    async with seated_pair(ann_home, tmp_path / "bob", "friday", ("Ann", "Bob")) as (
        ann,
        bob,
        game,
    ):
        with trio.fail_after(TIMEOUT):
            await guest_owes_a_move(ann, game)
            await bob.leave(game)
            while True:
                try:
                    await ann.claim(game)
                    break
                except ValueError:  # the leave notice is on its way
                    await ann.wait_changed(game)
    capsys.readouterr()
    assert main(["history", "--home", str(ann_home)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 80 for line in printed[:-1]), printed  # the hint: a path
    result = abandonment_text(ann.session(game)) or ""
    assert len(result) > 28  # longer than its column
    told = " ".join(line[52:].strip() for line in printed[1:-1])
    assert result in told, printed
    hint = printed[-1]
    assert hint == f"replay the last one: {runnable()} replay {only_log(ann_home)}", hint


async def test_the_player_a_game_is_claimed_from_reads_it_once(tmp_path):
    """Bob went quiet at his prompt and Ann claimed the game: his screen (and a spectator's)
    said 'game over: unfinished: abandoned by seat 1, …' and then the same words again."""
    said = Said()
    async with seated_pair(tmp_path / "ann", tmp_path / "bob", "quiet", retire_after=1) as (
        ann,
        bob,
        game,
    ):
        with trio.fail_after(TIMEOUT):
            await guest_owes_a_move(ann, game)

        async def claim() -> None:
            async with ann.updates() as stream:
                async for update in stream:
                    if update.game == game and update.kind == retirement.CLAIMABLE:
                        return await ann.claim(game)

        async def lines():
            await trio.sleep_forever()
            yield ""

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(claim)
                await play_in_terminal(bob, game, lines=lines(), out=said.out)
    told = [line for line in said.lines if "abandoned by seat 1" in line]
    assert len(told) == 1, said.lines


async def test_a_player_thinking_is_no_news_on_the_others_screens(tmp_path):
    """At a table of three, each turn of each other player put '* waiting for Ann: no word
    for 1 s, they will be retired in 119 s' on the status line, a second into her turn.  A
    seat a bot plays waits until a silence lasts; a person's screen now does the same."""
    said = Said()
    async with (
        Node.open(tmp_path / "ann", host=LOOPBACK) as ann,
        Node.open(tmp_path / "bob", host=LOOPBACK) as bob,
        Node.open(tmp_path / "cat", host=LOOPBACK) as cat,
    ):
        game = await ann.host_game("racer", "three", seats=3, player="ann")
        await bob.join(ann.address, game, player="bob")
        await cat.join(ann.address, game, player="cat")
        with trio.fail_after(4 * TIMEOUT):
            turn = await first_decision(ann, game)
        watcher = next(n for n in (ann, bob, cat) if n.session(game).local_seat != turn.seat)

        await quit_once_said(watcher, game, said, "no word for")
    told = next(line for line in said.lines if "no word for" in line)
    silent = int(re.search(r"no word for (\d+) s", told)[1])  # type: ignore[index]
    assert silent >= 10, said.lines


def test_log_of_an_empty_file_says_so_and_fails(tmp_path):
    """`creepnet log` of an empty file printed nothing and exited 0, as for a good log; verify
    says INVALID: the log holds no events."""
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    listed = cli("log", str(empty))
    assert listed.returncode == 1, listed.stdout + listed.stderr
    assert listed.stdout.strip() == "(the log holds no events)", listed.stdout
