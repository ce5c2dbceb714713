"""Terminal play of Creeper, without I/O: what to show and what a typed line means.

The async loop in ``creepnet.cli.play_loop`` feeds lines in and prints what comes out; keeping
the decisions here makes every command testable against a real session.  Names and reasons
that other people chose pass through ``printable`` before they reach the terminal.
"""

from __future__ import annotations

from dataclasses import replace

from creepnet.cli.narration import unseated_news
from creepnet.cli.reply import Reply
from creepnet.cli.text import fit, printable
from creepnet.engine import creeper
from creepnet.protocol.identity import fingerprint as fp_of
from creepnet.protocol.session import Session
from creepnet.protocol.verify import abandonment_text

HELP = """\
commands:
  e7-d6, c3xc5   a move: from-to for steps and diagonal jumps, fromxto for captures
  moves          list your legal moves
  draw           offer a draw with your next move (or accept the opponent's offer)
  accept/decline answer the opponent's draw offer
  resign         give up (asks once; out of turn it waits for your turn)
  cancel         take back a queued resignation or draw offer
  board          show the board again
  quit           stop for now; the game waits (the same command resumes it)
  leave          leave for good: your opponent may claim the game at once
  claim          your opponent left or went quiet: claim the game abandoned"""
WATCHER_HELP = """\
you are watching:
  board          show the board again
  quit           stop watching (the game goes on)"""

COMMANDS = (
    "help",
    "moves",
    "draw",
    "accept",
    "decline",
    "resign",
    "cancel",
    "board",
    "quit",
    "leave",
    "claim",
)
CONFIRM = {"resign", "yes", "y"}


class CreeperConsole:
    redraw_after = frozenset({"move", "resign", "accept", "decline"})

    def __init__(self, session: Session, colour: bool = False) -> None:
        self.session = session
        self.colour = colour
        self.offer_armed = False
        self.resign_queued = False
        self.resign_asked = False  # `resign` was typed once: the next `resign`/`yes` confirms
        self.hinted = False  # the first "your turn" says what to type

    # ----- what to show ------------------------------------------------------------------

    def ready(self) -> bool:
        """Seats filled and colours drawn: the moment to introduce the players."""
        game = self.session.game_state
        return game is not None and game.light_seat is not None

    def introduction(self) -> str:
        s = self.session
        title = printable(s.name)
        game = s.game.hex()[:8] if s.game is not None else "?"
        lines = [f"creeper game {title!r} ({game})"]
        for seat in range(len(s.seats)):
            me = " (you)" if seat == s.local_seat else ""
            lines.append(f"  {printable(s.seat_label(seat))}{me}")
        if s.local_seat is None:
            lines.append("  you are watching")
        lines.append("type 'help' for commands")
        return fit("\n".join(lines))

    def board(self) -> str:
        game = self.session.game_state
        if game is None:
            return "(the board appears when an opponent has joined)"
        # The dark player's board is mirrored, so each player's home base is at the bottom left.
        seat = self.session.local_seat
        dark = seat is not None and game.colour_of(seat) is creeper.Colour.DARK
        return creeper.render(game.state, game.last_move, colour=self.colour, flip=dark)

    def status(self) -> str:
        return fit(printable(self._status()))

    def _status(self) -> str:
        s = self.session
        if s.halted is not None:
            return "GAME STOPPED: a player signed two different events at one position (proof kept)"
        if s.finished:
            return f"game over: {self._outcome()}"
        if s.abandoned is not None:
            return f"game over: {abandonment_text(s)}"
        if not s.started:
            return self._lobby_status()
        waiting = s.waiting_for()
        if waiting is None:
            return "the game cannot continue"
        news = self._draw_news()
        if waiting.seat == s.local_seat:
            if s.my_turn() is None:
                return "working…"
            colour = s.rules.describe(s.game_state, waiting.seat) if s.rules else ""
            text = f"{news}your turn ({colour})"
            if self._opponent_offer():
                text += " — your opponent offers a draw: accept, decline, or move"
            if not self.hinted:
                self.hinted = True
                text += ": type a move like e7-d6, or 'moves' or 'help'"
            return text
        text = news + waiting.describe()
        if self.resign_queued:
            text += " (you resign when your turn comes; 'cancel' takes it back)"
        return text

    def _lobby_status(self) -> str:
        s = self.session
        taken = f"{len(s.seats)}/{s.seat_count} seats taken"
        if s.local_seat is None:
            return f"the game has not started ({taken})"
        return f"waiting for an opponent to join ({taken}); 'quit' stops waiting"

    def _outcome(self) -> str:
        """The result, said to the player it concerns: 'you win' / 'you lose'."""
        s = self.session
        result, text = s.result, s.outcome_text or ""
        if s.local_seat is None or result is None or result.winner is None:
            return text
        return f"{'you win' if result.winner == s.local_seat else 'you lose'}: {text}"

    def _draw_news(self) -> str:
        """A standing draw offer or a just-declined one, said to everyone who did not make it."""
        s = self.session
        game = s.game_state
        last = s.log.events[-1] if s.log.events else None
        if last is not None and last.type == "decline":
            decliner = next(i for i, seat in enumerate(s.seats) if seat.key == last.author)
            if decliner == s.local_seat:
                return "you declined the draw; "
            who = "your opponent" if s.local_seat is not None else f"seat {decliner}"
            return f"{who} declined the draw; "
        offerer = getattr(game, "draw_offered_by", None)
        if offerer is None:
            return ""
        if offerer == s.local_seat:
            return "you offered a draw, no answer yet; "
        if s.local_seat is None:
            return f"seat {offerer} offers a draw; "
        return ""  # the offer is to us: said after "your turn"

    def peer_news(
        self, connected: bool, fingerprint: str | None, text: str, back: bool = False
    ) -> str:
        """A connection change in words about the game: who it is and what it means."""
        s = self.session
        seat = next((i for i, seat in enumerate(s.seats) if fp_of(seat.key) == fingerprint), None)
        if seat is None and not s.finished:
            return fit(f"* {printable(unseated_news(text, connected, s.started))}")
        if seat is None or s.finished:
            return fit(f"* {printable(text)}")
        who = "your opponent" if s.local_seat is not None else f"seat {seat}"
        name = printable(f"{who} {s.seats[seat].player} ({fingerprint})")
        if connected:
            return fit(f"* {name} is back; the game goes on" if back else f"* {name} is connected")
        return fit(f"* {name} disconnected; the game waits, and nothing played is lost")

    def prompt(self) -> str:
        return "> " if self.session.my_turn() is not None else ""

    # ----- what a line means ---------------------------------------------------------------

    def _opponent_offer(self) -> bool:
        turn = self.session.my_turn()
        return turn is not None and "accept" in turn.types

    def pending_action(self) -> str | None:
        """A queued resignation, sent as soon as it is our turn."""
        if self.resign_queued and self.session.my_turn() is not None:
            self.resign_queued = False
            return "resign"
        return None

    def handle(self, line: str) -> Reply:
        reply = self._handle(line)
        if reply.text and not reply.text.startswith(self.board()):
            reply.text = fit(reply.text)
        return reply

    def _handle(self, line: str) -> Reply:
        word = " ".join(line.strip().lower().split())
        if not word:
            return Reply()
        confirming, self.resign_asked = self.resign_asked, False
        if word in {"help", "?", "h"}:
            return Reply(HELP if self.session.local_seat is not None else WATCHER_HELP)
        if word == "board":
            return Reply(self.board() + "\n" + self.status())
        if word in {"quit", "exit", "q"}:
            return Reply("leaving", quit=True)
        s = self.session
        if s.local_seat is None:
            return Reply("you are watching; only 'board', 'help' and 'quit' work here")
        if s.finished:
            return Reply(f"the game is over: {printable(self._outcome())}")
        if not s.started:
            return Reply(f"the game has not started: {self.status()}")
        if word == "resign" or (confirming and word in CONFIRM):
            return self._resign(confirming)
        if word == "cancel":
            return self._cancel()
        if word == "moves":
            return Reply(self._moves())
        if word == "draw":
            if self._opponent_offer():
                return Reply(action="accept")
            self.offer_armed = True
            return Reply("a draw offer will go with your next move ('cancel' takes it back)")
        if word in {"accept", "decline"}:
            if not self._opponent_offer():
                return Reply("there is no draw offer to answer")
            return Reply(action=word)
        return self._move(word)

    def _resign(self, confirmed: bool) -> Reply:
        if self.resign_queued:
            return Reply("your resignation is already queued ('cancel' takes it back)")
        if not confirmed:
            self.resign_asked = True
            return Reply("resign and lose this game? type 'resign' again (or 'yes') to confirm")
        if self.session.my_turn() is None:
            self.resign_queued = True
            return Reply("you will resign as soon as it is your turn ('cancel' takes it back)")
        return Reply(action="resign")

    def _cancel(self) -> Reply:
        cancelled = [
            what
            for what, armed in (
                ("resignation", self.resign_queued),
                ("draw offer", self.offer_armed),
            )
            if armed
        ]
        self.resign_queued = self.offer_armed = False
        if not cancelled:
            return Reply("nothing to cancel")
        return Reply(f"cancelled: your queued {' and '.join(cancelled)}")

    def _move(self, word: str) -> Reply:
        s = self.session
        try:
            move = creeper.parse_move(word)
        except creeper.NotationError as exc:
            if " " in word or not any(char.isdigit() for char in word):
                return Reply(f"unknown command {word!r}; commands: {', '.join(COMMANDS)}")
            return Reply(notation_advice(s, word, exc))
        if s.my_turn() is None:
            return Reply("not your turn: " + self.status())
        try:
            creeper.apply(s.game_state.state, move)
        except creeper.IllegalMove as exc:
            return Reply(illegal_advice(s, move, exc))
        action = creeper.format_move(move) + (" draw" if self.offer_armed else "")
        self.offer_armed = False
        return Reply(action=action)

    def _legal(self) -> list[creeper.Move]:
        return legal_for(self.session)

    def _moves(self) -> str:
        moves = [creeper.format_move(m) for m in self._legal()]
        rows = [
            " ".join(f"{m:<6}" for m in moves[i : i + 10]).rstrip()
            for i in range(0, len(moves), 10)
        ]
        if self.session.my_turn() is None:
            head = f"not your turn; in this position you would have {len(moves)} moves:"
        else:
            head = f"{len(moves)} legal moves:"
        return head + "\n" + "\n".join(rows)


# ----- why a typed move cannot be played: one source for the terminal and the page ----------


def move_problem(session: Session, word: str) -> str | None:
    """Why the typed move ``word`` cannot be played now, in the words both faces use (the
    console's and the page's, cli/web/creeper_view.py); None when it can be sent (whose turn
    it is, the session itself says)."""
    try:
        move = creeper.parse_move(word)
    except creeper.NotationError as exc:
        return notation_advice(session, word, exc)
    if session.my_turn() is None:
        return None
    try:
        creeper.apply(session.game_state.state, move)
    except creeper.IllegalMove as exc:
        return illegal_advice(session, move, exc)
    return None


def illegal_advice(session: Session, move: creeper.Move, exc: creeper.IllegalMove) -> str:
    return f"illegal: {exc}.{from_here(session, move.origin)}"


def notation_advice(session: Session, word: str, exc: creeper.NotationError) -> str:
    """The engine's notation error, but advice to write it otherwise only if that is legal."""
    other = word.replace("-", "x") if "-" in word else word.replace("x", "-")
    if "wrong separator" in str(exc) and session.my_turn() is not None:
        try:
            creeper.apply(session.game_state.state, other)
        except (creeper.IllegalMove, creeper.NotationError) as illegal:
            kind = "capture" if "x" in other else "step or jump"
            origin = creeper.parse_move(other).origin
            return f"illegal: that would be a {kind}, and {illegal}.{from_here(session, origin)}"
    return f"{exc}.\nMoves look like e7-d6 or c3xc5; type 'moves' to list yours"


def from_here(session: Session, origin: str) -> str:
    """The legal moves from the hole the player tried, or where to look for them."""
    mine = [m for m in legal_for(session) if m.origin == origin]
    if not mine:
        return "\nType 'moves' to list your legal moves"
    return f"\nFrom {origin} you can play: {' '.join(creeper.format_move(m) for m in mine)}"


def legal_for(session: Session) -> list[creeper.Move]:
    """The local seat's legal moves; out of turn, the moves it would have if it were its turn."""
    state = session.game_state.state
    mine = session.game_state.colour_of(session.local_seat)
    if mine is not None and state.to_move is not mine:
        state = replace(state, to_move=mine)
    return creeper.legal_moves(state)
