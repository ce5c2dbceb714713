"""Retirement over real loopback nodes: three Racer seats, one node killed for good mid-game;
the other two vote it out after the game's retire_after, play on and finish with identical,
valid, finished logs that name the retirement."""

from __future__ import annotations

import pytest
import trio
from conftest import FAST, until_guest_decides

from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.verify import verify_log_bytes

OPTIONS = {"creeps_per_player": 3, "face_up_creeps": 1, "turn_limit": 10, "escrow": 1}


async def _guest(tmp_path, host: Node, game: bytes, k: int, scope: trio.CancelScope) -> None:
    with scope:
        async with Node.open(tmp_path / f"g{k}", timeouts=FAST) as node:
            await node.join(host.address, game, player=f"guest{k}")
            await run_bot(node, game, "random", k)
            await node.wait_synced(game)


@pytest.mark.usefixtures("memoized_proofs")  # honest nodes in one process (tests/README.md)
async def test_a_node_killed_for_good_is_retired_and_the_others_finish(tmp_path) -> None:
    with trio.fail_after(240):
        async with Node.open(tmp_path / "host", name="host", timeouts=FAST) as host:
            options = {**OPTIONS, "retire_after": 3}  # a starved machine is not silent for 3 s
            game = await host.host_game("racer", "race", seats=3, player="host", options=options)
            killed = trio.CancelScope()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_guest, tmp_path, host, game, 1, trio.CancelScope())
                await host.wait_for(game, lambda rt: len(rt.session.seats) > 1)
                nursery.start_soon(_guest, tmp_path, host, game, 2, killed)
                await host.wait_for(game, lambda rt: len(rt.session.seats) > 2)
                nursery.start_soon(run_bot, host, game, "random", 0)
                # seat 2's node dies for good once the first turns are played (whatever it
                # owes then, a Hostage Exchange's hand-over included)
                await host.wait_for(
                    game, lambda rt: len(rt.session.log) > 120 or rt.session.finished
                )
                assert not host.session(game).finished, "the game ended before the kill"
                killed.cancel()
            final = host.session(game)
            assert final.finished and final.retired == [2]
            logs = {
                (tmp_path / h / "games" / game.hex() / "log").read_bytes() for h in ("host", "g1")
            }
            assert logs == {final.log.to_bytes()}
            verdict = verify_log_bytes(final.log.to_bytes())
            assert verdict.valid and verdict.finished, verdict.error
            assert any("retired by the table" in note for note in verdict.notes)


async def test_a_player_who_leaves_in_a_two_seat_game_lets_the_other_claim_it(tmp_path) -> None:
    """Creeper: the guest types `leave` (a signed notice); the host's node at once offers the
    claim, and the claim ends the log as an abandonment both nodes store."""
    with trio.fail_after(180):
        async with (
            Node.open(tmp_path / "host", timeouts=FAST) as host,
            Node.open(tmp_path / "guest", timeouts=FAST) as guest,
        ):
            game = await host.host_game("creeper", "quiet", player="host")
            await guest.join(host.address, game, player="guest")
            async with host.updates() as stream:
                await host.wait_for(game, lambda rt: rt.session.started)
                await until_guest_decides(host, game)
                await guest.leave(game)
                async for update in stream:
                    if update.kind == "claimable":
                        assert "guest is gone" in update.text
                        break
            await host.claim(game)
            seq = len(host.session(game).log) - 1
            await guest.wait_for(game, lambda rt: rt.stored == seq + 1)
            for node in (host, guest):
                verdict = verify_log_bytes(node.session(game).log.to_bytes())
                assert verdict.valid and not verdict.finished
                assert verdict.outcome == (
                    f"unfinished: abandoned by seat 1, claimed by seat 0 at seq {seq}"
                )


async def test_a_leave_reaches_the_table_when_the_node_closes_right_after(tmp_path) -> None:
    """`leave` then exit (what the terminal does): the notice is written before the node goes,
    so the host may claim at once, not after the game's 120 s patience for a silent seat."""
    with trio.fail_after(60):  # far below retire_after: only the notice can make it claimable
        async with Node.open(tmp_path / "host", timeouts=FAST) as host:
            game = await host.host_game("creeper", "quiet", player="host")
            async with host.updates() as stream:
                async with Node.open(tmp_path / "guest", timeouts=FAST) as guest:
                    await guest.join(host.address, game, player="guest")
                    await host.wait_for(game, lambda rt: rt.session.started)
                    await until_guest_decides(host, game)
                    await guest.leave(game)
                async for update in stream:  # the guest's node is closed now
                    if update.kind == "claimable":
                        assert "guest is gone" in update.text
                        break
            await host.claim(game)
            assert host.session(game).abandoned is not None
