"""Before a seat is called stalled, every peer is asked for its event.

In a mesh an event can reach us by several paths, and one of them may withhold it (a host that
drops a guest's events, a link that is down).  So when a started game has waited ``ask_after``
seconds at one position for another seat's event, the node asks every peer of the game for
what follows its log (``get``: any peer that has more answers with it), and only when nothing
came for as long again does it publish ``stalled``, naming the seat and how many peers it asked.
It asks again, backing off (doubling to ``MAX_ASK``), for as long as the game waits there.

A ``get`` costs each peer one look at its log; the answer comes from every peer that has the
event, so this runs only when the normal path (the author's push, the others' ``have``) failed.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from creepnet.node import updates
from creepnet.node.game import ACTIVE, GameRuntime
from creepnet.node.reporter import Reporter

ASK_AFTER = 3.0  # seconds at one position before every peer is asked for what follows
MAX_ASK = 30.0  # the longest pause between two rounds of asking


async def watch_stalls(
    runtime: GameRuntime,
    ask_everyone: Callable[[GameRuntime], int],
    reporter: Reporter,
    ask_after: float = ASK_AFTER,
) -> None:
    """Run for one game until it ends (the node's nursery holds it)."""
    while runtime.state in ACTIVE:
        session = runtime.session  # read afresh: a seat overtaken by its retirement gets a new one
        waiting = session.waiting_for()
        mine = session.identity.public_key if session.identity is not None else None
        if not session.started or waiting is None or waiting.key == mine:
            await runtime.changed.wait()
            continue
        position, pause, waited = len(session.log), ask_after, 0.0
        while await _unchanged(runtime, position, pause):
            waited += pause
            asked = ask_everyone(runtime)
            if waited > ask_after and runtime.reported.get("stalled") != position:
                runtime.reported["stalled"] = position
                reporter.publish(
                    updates.STALLED,
                    f"still {waiting.describe()} after {waited:.0f}s; "
                    f"every peer of the game ({asked}) was asked for its event",
                    runtime.game,
                    data={
                        "seat": waiting.seat,
                        "key": waiting.key,
                        "seconds": waited,
                        "asked": asked,
                    },
                )
            pause = min(pause * 2, MAX_ASK)


async def _unchanged(runtime: GameRuntime, position: int, seconds: float) -> bool:
    """Whether the log is still at position after seconds (False as soon as it moves)."""
    with trio.move_on_after(seconds):
        while len(runtime.session.log) == position and runtime.state in ACTIVE:
            await runtime.changed.wait()
        return False
    return True
