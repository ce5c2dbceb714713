""" "Play again?" after a game: the same players, a new game under the same name.

A rematch is a new game (its own genesis, so colours are drawn again by a fresh coin), hosted
by the node that hosted the last one, under the same name: `creepnet join NAME` finds it,
because an open game always wins over a finished one of that name.  The host opens it as soon
as its player says yes, with its free seat kept for the last game's opponent (the node refuses
other keys); the guest's node looks for it at the host's address for a while.

While either side waits, `help` and `quit` work (quit stops waiting; a hosted rematch stays open
for `creepnet host` to resume).  The host is told when an opponent's node leaves without joining
(it said no, or was closed): the node sees it stop following the last game.  The host keeps
waiting, since that player can still come back with `creepnet join NAME`.
"""

from __future__ import annotations

import shlex

import trio

from creepnet.cli.terminal import Screen, StdinLines
from creepnet.cli.text import fit, printable
from creepnet.node.node import Node, NodeError
from creepnet.node.transport import TransportError
from creepnet.protocol.identity import fingerprint

QUESTION = "play again? the same players, a new game [y/N] "
YES = {"y", "yes"}
GUEST_PATIENCE = 120.0  # seconds the guest waits for the host to open the rematch
POLL = 1.0  # seconds between asking the host (a polling timer, not synchronisation)


async def ask(lines: StdinLines, screen: Screen) -> bool:
    screen.say(QUESTION.rstrip())
    answer = await lines.next()
    return answer is not None and answer.strip().lower() in YES


WAITING_HELP = "waiting for the rematch; commands: help, quit (stop waiting)"


async def rematch(
    node: Node, game: bytes, player: str, screen: Screen, lines: StdinLines | None = None
) -> bytes | None:
    """The next game of the series, once we hold a seat in it; None if there is none or the
    player typed quit (``lines``: what the player types meanwhile)."""
    found: list[bytes] = []
    async with trio.open_nursery() as nursery:

        async def find() -> None:
            new = await _find_rematch(node, game, player, screen, nursery)
            if new is not None:
                found.append(new)
            nursery.cancel_scope.cancel()

        nursery.start_soon(find)
        if lines is not None:
            nursery.start_soon(_answer_while_waiting, lines, screen, nursery.cancel_scope)
    return found[0] if found else None


async def _answer_while_waiting(lines: StdinLines, screen: Screen, scope: trio.CancelScope) -> None:
    while (line := await lines.next()) is not None:
        word = line.strip().lower()
        if word in ("quit", "exit", "q"):
            screen.say("stopped waiting for the rematch")
            scope.cancel()
            return
        if word:
            screen.say(WAITING_HELP if word in ("help", "?") else f"{WAITING_HELP} (not {word!r})")


async def _find_rematch(
    node: Node, game: bytes, player: str, screen: Screen, nursery: trio.Nursery
) -> bytes | None:
    runtime = node.games[game]
    session = runtime.session
    if runtime.hosted:
        new = await open_rematch(node, game, player)
        screen.say(
            fit(
                f"hosting the rematch {printable(session.name)!r} ({new.hex()[:8]}); "
                "waiting for your opponent ('quit' stops waiting)"
            )
        )
        nursery.start_soon(_tell_who_leaves, node, game, new, screen)
        await node.wait_for(new, lambda rt: rt.session.started)
        return new
    if not runtime.dial:
        return None
    screen.say("waiting for the host to open the rematch… ('quit' stops waiting)")
    with trio.move_on_after(GUEST_PATIENCE):
        while True:
            try:
                offered = await offered_rematch(node, game)
            except (NodeError, TransportError, OSError, trio.TooSlowError):
                screen.say("the host has left; no rematch")
                return None
            if offered is not None:
                new = await join_rematch(node, game, offered, player)
                screen.say(f"joined the rematch ({new.hex()[:8]})")
                return new
            await trio.sleep(POLL)
    screen.say("the host did not open a rematch")
    return None


# The steps of a rematch, shared with the page (cli/web/again.py).


async def open_rematch(node: Node, game: bytes, player: str) -> bytes:
    """The host's side: a new game of the same kind, name and options, its free seats kept
    for the last game's other players."""
    session = node.session(game)
    return await node.host_game(
        session.kind,
        session.name,
        seats=session.seat_count,
        player=player,
        options=dict(session.options),
        reserved_for=frozenset(session.seat_keys) - {session.seat_keys[0]},
    )


async def offered_rematch(node: Node, game: bytes) -> bytes | None:
    """A guest's look (one request) at the last game's host: the rematch it has opened, if
    any (raises NodeError, TransportError, OSError or TooSlowError when the host is gone)."""
    runtime = node.games[game]
    name = runtime.session.name
    for item in await node.list_games(sorted(runtime.dial)[0]):
        if (
            item["name"] == name
            and item["game"] != game
            and item["state"] == "lobby"
            and item["taken"] < item["seats"]
            and item["game"] not in node.games
        ):
            return bytes(item["game"])
    return None


async def join_rematch(node: Node, game: bytes, new: bytes, player: str) -> bytes:
    """Take our seat in the rematch, at the last game's host (the same key again)."""
    runtime = node.games[game]
    host = fingerprint(runtime.host_key) if runtime.host_key else None
    return await node.join(sorted(runtime.dial)[0], new, player=player, host=host)


async def _tell_who_leaves(node: Node, old: bytes, new: bytes, screen: Screen) -> None:
    """Tell the host about each last-game opponent whose node stops following the last game
    without having taken its seat in the rematch (it answered no, or was closed)."""
    session = node.session(old)
    others = {key: seat for seat, key in enumerate(session.seat_keys) if seat != 0}
    told: set[bytes] = set()
    while True:
        seated = {seat.key for seat in node.session(new).seats}
        following = node.games[old].followers
        for key, seat in others.items():
            if key not in told and key not in following and key not in seated:
                told.add(key)
                name = shlex.quote(printable(session.name))
                screen.say(
                    fit(
                        f"* {printable(session.seats[seat].label)} left without joining the "
                        f"rematch (said no, or closed creepnet); they can still join it with "
                        f"`creepnet join {name}`, or type 'quit' to stop waiting"
                    )
                )
        await node.wait_changed(old)
