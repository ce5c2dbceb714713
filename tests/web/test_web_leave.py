"""The page's Leave and Claim abandonment (issue 23), endpoint by endpoint over two real
loopback nodes: the guest's page leaves, the host's page is offered the claim only then and
claims; the retirement words the node publishes reach the page."""

from __future__ import annotations

import trio
from conftest import FAST, until_guest_decides
from web_support import call, view_until, web_node

from creepnet.cli.web.app import build_app
from creepnet.cli.web.face import WebFace
from creepnet.node.node import Node
from creepnet.node.retirement import RETIRED, RETIRING
from creepnet.protocol.verify import verify_log_bytes


async def test_the_guest_leaves_on_the_page_and_the_host_claims_there(tmp_path) -> None:
    with trio.fail_after(120):
        async with (
            web_node(tmp_path / "a", "alice", host="127.0.0.1", timeouts=FAST) as host,
            web_node(tmp_path / "b", "bob", host="127.0.0.1", timeouts=FAST) as guest,
        ):
            (alice, host_face, host_app), (bob, _, guest_app) = host, guest
            _, hosted = await call(host_app, "POST", "/api/host", {"kind": "creeper"})
            game = bytes.fromhex(hosted["game"])
            path = f"/api/game/{game.hex()}"
            status, view = await call(host_app, "GET", path)
            assert not view["leave"] and not view["claim"]  # nobody to leave yet
            await bob.join(alice.address, game, player="bob")
            await alice.wait_for(game, lambda rt: rt.session.started, timeout=30)
            await until_guest_decides(alice, game)

            # the node's countdown is one line that changes, shown while the log stands still
            alice._reporter.publish(RETIRING, "waiting for bob: no word for 3 s", game)
            view = await view_until(host_face, host_app, path, lambda v: v["retiring"])
            assert view["retiring"] == "waiting for bob: no word for 3 s"
            assert view["leave"] and not view["claim"]  # bob is not gone: nothing to claim
            status, answer = await call(host_app, "POST", path + "/leave", {"what": "claim"})
            assert status == 400 and answer["error"].startswith("not now")

            status, answer = await call(guest_app, "POST", path + "/leave", {"what": "go"})
            assert status == 400 and answer["error"] == "ask to leave or to claim"
            status, left = await call(guest_app, "POST", path + "/leave", {"what": "leave"})
            assert status == 200, left
            assert left["said"] == "you left the game; your opponent may claim it abandoned"
            assert not left["leave"] and "you left the game" in left["news"][-1]
            status, answer = await call(guest_app, "POST", path + "/leave", {"what": "leave"})
            assert status == 400  # once is enough

            view = await view_until(host_face, host_app, path, lambda v: v["claim"])
            assert any("bob is gone" in line for line in view["news"])
            status, claimed = await call(host_app, "POST", path + "/leave", {"what": "claim"})
            assert status == 200, claimed
            seq = len(alice.session(game).log) - 1
            assert "abandoned" in claimed["said"] and "abandoned" in claimed["news"][-1]
            assert not claimed["leave"] and not claimed["claim"] and claimed["retiring"] is None
            verdict = verify_log_bytes(alice.session(game).log.to_bytes())
            assert verdict.valid
            claim = f"unfinished: abandoned by seat 1, claimed by seat 0 at seq {seq}"
            assert verdict.outcome == claim
            # the lobby's "Your games" says it is over, as the game page does, not "playing"
            _, lobby = await call(host_app, "GET", "/api/lobby")
            mine = next(row for row in lobby["mine"] if row["game"] == game.hex())
            assert mine["outcome"] == claim, mine

            alice._reporter.publish(RETIRED, "bob left the game; the table plays on", game)
            await view_until(host_face, host_app, path, lambda v: "bob left" in v["news"][-1])


async def test_a_racer_table_of_three_or_four_hosted_on_the_page_can_play_on_without_a_seat(
    tmp_path,
) -> None:
    """As `creepnet host` does: a table that lets a player leave must be able to play on (its
    keys escrowed, docs/ESCROW.md); at two seats there is nobody to play on, only a claim."""
    async with Node.open(tmp_path / "a") as alice:
        app = build_app(WebFace(alice, "alice"))
        for seats, escrow in ((3, True), (4, True), (2, False)):
            status, hosted = await call(app, "POST", "/api/host", {"kind": "racer", "seats": seats})
            assert status == 200, hosted
            session = alice.session(bytes.fromhex(hosted["game"]))
            assert (session.options.get("escrow") == 1) is escrow, (seats, session.options)
        _, hosted = await call(app, "POST", "/api/host", {"kind": "creeper"})
        assert "escrow" not in alice.session(bytes.fromhex(hosted["game"])).options


async def test_our_own_retirement_is_told_once_to_us_not_as_a_stranger_who_went_silent(
    tmp_path,
) -> None:
    """An announcement in the third person about our own seat (a node of an older version made
    one, as silence) is not shown: the page says it to us once, as "the table retired you"."""
    with trio.fail_after(60):
        async with web_node(tmp_path / "a", "alice") as (alice, face, app):
            _, hosted = await call(app, "POST", "/api/host", {"kind": "creeper"})
            game = bytes.fromhex(hosted["game"])
            path = f"/api/game/{game.hex()}"
            said = "alice stopped answering and was retired; the table plays on without them"
            alice._reporter.publish(RETIRED, said, game, None, {"seat": 0})
            other = "bob left the game; the table plays on without them"
            alice._reporter.publish(RETIRED, other, game, None, {"seat": 1})
            view = await view_until(face, app, path, lambda v: other in v["news"])
            assert said not in view["news"]
