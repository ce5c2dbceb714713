"""The async shell around the console: node updates and typed lines in, text out.

Game-agnostic: the console comes from ``creepnet.cli.faces.console_for``.  Connection news
that only matters until the next one (redial attempts, a move not delivered yet) goes to the
screen's status line, so it cannot scroll the game away.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import trio

from creepnet.cli.faces import Console, console_for
from creepnet.cli.patience import Quiet, own_silence
from creepnet.cli.terminal import Out, Screen, StdinLines
from creepnet.cli.text import printable
from creepnet.node import retirement, updates
from creepnet.node.node import Node
from creepnet.node.storage import StorageError
from creepnet.node.updates import Update
from creepnet.protocol.event import Event
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Phase, Session

# Who follows this game, in the game's words (a connection that is not about it says nothing).
LEAVE_WORDS = ("leave", "claim")  # node/retirement.py: leave for good; claim an abandonment
PEER_NEWS = {updates.FOLLOWER_ARRIVED: True, updates.FOLLOWER_LEFT: False}
SHOWN = {
    updates.HOST_MOVED,
    updates.ADVERT_REFUSED,
    updates.STORAGE_OK,
    updates.REJECTED,
    updates.HALTED,
    updates.STORAGE_ERROR,
    updates.JOIN_REFUSED,
    retirement.RETIRED,  # "Cat left the game; the table plays on without her"
    retirement.CLAIMABLE,
}
DELIVERY_PATIENCE = 2.0  # seconds before we say a move has not reached the others yet
SILENCE_TOLD = 10.0  # seconds a spectator sees the game wait on one player before it is told
QUIET_BEFORE_TOLD = 10.0  # seconds of a seat's silence (at most half the table's patience)


class Silences:
    """Which of the node's countdowns for a silent seat (``retiring`` updates, once a second
    from the first) are news: a person thinking is none, so a silence is told only once it
    has lasted QUIET_BEFORE_TOLD seconds, at a bot's seat and at a person's alike."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.first_heard: dict[tuple[int, int], float] = {}  # (seat, log length) -> first

    def lasting(self, countdown: Update) -> tuple[int, int] | None:
        """The silence (seat, log length) a countdown is about, once it has lasted; else None."""
        silence = (countdown.data["seat"], len(self.session.log))
        since = self.first_heard.setdefault(silence, trio.current_time())
        quiet = min(QUIET_BEFORE_TOLD, self.session.retire_after / 2)
        return silence if trio.current_time() - since >= quiet else None


async def play_in_terminal(
    node: Node,
    game: bytes,
    *,
    lines: AsyncIterator[str] | StdinLines | None = None,
    out: Out | None = None,
    screen: Screen | None = None,
    colour: bool = False,
    leave_on_eof: bool = True,
) -> bool:
    """Show the game and take commands until it ends, the user quits, or (for players, with
    leave_on_eof) input ends.  A spectator without a terminal keeps watching to the end.
    True when the player left the game for good (`leave`): it no longer waits for them."""
    # A spectator may get here before the genesis arrives, and the genesis says which game it is.
    session = (await node.wait_for(game, lambda rt: bool(rt.session.kind))).session
    console = console_for(session, colour=colour)
    screen = screen or (Screen(out) if out is not None else Screen.for_stdout())
    play = TerminalPlay(node, game, console, screen)
    await play.run(lines, leave_on_eof)
    return play.left


class TerminalPlay:
    """One game at one terminal: node updates and typed lines arrive on one channel, in the
    order they happen, and each is answered by the console; what is sent is watched until
    the other seats hold it."""

    def __init__(self, node: Node, game: bytes, console: Console, screen: Screen) -> None:
        self.node, self.game, self.console, self.screen = node, game, console, screen
        self.session = node.session(game)
        self.say = screen.say
        self.intro_shown = False
        self.events_shown = 0  # events of the log the screen has caught up with
        self.left = False  # we left for good (`leave`)
        self.silences = Silences(self.session)
        self.send, self.receive = trio.open_memory_channel[tuple[str, object]](256)

    async def run(self, lines: AsyncIterator[str] | StdinLines | None, leave_on_eof: bool) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.forward_updates, self.send.clone())
            nursery.start_soon(self.forward_lines, self.send.clone(), lines, leave_on_eof)
            nursery.start_soon(self.tell_silence)
            self.refresh()
            # A game that ended before we looked (watching a finished game) has nothing to
            # wait for.
            if not self.over():
                await self.converse(nursery)
            nursery.cancel_scope.cancel()
        self.refresh()  # the game may have ended while we handled a line: show how (an
        # abandonment too: each console's status says "game over: unfinished: abandoned …")
        self.screen.set_prompt("")
        self.screen.close()

    # ----- what the screen shows ----------------------------------------------------------

    def refresh(self) -> None:
        """Catch the screen up with the log: the introduction once the game is ready, the
        board again after the events that call for it, the status after anything new."""
        console = self.console
        new = self.session.log.events[self.events_shown :]
        self.events_shown = len(self.session.log)
        if console.ready() and not self.intro_shown:
            self.say(console.introduction())
            self.say(console.board())
            self.intro_shown = True
        elif self.intro_shown and any(event.type in console.redraw_after for event in new):
            self.say(console.board())
        if new:
            status = console.status()
            if "\n" not in status and self.waits_on_a_node():
                self.screen.note(status, "progress")  # replaced by the next step, not scrolled
            else:
                self.say(status)
        self.screen.set_prompt(self.console.prompt())

    def waits_on_a_node(self) -> bool:
        """The game waits on a step a node takes by itself (a shuffle, a reveal, a card let
        through): news only until the next step.  A Racer set-up is some 150 of them; said as
        lines, they scrolled the table off the screen before the first turn."""
        turn = self.session.expected()
        return turn is not None and turn.automatic and not self.over()

    def over(self) -> bool:
        return self.session.over

    async def tell_silence(self) -> None:
        """A status line once the game has waited on one player for a while, saying what the
        table will do about it.  A spectator's node runs no retirement timer: it is told after
        SILENCE_TOLD seconds.  A seat's node tells of the others' silences itself, but not of
        ours: the player to move is told how long is left once half the table's patience is
        gone (cli/patience.py), not just that it has been retired."""
        quiet = Quiet()
        while True:
            await trio.sleep(1)
            session = self.session
            silent = quiet.silent(len(session.log), trio.current_time())
            waiting = session.waiting_for() if session.phase is Phase.PLAYING else None
            if waiting is None or self.over():
                continue
            if session.local_seat is None and silent >= SILENCE_TOLD:
                self.screen.note(self.silence_text(waiting.player, silent), "silence")
            elif (warning := own_silence(session, silent)) is not None:
                # Two keys: in a pipe a note is printed once, so the countdown's first second
                # is shown, and once more the moment the table's patience is up.
                self.screen.note(f"* {warning.text}", "up" if warning.up else "left")

    def silence_text(self, player: str, silent: float) -> str:
        patience = f"{self.session.retire_after:g} s"
        then = (
            f"the others retire a seat silent for {patience}"
            if self.session.retires_a_silence
            else f"after {patience} the other may claim the game"
        )
        return f"* no word from {printable(player)} for {silent:.0f} s ({then})"

    # ----- what we send ---------------------------------------------------------------------

    async def act(self, action: str, nursery: trio.Nursery) -> None:
        try:
            event = await self.node.play(self.game, action)
        except (Rejection, StorageError) as exc:
            self.say(f"not sent: {printable(str(getattr(exc, 'reason', exc)))}")
            return
        nursery.start_soon(self.watch_delivery, event)

    async def watch_delivery(self, event: Event) -> None:
        others = [seat.key for seat in self.session.seats if seat.key != event.author]

        def delivered(runtime) -> bool:  # every other seat has it, from us or through anyone
            return all(runtime.reached(key, event.seq) for key in others)

        with trio.move_on_after(DELIVERY_PATIENCE):
            await self.node.wait_for(self.game, delivered)
            return
        self.screen.note(
            "* your move is saved but not delivered yet; it goes out on reconnection", "delivery"
        )
        await self.node.wait_for(self.game, delivered)
        self.say("* your move was delivered")

    async def leave_or_claim(self, word: str) -> bool:
        """``leave``: tell the table we go for good (they retire us at once); ``claim``: two
        seats left and the other is gone, claim the game abandoned.  True when we leave."""
        if word == "leave" and not self.session.started:
            self.say("the game has not started: 'quit' stops waiting, and your seat stays yours")
            return False
        try:
            if word == "leave":
                await self.node.leave(self.game)
                self.left = True
                self.say(self.left_text())
                return True
            await self.node.claim(self.game)
        except (ValueError, Rejection) as exc:
            self.say(f"not now: {printable(str(getattr(exc, 'reason', exc)))}")
            return False
        self.say(f"* {printable(self.session.outcome_text or 'claimed: the game is abandoned')}")
        return True

    def left_text(self) -> str:
        if self.session.retires_a_silence:
            return "you left the game for good; the others retire your seat and play on"
        return "you left the game for good; your opponent may claim it abandoned"

    # ----- what comes in --------------------------------------------------------------------

    async def forward_updates(self, channel: trio.MemorySendChannel) -> None:
        async with self.node.updates() as stream:
            async for update in stream:
                await channel.send(("update", update))

    async def forward_lines(
        self,
        channel: trio.MemorySendChannel,
        lines: AsyncIterator[str] | StdinLines | None,
        leave_on_eof: bool,
    ) -> None:
        async for line in lines if lines is not None else StdinLines():
            await channel.send(("line", line))
        if leave_on_eof:
            await channel.send(("eof", None))

    async def converse(self, nursery: trio.Nursery) -> None:
        """Answer each update and line in turn, until the game is over or the player leaves."""
        leaving = False
        async for kind, item in self.receive:
            if isinstance(item, Update):
                if item.game not in (None, self.game):
                    continue
                await self.on_update(item, nursery)
            elif kind == "line":
                if await self.on_line(str(item), nursery):
                    return
            elif self.console.resign_queued:
                leaving = True  # input ended, but a queued resignation must still go out
            else:
                return
            if self.over():
                return
            if leaving and not self.console.resign_queued:
                return

    async def on_update(self, update: Update, nursery: trio.Nursery) -> None:
        if update.kind in PEER_NEWS:
            back = update.data.get("back") is True
            connected = PEER_NEWS[update.kind]
            self.say(self.console.peer_news(connected, update.peer, update.text, back=back))
        elif update.kind == updates.ERROR and update.game is None:
            self.screen.note(f"* {printable(update.text)}", "redial")  # one status line
        elif update.kind == retirement.RETIRING:
            if "seat" not in update.data or self.silences.lasting(update) is not None:
                self.screen.note(f"* {printable(update.text)}", "retiring")  # one status line
        elif update.kind in SHOWN or update.kind == updates.ERROR:
            self.say(f"* {printable(update.text)}")
        self.refresh()
        queued = self.console.pending_action()
        if queued:
            await self.act(queued, nursery)

    async def on_line(self, line: str, nursery: trio.Nursery) -> bool:
        """Answer a typed line; True when the player leaves."""
        if line.strip() in LEAVE_WORDS:
            return await self.leave_or_claim(line.strip())
        reply = self.console.handle(line)
        if reply.text:
            self.say(reply.text)
        if reply.action:
            await self.act(reply.action, nursery)
        if reply.quit:
            return True
        self.screen.set_prompt(self.console.prompt())
        return False
