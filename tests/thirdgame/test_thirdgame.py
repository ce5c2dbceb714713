"""A third game, registered by these tests only, plays through every face: `demo` (host and join
as separate processes, a spectator drawing it), the terminal console, `verify`, `replay` and the
page, with no shared module naming it (the registries are the only way in)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import dicerace
import pytest
import trio

from creepnet.cli.faces import FACES
from creepnet.cli.main import main
from creepnet.cli.play_loop import play_in_terminal
from creepnet.cli.web.app import build_app
from creepnet.cli.web.face import WebFace
from creepnet.node import Node, run_bot
from creepnet.protocol.games import GAMES, Game
from creepnet.protocol.verify import verify_log_bytes

sys.path.insert(0, str(Path(__file__).parents[1] / "web"))
from web_support import call  # noqa: E402

LOOPBACK = "127.0.0.1"
TIMEOUT = 120
CLI = [sys.executable, str(Path(__file__).with_name("dicerace_cli.py"))]
KIND = dicerace.KIND


@pytest.fixture
def registered(monkeypatch):
    """The dice race in both registries, for this test only."""
    monkeypatch.setitem(GAMES, KIND, Game(dicerace.DiceRaceRules(), {"roller": dicerace.Roller}))
    monkeypatch.setitem(FACES, KIND, dicerace.FACE)


def test_nothing_knows_the_dice_race_unless_it_is_registered(capsys):
    assert KIND not in GAMES and KIND not in FACES
    with pytest.raises(SystemExit):
        main(["demo", KIND])  # not a game the command line offers
    assert "invalid choice" in capsys.readouterr().err


def test_demo_host_and_join_processes_play_it_a_spectator_draws_it_and_the_log_checks(
    tmp_path, registered, capsys
):
    result = subprocess.run(
        [*CLI, "demo", KIND, "--out", str(tmp_path), "--seed", "4", "--pace", "0"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "logs byte-identical: yes (host, guest, watcher)" in out
    assert "A dice race" in out and "track to 10" in out  # the spectator's console, by registry
    log = (tmp_path / "host.log").read_bytes()
    verdict = verify_log_bytes(log)
    assert verdict.valid and verdict.finished and "wins by reaching 10" in verdict.outcome
    assert verdict.outcome in out

    assert main(["verify", str(tmp_path / "host.log")]) == 0
    assert "valid" in capsys.readouterr().out
    plain = subprocess.run(  # the same log, to a creepnet that was never told of the game
        [sys.executable, "-m", "creepnet.cli", "verify", str(tmp_path / "host.log")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert plain.returncode == 1 and f"unknown game kind {KIND!r}" in plain.stdout
    assert main(["replay", str(tmp_path / "host.log")]) == 0
    told = capsys.readouterr().out
    rolls = told.count(" rolls the die\n")  # in the words of the game's record
    reveals = told.count("reveals randomness")
    assert rolls >= 2 and reveals == 2 * rolls  # every roll drawn by both seats' reveals
    assert told.count("track to 10:") == rolls + 1  # the start, then after each roll
    assert main(["replay", "--at", "1", str(tmp_path / "host.log")]) == 0
    at = capsys.readouterr().out
    assert at.count("track to 10:") == 1 and "reveals randomness for draw 0" in at
    assert main(["replay", "--at", str(rolls + 1), str(tmp_path / "host.log")]) == 2
    assert f"only {rolls} moves" in capsys.readouterr().err


def test_a_bad_limit_and_another_games_flag_are_refused_before_any_node_starts(
    tmp_path, registered, capsys
):
    assert main(["demo", KIND, "--max-turns", "0", "--out", str(tmp_path)]) == 2
    assert "--max-turns must be positive" in capsys.readouterr().err
    assert main(["demo", KIND, "--max-plies", "5", "--out", str(tmp_path)]) == 2
    assert "--max-plies is a creeper option" in capsys.readouterr().err
    assert main(["demo", KIND, "--cheat", "--out", str(tmp_path)]) == 2
    assert "dicerace has no cheat demo" in capsys.readouterr().err


async def test_a_player_rolls_at_the_terminal_against_a_bot_over_real_nodes(tmp_path, registered):
    output: list[str] = []
    async with (
        Node.open(tmp_path / "me", host=LOOPBACK) as me,
        Node.open(tmp_path / "bot", host=LOOPBACK) as bot,
    ):
        game = await me.host_game(KIND, "terminal", player="me", options={"max_turns": 30})

        async def lines():
            yield "jump"  # not a word of this game: the console says what is
            while True:
                runtime = await me.wait_for(
                    game, lambda rt: rt.session.finished or rt.session.my_turn() is not None
                )
                if runtime.session.finished:
                    return
                played = len(runtime.session.log)
                yield "roll"
                await me.wait_for(game, lambda rt, n=played: len(rt.session.log) > n)

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                await bot.join(me.address, game, player="bot")
                nursery.start_soon(run_bot, bot, game, "roller", 3)
                await play_in_terminal(me, game, lines=lines(), out=output.append)
        text = "\n".join(output)
        assert "A dice race" in text and "type roll (or quit)" in text
        assert "game over" in text and "wins by reaching 10" in text
        assert me.session(game).log.to_bytes() == bot.session(game).log.to_bytes()


async def test_the_page_hosts_it_plays_it_by_clicks_and_replays_it(tmp_path, registered):
    async with (
        Node.open(tmp_path / "a", host=LOOPBACK) as alice,
        Node.open(tmp_path / "b", host=LOOPBACK) as bob,
    ):
        face = WebFace(alice, "alice")
        app = build_app(face)
        status, lobby = await call(app, "GET", "/api/lobby")
        offered = {k["kind"]: k for k in lobby["hostable"]}
        assert offered[KIND]["title"] == "Dice race" and offered[KIND]["limit"] == "Turn limit"
        assert offered[KIND]["max_seats"] == 4
        status, hosted = await call(
            app, "POST", "/api/host", {"kind": KIND, "name": "race", "seats": 2, "limit": 30}
        )
        assert status == 200, hosted
        game = bytes.fromhex(hosted["game"])
        assert alice.session(game).options == {"max_turns": 30}
        async with trio.open_nursery() as nursery:
            await bob.join(alice.address, game, player="bob")
            nursery.start_soon(run_bot, bob, game, "roller", 5)
            with trio.fail_after(TIMEOUT):
                view = await _play_by_page(app, alice, game)
        assert view["finished"] and "wins by reaching 10" in view["outcome"]
        page = view["page"]
        assert page["module"] == KIND and page["words"]["placeholder"] == "type: roll"
        assert not page["draw_offers"] and not page["resign"]
        status, script = await call(app, "GET", page["script"])
        assert status == 200 and 'registerView("dicerace"' in script
        status, _ = await call(app, "GET", f"/games/{KIND}/dicerace.py")
        assert status == 404  # only the files its record lists are served from its folder

        status, replay = await call(app, "GET", f"/api/replay/{game.hex()}")
        assert status == 200 and replay["verdict"]["valid"] and replay["page"]["module"] == KIND
        last = replay["boards"][replay["frames"][-1]["board"]]
        assert last["track"] == list(alice.session(game).game_state.track)
        assert replay["frames"][0]["board"] is None  # before the start, no track


async def _play_by_page(app, node: Node, game: bytes) -> dict:
    """Roll by the page's act endpoint on each of our turns; the last view of the game."""
    path = f"/api/game/{game.hex()}"
    refused = False
    while True:
        runtime = await node.wait_for(
            game, lambda rt: rt.session.finished or rt.session.my_turn() is not None
        )
        if not refused:  # a word the game does not know is refused, and nothing is sent
            before = len(runtime.session.log)
            status, answer = await call(app, "POST", path + "/act", {"action": "jump"})
            assert status == 400 and re.search("not sent: .*roll", answer["error"]), answer
            assert len(node.session(game).log) == before
            refused = True
        if runtime.session.finished:
            status, view = await call(app, "GET", path)
            return view
        status, view = await call(app, "GET", path)
        assert view["board"]["can_roll"] and view["my_turn"] == ["roll"]
        status, view = await call(app, "POST", path + "/act", {"action": "roll"})
        assert status == 200, view
