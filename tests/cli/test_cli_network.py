"""The networked commands as people use them: real nodes, real sockets, loopback only."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from conftest import FAST, Said, seated_pair

from creepnet.cli.play_loop import play_in_terminal
from creepnet.engine import creeper
from creepnet.node import Node, run_bot
from creepnet.protocol.verify import verify_log_bytes

LOOPBACK = "127.0.0.1"
CLI = [sys.executable, "-m", "creepnet.cli"]
TIMEOUT = 120  # generous: these machines are slow and shared


def cli(
    *words: str, stdin: str | None = None, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *words], input=stdin, capture_output=True, text=True, timeout=timeout
    )


def test_demo_plays_verifies_and_compares_two_process_logs(tmp_path):
    result = cli(
        "demo",
        "creeper",
        "--quiet",
        "--pace",
        "0",
        "--out",
        str(tmp_path),
        "--seed",
        "3",
        "--max-plies",
        "120",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "logs byte-identical: yes" in result.stdout
    host, guest = (tmp_path / "host.log").read_bytes(), (tmp_path / "guest.log").read_bytes()
    assert host == guest
    verdict = verify_log_bytes(host)
    assert verdict.valid and verdict.finished and verdict.outcome in result.stdout


async def test_human_console_against_a_bot_over_real_nodes(tmp_path):
    output: list[str] = []
    async with (
        Node.open(tmp_path / "me", host=LOOPBACK) as me,
        Node.open(tmp_path / "bot", host=LOOPBACK) as bot,
    ):
        game = await me.host_game("creeper", "console", player="me", options={"max_plies": 40})

        async def lines():
            yield "help"
            yield "d4-d5"  # a move out of turn: told whom we wait for
            while True:
                runtime = await me.wait_for(
                    game, lambda rt: rt.session.finished or rt.session.my_turn() is not None
                )
                if runtime.session.finished:
                    return
                yield "moves"
                yield "zz"  # a typo on our turn gets an explanation, not a crash
                yield "a1-a2"  # no such hole: how moves look
                yield "d4-d5"  # never legal for both sides at once: explained when illegal
                state = runtime.session.engine_state
                played = len(runtime.session.log)
                yield creeper.format_move(creeper.legal_moves(state)[-1])
                await me.wait_for(game, lambda rt, n=played: len(rt.session.log) > n)

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                await bot.join(me.address, game, player="bot")
                nursery.start_soon(run_bot, bot, game, "random", 7)
                await play_in_terminal(me, game, lines=lines(), out=output.append)
        text = "\n".join(output)
        assert "(you)" in text and "your turn" in text and "not your turn" in text
        assert "legal moves" in text and "Moves look like" in text and "unknown command" in text
        assert "ply " in text and "game over" in text
        assert me.session(game).finished
        assert me.session(game).log.to_bytes() == bot.session(game).log.to_bytes()


async def test_games_lists_a_game_hosted_on_loopback(tmp_path):
    async with Node.open(
        tmp_path / "host", host=LOOPBACK, discovery=True, iface=[LOOPBACK]
    ) as node:
        game = await node.host_game("creeper", "listed game", player="h")
        with trio.fail_after(TIMEOUT):
            result = await trio.run_process(
                [
                    *CLI,
                    "games",
                    "--wait",
                    "4",
                    "--json",
                    "--iface",
                    LOOPBACK,
                    "--home",
                    str(tmp_path / "g"),
                ],
                capture_stdout=True,
                capture_stderr=True,
            )
    rows = [json.loads(line) for line in result.stdout.decode().splitlines()]
    mine = [row for row in rows if row["game"] == game.hex()[:8]]
    assert mine and mine[0]["title"].startswith("listed game") and mine[0]["seats"] == "1/2"
    assert mine[0]["state"] == "lobby" and mine[0]["address"].startswith(LOOPBACK)


def test_play_against_a_bot_and_resign(tmp_path):
    # Resigning works whoever moves first: out of turn it is queued until our turn.
    result = cli(
        "play",
        "creeper",
        "--vs",
        "random",
        "--home",
        str(tmp_path),
        "--player",
        "tester",
        stdin="resign\nresign\n",  # asked once, then confirmed
    )
    assert result.returncode == 0, result.stdout + result.stderr
    words = " ".join(result.stdout.split())  # a long line is wrapped to 80 columns
    assert "wins by resignation" in words and "verify it with" in words
    log = next((tmp_path / "games").glob("*/log")).read_bytes()
    verdict = verify_log_bytes(log)
    assert verdict.valid and verdict.finished and "resignation" in verdict.outcome


async def test_watch_follows_a_game_by_address(tmp_path):
    async with seated_pair(tmp_path / "a", tmp_path / "b", "watched", max_plies=30) as (a, b, game):
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                watcher = await trio.lowlevel.open_process(
                    [
                        *CLI,
                        "watch",
                        game.hex()[:8],
                        "--addr",
                        a.address,
                        "--home",
                        str(tmp_path / "w"),
                        "--iface",
                        LOOPBACK,
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                )
                # Play only once the spectator follows, so it sees moves arrive live.
                await a.wait_for(game, lambda rt: len(rt.followers) >= 2)
                nursery.start_soon(run_bot, a, game, "greedy", 1)
                nursery.start_soon(run_bot, b, game, "random", 2)
                chunks = []
                while True:
                    chunk = await watcher.stdout.receive_some(65536)
                    if not chunk:
                        break
                    chunks.append(chunk)
                await watcher.wait()
        text = b"".join(chunks).decode()
        assert watcher.returncode == 0, text
        assert "watching at" in text and "you are watching" in text and "game over" in text
        assert Path(text.split("log: ")[-1].strip()).read_bytes() == a.session(game).log.to_bytes()


def test_join_errors_are_one_line_with_exit_codes(tmp_path):
    home = str(tmp_path)
    refused = cli("join", "x", "--addr", f"{LOOPBACK}:1", "--home", home, "--iface", LOOPBACK)
    assert refused.returncode == 1 and "cannot connect" in refused.stderr
    assert "Traceback" not in refused.stderr
    bad = cli("join", "x", "--addr", "nonsense", "--home", home)
    assert bad.returncode == 2 and "HOST:PORT" in bad.stderr
    missing = cli("join", "nothere", "--wait", "1", "--home", home, "--iface", LOOPBACK)
    assert missing.returncode == 1 and "no game 'nothere'" in missing.stderr
    usage = cli("host", "chess")
    assert usage.returncode == 2 and "invalid choice" in usage.stderr


async def test_join_by_address_names_the_games_when_the_name_is_wrong(tmp_path):
    async with Node.open(tmp_path / "host", host=LOOPBACK) as node:
        await node.host_game("creeper", "real name", player="h")
        with trio.fail_after(TIMEOUT):
            result = await trio.run_process(
                [*CLI, "join", "wrong name", "--addr", node.address, "--home", str(tmp_path / "j")],
                capture_stdout=True,
                capture_stderr=True,
                check=False,
            )
    assert result.returncode == 1
    assert b"no game 'wrong name'" in result.stderr and b"'real name'" in result.stderr


async def test_a_resignation_queued_before_input_ends_is_still_sent(tmp_path):
    output: list[str] = []
    queued = trio.Event()

    def out(text: str) -> None:
        output.append(text)
        if "as soon as it is your turn" in text:
            queued.set()

    async with (
        Node.open(tmp_path / "me", host=LOOPBACK) as me,
        Node.open(tmp_path / "bot", host=LOOPBACK) as bot,
    ):
        game = await me.host_game("creeper", "eof", player="me")

        async def lines():
            runtime = await me.wait_for(
                game,
                lambda rt: (
                    rt.session.engine_state is not None
                    and rt.session.game_state.light_seat is not None
                ),
            )
            if runtime.session.my_turn() is not None:  # we are light: move so the bot is to move
                state = runtime.session.engine_state
                yield creeper.format_move(creeper.legal_moves(state)[0])
                await me.wait_for(game, lambda rt: rt.session.my_turn() is None)
            yield "resign"
            yield "resign"  # confirmed out of turn: queued; then input ends

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                await bot.join(me.address, game, player="bot")

                async def bot_after_queue():
                    await queued.wait()  # hold the bot back until the resignation is queued
                    await run_bot(bot, game, "random", 3)

                nursery.start_soon(bot_after_queue)
                await play_in_terminal(me, game, lines=lines(), out=out)
        assert me.session(game).finished and "wins by resignation" in me.session(game).outcome_text


async def test_a_peer_of_another_protocol_version_gets_a_clear_error(tmp_path):
    """A node from the future says hello with version 99: one line, exit 1, no traceback."""
    import secrets

    from creepnet.node.framing import encode_frame
    from creepnet.protocol.identity import Identity

    future = Identity.generate()

    async def future_node(stream: trio.SocketStream) -> None:
        hello = {
            "type": "hello",
            "version": 99,
            "key": future.public_key,
            "nonce": secrets.token_bytes(32),
            "agent": "creepnet/99",
            "name": "future",
        }
        await stream.send_all(encode_frame(hello))
        with trio.move_on_after(TIMEOUT):
            while await stream.receive_some(4096):
                pass  # read whatever the honest node says, until it hangs up

    async with trio.open_nursery() as nursery:
        serve = functools.partial(trio.serve_tcp, future_node, 0, host=LOOPBACK)
        listeners = await nursery.start(serve)
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(TIMEOUT):
            result = await trio.run_process(
                [*CLI, "join", "x", "--addr", f"{LOOPBACK}:{port}", "--home", str(tmp_path)],
                capture_stdout=True,
                capture_stderr=True,
                check=False,
            )
        nursery.cancel_scope.cancel()
    err = result.stderr.decode()
    assert result.returncode == 1 and "version 99" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


async def test_watching_a_finished_game_shows_the_end_and_returns(tmp_path):
    async with seated_pair(tmp_path / "a", tmp_path / "b", "done", max_plies=10) as (a, b, game):
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, a, game, "random", 1)
                nursery.start_soon(run_bot, b, game, "random", 2)
            result = await trio.run_process(
                [*CLI, "watch", game.hex()[:8], "--addr", a.address, "--home", str(tmp_path / "w")],
                capture_stdout=True,
                capture_stderr=True,
                stdin=subprocess.DEVNULL,
                check=False,
            )
    out = result.stdout.decode()
    assert result.returncode == 0, out + result.stderr.decode()
    assert "game over: draw (move limit of 10 plies)" in out and "ply 10" in out


async def test_join_without_a_name_takes_the_only_open_game(tmp_path):
    async with Node.open(tmp_path / "h", host=LOOPBACK, discovery=True, iface=[LOOPBACK]) as host:
        game = await host.host_game("creeper", "solo", player="h", options={"max_plies": 12})
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:

                async def host_plays() -> None:
                    await host.wait_for(game, lambda rt: rt.session.started)
                    await run_bot(host, game, "random", 1)

                nursery.start_soon(host_plays)
                result = await trio.run_process(
                    [
                        *CLI,
                        "join",
                        "--bot",
                        "random",
                        "--iface",
                        LOOPBACK,
                        "--home",
                        str(tmp_path / "j"),
                    ],
                    capture_stdout=True,
                    capture_stderr=True,
                    check=False,
                )
        out = result.stdout.decode()
        assert result.returncode == 0, out + result.stderr.decode()
        assert f"found 'solo' ({game.hex()[:8]})" in out and "game over" in out
        assert host.session(game).finished


def test_join_without_a_name_and_no_open_game_says_what_to_do(tmp_path):
    result = cli("join", "--wait", "1", "--iface", LOOPBACK, "--home", str(tmp_path))
    assert result.returncode == 1 and "no open game found" in result.stderr
    assert "`creepnet host GAME` (GAME: creeper, racer)" in result.stderr


async def visible_on_loopback(names: set[str]) -> None:
    """Wait until zeroconf on 127.0.0.1 shows games with all these names."""
    from creepnet.node.discovery import Found, open_discovery

    seen: set[str] = set()
    async with open_discovery([LOOPBACK]) as discovery, discovery.browse() as channel:
        async for item in channel:
            if isinstance(item, Found):
                seen.add(item.title.rsplit(" ", 2)[0])
                if names <= seen:
                    return


async def test_join_without_a_name_lists_several_open_games(tmp_path):
    async with (
        Node.open(tmp_path / "a", host=LOOPBACK, discovery=True, iface=[LOOPBACK]) as a,
        Node.open(tmp_path / "b", host=LOOPBACK, discovery=True, iface=[LOOPBACK]) as b,
    ):
        await a.host_game("creeper", "first", player="a")
        await b.host_game("creeper", "second", player="b")
        with trio.fail_after(TIMEOUT):
            await visible_on_loopback({"first", "second"})  # both adverts are announced
            result = await trio.run_process(
                [*CLI, "join", "--wait", "6", "--iface", LOOPBACK, "--home", str(tmp_path / "j")],
                capture_stdout=True,
                capture_stderr=True,
                check=False,
            )
    err = result.stderr.decode()
    assert result.returncode == 1 and "several open games" in err
    assert "'first'" in err and "'second'" in err


async def test_browsing_sees_only_the_games_of_its_own_service_type(tmp_path, monkeypatch):
    """The suite's guard against strangers: a game advertised under another DNS-SD type (another
    test run on this machine) is invisible to `creepnet games`, which sees this test's game."""
    import os

    from creepnet.node.discovery import SERVICE_TYPE_ENV, GameAd, open_discovery

    ours = os.environ[SERVICE_TYPE_ENV]
    stranger_type = "_cnx" + ours[4:]  # same length, another type
    stranger = GameAd(os.urandom(16), "stranger", "creeper", "abcd-efgh", 4242, 1, 2, "lobby")

    async def games_json(service: str) -> set[str]:
        result = await trio.run_process(
            [*CLI, "games", "--wait", "3", "--json", "--iface", LOOPBACK],
            capture_stdout=True,
            env={**os.environ, SERVICE_TYPE_ENV: service},
        )
        return {json.loads(line)["game"] for line in result.stdout.decode().splitlines()}

    async with (
        open_discovery([LOOPBACK]) as other_run,
        Node.open(tmp_path / "h", host=LOOPBACK, discovery=True, iface=[LOOPBACK]) as host,
    ):
        monkeypatch.setenv(SERVICE_TYPE_ENV, stranger_type)
        await other_run.advertise(stranger)
        monkeypatch.setenv(SERVICE_TYPE_ENV, ours)
        game = await host.host_game("creeper", "mine", player="h")
        with trio.fail_after(TIMEOUT):
            seen_by_us = await games_json(ours)
            seen_by_them = await games_json(stranger_type)
    assert game.hex()[:8] in seen_by_us and stranger.short_game not in seen_by_us
    assert stranger.short_game in seen_by_them and game.hex()[:8] not in seen_by_them


@pytest.mark.parametrize("kind", ["creeper", "racer"])
async def test_the_terminal_says_when_the_opponent_leaves_and_when_they_are_back(tmp_path, kind):
    said = Said()
    async with (
        Node.open(tmp_path / "me", host=LOOPBACK, timeouts=FAST) as me,
        Node.open(tmp_path / "them", host=LOOPBACK, timeouts=FAST) as them,
    ):
        game = await me.host_game(kind, "flaky", player="me")
        await them.join(me.address, game, player="them")

        async def lines():
            await me.wait_for(game, lambda rt: them.identity.public_key in rt.followers)
            me.peers[them.identity.public_key].close("test: cable pulled")
            await said.until("disconnected; the game waits")
            await said.until("is back; the game goes on")  # they redial on their own
            yield "quit"

        with trio.fail_after(TIMEOUT):
            await play_in_terminal(me, game, lines=lines(), out=said.out)
    news = [line for line in said.lines if "them (" in line and line.startswith("* ")]
    assert len(news) == 2, news
    assert news[0].startswith("* ") and "disconnected; the game waits" in news[0]
    assert "is back" in news[1]
