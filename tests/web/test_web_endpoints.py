"""The page's endpoints called one by one, with no server and no browser: what each refuses, and
that a game's files come only from the list in its record."""

from __future__ import annotations

from web_support import call

from creepnet.cli.faces import FACES
from creepnet.cli.web.app import MAX_BODY, build_app
from creepnet.cli.web.face import WebFace
from creepnet.node.node import Node


async def test_hosting_refuses_bad_fields_and_offers_every_game_of_the_registry(tmp_path):
    async with Node.open(tmp_path / "a") as alice:
        app = build_app(WebFace(alice, "alice"))
        status, lobby = await call(app, "GET", "/api/lobby")
        assert status == 200
        assert [k["kind"] for k in lobby["hostable"]] == list(FACES)
        assert lobby["titles"] == {kind: FACES[kind].title for kind in FACES}
        for body, why in [
            ({"kind": "creeper", "limit": 0}, "the limit must be a whole number"),
            ({"kind": "creeper", "limit": True}, "the limit must be a whole number"),
            ({"kind": "racer", "seats": "two"}, "the number of players must be a whole number"),
            ({"kind": "chess"}, "this page cannot host 'chess' games"),
            ({"kind": "racer", "seats": 5}, "2 to 4 players"),
        ]:
            status, answer = await call(app, "POST", "/api/host", body)
            assert status == 400 and why in answer["error"], (body, answer)
        status, answer = await call(app, "POST", "/api/host", {"name": "x" * MAX_BODY})
        assert status == 400 and answer["error"] == "request too large"
        assert alice.games == {}  # nothing refused was hosted


async def test_a_move_is_refused_with_its_reason_and_unknown_games_are_not_found(tmp_path):
    async with (
        Node.open(tmp_path / "a", host="127.0.0.1") as alice,
        Node.open(tmp_path / "b", host="127.0.0.1") as bob,
    ):
        app = build_app(WebFace(alice, "alice"))
        status, hosted = await call(app, "POST", "/api/host", {"kind": "creeper", "name": "g"})
        game = bytes.fromhex(hosted["game"])
        await bob.join(alice.address, game, player="bob")
        await alice.wait_for(game, lambda rt: rt.session.started, timeout=30)
        path = f"/api/game/{game.hex()}"
        status, view = await call(app, "GET", path)
        assert status == 200 and view["page"]["script"] == "/games/creeper/board.js"
        assert view["page"]["draw_offers"] and view["page"]["resign"]
        status, answer = await call(app, "POST", path + "/act", {"action": " "})
        assert status == 400 and answer["error"] == "no move given"
        before = len(alice.session(game).log)
        status, answer = await call(app, "POST", path + "/act", {"action": "a1-a2"})
        assert status == 400 and answer["error"].startswith("not sent")
        assert len(alice.session(game).log) == before
        for missing in ("/api/game/zz", "/api/game/" + "00" * 16):
            status, answer = await call(app, "GET", missing)
            assert status == 404, answer


async def test_a_games_files_are_only_those_its_record_lists(tmp_path):
    async with Node.open(tmp_path / "a") as alice:
        app = build_app(WebFace(alice, "alice"))
        status, css = await call(app, "GET", "/games/racer/racer.css")
        assert status == 200 and ".racer" in css
        for path in (
            "/games/racer/face.py",  # beside the script, but not listed
            "/games/racer/..%2Ffaces.py",
            "/games/racer/board.js",  # another game's script
            "/games/chess/board.js",
        ):
            status, _ = await call(app, "GET", path)
            assert status == 404, path
