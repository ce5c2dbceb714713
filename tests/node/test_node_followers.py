"""Who follows a game: a peer that leaves and comes back is news on both sides, said once each."""

import trio
from conftest import FAST, finish, next_update, seated_pair

from creepnet.node import updates
from creepnet.node.node import Node


async def test_a_reconnected_peer_is_reported_back_on_both_sides(tmp_path):
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        ):
            game = await alice.host_game("creeper", player="alice")
            async with alice.updates() as alice_news, bob.updates() as bob_news:
                await bob.join(alice.address, player="bob")
                first = await next_update(alice_news, lambda u: u.kind == updates.FOLLOWER_ARRIVED)
                assert (first.game, first.peer, first.data) == (
                    game,
                    bob.fingerprint,
                    {"back": False},
                )

                alice.peers[bob.identity.public_key].close("test: cable pulled")
                for news, other in ((alice_news, bob), (bob_news, alice)):
                    left = await next_update(news, lambda u: u.kind == updates.FOLLOWER_LEFT)
                    assert (left.game, left.peer) == (game, other.fingerprint)
                    assert "cable pulled" in left.text or news is bob_news
                # bob redials on his own; each side tells its face the other is back
                for news, node, other in ((alice_news, alice, bob), (bob_news, bob, alice)):
                    back = await next_update(news, lambda u: u.kind == updates.FOLLOWER_ARRIVED)
                    assert (back.game, back.peer, back.data) == (
                        game,
                        other.fingerprint,
                        {"back": True},
                    )
                    assert "again" in back.text
                    # the update comes after the change: a face that redraws on it sees it
                    assert other.identity.public_key in node.games[game].followers


async def test_a_peer_that_keeps_talking_is_not_news_twice(tmp_path):
    """Every message a follower sends is about the game: only its first is news."""
    with trio.fail_after(30):
        async with seated_pair(tmp_path / "a", tmp_path / "b", "chatty", timeouts=FAST) as (
            alice,
            bob,
            game,
        ):
            async with alice.updates() as news, trio.open_nursery() as nursery:
                nursery.start_soon(finish, game, alice, bob)
                arrivals = []
                async for update in news:
                    if update.kind == updates.FOLLOWER_ARRIVED:
                        arrivals.append(update)
                    if update.kind == updates.GAME_OVER:
                        break
            assert arrivals == [] and bob.identity.public_key in alice.games[game].followers
