"""What a seat's signed chains, passed on before the check (sync.py ``_pass_on``), may cost the
honest relay at its spectators."""

import trio
from conftest import FAST, LOOPBACK, next_update, raw_peer, until_guest_decides

from creepnet.node import updates
from creepnet.node.messages import MAX_BATCH
from creepnet.node.node import Node
from creepnet.protocol.event import sign_event
from creepnet.protocol.identity import Identity
from creepnet.protocol.pending import FREE_WASTE
from creepnet.protocol.testing.sessions import creeper_bot


def bogus_chain(author: Identity, game: bytes, seq: int, prev: bytes) -> list[bytes]:
    """A full batch of events signed by author from (seq, prev), each linked to the one before,
    the first an illegal move: only the first can be checked, the rest wait for a position."""
    chain = []
    for offset in range(MAX_BATCH):
        event = sign_event(
            author, game=game, seq=seq + offset, prev=prev, type="move", body={"move": "zz"}
        )
        chain.append(event.raw)
        prev = event.id
    return chain


async def caught_up(carol: Node, game: bytes, alice: Node) -> None:
    """carol has alice's whole log, from alice: she refuses none of it as a flood."""
    with trio.move_on_after(10):
        await carol.wait_for(game, lambda rt: rt.stored == len(alice.session(game).log))
    waste = carol.session(game).wasted(alice.identity.public_key)
    assert waste < FREE_WASTE // 2, f"carol charged alice for {waste} useless deliveries"
    assert carol.games[game].stored == len(alice.session(game).log)


async def test_a_seats_bogus_chains_do_not_make_spectators_refuse_the_host(tmp_path):
    """bob, seated, signs a batch of linked illegal moves at each of his turns and has a
    stranger hand it to the host alice, who passes the owed author's chain on to her spectator
    carol before checking it.  carol refuses the first event (bob's fault) and holds or defers
    the rest: deliveries that did not move her game, charged to alice's allowance at carol.
    Five turns of it used up that allowance: carol refused everything alice sent as a flood
    and hung up on her, an honest host framed by a cheating seat.  A relay passes on no more
    chains of an author whose passed-on event it refused."""
    rounds = 6
    assert (rounds - 1) * (MAX_BATCH - 1) > FREE_WASTE + 4 * 4 * rounds  # enough to use it up
    with trio.fail_after(90):
        async with (
            Node.open(tmp_path / "alice", host=LOOPBACK, timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", host=LOOPBACK, timeouts=FAST) as bob,
            Node.open(tmp_path / "carol", host=LOOPBACK, timeouts=FAST) as carol,
            alice.updates() as news,
            carol.updates() as seen,
        ):
            game = await alice.host_game("creeper", player="alice", options={"max_plies": 200})
            await bob.join(alice.address, game, player="bob")
            await carol.watch(alice.address, game)
            session = alice.session(game)
            for turn in range(rounds):
                await until_guest_decides(alice, game)
                await caught_up(carol, game, alice)
                seq, head = len(session.log), session.log.head
                # anyone may carry bob's events: a fresh key each time, whatever it is charged
                relay = await raw_peer(alice.address, Identity.from_seed(bytes([turn + 1]) * 32))
                chain = bogus_chain(bob.identity, game, seq, head)
                await relay.send(
                    {"type": "events", "game": game, "from": seq, "items": chain, "length": 0}
                )
                await next_update(
                    news, lambda u, at=seq: u.kind == updates.REJECTED and u.data.get("seq") == at
                )
                await relay.aclose()
                await bob.play(game, creeper_bot("random", turn)(bob.session(game)))
                await alice.wait_for(game, lambda rt, at=seq: rt.stored == at + 1)
            await until_guest_decides(alice, game)
            await caught_up(carol, game, alice)
            floods = []
            while True:
                try:
                    update = seen.receive_nowait()
                except trio.WouldBlock:
                    break
                if update.kind == updates.REJECTED and update.data.get("kind") == "flood":
                    floods.append(update.text)
            assert not floods, floods[:2]
