"""Attacks on the page's HTTP surface that got through the guard (cookie, Host, Origin) once,
each shown as it was tried, with the answer it gets now.  (The guard's own checks:
test_web_guard.py and test_web_link.py; the framing attack in a real browser:
test_web_attacks_browser.py.)"""

from __future__ import annotations

import trio
from conftest import FAST, until_guest_decides
from test_web_guard import http, request, served, session, websocket
from web_support import SHORT_RACER, call, web_node

from creepnet.node.node import Node

# Who may frame the page: nobody (a page on another 127.0.0.1 port is the same *site*, so the
# browser sends it our SameSite=Strict cookie inside a frame, and it could lay the page under
# its own and have the player click Leave or Host unawares).
NO_FRAMES = ("content-security-policy: frame-ancestors 'none'", "x-frame-options: deny")


def headers_of(rest: str) -> set[str]:
    head = rest.partition("\r\n\r\n")[0]
    return {line.strip().lower() for line in head.split("\r\n")}


async def test_no_answer_of_the_page_may_be_shown_in_another_pages_frame(tmp_path):
    """Clickjacking: every answer forbids framing, the page and its API as much as a refusal
    (which a framing page would otherwise see in place of the page, and could dress up)."""
    async with served(tmp_path) as (_, server):
        here, cookie = f"127.0.0.1:{server.port}", await session(server)
        for head in (
            http("GET", "/", here, cookie),
            http("GET", "/game/00", here, cookie),
            http("GET", "/static/lobby.js", here, cookie),
            http("GET", "/api/lobby", here, cookie),
            http("GET", "/", here),  # no session: refused
            http("GET", f"/?code={server.url().rpartition('=')[2]}", here),  # the link's page
        ):
            status, rest = await request(server, head)
            assert status in (200, 403), rest
            answer = headers_of(rest)
            assert set(NO_FRAMES) <= answer, (head, answer)
            assert "x-content-type-options: nosniff" in answer, (head, answer)


async def test_a_deeply_nested_body_within_the_size_limit_gets_words_not_a_crash(tmp_path):
    """JSON nested a few thousand deep fits in MAX_BODY, and Python's parser gives up on it with
    RecursionError (no ValueError): the page got "Internal Server Error"."""
    async with served(tmp_path) as (node, server):
        here, cookie = f"127.0.0.1:{server.port}", await session(server)
        for body in (b"[" * 4000, b'{"a":' * 800, b"[" * 2000 + b"]" * 2000):
            head = http("POST", "/api/host", here, cookie, length=len(body))
            status, rest = await request(server, head, body)
            assert status == 400 and "JSON" in rest, rest
        assert not node.games


async def test_a_racer_line_naming_no_card_to_discard_gets_words_not_a_crash(tmp_path):
    """``discard`` alone (or after other steps, or as ``discard card``: "card" is a filler
    word) on the player's turn: the grammar looked at the word after it, which is not there, and
    the page got "Internal Server Error"."""
    with trio.fail_after(120):
        async with (
            Node.open(tmp_path / "a", host="127.0.0.1", timeouts=FAST) as alice,
            web_node(tmp_path / "b", "bob", host="127.0.0.1", timeouts=FAST) as (bob, _, app),
        ):
            options = {k: v for k, v in SHORT_RACER.items() if k != "escrow"}  # two seats
            game = await alice.host_game("racer", "r", seats=2, player="alice", options=options)
            await bob.join(alice.address, game, player="bob")
            await alice.wait_for(game, lambda rt: rt.session.started, timeout=30)
            await until_guest_decides(alice, game)
            await bob.wait_for(game, lambda rt: rt.session.my_turn() is not None, timeout=30)
            length = len(bob.session(game).log)
            for line in ("discard", "discard card", "DISC"):
                body = {"action": line}
                status, answer = await call(app, "POST", f"/api/game/{game.hex()}/act", body)
                assert status == 400 and "discard which card" in answer["error"], (line, answer)
            assert len(bob.session(game).log) == length  # nothing was played


async def test_leave_sent_twice_at_once_is_done_once(tmp_path):
    """A double click, or Leave confirmed in two tabs of the game: both requests passed the
    "may we leave?" check before either had left, so the node sent its leave notice twice and
    the page said "you left the game" twice.  The second is now told it is too late."""
    with trio.fail_after(120):
        async with (
            Node.open(tmp_path / "a", host="127.0.0.1", timeouts=FAST) as alice,
            web_node(tmp_path / "b", "bob", host="127.0.0.1", timeouts=FAST) as (bob, _, app),
        ):
            game = await alice.host_game("creeper", "twice", player="alice")
            await bob.join(alice.address, game, player="bob")
            await alice.wait_for(game, lambda rt: rt.session.started, timeout=30)
            await until_guest_decides(alice, game)
            path = f"/api/game/{game.hex()}/leave"
            answers = []

            async def leave() -> None:
                answers.append(await call(app, "POST", path, {"what": "leave"}))

            async with trio.open_nursery() as both:
                both.start_soon(leave)
                both.start_soon(leave)
            assert sorted(status for status, _ in answers) == [200, 400], answers
            refused = next(answer for status, answer in answers if status == 400)
            assert refused["error"].startswith("not now"), refused
            _, view = await call(app, "GET", f"/api/game/{game.hex()}")
            assert sum("you left the game" in line for line in view["news"]) == 1, view["news"]


async def test_no_endpoint_reaches_a_game_the_node_does_not_hold_nor_a_file_outside(tmp_path):
    """Coverage of defences that held (no fix): every route that names a game answers 404 or
    403 for one this node does not hold (it checks ``node.games``), and paths that climb out of
    the static folder, a game's files or the logs, raw as a client may send them (the ASGI test
    helper never sees them unnormalised), find nothing."""
    async with served(tmp_path) as (node, server):
        here, cookie = f"127.0.0.1:{server.port}", await session(server)
        own = f"Origin: http://{here}"
        held = (await node.host_game("creeper", "held", player="alice")).hex()
        near = held[:-2] + ("01" if held.endswith("00") else "00")  # one byte off: not held
        for game in ("00" * 16, near, "zz", "..", held + "00"):
            status, rest = await request(server, http("GET", f"/api/game/{game}", here, cookie))
            assert status == 404, (game, rest)
            status, rest = await request(server, http("GET", f"/api/replay/{game}", here, cookie))
            assert status == 404, (game, rest)
            for action in ("act", "leave", "again"):
                head = http("POST", f"/api/game/{game}/{action}", here, cookie, own, length=11)
                status, rest = await request(server, head, b'{"x": "y"}\n')
                assert status == 400 and "no such game" in rest, (game, action, rest)
            ws = websocket(f"/ws/game/{game}", here, cookie, own)
            assert (await request(server, ws))[0] == 403, game
        assert (await request(server, websocket(f"/ws/game/{held}", here, cookie, own)))[0] == 101
        assert list(node.games) == [bytes.fromhex(held)]
        for path in (
            "/static/../guard.py",
            "/static/%2e%2e/guard.py",
            "/static/..%2fguard.py",
            "/static/%2fetc%2fpasswd",
            "/static//etc/passwd",
            "/games/creeper/..%2f..%2fweb%2fguard.py",
            "/games/..%2fweb/guard.py",
            "/api/replay/..%2f..%2f..%2fetc%2fpasswd",
            f"/api/replay/{held}%2f..%2f..%2fidentity",
        ):
            status, rest = await request(server, http("GET", path, here, cookie))
            assert status == 404, (path, rest)
            assert "import" not in rest and "root:" not in rest, path
