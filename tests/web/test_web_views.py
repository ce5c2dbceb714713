"""What the page is told: the board from the engine's geometry, the legal moves, the replay."""

from __future__ import annotations

import trio

from creepnet.cli.web.creeper_view import geometry
from creepnet.cli.web.replay_view import replay_view
from creepnet.cli.web.views import game_view, presence
from creepnet.engine import creeper
from creepnet.node.node import Node


def test_the_board_geometry_is_the_engines():
    spec = creeper.STANDARD
    board = geometry(spec)
    holes = {h["name"] for h in board["holes"]}
    assert len(holes) == spec.lattice**2 - len(spec.missing_holes)
    assert "a7" not in holes and "a6" in holes  # a missing corner hole, and its neighbour
    homes = {o["name"]: o["home"] for o in board["octagons"] if o["home"]}
    assert homes == {"A6": "dark", "F6": "light", "A1": "light", "F1": "dark"}
    start = creeper.initial_state(spec)
    pins = set(start.pin_holes(creeper.Colour.LIGHT)) | set(start.pin_holes(creeper.Colour.DARK))
    assert pins <= holes


async def test_a_players_view_lists_exactly_the_engines_legal_moves_and_a_spectator_none(
    tmp_path,
):
    async with (
        Node.open(tmp_path / "a") as alice,
        Node.open(tmp_path / "b") as bob,
        Node.open(tmp_path / "c") as carol,
    ):
        game = await alice.host_game("creeper", "views", player="alice")
        await bob.join(alice.address, game, player="bob")
        await carol.watch(alice.address, game)
        for node in (alice, bob, carol):
            await node.wait_for(
                game,
                lambda rt: (
                    rt.session.game_state is not None
                    and rt.session.game_state.light_seat is not None
                ),
                timeout=10,
            )
        mover = alice if alice.session(game).my_turn() else bob
        view = game_view(mover.session(game), mover.games[game])
        state = mover.session(game).game_state.state
        listed = sorted(
            notation for targets in view["board"]["legal"].values() for _, notation in targets
        )
        assert listed == sorted(creeper.format_move(m) for m in creeper.legal_moves(state))
        assert view["status"].startswith("your turn") and not view["spectator"]

        await mover.play(game, listed[0])
        await carol.wait_for(
            game, lambda rt: len(rt.session.log) == len(mover.session(game).log), timeout=10
        )
        watching = game_view(carol.session(game), carol.games[game])
        assert watching["spectator"] and watching["board"]["legal"] == {}
        origin, target = listed[0].replace("x", "-").split("-")
        assert watching["board"]["last"]["origin"] == origin
        assert watching["board"]["pins"].get(target) and origin not in watching["board"]["pins"]
        assert [s["player"] for s in watching["seats"]] == ["alice", "bob"]
        assert all(s["connected"] is None for s in watching["seats"])  # a spectator cannot know
        assert all(s["presence"] is None for s in watching["seats"])  # so the page shows no dot
        seated = game_view(alice.session(game), alice.games[game])["seats"]
        assert [s["presence"] for s in seated] == ["connected", "connected"]
        assert [presence(True, True), presence(False, False)] == ["retired", "silent"]

        # the session takes an event before the node stores it: read the file once it has
        await alice.wait_for(game, lambda rt: rt.stored == len(mover.session(game).log), timeout=10)
        log = await trio.Path(alice.home.game(game).log_path).read_bytes()
        replay = replay_view("views.log", log)
        assert replay["verdict"]["valid"] and "valid" in replay["verdict"]["text"]
        assert len(replay["frames"]) == len(alice.session(game).log)
        assert replay["frames"][0]["board"] is None
        assert replay["boards"][replay["frames"][-1]["board"]]["last"]["text"] == listed[0]

        forged = bytearray(log)
        forged[-10] ^= 1  # inside the last event's signature
        replay = replay_view("forged.log", bytes(forged))
        assert not replay["verdict"]["valid"] and "INVALID" in replay["verdict"]["text"]
        assert len(replay["frames"]) == len(alice.session(game).log) - 1
