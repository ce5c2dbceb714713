""" "Play again?" on the page: the terminal's rematch (cli/rematch.py), asked with two buttons.

When a game ends, each player's page asks.  The rematch is hosted by the last game's host, as
at the terminal, so a page and a terminal rematch each other:

* the host's *yes* opens it at once, its free seats kept for the last game's players;
* a guest's node looks at the host's games (one request every ``POLL`` seconds, for
  ``GUEST_PATIENCE``) from the moment its page shows the end: the page tells the guest when
  the host has opened the rematch, and the node joins it once the guest has said yes;
* a *no* hangs up on the last game's other players with the reason ``DECLINED``: their nodes
  see us stop following the game, with that reason, and their pages say so.  The protocol has
  no message about a finished game, so this is how a node tells another; a guest's *yes* is
  told by its joining, once the host opens;
* a game against bots asks nobody: *yes* opens the next one with the same bots (``makers``).

A page moves on to the rematch once it has started (we hold a seat and every seat is taken).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from creepnet.cli.rematch import GUEST_PATIENCE, join_rematch, offered_rematch, open_rematch
from creepnet.node.node import Node, NodeError
from creepnet.node.transport import TransportError
from creepnet.node.updates import Update
from creepnet.protocol.identity import fingerprint

POLL = 2.0  # seconds between a guest's looks at the host's games (a polling timer)
DECLINED = "said no to a rematch"  # the reason we hang up with; the others' pages say it
HOST_GONE = (NodeError, TransportError, OSError, trio.TooSlowError)
NextGame = Callable[[], Awaitable[bytes]]  # a game against bots: the next one, started


@dataclass
class Again:
    """One finished game's question: what we said, what we heard, the game that follows."""

    said: str | None = None  # "yes" or "no"
    news: list[str] = field(default_factory=list)  # what the others did, in words
    offered: bytes | None = None  # the rematch the host opened (as a guest saw it)
    next_game: bytes | None = None  # the rematch, once it has started with us seated
    closed: bool = False  # no rematch any more: someone said no, or the host is gone
    looking: bool = False  # a guest's node is looking at the host's games
    looked: bool = False  # it has looked since the end (it looks again after a yes)
    busy: bool = False  # opening or joining the rematch
    joined: bool = False  # a guest holds its seat in the rematch


class Rematches:
    """The "play again?" of every finished game of one node's page (``bump``: the page's
    views changed; tasks run in ``nursery``, set when the face runs)."""

    def __init__(self, node: Node, player: str, bump: Callable[[], None]) -> None:
        self.node, self.player, self.bump = node, player, bump
        self.games: dict[bytes, Again] = {}
        self.makers: dict[bytes, NextGame] = {}  # games against bots: how to open the next
        self.nursery: trio.Nursery | None = None

    def askable(self, game: bytes, left: bool) -> bool:
        """A game this node played to its end, still seated (a spectator, or a player who
        left or was retired, is asked nothing)."""
        session = self.node.session(game)
        me = session.local_seat
        return (
            session.finished
            and session.abandoned is None
            and me is not None
            and me not in session.retired
            and not left
        )

    def view(self, game: bytes, left: bool = False) -> dict[str, Any] | None:
        """What the page shows at the end: the question (while it stands), the news, and
        the game to move on to."""
        if not self.askable(game, left):
            return None
        again = self.games.setdefault(game, Again())
        if game not in self.makers and not self.node.games[game].hosted:
            self._look(game, again)  # a guest learns of the host's rematch without asking
        return {
            "ask": again.said is None and not again.closed,
            "said": again.said,
            "news": list(again.news),
            "next": again.next_game.hex() if again.next_game else None,
            "bots": game in self.makers,
        }

    async def answer(self, game: bytes, word: str, left: bool = False) -> str:
        """``yes`` or ``no``; the words for the page (ValueError: not now, and why)."""
        if word not in ("yes", "no"):
            raise ValueError("answer yes or no")
        if not self.askable(game, left):
            raise ValueError("this game offers no rematch")
        again = self.games.setdefault(game, Again())
        if again.closed:
            raise ValueError("there is no rematch any more")
        if again.said is not None:
            raise ValueError(f"you said {again.said} already")
        again.said = word
        try:
            if word == "no":
                return self._decline(game)
            return await self._accept(game, again)
        except BaseException:
            again.said = None  # nothing was opened or joined: the question stands
            raise
        finally:
            self.bump()

    def _decline(self, game: bytes) -> str:
        runtime = self.node.games[game]
        seats = set(runtime.session.seat_keys)
        for key, peer in list(runtime.followers.items()):
            if key in seats:
                peer.close(DECLINED, tell=True)
        return "you said no to a rematch"

    async def _accept(self, game: bytes, again: Again) -> str:
        maker = self.makers.get(game)
        runtime = self.node.games[game]
        if maker is not None:
            again.busy = True
            try:
                new = await maker()
            finally:
                again.busy = False
            self.makers[new] = maker  # and after that one, the next
            self._started(again, new)
            return "a new game against the same bots"
        if runtime.hosted:
            new = await open_rematch(self.node, game, self.player)
            self._follow(again, new)
            others = ", ".join(self._players(game, host=False)) or "the other players"
            return f"you opened the rematch; waiting for {others} to join"
        host = self._players(game, host=True)[0]
        if again.offered is not None:
            await self._join(game, again)
            return "you joined the rematch"
        self._look(game, again, fresh=True)
        return f"you said yes; you join the rematch as soon as {host} opens it"

    def _players(self, game: bytes, host: bool) -> list[str]:
        seats = self.node.session(game).seats
        return [seats[0].player] if host else [s.player for s in seats[1:]]

    async def _join(self, game: bytes, again: Again) -> None:
        if again.busy or again.joined or again.offered is None:
            return
        again.busy = True
        try:
            new = await join_rematch(self.node, game, again.offered, self.player)
        except HOST_GONE as exc:
            again.closed = True
            again.news.append(f"could not join the rematch: {exc or 'the host did not answer'}")
            return
        finally:
            again.busy = False
        again.joined = True
        self._follow(again, new)

    def _follow(self, again: Again, new: bytes) -> None:
        """Move the page on once the rematch has started (every seat taken)."""
        assert self.nursery is not None

        async def until_started() -> None:
            await self.node.wait_for(new, lambda rt: rt.session.started)
            self._started(again, new)

        self.nursery.start_soon(until_started)

    def _started(self, again: Again, new: bytes) -> None:
        again.next_game = new
        self.bump()

    def _look(self, game: bytes, again: Again, fresh: bool = False) -> None:
        """Look at the host's games for its rematch (once per answer: ``fresh`` looks again
        after a patience ran out)."""
        if again.looking or again.closed or self.nursery is None:
            return
        if (again.looked or again.offered is not None) and not fresh:
            return
        if not self.node.games[game].dial:
            return  # we do not know where the host is: it will not be found
        again.looking = again.looked = True
        self.nursery.start_soon(self._looking, game, again)

    async def _looking(self, game: bytes, again: Again) -> None:
        host = self._players(game, host=True)[0]
        try:
            with trio.move_on_after(GUEST_PATIENCE):
                while not again.closed and again.said != "no" and again.next_game is None:
                    if again.offered is None:
                        try:
                            again.offered = await offered_rematch(self.node, game)
                        except HOST_GONE:
                            self._close(again, f"{host} has left: no rematch")
                            return
                        if again.offered is not None:
                            again.news.append(f"{host} opened a rematch: play again?")
                            self.bump()
                    if again.offered is not None and again.said == "yes":
                        await self._join(game, again)
                        self.bump()
                        return
                    await trio.sleep(POLL)
            if again.said == "yes" and again.next_game is None and not again.busy:
                self._close(again, f"{host} did not open a rematch")
        finally:
            again.looking = False

    def _close(self, again: Again, text: str) -> None:
        again.closed = True
        again.news.append(text)
        self.bump()

    def peer_left(self, update: Update) -> None:
        """A node stopped following a finished game: a player saying no (``DECLINED``), or
        gone.  For the host every other seat counts; for a guest only the host (guests of a
        game over need not stay connected to each other)."""
        again = self.games.get(update.game) if update.game is not None else None
        if again is None or again.closed or again.said == "no" or again.next_game is not None:
            return
        if update.game in self.makers:
            return  # a bot's node goes when its game is over: the next game has new ones
        runtime = self.node.games[update.game]  # type: ignore[index]
        seats = runtime.session.seats
        seat = next((i for i, s in enumerate(seats) if fingerprint(s.key) == update.peer), None)
        if seat is None or seat == runtime.session.local_seat:
            return
        if not runtime.hosted and seat != 0:
            return
        who = seats[seat].player
        said = DECLINED in update.text
        self._close(
            again,
            f"{who} {DECLINED}" if said else f"{who} has gone (closed creepnet, or said no there)",
        )
