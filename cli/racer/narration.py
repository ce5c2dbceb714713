"""Creepy Racer in words: a story of the game told from the engine's (before, action, after)
steps, one line per turn, naming only cards everyone has seen.

Both faces tell it: the local demo prints each line as a turn ends, and the console shows the
last few lines under the board.  It may be fed full-information states (the local driver) or a
seat's or spectator's view: it names only cards that were revealed to everyone (played,
placed, discarded, dead), so the story never leaks a hidden card.
"""

from __future__ import annotations

from creepnet.engine import racer
from creepnet.engine.racer.state import RevealFaceUp, State


class Story:
    """Feed it every step with ``step``; ``lines`` holds the story so far (the current turn's
    line last, still growing)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.turn: tuple[int, int] | None = None  # (number, seat) being told
        self.parts: list[str] = []
        self._start_rolls: list[str] = []
        self._told = 0  # lines already handed out by ``new_lines``
        self._turn_line = 0  # index of the turn's line in ``lines``
        self.over = False

    def new_lines(self) -> list[str]:
        """Lines not handed out before, except the turn still being played."""
        end = len(self.lines) - (1 if self.turn is not None and not self.over else 0)
        fresh = self.lines[self._told : end]
        self._told = max(self._told, end)
        return fresh

    def step(
        self,
        before: State,
        actor: int,
        action: racer.Action | None,
        after: State,
        consequences: bool = True,
    ) -> None:
        """Tell one step.  ``action`` None is a step the teller did not see as an action (a
        networked game's deck work), told by its consequences only; ``consequences`` False
        leaves those (deaths, players out, the end) to a later step of the same batch."""
        if self.over:
            return
        if before.turn is None:
            self._setup(before, actor, action, after)
        else:
            if (before.turn.number, before.turn.seat) != self.turn:
                self._write_turn(final=True)
                self.turn = (before.turn.number, before.turn.seat)
                self.parts = []
                self._turn_line = len(self.lines)
                self.lines.append("")
            text = _describe(before, actor, action, after)
            if text:
                self.parts.append(text)
        if not consequences:
            self._write_turn(final=False)
            return
        self._consequences(before, after)
        over = racer.pending(after)
        self._write_turn(final=isinstance(over, racer.GameOver))
        if isinstance(over, racer.GameOver):
            self.over = True
            self.lines.append(_ending(after, over.winner))

    def note(self, text: str) -> None:
        """A line outside the turns (e.g. history nobody watched); the next step starts a new
        turn line."""
        self._write_turn(final=True)
        self.turn = None
        self.lines.append(text)

    def _write_turn(self, final: bool) -> None:
        """(Re)write the line of the turn being told; a turn with nothing in it passed."""
        if self.turn is None:
            return
        number, seat = self.turn
        story = "; ".join(self.parts) if self.parts else ("passes" if final else "…")
        self.lines[self._turn_line] = f"Turn {number:3d} - seat {seat}: {story}"

    def _setup(self, before: State, actor: int, action: racer.Action | None, after: State) -> None:
        request = racer.pending(before)
        if isinstance(before.stage, RevealFaceUp) and not isinstance(after.stage, RevealFaceUp):
            self.lines.append(
                f"Set-up: seat {before.options.dealer} deals; "
                f"{before.options.face_up_creeps} face-up Creeps each:"
            )
            for p in after.players:
                creeps = ", ".join(f"{_name(after, c.slot)} ({after.strength(c)})" for c in p.line)
                self.lines.append(f"  seat {p.seat}: {creeps}")
        elif isinstance(action, racer.Die) and isinstance(request, racer.NeedDie):
            if request.purpose == "deck-shift":
                shift = "odd: every deck passes left" if action.value % 2 else "even: decks stay"
                self.lines.append(
                    f"Deck Shift: seat {request.seat} rolls {action.value} ({shift})."
                )
            elif request.purpose == "start":
                self._start_rolls.append(f"seat {request.seat} {action.value}")
                if after.start_seat is not None:
                    rolls = ", ".join(self._start_rolls)
                    self.lines.append(f"Roll to start: {rolls} -> seat {after.start_seat} starts.")
        elif isinstance(action, racer.PlaceCreep):
            # The placing seat, not the request's actor: a networked story is told in batches,
            # against the state before the batch, whose request may be a chance step.
            self.lines.append(
                f"Opening hand: seat {actor} draws the Creep {_name(after, action.slot)}."
            )

    def _consequences(self, before: State, after: State) -> None:
        died = [s for s in after.dead if s not in set(before.dead)]
        if died:
            verb = " dies" if len(died) == 1 else " die"
            self.parts.append(" and ".join(_name(after, s) for s in died) + verb)
        for old, new in zip(before.players, after.players, strict=True):
            if old.active and not new.active:
                self.parts.append(f"seat {new.seat} is out")


def _ending(state: State, winner: int | None) -> str:
    turns = state.turn.number if state.turn else 0
    if winner is not None:
        return f"Winner: seat {winner} after {turns} turns."
    limit = state.options.turn_limit
    if limit is not None and turns >= limit:
        return f"Draw: the turn limit ({limit}) was reached."
    return "Draw: nobody can draw or play a card any more, and the lines are level."


def _name(state: State, slot: int) -> str:
    card = state.card(slot)
    return card.name if card else "?"


def _creep(state: State, slot: int) -> str:
    found = state.find_creep(slot)
    if found is None:
        return _name(state, slot)
    return f"seat {found[0]}'s {_name(state, slot)} ({state.strength(found[1])})"


def _describe(before: State, actor: int, action: racer.Action | None, after: State) -> str:
    request = racer.pending(before)
    stage = before.stage
    if isinstance(action, racer.PlaceCreep):
        return f"draws Creep {_creep(after, action.slot)}"
    if isinstance(action, racer.Shuffle) and isinstance(request, racer.NeedShuffle):
        return "discard pile reshuffled and dealt out" if request.pool == "discard" else ""
    if isinstance(action, racer.PlayCalamity):
        return f"{_name(after, action.slot)} on {_creep(after, action.target)}"
    if isinstance(action, racer.PlayMonster):
        return (
            f"seat {actor} answers with the Monster {_name(after, action.slot)} "
            "and takes the next turn"
        )
    if isinstance(action, racer.PlayGoodFortune):
        return f"{_name(after, action.slot)} heals {_creep(after, action.target)}"
    if isinstance(action, racer.Launch) and hasattr(stage, "attackers"):
        attackers = " + ".join(_creep(before, s) for s in stage.attackers)  # type: ignore[union-attr]
        opener = f" opening with {_name(after, action.slot)}" if action.slot is not None else ""
        return f"attacks {_creep(before, stage.target)} with {attackers}{opener}"  # type: ignore[union-attr]
    if isinstance(action, racer.Withdraw):
        return "calls off an attack"
    if isinstance(action, racer.PlayHero):
        return f"seat {actor} plays {_name(after, action.slot)}"
    if isinstance(action, racer.Die) and isinstance(request, racer.NeedDie):
        return f"Modifier die {action.value}"
    if isinstance(action, racer.StopHeroes) and hasattr(stage, "values"):
        values = stage.values  # type: ignore[union-attr]
        return f"seat {actor} stops: attack ends {values[0]} to {values[1]}"
    if isinstance(action, racer.AskHostage):
        return f"asks seat {action.seat} for a Hostage Exchange"
    if isinstance(action, racer.AcceptHostage | racer.RefuseHostage):
        return "accepted" if isinstance(action, racer.AcceptHostage) else "refused"
    if isinstance(action, racer.ForceHostage):
        return f"forces a Hostage Exchange on seat {action.seat}"
    if isinstance(action, racer.Pick) and isinstance(request, racer.NeedPick):
        return f"seat {request.taker} takes a card from seat {request.giver}'s hand"
    if isinstance(action, racer.Discard):
        return f"discards {_name(after, action.slot)}"
    return ""
