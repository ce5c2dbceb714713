"""A bot player is just a task: wait for the local seat's turn, choose, play."""

from __future__ import annotations

import trio

from creepnet.node.node import Node
from creepnet.protocol.games import get_game
from creepnet.protocol.rules import SeatBot


async def run_bot(
    node: Node, game: bytes, bot: SeatBot | str = "random", seed: int = 0, pace: float = 0.0
) -> str | None:
    """Play the local seat of game until it ends; returns the outcome text (None if halted).

    A bot named by a string is the game's registered bot of that name.  ``pace`` seconds pass
    before each move, so people can watch a bot game."""
    chooser: SeatBot | None = None if isinstance(bot, str) else bot
    while True:
        runtime = await node.wait_for(
            game,
            lambda rt: (
                rt.session.finished
                or rt.session.halted is not None
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
        await node.play(game, chooser.choose(session.local_view(), seat))
