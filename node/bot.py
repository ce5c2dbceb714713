"""A bot player is just a task: wait for the local seat's turn, choose, play."""

from __future__ import annotations

import trio

from creepnet.engine import creeper
from creepnet.engine.creeper_bots import Bot, make_bot
from creepnet.node.node import Node


async def run_bot(
    node: Node, game: bytes, bot: Bot | str = "random", seed: int = 0, pace: float = 0.0
) -> str | None:
    """Play the local seat of game until it ends; returns the outcome text (None if halted).

    ``pace`` seconds pass before each move, so people can watch a bot game."""
    chooser = make_bot(bot, seed) if isinstance(bot, str) else bot
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
        if pace > 0:
            await trio.sleep(pace)
        move = chooser.choose(session.engine_state)
        await node.play(game, creeper.format_move(move))
