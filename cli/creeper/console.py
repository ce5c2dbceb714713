"""Terminal play of Creeper, without I/O: what to show and what a typed line means.

The async loop in ``creepnet.cli.play_loop`` feeds lines in and prints what comes out; keeping
the decisions here makes every command testable against a real session.
"""

from __future__ import annotations

from creepnet.cli.reply import Reply
from creepnet.engine import creeper
from creepnet.protocol.identity import fingerprint as fp_of
from creepnet.protocol.session import Session

HELP = """\
commands:
  e7-d6, c3xc5   a move: from-to for steps and diagonal jumps, fromxto for captures
  moves          list your legal moves
  draw           offer a draw with your next move (or accept the opponent's offer)
  accept/decline answer the opponent's draw offer
  resign         give up (sent as soon as it is your turn)
  board          show the board again
  quit           leave; the game stays open and `creepnet join` resumes it"""


class CreeperConsole:
    redraw_after = frozenset({"move", "resign", "accept", "decline"})

    def __init__(self, session: Session, colour: bool = False) -> None:
        self.session = session
        self.colour = colour
        self.offer_armed = False
        self.resign_queued = False
        self.hinted = False  # the first "your turn" says what to type

    # ----- what to show ------------------------------------------------------------------

    def ready(self) -> bool:
        """Seats filled and colours drawn: the moment to introduce the players."""
        game = self.session.game_state
        return game is not None and game.light_seat is not None

    def introduction(self) -> str:
        s = self.session
        lines = [f"creeper game {s.name!r} ({s.game.hex()[:8]})"]  # type: ignore[union-attr]
        for seat in range(len(s.seats)):
            me = " (you)" if seat == s.local_seat else ""
            lines.append(f"  {s.seat_label(seat)}{me}")
        if s.local_seat is None:
            lines.append("  you are watching")
        lines.append("type 'help' for commands")
        return "\n".join(lines)

    def board(self) -> str:
        game = self.session.game_state
        if game is None:
            return "(waiting for the game to start)"
        return creeper.render(game.state, game.last_move, colour=self.colour)

    def status(self) -> str:
        s = self.session
        if s.halted is not None:
            return "GAME STOPPED: a player signed two different events at one position (proof kept)"
        if s.finished:
            return f"game over: {s.outcome_text}"
        waiting = s.waiting_for()
        if waiting is None:
            return "the game cannot continue"
        if waiting.seat == s.local_seat:
            if s.my_turn() is None:
                return "working…"
            colour = s.rules.describe(s.game_state, waiting.seat) if s.rules else ""
            text = f"your turn ({colour})"
            if self._opponent_offer():
                text += " — your opponent offers a draw (accept/decline, or move)"
            if not self.hinted:
                self.hinted = True
                text += ": type a move like e7-d6, or 'moves' or 'help'"
            return text
        return waiting.describe()

    def peer_news(self, connected: bool, fingerprint: str | None, text: str) -> str:
        """A connection change in words about the game: who it is and what it means."""
        s = self.session
        seat = next((i for i, seat in enumerate(s.seats) if fp_of(seat.key) == fingerprint), None)
        if seat is None or s.finished:
            return f"* {text}"
        who = "your opponent" if s.local_seat is not None else f"seat {seat}"
        name = f"{who} {s.seats[seat].player} ({fingerprint})"
        if connected:
            return f"* {name} is connected"
        return f"* {name} disconnected; the game waits, and nothing played is lost"

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
        word = line.strip().lower()
        s = self.session
        if not word:
            return Reply()
        if word in {"help", "?", "h"}:
            return Reply(HELP)
        if word == "board":
            return Reply(self.board() + "\n" + self.status())
        if word in {"quit", "exit", "q"}:
            return Reply("leaving; the game stays open (`creepnet join` resumes it)", quit=True)
        if s.local_seat is None:
            return Reply("you are watching; only 'board', 'help' and 'quit' work here")
        if s.finished:
            return Reply(f"the game is over: {s.outcome_text}")
        turn = s.my_turn()
        if word == "resign":
            if turn is None:
                self.resign_queued = True
                return Reply("you will resign as soon as it is your turn")
            return Reply(action="resign")
        if word == "moves":
            return Reply(self._moves() if turn else "not your turn: " + self.status())
        if word == "draw":
            if self._opponent_offer():
                return Reply(action="accept")
            self.offer_armed = True
            return Reply("a draw offer will go with your next move")
        if word in {"accept", "decline"}:
            if not self._opponent_offer():
                return Reply("there is no draw offer to answer")
            return Reply(action=word)
        if turn is None:
            return Reply("not your turn: " + self.status())
        try:
            move = creeper.parse_move(word)
        except creeper.NotationError as exc:
            return Reply(f"{exc}. Moves look like e7-d6 or c3xc5; type 'moves' to list yours")
        try:
            creeper.apply(s.game_state.state, move)
        except creeper.IllegalMove as exc:
            return Reply(f"illegal: {exc}. Type 'moves' to list your legal moves")
        action = creeper.format_move(move) + (" draw" if self.offer_armed else "")
        self.offer_armed = False
        return Reply(action=action)

    def _moves(self) -> str:
        moves = [creeper.format_move(m) for m in creeper.legal_moves(self.session.game_state.state)]
        rows = [" ".join(f"{m:<6}" for m in moves[i : i + 10]) for i in range(0, len(moves), 10)]
        return f"{len(moves)} legal moves:\n" + "\n".join(rows)
