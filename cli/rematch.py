""" "Play again?" after a game: the same players, a new game under the same name.

A rematch is a new game (its own genesis, so colours are drawn again by a fresh coin), hosted
by the node that hosted the last one, under the same name: `creepnet join NAME` finds it,
because an open game always wins over a finished one of that name.  The host opens it as soon
as its player says yes, with its free seat kept for the last game's opponent (the node refuses
other keys); the guest's node looks for it at the host's address for a while.
"""

from __future__ import annotations

import trio

from creepnet.cli.terminal import Screen, StdinLines
from creepnet.cli.text import printable
from creepnet.node.node import Node, NodeError
from creepnet.node.transport import TransportError
from creepnet.protocol.identity import fingerprint

QUESTION = "play again? same opponent, colours drawn again [y/N] "
YES = {"y", "yes"}
GUEST_PATIENCE = 120.0  # seconds the guest waits for the host to open the rematch
POLL = 1.0  # seconds between asking the host (a polling timer, not synchronisation)


async def ask(lines: StdinLines, screen: Screen) -> bool:
    screen.say(QUESTION.rstrip())
    answer = await lines.next()
    return answer is not None and answer.strip().lower() in YES


async def rematch(node: Node, game: bytes, player: str, screen: Screen) -> bytes | None:
    """The next game of the series, once we hold a seat in it; None if there is none."""
    runtime = node.games[game]
    session = runtime.session
    if runtime.hosted:
        new = await node.host_game(
            session.kind,
            session.name,
            player=player,
            options=dict(session.options),
            reserved_for=frozenset(session.seat_keys) - {session.seat_keys[0]},
        )
        screen.say(
            f"hosting the rematch {printable(session.name)!r} ({new.hex()[:8]}); "
            "waiting for your opponent"
        )
        await node.wait_for(new, lambda rt: rt.session.started)
        return new
    address = sorted(runtime.dial)[0] if runtime.dial else None
    if address is None:
        return None
    host = fingerprint(runtime.host_key) if runtime.host_key else None  # the same host again
    screen.say("waiting for the host to open the rematch…")
    with trio.move_on_after(GUEST_PATIENCE):
        while True:
            try:
                games = await node.list_games(address)
            except (NodeError, TransportError, OSError, trio.TooSlowError):
                screen.say("the host has left; no rematch")
                return None
            for item in games:
                if (
                    item["name"] == session.name
                    and item["game"] != game
                    and item["state"] == "lobby"
                    and item["taken"] < item["seats"]
                    and item["game"] not in node.games
                ):
                    new = await node.join(address, item["game"], player=player, host=host)
                    screen.say(f"joined the rematch ({new.hex()[:8]})")
                    return new
            await trio.sleep(POLL)
    screen.say("the host did not open a rematch")
    return None
