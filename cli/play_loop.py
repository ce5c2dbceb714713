"""The async shell around the console: node updates and typed lines in, text out."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable

import trio

from creepnet.cli.faces import console_for
from creepnet.node import updates
from creepnet.node.node import Node
from creepnet.node.storage import StorageError
from creepnet.node.updates import Update
from creepnet.protocol.log import Rejection

Out = Callable[[str], None]
PEER_NEWS = {updates.PEER_CONNECTED: True, updates.PEER_DISCONNECTED: False}
SHOWN = {
    updates.HOST_MOVED,
    updates.STORAGE_OK,
    updates.REJECTED,
    updates.HALTED,
    updates.STORAGE_ERROR,
    updates.ERROR,
    updates.JOIN_REFUSED,
}


async def stdin_lines() -> AsyncIterator[str]:
    """Lines typed by the user; a thread does the blocking read so trio stays responsive."""
    while True:
        line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        if not line:
            return
        yield line


async def play_in_terminal(
    node: Node,
    game: bytes,
    *,
    lines: AsyncIterator[str] | None = None,
    out: Out = print,
    colour: bool = False,
    leave_on_eof: bool = True,
) -> int:
    """Show the game and take commands until it ends, the user quits, or (for players, with
    leave_on_eof) input ends.  A spectator without a terminal keeps watching to the end."""
    session = node.session(game)
    console = console_for(session, colour=colour)
    send, receive = trio.open_memory_channel[tuple[str, object]](256)
    shown = {"intro": False, "events": 0}

    def refresh() -> None:
        new = session.log.events[shown["events"] :]
        shown["events"] = len(session.log)
        if console.ready() and not shown["intro"]:
            out(console.introduction())
            out(console.board())
            shown["intro"] = True
        elif shown["intro"] and any(event.type in console.redraw_after for event in new):
            out(console.board())
        if new:
            out(console.status())

    async def act(action: str) -> None:
        try:
            await node.play(game, action)
        except (Rejection, StorageError) as exc:
            out(f"not sent: {getattr(exc, 'reason', exc)}")

    async def forward_updates(channel: trio.MemorySendChannel) -> None:
        async with node.updates() as stream:
            async for update in stream:
                await channel.send(("update", update))

    async def forward_lines(channel: trio.MemorySendChannel) -> None:
        async for line in lines if lines is not None else stdin_lines():
            await channel.send(("line", line))
        if leave_on_eof:
            await channel.send(("eof", None))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(forward_updates, send.clone())
        nursery.start_soon(forward_lines, send.clone())
        if not session.started:
            out("waiting for players to join…")
        refresh()

        def over() -> bool:
            return session.finished or session.halted is not None

        async def converse() -> None:
            leaving = False
            async for kind, item in receive:
                if isinstance(item, Update):
                    if item.game not in (None, game):
                        continue
                    if item.kind in PEER_NEWS:
                        out(console.peer_news(PEER_NEWS[item.kind], item.peer, item.text))
                    elif item.kind in SHOWN:
                        out(f"* {item.text}")
                    refresh()
                    queued = console.pending_action()
                    if queued:
                        await act(queued)
                elif kind == "line":
                    reply = console.handle(str(item))
                    if reply.text:
                        out(reply.text)
                    if reply.action:
                        await act(reply.action)
                    if reply.quit:
                        return
                elif console.resign_queued:
                    leaving = True  # input ended, but a queued resignation must still go out
                else:
                    return
                if over():
                    return
                if leaving and not console.resign_queued:
                    return

        # A game that ended before we looked (watching a finished game) has nothing to wait for.
        if not over():
            await converse()
        nursery.cancel_scope.cancel()
    refresh()  # the game may have ended while we handled a line: show how
    return 0
