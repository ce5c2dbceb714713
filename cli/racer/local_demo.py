"""A local Creepy Racer game between heuristic bots, told as a readable summary.

The full-information driver plays it through the same engine API the network protocol uses;
this module only narrates the (state before, action, state after) steps it reports.
"""

from __future__ import annotations

import sys
from typing import TextIO

from creepnet.engine import racer
from creepnet.engine.racer.state import RevealFaceUp, State

DEMO_TURN_LIMIT = 400


def run_local_demo(players: int, seed: int, out: TextIO | None = None) -> int:
    """Play one bot game with ``players`` seats from ``seed`` and print its story to ``out``
    (default: the current ``sys.stdout``, looked up at call time so capture works)."""
    out = out if out is not None else sys.stdout
    if not 2 <= players <= 4:
        print("Creepy Racer is for 2 to 4 players", file=sys.stderr)
        return 2
    options = racer.Options(players=players, turn_limit=DEMO_TURN_LIMIT)
    bots = [racer.make_bot("heuristic", seed * 10 + seat) for seat in range(players)]
    narrator = _Narrator(out)
    print(
        f"Creepy Racer - local demo: {players} players, seed {seed}, heuristic bots, "
        "full-information driver",
        file=out,
    )
    result = racer.play_game(bots, seed, options, observer=narrator.step)
    narrator.flush()
    if result.winner is None:
        print(f"Draw: the turn limit ({DEMO_TURN_LIMIT}) was reached.", file=out)
    else:
        print(
            f"Winner: seat {result.winner} after {result.turns} turns "
            f"({result.steps} engine steps).",
            file=out,
        )
    return 0


def _name(state: State, slot: int) -> str:
    card = state.card(slot)
    return card.name if card else "?"


def _creep(state: State, slot: int) -> str:
    found = state.find_creep(slot)
    if found is None:
        return _name(state, slot)
    return f"seat {found[0]}'s {_name(state, slot)} ({state.strength(found[1])})"


class _Narrator:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.turn: tuple[int, int] | None = None  # (number, seat) being told
        self.parts: list[str] = []
        self.start_rolls: list[str] = []

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def flush(self) -> None:
        if self.turn is not None:
            number, seat = self.turn
            story = "; ".join(self.parts) if self.parts else "passes"
            self.say(f"Turn {number:3d} - seat {seat}: {story}")
        self.parts = []

    def step(self, before: State, actor: int, action: racer.Action, after: State) -> None:
        if before.turn is None:
            self._setup(before, action, after)
        else:
            if (before.turn.number, before.turn.seat) != self.turn:
                self.flush()
                self.turn = (before.turn.number, before.turn.seat)
            text = self._describe(before, actor, action, after)
            if text:
                self.parts.append(text)
        self._consequences(before, after)

    def _setup(self, before: State, action: racer.Action, after: State) -> None:
        request = racer.pending(before)
        if isinstance(before.stage, RevealFaceUp) and not isinstance(after.stage, RevealFaceUp):
            self.say(f"Set-up: seat {before.options.dealer} deals; three face-up Creeps each:")
            for p in after.players:
                creeps = ", ".join(f"{_name(after, c.slot)} ({after.strength(c)})" for c in p.line)
                self.say(f"  seat {p.seat}: {creeps}")
        elif isinstance(action, racer.Die) and isinstance(request, racer.NeedDie):
            if request.purpose == "deck-shift":
                shift = "odd: every deck passes left" if action.value % 2 else "even: decks stay"
                self.say(f"Deck Shift: seat {request.seat} rolls {action.value} ({shift}).")
            elif request.purpose == "start":
                self.start_rolls.append(f"seat {request.seat} {action.value}")
                if after.start_seat is not None:
                    self.say(
                        f"Roll to start: {', '.join(self.start_rolls)} -> "
                        f"seat {after.start_seat} starts."
                    )
        elif isinstance(action, racer.PlaceCreep):
            seat = racer.pending(before).actor
            self.say(f"Opening hand: seat {seat} draws the Creep {_name(after, action.slot)}.")

    def _describe(self, before: State, actor: int, action: racer.Action, after: State) -> str:
        request = racer.pending(before)
        if isinstance(action, racer.PlaceCreep):
            return f"draws Creep {_creep(after, action.slot)}"
        if isinstance(action, racer.Shuffle) and request.pool == "discard":  # type: ignore[union-attr]
            return "discard pile reshuffled and dealt out"
        if isinstance(action, racer.PlayCalamity):
            return f"{_name(after, action.slot)} on {_creep(after, action.target)}"
        if isinstance(action, racer.PlayMonster):
            return (
                f"seat {actor} answers with the Monster {_name(after, action.slot)} "
                "and takes the next turn"
            )
        if isinstance(action, racer.PlayGoodFortune):
            return f"{_name(after, action.slot)} heals {_creep(after, action.target)}"
        if isinstance(action, racer.Launch):
            stage = before.stage
            attackers = " + ".join(_creep(before, s) for s in stage.attackers)  # type: ignore[union-attr]
            opener = f" opening with {_name(after, action.slot)}" if action.slot is not None else ""
            return f"attacks {_creep(before, stage.target)} with {attackers}{opener}"  # type: ignore[union-attr]
        if isinstance(action, racer.PlayHero):
            return f"seat {actor} plays {_name(after, action.slot)}"
        if isinstance(action, racer.Die) and isinstance(request, racer.NeedDie):
            return f"Modifier die {action.value}"
        if isinstance(action, racer.StopHeroes):
            values = before.stage.values  # type: ignore[union-attr]
            return f"attack ends {values[0]} to {values[1]}"
        if isinstance(action, racer.AskHostage):
            return f"asks seat {action.seat} for a Hostage Exchange"
        if isinstance(action, racer.AcceptHostage | racer.RefuseHostage):
            return "accepted" if isinstance(action, racer.AcceptHostage) else "refused"
        if isinstance(action, racer.ForceHostage):
            return f"forces a Hostage Exchange on seat {action.seat}"
        if isinstance(action, racer.Discard):
            return f"discards {_name(after, action.slot)}"
        return ""

    def _consequences(self, before: State, after: State) -> None:
        died = [s for s in after.dead if s not in set(before.dead)]
        if died:
            verb = " dies" if len(died) == 1 else " die"
            self.parts.append(" and ".join(_name(after, s) for s in died) + verb)
        for old, new in zip(before.players, after.players, strict=True):
            if old.active and not new.active:
                self.parts.append(f"seat {new.seat} is out")
