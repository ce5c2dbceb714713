"""The host form's bot levels (issue 25): the lobby offers each game's registry levels, and a
game hosted against a level has a bot node in every other seat that really plays."""

from __future__ import annotations

import trio
from conftest import FAST
from web_support import call, web_node

from creepnet.cli.web.app import build_app
from creepnet.cli.web.face import WebFace
from creepnet.node.node import Node
from creepnet.protocol.games import get_game


async def test_the_lobby_offers_the_registry_levels_and_refuses_others(tmp_path) -> None:
    async with Node.open(tmp_path / "a") as alice:
        app = build_app(WebFace(alice, "alice"))
        _, lobby = await call(app, "GET", "/api/lobby")
        for kind in lobby["hostable"]:
            levels = get_game(kind["kind"]).levels
            assert [lv["level"] for lv in kind["levels"]] == list(levels)
            assert [lv["what"] for lv in kind["levels"]] == list(levels.values())
        for vs, why in [("grandmaster", "no bot level 'grandmaster'"), (3, "the bot level")]:
            status, answer = await call(app, "POST", "/api/host", {"kind": "creeper", "vs": vs})
            assert status == 400 and why in answer["error"], answer
        assert alice.games == {}


async def test_a_game_hosted_against_a_level_gets_a_bot_that_plays(tmp_path) -> None:
    with trio.fail_after(120):
        async with web_node(tmp_path / "a", "alice", host="127.0.0.1", timeouts=FAST) as (
            alice,
            _,
            app,
        ):
            body = {"kind": "creeper", "vs": "easy"}
            status, hosted = await call(app, "POST", "/api/host", body)
            assert status == 200, hosted
            game = bytes.fromhex(hosted["game"])
            await alice.wait_for(game, lambda rt: rt.session.started, timeout=60)
            session = alice.session(game)
            assert session.name == "alice vs easy"
            assert session.seats[1].player.startswith("easy-bot-")
            bot = get_game("creeper").make_bot("random", 1)

            def bot_moved(rt) -> bool:
                log = rt.session.log.events
                return any(e.type == "move" and e.author == session.seat_keys[1] for e in log)

            while not bot_moved(alice.games[game]):  # we move when it is ours; the bot answers
                if session.my_turn() is not None:
                    await alice.play(game, bot.choose(session.local_view(), 0))
                else:
                    await alice.wait_changed(game)
            assert (tmp_path / "a" / "bots" / "page" / f"{game.hex()[:16]}-1").is_dir()
