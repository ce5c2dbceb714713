"""The async shell around the console: node updates and typed lines in, text out.

Game-agnostic: the console comes from ``creepnet.cli.faces.console_for``.  Connection news
that only matters until the next one (redial attempts, a move not delivered yet) goes to the
screen's status line, so it cannot scroll the game away.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import trio

from creepnet.cli.faces import console_for
from creepnet.cli.terminal import Out, Screen, StdinLines
from creepnet.cli.text import printable
from creepnet.node import updates
from creepnet.node.node import Node
from creepnet.node.storage import StorageError
from creepnet.node.updates import Update
from creepnet.protocol.event import Event
from creepnet.protocol.log import Rejection

# Who follows this game, in the game's words (a connection that is not about it says nothing).
PEER_NEWS = {updates.FOLLOWER_ARRIVED: True, updates.FOLLOWER_LEFT: False}
SHOWN = {
    updates.HOST_MOVED,
    updates.ADVERT_REFUSED,
    updates.STORAGE_OK,
    updates.REJECTED,
    updates.HALTED,
    updates.STORAGE_ERROR,
    updates.JOIN_REFUSED,
}
DELIVERY_PATIENCE = 2.0  # seconds before we say a move has not reached the others yet


async def play_in_terminal(
    node: Node,
    game: bytes,
    *,
    lines: AsyncIterator[str] | StdinLines | None = None,
    out: Out | None = None,
    screen: Screen | None = None,
    colour: bool = False,
    leave_on_eof: bool = True,
) -> int:
    """Show the game and take commands until it ends, the user quits, or (for players, with
    leave_on_eof) input ends.  A spectator without a terminal keeps watching to the end."""
    # A spectator may get here before the genesis arrives, and the genesis says which game it is.
    session = (await node.wait_for(game, lambda rt: bool(rt.session.kind))).session
    console = console_for(session, colour=colour)
    screen = screen or (Screen(out) if out is not None else Screen.for_stdout())
    say = screen.say
    send, receive = trio.open_memory_channel[tuple[str, object]](256)
    shown = {"intro": False, "events": 0}

    def prompt() -> str:
        ask = getattr(console, "prompt", None)  # a console that has none yet shows no prompt
        return ask() if ask is not None else ""

    def refresh() -> None:
        new = session.log.events[shown["events"] :]
        shown["events"] = len(session.log)
        if console.ready() and not shown["intro"]:
            say(console.introduction())
            say(console.board())
            shown["intro"] = True
        elif shown["intro"] and any(event.type in console.redraw_after for event in new):
            say(console.board())
        if new:
            say(console.status())
        screen.set_prompt(prompt())

    async def act(action: str, nursery: trio.Nursery) -> None:
        try:
            event = await node.play(game, action)
        except (Rejection, StorageError) as exc:
            say(f"not sent: {printable(str(getattr(exc, 'reason', exc)))}")
            return
        nursery.start_soon(watch_delivery, event)

    async def watch_delivery(event: Event) -> None:
        others = [seat.key for seat in session.seats if seat.key != event.author]

        def delivered(runtime) -> bool:
            return all(runtime.acked.get(key, 0) > event.seq for key in others)

        with trio.move_on_after(DELIVERY_PATIENCE):
            await node.wait_for(game, delivered)
            return
        screen.note(
            "* your move is saved but not delivered yet; it goes out on reconnection", "delivery"
        )
        await node.wait_for(game, delivered)
        say("* your move was delivered")

    async def forward_updates(channel: trio.MemorySendChannel) -> None:
        async with node.updates() as stream:
            async for update in stream:
                await channel.send(("update", update))

    async def forward_lines(channel: trio.MemorySendChannel) -> None:
        async for line in lines if lines is not None else StdinLines():
            await channel.send(("line", line))
        if leave_on_eof:
            await channel.send(("eof", None))

    def over() -> bool:
        return session.finished or session.halted is not None

    async def converse(nursery: trio.Nursery) -> None:
        leaving = False
        async for kind, item in receive:
            if isinstance(item, Update):
                if item.game not in (None, game):
                    continue
                if item.kind in PEER_NEWS:
                    back = item.data.get("back") is True
                    say(console.peer_news(PEER_NEWS[item.kind], item.peer, item.text, back=back))
                elif item.kind == updates.ERROR and item.game is None:
                    screen.note(f"* {printable(item.text)}", "redial")  # one status line
                elif item.kind in SHOWN or item.kind == updates.ERROR:
                    say(f"* {printable(item.text)}")
                refresh()
                queued = console.pending_action()
                if queued:
                    await act(queued, nursery)
            elif kind == "line":
                reply = console.handle(str(item))
                if reply.text:
                    say(reply.text)
                if reply.action:
                    await act(reply.action, nursery)
                if reply.quit:
                    return
                screen.set_prompt(prompt())
            elif console.resign_queued:
                leaving = True  # input ended, but a queued resignation must still go out
            else:
                return
            if over():
                return
            if leaving and not console.resign_queued:
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(forward_updates, send.clone())
        nursery.start_soon(forward_lines, send.clone())
        refresh()
        # A game that ended before we looked (watching a finished game) has nothing to wait for.
        if not over():
            await converse(nursery)
        nursery.cancel_scope.cancel()
    refresh()  # the game may have ended while we handled a line: show how
    screen.set_prompt("")
    screen.close()
    return 0
