"""Creepy Racer over real loopback nodes: 2-4 bot seats and a spectator, identical valid logs."""

from dataclasses import replace

import pytest
import trio
from conftest import FAST

from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.protocol.games.racer import seat_view
from creepnet.protocol.verify import verify_log_bytes

OPTIONS = {"turn_limit": 8}  # bounded games keep the suite fast (the late spectator test's too)


# Every node here runs in this process and checks every proof of the game: with the proof memo
# (tests/proof_memo.py) a repeat of exactly the bytes another node passed returns that success.
@pytest.mark.usefixtures("memoized_proofs")
@pytest.mark.parametrize("seats", [2, 3, 4])
async def test_bots_on_every_seat_play_a_whole_racer_game(tmp_path, seats):
    with trio.fail_after(240):
        async with Node.open(tmp_path / "host", name="host", timeouts=FAST) as host:
            game = await host.host_game(
                "racer", "race", seats=seats, player="host", options=OPTIONS
            )
            async with Node.open(tmp_path / "watch", timeouts=FAST) as watcher:
                await watcher.watch(host.address, game)
                guests = []
                async with trio.open_nursery() as nursery:

                    async def guest(k: int) -> None:
                        async with Node.open(tmp_path / f"g{k}", timeouts=FAST) as node:
                            await node.join(host.address, game, player=f"guest{k}")
                            guests.append(node)
                            await run_bot(node, game, "heuristic", k)
                            await node.wait_synced(game)

                    for k in range(1, seats):
                        nursery.start_soon(guest, k)
                        await host.wait_for(game, lambda rt, k=k: len(rt.session.seats) > k)
                    nursery.start_soon(run_bot, host, game, "random", 0)
                final = host.session(game)
                await watcher.wait_for(game, lambda rt: rt.stored == len(final.log))
                homes = [tmp_path / "host", tmp_path / "watch"] + [
                    tmp_path / f"g{k}" for k in range(1, seats)
                ]
                logs = {(home / "games" / game.hex() / "log").read_bytes() for home in homes}
                assert logs == {final.log.to_bytes()}
                verdict = verify_log_bytes(final.log.to_bytes())
                assert verdict.valid and verdict.finished, verdict.error
                assert not (tmp_path / "watch" / "games" / game.hex() / "secrets").exists()


async def test_players_who_ask_for_the_same_seat_at_once_are_all_seated(tmp_path):
    """Join requests name the seat they ask for: the host seats one, refuses the other, and
    the refused player asks again for the seat now free."""
    with trio.fail_after(60):
        async with (
            Node.open(tmp_path / "host", timeouts=FAST) as host,
            Node.open(tmp_path / "a", timeouts=FAST) as a,
            Node.open(tmp_path / "b", timeouts=FAST) as b,
            Node.open(tmp_path / "c", timeouts=FAST) as c,
        ):
            game = await host.host_game("racer", "rush", seats=4, player="host")
            async with trio.open_nursery() as nursery:
                for node, name in ((a, "a"), (b, "b"), (c, "c")):
                    nursery.start_soon(lambda n=node, p=name: n.join(host.address, game, player=p))
            seated = {node.session(game).local_seat for node in (a, b, c)}
            assert seated == {1, 2, 3}
            await host.wait_for(game, lambda rt: rt.session.started)


@pytest.mark.usefixtures("memoized_proofs")
async def test_a_late_spectator_catches_up_and_holds_no_hidden_card(tmp_path):
    with trio.fail_after(240):
        async with (
            Node.open(tmp_path / "host", timeouts=FAST) as host,
            Node.open(tmp_path / "guest", timeouts=FAST) as guest,
        ):
            game = await host.host_game("racer", "late", player="host", options={"turn_limit": 8})
            await guest.join(host.address, game, player="guest")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, host, game, "heuristic", 1)
                nursery.start_soon(run_bot, guest, game, "heuristic", 2)
                await host.wait_for(game, lambda rt: deciding_in_turn(rt.session, 3))
                # One batch of shuffle-proved events takes ~2 s to verify here under load;
                # the catch-up waits for progress, so allow one batch that long.
                patient = replace(FAST, handshake=10.0)
                async with Node.open(tmp_path / "late", timeouts=patient) as late:
                    await late.watch(host.address, game)
                    # While the game runs, what it holds is public: lines, discards, counts.
                    watched = late.session(game)
                    assert watched.local_seat is None and watched.private is None
                    assert seat_view(watched) is None
                    public = dict(watched.game_state.state.known)
                    for node in (host, guest):
                        view = seat_view(node.session(game))
                        hidden = {slot for slot, _ in view.observation.hand}
                        assert hidden and not hidden & set(public)
                    assert not (tmp_path / "late" / "games" / game.hex() / "secrets").exists()
                    final = await late.wait_for(game, lambda rt: rt.session.finished)
                    assert final.session.game_state.cards is not None  # the audit shows all
            assert late_log(tmp_path, game) == host.session(game).log.to_bytes()


def deciding_in_turn(session, number: int) -> bool:
    state = session.game_state.state if session.started else None
    return state is not None and state.turn is not None and state.turn.number >= number


def late_log(tmp_path, game: bytes) -> bytes:
    return (tmp_path / "late" / "games" / game.hex() / "log").read_bytes()


@pytest.mark.usefixtures("memoized_proofs")
async def test_a_node_is_not_sent_back_the_events_it_just_sent(tmp_path, monkeypatch):
    """A seat that answers at once (a key release, a none-of proof) sends the sender only its
    answer: the sender's own events (a shuffle is ~20 kB) do not come back to be discarded."""
    from creepnet.protocol.session import Session

    duplicates = []
    receive = Session.receive

    def counting(self, raw, sender=None):
        receipt = receive(self, raw, sender=sender)
        if receipt.status == "duplicate":
            duplicates.append(raw)
        return receipt

    monkeypatch.setattr(Session, "receive", counting)
    with trio.fail_after(240):
        async with (
            Node.open(tmp_path / "host", timeouts=FAST) as host,
            Node.open(tmp_path / "guest", timeouts=FAST) as guest,
        ):
            game = await host.host_game("racer", "echo", seats=2, player="host", options=OPTIONS)
            await guest.join(host.address, game, player="guest")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_bot, host, game, "heuristic", 1)
                nursery.start_soon(run_bot, guest, game, "heuristic", 2)
            await guest.wait_synced(game)
            length = len(host.session(game).log)
    assert length > 100
    # Catch-up may still resend a little in a race; echoing sent every answered batch back.
    assert len(duplicates) < length // 20, (len(duplicates), length)
