"""A bot player is just a task: wait for the local seat's turn, choose, play.

A bot's choice may be a search of a second or more, so it runs in a worker thread
(``trio.to_thread.run_sync``): the node's event loop goes on answering peers, storing and
gossiping meanwhile.  The view handed to the thread is immutable, and only that thread uses
the bot, one choice at a time.  Cancelling the task abandons the thread (its answer is
dropped); a choice made for a position that moved on while it thought is dropped too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import trio

from creepnet.node.node import Node
from creepnet.protocol.games import get_game
from creepnet.protocol.rules import SeatBot


async def run_bot(
    node: Node,
    game: bytes,
    bot: SeatBot | str = "random",
    seed: int = 0,
    pace: float = 0.0,
    play: Callable[[bytes, str], Awaitable[Any]] | None = None,
) -> str | None:
    """Play the local seat of game until it ends and its last event is stored; returns the
    outcome text (None if halted).

    A bot named by a string is the game's registered bot of that name.  ``pace`` seconds pass
    before each move, so people can watch a bot game.  ``play`` (default ``node.play``) sends
    each chosen move: benchmarks time what happens from there on."""
    chooser: SeatBot | None = None if isinstance(bot, str) else bot
    send = play or node.play
    while True:
        runtime = await node.wait_for(
            game,
            lambda rt: (
                # over, and its last event on our disk: a waiter may wake while the append of
                # the event that ended it still runs in a worker thread (node/ledger.py)
                (rt.session.finished or rt.session.halted is not None)
                and rt.stored == len(rt.session.log)
                or (rt.session.my_turn() is not None and rt.storage_error is None)
            ),
        )
        session = runtime.session
        if session.finished or session.halted is not None:
            return session.outcome_text
        if chooser is None:
            assert isinstance(bot, str)
            chooser = get_game(session.kind).make_bot(bot, seed)
        if pace > 0:
            await trio.sleep(pace)
        seat = session.local_seat
        assert seat is not None
        position = session.game_state
        # The ignore: trio-typing's stubs (the wan extra) call abandon_on_cancel cancellable.
        text = await trio.to_thread.run_sync(  # type: ignore[call-arg]
            chooser.choose, session.local_view(), seat, abandon_on_cancel=True
        )
        if session.game_state is not position:
            continue  # the game moved on while the bot thought: look again
        await send(game, text)
