"""The node behind the page: games seen on the LAN, news from the node's update stream, and the
things a page may ask the node to do (host, join, watch, play, leave).

A game hosted "against a bot" at a level (the registry's levels, as `creepnet play --vs`) gets
one bot node per other seat, each in its own home beside ours and on loopback, joining and
playing (node/bot.py) in the face's nursery: it stops with the page, and its thinking runs in
a thread, so our node keeps answering meanwhile.

With the node's internet carrier (node/wan, `--internet`), a game hosted here shows its invite
line while seats are open, and the lobby joins by a pasted invite; without one, neither shows.

One face per node; its background tasks (LAN browsing, listening to the node) live in the
nursery the command gives it, so they stop with the server.
"""

from __future__ import annotations

import secrets
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from creepnet.cli.faces import FACES, Story, page_of
from creepnet.cli.game_options import hosted_options, seat_count
from creepnet.cli.network import reachable_address
from creepnet.cli.patience import Quiet, own_silence
from creepnet.cli.seat_runner import bot_player_name
from creepnet.cli.web.again import NextGame, Rematches
from creepnet.cli.web.views import game_summary
from creepnet.node import updates
from creepnet.node.bot import run_bot
from creepnet.node.discovery import Found
from creepnet.node.node import Node, NodeError
from creepnet.node.retirement import CLAIMABLE, RETIRED, RETIRING
from creepnet.node.updates import Update
from creepnet.protocol.games import GAMES, get_game
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Phase

NEWS_LENGTH = 20
# Updates worth a line in the page's news (the feed already tells the events themselves).
NEWS = {
    updates.PEER_CONNECTED,
    updates.PEER_DISCONNECTED,
    updates.REJECTED,
    updates.HALTED,
    updates.STORAGE_ERROR,
    updates.STORAGE_OK,
    updates.HOST_MOVED,
    updates.ERROR,
    updates.JOIN_REFUSED,
    RETIRED,  # "cat left the game; ...", ours in our words: "the table retired you from ..."
    CLAIMABLE,  # the other player is gone: the page offers the claim
}
MAX_NAME = 64
BOT_HOMES = Path("bots") / "page"  # under the node's home: one folder per bot seat and game


class WebError(Exception):
    """Something the page asked for that cannot be done, in words for the player."""


@dataclass
class WebFace:
    node: Node
    player: str
    replay_files: dict[str, Path] = field(default_factory=dict)  # name -> a log named on the CLI
    found: dict[str, Found] = field(default_factory=dict)  # LAN games by zeroconf instance
    news: dict[bytes, deque[str]] = field(default_factory=dict)
    changed: trio.Event = field(default_factory=trio.Event)
    version: int = 0  # how many changes the face has seen: orders views the page receives
    stories: dict[bytes, tuple[object, Story]] = field(default_factory=dict)
    # The node's latest retirement word per game ("waiting for Cat: ... retired in 75 s"), and
    # its offer of a claim, each with the log length it was said at: both hold only until the
    # log moves on.
    retiring: dict[bytes, tuple[int, str]] = field(default_factory=dict)
    claimable: dict[bytes, int] = field(default_factory=dict)
    # When each game's log last grew, and the warning to us while a game waits on our silent
    # decision (cli/patience.py, as the terminal's status line says it) with the log length it
    # was said at: our node runs no timer on us, the others' nodes do.
    quiet: dict[bytes, Quiet] = field(default_factory=dict)
    own_silence: dict[bytes, tuple[int, str | None]] = field(default_factory=dict)
    left: set[bytes] = field(default_factory=set)  # games we told the table we leave
    nursery: trio.Nursery | None = None  # the bots' (set by ``run``)
    carrier: Any = None  # the node's internet carrier (node/wan/carrier.py), when it has one
    reachable: str | None = None  # our node's address for others (``address``)
    rematches: Rematches = field(init=False)  # each finished game's "play again?"

    def __post_init__(self) -> None:
        self.rematches = Rematches(self.node, self.player, self._bump)

    def _bump(self) -> None:
        self.version += 1
        self.changed.set()
        self.changed = trio.Event()

    # Any, not trio.TaskStatus[None]: see node/advertiser.py's run.
    async def run(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Follow the node's updates (and the LAN, when the node runs zeroconf)."""
        async with trio.open_nursery() as nursery, self.node.updates() as stream:
            self.nursery = self.rematches.nursery = nursery
            if self.node.discovery is not None:
                nursery.start_soon(self._browse)
            nursery.start_soon(self._count_own_silences)
            task_status.started()
            async for update in stream:
                self._record(update)
                if update.game in self.node.games:
                    self.story_for(update.game)  # told event by event, not batch by batch
                    self._silent(update.game)  # a new event restarts the clock at once
                self._bump()

    def _record(self, update: Update) -> None:
        if update.kind == updates.FOLLOWER_LEFT:
            self.rematches.peer_left(update)  # a player saying no to a rematch, or gone
        if update.kind in (updates.FOLLOWER_ARRIVED, updates.FOLLOWER_LEFT):
            # Who follows a game, told in its words where the peer holds a seat in it.
            runtime = self.node.games.get(update.game) if update.game else None
            if runtime is None or runtime.state not in ("lobby", "playing"):
                return
            seat = next(
                (s for s in runtime.session.seats if fingerprint(s.key) == update.peer), None
            )
            if seat is not None:
                self._add_news(runtime.game, self._peer_news(update, seat.player))
        elif update.kind == RETIRING and update.game in self.node.games:
            # a countdown once a second: one line that changes, not a line each second
            self.retiring[update.game] = (self._length(update.game), update.text)
        elif update.kind in NEWS and update.game is not None:
            if update.kind == CLAIMABLE and update.game in self.node.games:
                self.claimable[update.game] = self._length(update.game)
            self._add_news(update.game, update.text)

    def _length(self, game: bytes) -> int:
        return len(self.node.session(game).log)

    def retiring_for(self, game: bytes) -> str | None:
        said = self.retiring.get(game)
        return said[1] if said is not None and said[0] == self._length(game) else None

    async def _count_own_silences(self) -> None:
        """Once a second, as the terminal looks: a warning to us that appears or counts down
        is a change, and the page is sent it (nothing else changes while we are silent)."""
        while True:
            await trio.sleep(1)
            changed = False
            for game in list(self.node.games):
                text = self._own_silence_now(game)
                if text != self.own_silence_for(game):
                    self.own_silence[game] = (self._length(game), text)
                    changed = True
            if changed:
                self._bump()

    def _own_silence_now(self, game: bytes) -> str | None:
        session = self.node.session(game)
        warning = own_silence(session, self._silent(game)) if game not in self.left else None
        return warning.text if warning is not None else None

    def _silent(self, game: bytes) -> float:
        """Seconds since we first saw the game's log at its present length."""
        quiet = self.quiet.setdefault(game, Quiet())
        return quiet.silent(self._length(game), trio.current_time())

    def own_silence_for(self, game: bytes) -> str | None:
        """The warning to us that the table's patience with our silence runs out, while the
        log stands still: gone with our move, or anyone's."""
        said = self.own_silence.get(game)
        return said[1] if said is not None and said[0] == self._length(game) else None

    def may_leave(self, game: bytes) -> dict[str, bool]:
        """Whether the page offers *Leave* (a seated player of a game under way, as the
        terminal's ``leave``) and *Claim abandonment* (two seats left and the node has offered
        the claim at the log's present length)."""
        session = self.node.session(game)
        me = session.local_seat
        playing = session.phase is Phase.PLAYING
        seated = playing and me is not None and me not in session.retired
        present = seated and game not in self.left
        offered = self.claimable.get(game) == self._length(game)
        return {
            "leave": present,
            "claim": present and not session.retires_a_silence and offered,
        }

    def _add_news(self, game: bytes, text: str) -> None:
        self.news.setdefault(game, deque(maxlen=NEWS_LENGTH)).append(text)

    @staticmethod
    def _peer_news(update: Update, player: str) -> str:
        who = f"{player} ({update.peer})"
        if update.kind == updates.FOLLOWER_ARRIVED and update.data.get("back"):
            return f"{who} is back; the game goes on"
        if update.kind == updates.FOLLOWER_ARRIVED:
            return f"{who} is connected"
        return f"{who} disconnected; the game waits, and nothing played is lost"

    async def _browse(self) -> None:
        assert self.node.discovery is not None
        async with self.node.discovery.browse() as channel:
            async for item in channel:
                if isinstance(item, Found):
                    self.found[item.instance] = item
                else:
                    self.found.pop(item.instance, None)
                self._bump()

    # ----- what the lobby shows -------------------------------------------------------------

    def lobby(self) -> dict[str, Any]:
        mine = {game.hex()[:8] for game in self.node.games}
        lan = []
        for item in sorted(self.found.values(), key=lambda f: f.title):
            lan.append(
                {
                    "instance": item.instance,
                    "name": item.name,
                    "host": item.host or "",
                    "host_player": item.player,  # what the advert says: a hint, unchecked
                    "kind": item.kind,
                    "game": item.game,
                    "seats_taken": item.seats_taken,
                    "seats_total": item.seats_total,
                    "seats_free": max(0, item.seats_total - item.seats_taken),
                    "state": item.state,
                    "address": item.address,
                    "yours": item.game in mine,
                }
            )
        return {
            "player": self.player,
            "fingerprint": self.node.fingerprint,
            "address": self.address(),
            "discovery": self.node.discovery is not None,
            "internet": self.carrier is not None,
            "hostable": [
                {
                    "kind": kind,
                    "title": FACES[kind].title,
                    "min_seats": GAMES[kind].rules.min_seats,
                    "max_seats": GAMES[kind].rules.max_seats,
                    "limit": FACES[kind].choices.limit_words,
                    "levels": [
                        {"level": level, "what": what}
                        for level, what in get_game(kind).levels.items()
                    ],
                }
                for kind in self.games()
            ],
            "titles": {kind: FACES[kind].title for kind in FACES},
            "lan": lan,
            "mine": [game_summary(rt) for rt in self.node.games.values()],
            "replays": sorted(self.replay_files),
        }

    def address(self) -> str:
        """Where other nodes reach ours: the bound address, or (listening on every interface)
        this machine's LAN addresses, as the terminal says it; found once."""
        if self.reachable is None:
            self.reachable = reachable_address(self.node)
        return self.reachable

    def games(self) -> list[str]:
        """The kinds this page may host: every game with rules and a record in the registry."""
        return [kind for kind in FACES if kind in GAMES]

    def news_for(self, game: bytes) -> list[str]:
        return list(self.news.get(game, ()))

    def story_for(self, game: bytes) -> Story | None:
        """The game's teller, when its kind has one, caught up with the log (one per session:
        a teller remembers what it has told)."""
        session = self.node.session(game)
        page = page_of(session.kind)
        teller = page.story if page is not None else None
        if teller is None:
            return None
        held = self.stories.get(game)
        if held is None or held[0] is not session:
            held = self.stories[game] = (session, teller(session))
        held[1]()
        return held[1]

    # ----- what the page may ask -------------------------------------------------------------

    async def host(
        self, kind: str, name: str, seats: int | None, limit: int | None, vs: str | None = None
    ) -> bytes:
        """Host ``kind`` for ``seats`` (the game's least when None), ending in a draw after
        ``limit`` (the game's own limit option, e.g. a number of moves or of turns); with a
        bot level ``vs``, every other seat is that bot (as `creepnet play --vs`)."""
        if kind not in self.games():
            raise WebError(f"this page cannot host {kind!r} games")
        levels = get_game(kind).levels
        if vs is not None and vs not in levels:
            title = FACES[kind].title
            raise WebError(f"{title} has no bot level {vs!r}; choose from {', '.join(levels)}")
        try:
            seats = seat_count(kind, seats or None)
        except ValueError as exc:
            raise WebError(str(exc)) from None
        usual = f"{self.player} vs {vs}" if vs is not None else f"{self.player}'s game"
        name = name.strip()[:MAX_NAME] or usual
        options = hosted_options(kind, seats, limit or None)
        try:
            game = await self.node.host_game(
                kind, name, seats=seats, player=self.player, options=options
            )
        except (NodeError, ValueError) as exc:
            raise WebError(str(exc)) from None
        if vs is not None:
            for k in range(1, seats):
                await self._seat_bot(game, vs, k)
            self.play_again_with(game, lambda: self._next_with_bots(kind, name, seats, limit, vs))
        return game

    async def _next_with_bots(
        self, kind: str, name: str, seats: int, limit: int | None, vs: str
    ) -> bytes:
        game = await self.host(kind, name, seats, limit, vs)
        await self.node.wait_for(game, lambda rt: rt.session.started)
        return game

    # ----- play again ------------------------------------------------------------------------

    def play_again_with(self, game: bytes, next_game: NextGame) -> None:
        """A game against bots: "play again?" opens the next one this way, asking nobody."""
        self.rematches.makers[game] = next_game

    def again_for(self, game: bytes) -> dict[str, Any] | None:
        return self.rematches.view(game, left=game in self.left)

    async def play_again(self, game: bytes, answer: str) -> str:
        try:
            text = await self.rematches.answer(game, answer, left=game in self.left)
        except ValueError as exc:
            raise WebError(f"not now: {exc}") from None
        except NodeError as exc:
            raise WebError(f"no rematch: {exc}") from None
        except Rejection as exc:
            raise WebError(f"no rematch: {exc.reason}") from None
        self._add_news(game, text)
        self._bump()
        return text

    async def next_game_of(self, game: bytes) -> bytes:
        """Once "play again?" has led from ``game`` to a started game, that game."""
        while (again := self.rematches.games.get(game)) is None or again.next_game is None:
            await self.changed.wait()
        return again.next_game

    async def _seat_bot(self, game: bytes, level: str, k: int) -> None:
        if self.nursery is None:
            raise WebError("this page cannot run bots (its face is not running)")
        try:
            await self.nursery.start(self._bot_seat, game, level, k)
        except (NodeError, OSError, trio.TooSlowError) as exc:
            raise WebError(f"the bot could not join: {exc or 'no answer'}") from None

    async def _bot_seat(
        self, game: bytes, level: str, k: int, task_status: Any = trio.TASK_STATUS_IGNORED
    ) -> None:
        """One bot seat: its own node (loopback only) joins our game and plays it out."""
        home = self.node.home.path / BOT_HOMES / f"{game.hex()[:16]}-{k}"
        async with Node.open(home, host="127.0.0.1", timeouts=self.node.timeouts) as bot:
            player = bot_player_name(level, bot.fingerprint)
            await bot.join(self.node.address, game, player=player)
            task_status.started()
            try:
                await run_bot(bot, game, level, secrets.randbelow(2**31))
                await bot.wait_synced(game)
            except Exception as exc:  # a bot's fault stops that bot, never the page
                self._add_news(game, f"{player} stopped: {exc}")
                self._bump()

    def _found(self, instance: str) -> Found:
        try:
            found = self.found[instance]
        except KeyError:
            raise WebError("that game is no longer on the LAN") from None
        if not found.address:
            raise WebError("that game has no address yet; try again in a moment")
        try:
            self.node.advert_address(found)  # within the node's scope, or refused
        except NodeError as exc:
            raise WebError(str(exc)) from None
        return found

    async def join(self, instance: str) -> bytes:
        found = self._found(instance)
        try:
            # The advert's host fingerprint must match the node that answers (else a forged
            # advert would hear about the game we want).
            return await self.node.join(
                found.address, found.game, player=self.player, host=found.host
            )
        except (NodeError, OSError, trio.TooSlowError) as exc:
            raise WebError(f"could not join: {exc or 'the host did not answer'}") from None

    async def watch(self, instance: str) -> bytes:
        found = self._found(instance)
        try:
            return await self.node.watch(found.address, found.game)
        except (NodeError, OSError, trio.TooSlowError) as exc:
            raise WebError(f"could not watch: {exc or 'the host did not answer'}") from None

    async def leave(self, game: bytes, word: str) -> str:
        """``leave``: tell the table we go for good; ``claim``: claim the game abandoned.
        The words to show, as the terminal says them."""
        offered = self.may_leave(game)
        if word not in offered:
            raise WebError("ask to leave or to claim")
        if not offered[word]:
            raise WebError(f"not now: this game offers no {word} at this point")
        session = self.node.session(game)
        if word == "leave":
            self.left.add(game)  # before waiting on the node: a second click finds it left
        try:
            if word == "leave":
                await self.node.leave(game)
            else:
                await self.node.claim(game)
        except ValueError as exc:  # refused before any notice went: not left after all
            if word == "leave":
                self.left.discard(game)
            raise WebError(f"not now: {exc}") from None
        except Rejection as exc:
            raise WebError(f"not now: {exc.reason}") from None
        if word == "leave":
            text = (  # at two seats nobody is left to play on: the other may claim
                "you left the game; the table plays on without you"
                if session.retires_a_silence
                else "you left the game; your opponent may claim it abandoned"
            )
        else:
            text = session.outcome_text or "you claimed the game abandoned; it ends unfinished"
        self._add_news(game, text)
        self._bump()
        return text

    def invite_for(self, game: bytes) -> str | None:
        """The line a friend pastes to join, for a game hosted here with seats still open."""
        runtime = self.node.games.get(game)
        if self.carrier is None or runtime is None or not runtime.hosted:
            return None
        if runtime.session.started:
            return None
        from creepnet.node.wan.attach import invite

        return str(invite(self.node, self.carrier, game))

    async def join_invite(self, text: str) -> bytes:
        """Join by a pasted invite, over the carrier (the invite names the host's key: the
        node refuses a host that cannot prove it hosts the invite's game)."""
        from creepnet.node.wan.invite import Invite, InviteError

        if self.carrier is None:
            raise WebError("this node is not on the internet (start it with --internet)")
        try:
            invite = Invite.parse(text)
        except InviteError as exc:
            raise WebError(str(exc)) from None
        try:
            return await self.node.join(
                invite.address,
                invite.game,
                player=self.player,
                host=invite.host,
                nonce=invite.nonce,  # proves the host with no listing: a round trip less
                ticket=invite.ticket,  # the host seats us with it
            )
        except (NodeError, OSError, trio.TooSlowError) as exc:
            raise WebError(f"could not join: {exc or 'the host did not answer'}") from None

    def game_id(self, text: str) -> bytes:
        try:
            game = bytes.fromhex(text)
        except ValueError:
            raise WebError("no such game") from None
        if game not in self.node.games:
            raise WebError("this node holds no such game")
        return game
