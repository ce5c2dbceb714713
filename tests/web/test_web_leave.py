"""The page's Leave and Claim abandonment (issue 23), endpoint by endpoint over two real
loopback nodes: the guest's page leaves, the host's page is offered the claim only then and
claims; the retirement words the node publishes reach the page."""

from __future__ import annotations

import pytest
import trio
from conftest import FAST, until_guest_decides
from web_support import SHORT_RACER, call, view_until, web_node

from creepnet.cli.web.app import build_app
from creepnet.cli.web.face import WebFace
from creepnet.node.bot import run_bot
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


@pytest.mark.usefixtures("memoized_proofs")  # honest nodes in one process (tests/README.md)
async def test_the_page_tells_our_own_retirement_as_ours_and_anothers_in_the_third_person(
    tmp_path,
) -> None:
    """Ann stays silent at a table of three: the others retire her.  Her page says so in her
    node's words, to her ("the table retired you"), never as a stranger who "stopped
    answering"; bob's page tells it in the third person."""
    with trio.fail_after(240):
        async with (
            web_node(tmp_path / "ann", "ann", host="127.0.0.1", timeouts=FAST) as ann_page,
            web_node(tmp_path / "bob", "bob", host="127.0.0.1", timeouts=FAST) as bob_page,
            Node.open(tmp_path / "cat", host="127.0.0.1", timeouts=FAST) as cat,
            trio.open_nursery() as bots,
        ):
            (ann, ann_face, ann_app), (bob, bob_face, bob_app) = ann_page, bob_page
            options = {**SHORT_RACER, "retire_after": 8}  # a loaded machine's bots still meet it
            game = await ann.host_game("racer", "quiet", seats=3, player="ann", options=options)
            path = f"/api/game/{game.hex()}"
            for seed, (node, name) in enumerate(((bob, "bob"), (cat, "cat")), start=1):
                await node.join(ann.address, game, player=name)
                bots.start_soon(run_bot, node, game, "random", seed)

            ours = "the table retired you from this game; it plays on, and you watch"
            view = await view_until(ann_face, ann_app, path, lambda v: ours in v["news"])
            assert view["seats"][0]["presence"] == "retired"
            assert not any("ann stopped answering" in line for line in view["news"]), view
            theirs = "ann stopped answering and was retired; the table plays on without them"
            view = await view_until(bob_face, bob_app, path, lambda v: theirs in v["news"])
            assert not any("retired you" in line for line in view["news"]), view
            bots.cancel_scope.cancel()
