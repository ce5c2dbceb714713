"""The page's endpoints called one by one, with no server and no browser: what each refuses,
that a game's files come only from the list in its record, the icon, the node's address, and
a typed move refused in the terminal's words."""

from __future__ import annotations

from conftest import until_guest_decides
from web_support import call

from creepnet.cli.creeper.console import CreeperConsole, move_problem
from creepnet.cli.faces import FACES
from creepnet.cli.web import creeper_view
from creepnet.cli.web.app import MAX_BODY, build_app, build_replay_app
from creepnet.cli.web.face import WebFace
from creepnet.engine import creeper
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


async def test_every_page_has_an_icon_and_the_lobby_a_usable_node_address(tmp_path):
    async with Node.open(tmp_path / "a", host="0.0.0.0") as alice:
        for app in (build_app(WebFace(alice, "alice")), build_replay_app({"log": tmp_path})):
            status, icon = await call(app, "GET", "/favicon.ico")
            assert status == 200 and icon.startswith("<svg")
        status, lobby = await call(build_app(WebFace(alice, "alice")), "GET", "/api/lobby")
        assert not lobby["address"].startswith("0.0.0.0")  # where others reach us, not the bind
        assert lobby["address"].endswith(f":{alice.port}")


async def test_a_typed_creeper_move_is_refused_in_the_terminals_words(tmp_path):
    """Issue 26 item 14: `b2-b4` with the wrong separator of an illegal capture was answered
    "write b2xb4", illegal too; the page now says what the console says."""
    async with (
        Node.open(tmp_path / "a", host="127.0.0.1") as alice,
        Node.open(tmp_path / "b", host="127.0.0.1") as bob,
    ):
        game = await alice.host_game("creeper", "words", player="alice")
        await bob.join(alice.address, game, player="bob")
        await alice.wait_for(game, lambda rt: rt.session.started, timeout=30)
        await until_guest_decides(alice, game)
        await bob.wait_for(game, lambda rt: rt.session.my_turn() is not None, timeout=30)
        session = bob.session(game)
        word = next(
            f"{origin}-{target}"
            for origin in session.game_state.state.pin_holes(session.game_state.colour_of(1))
            for target in (f"{f}{r}" for f in "abcdefg" for r in range(1, 8))
            if _illegal_capture(session.game_state.state, origin, target)
        )
        app = build_app(WebFace(bob, "bob"))
        before = len(session.log)
        status, answer = await call(app, "POST", f"/api/game/{game.hex()}/act", {"action": word})
        assert status == 400 and len(session.log) == before
        problem = move_problem(session, word)
        assert problem is not None and problem.startswith("illegal: that would be a capture")
        assert answer["error"] == f"not sent: {problem}"
        assert "write" not in answer["error"]
        said = CreeperConsole(session).handle(word).text
        assert " ".join(said.split()) == " ".join(problem.split())  # the console's, unwrapped
        for fine in ("resign", "accept"):  # words the session answers itself pass through
            assert list(creeper_view.typed_actions(session, fine)) == [fine]


def _illegal_capture(state, origin: str, target: str) -> bool:
    """``origin-target`` is a capture's geometry written as a step, and the capture is illegal."""
    try:
        creeper.parse_move(f"{origin}-{target}")
    except creeper.NotationError as exc:
        if "is a capture" not in str(exc):
            return False
    else:
        return False
    try:
        creeper.apply(state, f"{origin}x{target}")
    except creeper.IllegalMove:
        return True
    return False
