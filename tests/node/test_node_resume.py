"""A host that goes away mid-game and comes back: on its old port, or on a new one found by
zeroconf.  Real sockets and zeroconf, on 127.0.0.1 only."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
from conftest import FAST, finish, next_update, play_until_stored

from creepnet.node.discovery import GameAd, open_discovery
from creepnet.node.node import Node
from creepnet.node.updates import ADVERT_REFUSED, HOST_MOVED
from creepnet.protocol.identity import fingerprint

LOOPBACK = "127.0.0.1"
LOOPBACK_ONLY = [LOOPBACK]
OPTIONS = {"max_plies": 50}
TIMEOUT = 60  # generous: these machines are slow and shared


def open_node(home: Path, discovery: bool = True) -> Node:
    return Node.open(home, timeouts=FAST, discovery=discovery, iface=LOOPBACK_ONLY)


async def play_then_stop_host(home: Path, bob: Node) -> tuple[bytes, int]:
    """Alice hosts, bob joins, a few moves are played; then alice's node goes away."""
    async with open_node(home) as alice:
        game = await alice.host_game("creeper", name="resumed", player="alice", options=OPTIONS)
        await bob.join(alice.address, game, player="bob")
        await play_until_stored(game, alice, bob, 10)  # then the task-level kill of the host
        assert not alice.session(game).finished
        assert (home / "games" / game.hex() / "port").read_text().strip() == str(alice.port)
        return game, alice.port


async def finished_identically(alice: Node, bob: Node, game: bytes) -> None:
    await finish(game, alice, bob)
    final = alice.session(game)
    assert final.finished
    await bob.wait_for(game, lambda rt: rt.stored == len(final.log))
    assert alice.home.game(game).log_path.read_bytes() == final.log.to_bytes()
    assert bob.home.game(game).log_path.read_bytes() == final.log.to_bytes()


@asynccontextmanager
async def squatting(port: int) -> AsyncIterator[None]:
    """Another program takes the port: it accepts connections and hangs up at once."""
    listeners = await trio.open_tcp_listeners(port, host=LOOPBACK)

    async def hang_up(stream: trio.SocketStream) -> None:
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, hang_up, listeners)
        try:
            yield
        finally:
            nursery.cancel_scope.cancel()


async def test_a_restarted_host_listens_on_its_old_port_and_the_game_goes_on(tmp_path):
    with trio.fail_after(TIMEOUT):
        async with open_node(tmp_path / "bob") as bob, bob.updates() as news:
            game, port = await play_then_stop_host(tmp_path / "alice", bob)
            await next_update(news, lambda u: u.kind == "peer-disconnected", TIMEOUT)
            async with open_node(tmp_path / "alice") as alice:  # port 0: "any"
                assert (alice.port, alice.port_taken) == (port, None)
                await next_update(news, lambda u: u.kind == "peer-connected", TIMEOUT)
                await finished_identically(alice, bob, game)
            assert bob.home.game(game).load_peers() == [f"{LOOPBACK}:{port}"]


async def test_a_host_whose_port_was_taken_is_found_again_by_zeroconf(tmp_path):
    with trio.fail_after(TIMEOUT):
        async with open_node(tmp_path / "bob") as bob, bob.updates() as news:
            game, port = await play_then_stop_host(tmp_path / "alice", bob)
            async with squatting(port), open_node(tmp_path / "alice", discovery=False) as alice:
                assert alice.port != port and alice.port_taken == port
                await alice.start_discovery()  # as `creepnet join` does once it resumes
                moved = await next_update(news, lambda u: u.kind == HOST_MOVED, TIMEOUT)
                assert moved.game == game and moved.data["new"] == alice.address
                await finished_identically(alice, bob, game)
                # Both remember the new place, for the next restart of either.
                assert bob.home.game(game).load_peers() == [alice.address]
                assert alice.home.game(game).load_port() == alice.port


async def test_a_forged_host_moved_advert_does_not_move_the_game(tmp_path):
    """The attack: while the host is away, Mallory advertises the game at her own address
    under the host's fingerprint (copied from its advert).  The joiner dials her, finds
    another key in the handshake, keeps the old address, and plays on when the host returns."""
    with trio.fail_after(TIMEOUT):
        async with open_node(tmp_path / "bob") as bob, bob.updates() as news:
            game, port = await play_then_stop_host(tmp_path / "alice", bob)
            old = f"{LOOPBACK}:{port}"
            genesis = bob.session(game).log.events[0]
            async with (
                Node.open(tmp_path / "mallory", timeouts=FAST) as mallory,
                open_discovery(LOOPBACK_ONLY) as zeroconf,
            ):
                forged = GameAd(
                    game=game,
                    name="resumed",
                    kind="creeper",
                    fingerprint=fingerprint(genesis.author),  # copied: it is public
                    port=mallory.port,
                    seats_taken=2,
                    seats_total=2,
                    state="playing",
                )
                await zeroconf.advertise(forged)
                verdict = await next_update(
                    news, lambda u: u.kind in (HOST_MOVED, ADVERT_REFUSED), TIMEOUT
                )
                assert verdict.kind == ADVERT_REFUSED and verdict.game == game
                assert verdict.data == {
                    "address": mallory.address,
                    "key": mallory.identity.public_key,
                }
            assert bob.games[game].dial == {old}
            assert bob.home.game(game).load_peers() == [old]
            async with open_node(tmp_path / "alice") as alice:  # back where bob still looks
                assert alice.port == port
                await finished_identically(alice, bob, game)


async def test_a_restarted_host_still_keeps_the_rematch_seat_for_the_last_opponent(tmp_path):
    from creepnet.node.node import JoinRefused

    async with (
        Node.open(tmp_path / "guest", timeouts=FAST) as guest,
        Node.open(tmp_path / "stranger", timeouts=FAST) as stranger,
    ):
        async with Node.open(tmp_path / "host", timeouts=FAST) as host:
            rematch = await host.host_game(
                "creeper", "series", player="a", reserved_for=frozenset({guest.identity.public_key})
            )
        async with Node.open(tmp_path / "host", timeouts=FAST) as host:  # restarted
            with trio.fail_after(30):
                with pytest.raises(JoinRefused, match="kept for the players of the last game"):
                    await stranger.join(host.address, rematch, player="mallory")
                await guest.join(host.address, rematch, player="b")
            assert host.session(rematch).seats[1].key == guest.identity.public_key


async def test_an_advert_outside_the_nodes_scope_is_never_dialled(tmp_path, monkeypatch):
    """The host finder dialled whatever address an advert named: anyone on the LAN could
    make a node that lost its host connect to any IP (the Internet, or services on its own
    machine), where the mesh refuses the same address from a seated peer.  Nothing here
    leaves the machine: the dial of any address off loopback is refused by the test."""
    from creepnet.node.transport import TransportError

    with trio.fail_after(TIMEOUT):
        async with open_node(tmp_path / "bob") as bob, bob.updates() as news:
            game, port = await play_then_stop_host(tmp_path / "alice", bob)
            dialled: list[str] = []
            real_open = bob._connections._open

            async def loopback_only(address: str):
                dialled.append(address)
                if not address.startswith("127."):
                    raise TransportError(f"test: not dialling {address}")
                return await real_open(address)

            monkeypatch.setattr(bob._connections, "_open", loopback_only)
            genesis = bob.session(game).log.events[0]
            async with open_discovery(LOOPBACK_ONLY) as zeroconf:  # multicast on loopback
                forged = GameAd(
                    game=game,
                    name="resumed",
                    kind="creeper",
                    fingerprint=fingerprint(genesis.author),
                    port=4100,
                    seats_taken=2,
                    seats_total=2,
                    state="playing",
                    addresses=("192.0.2.7",),  # TEST-NET-1: never reached, see above
                )
                await zeroconf.advertise(forged)
                verdict = await next_update(
                    news,
                    lambda u: (
                        (u.kind == ADVERT_REFUSED and "192.0.2.7" in u.text)
                        or "192.0.2.7:4100" in dialled
                    ),
                    TIMEOUT,
                )
            assert "192.0.2.7:4100" not in dialled
            assert verdict.game == game and verdict.data["address"] == "192.0.2.7:4100"
            assert "not a loopback address" in verdict.text
            assert bob.games[game].dial == {f"{LOOPBACK}:{port}"}


def test_an_advert_is_dialled_only_within_the_scope_a_seated_peer_has():
    from types import SimpleNamespace

    from creepnet.node.mesh import Scope
    from creepnet.node.relocation import HostFinder
    from creepnet.node.reporter import Reporter
    from creepnet.node.updates import Broadcaster

    finder = HostFinder({}, None, None, Reporter(Broadcaster()), Scope.LAN)
    runtime = SimpleNamespace(game=bytes(16))
    lan_host, local_host = "192.168.1.5:4100", "127.0.0.1:4100"
    assert not finder._out_of_scope(runtime, "192.168.1.9:4100", lan_host)  # moved on the LAN
    assert not finder._out_of_scope(runtime, "127.0.0.1:4200", local_host)  # on this machine
    assert finder._out_of_scope(runtime, "127.0.0.1:22", lan_host)  # our own services: no
    assert finder._out_of_scope(runtime, "8.8.8.8:4100", lan_host)  # the Internet: no (a string)
    assert finder._out_of_scope(runtime, "10.0.0.2:4100", "wan:12D3KooW@/ip4/x/p2p/y") is False
