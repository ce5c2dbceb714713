"""Creepy Racer in words: a story of the game told from the engine's (before, action, after)
steps, one line per turn, naming only cards everyone has seen.

Both faces tell it: the local demo prints each line as a turn ends, and the console shows the
last few lines under the board.  It may be fed full-information states (the local driver) or a
seat's or spectator's view: it names only cards that were revealed to everyone (played,
placed, discarded, dead), so the story never leaks a hidden card.

Also here, for the same people: ``waiting_words`` (what the table waits for, from the
protocol's step texts such as "release deck:3[12] to seat 0"), ``HostageWatch`` (which cards a
finished Hostage Exchange moved) and ``modifier_die`` (a Modifier's die, read from the attack).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from creepnet.engine import racer
from creepnet.engine.racer.cards import Hero
from creepnet.engine.racer.state import Declaring, Exchange, HostageSwap, RevealFaceUp, Slot, State


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
        self._partial: tuple[int, int] | None = None  # a turn we began to follow half-way
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

    def note(self, text: str, under_way: tuple[int, int] | None = None) -> None:
        """A line outside the turns (e.g. history nobody watched); the next step starts a new
        turn line.  ``under_way``: the (number, seat) of a turn already begun, whose earlier
        moves nobody told: it is not said to have passed when nothing more happens in it."""
        self._write_turn(final=True)
        self.turn = None
        self._partial = under_way
        self.lines.append(text)

    def add(self, text: str) -> None:
        """Something the steps do not show (told from the states by the table)."""
        if self.turn is not None and not self.over:
            self.parts.append(text)
            self._write_turn(final=False)

    def _write_turn(self, final: bool) -> None:
        """(Re)write the line of the turn being told; a turn with nothing in it passed."""
        if self.turn is None:
            return
        number, seat = self.turn
        if self.turn == self._partial:  # we saw its end only
            story = "; ".join(["…", *self.parts])
        else:
            story = "; ".join(self.parts) if self.parts else ("passes" if final else "…")
        self.lines[self._turn_line] = f"Turn {number:3d} - seat {seat}: {story}"

    def _setup(self, before: State, actor: int, action: racer.Action | None, after: State) -> None:
        request = racer.pending(before)
        dealt = deal_lines(before, after)
        if dealt:
            self.lines.extend(dealt)
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
        self.parts.extend(consequences(before, after))


def deal_lines(before: State, after: State) -> list[str]:
    """The deal, once its face-up Creeps are shown (none before or after that step)."""
    if not isinstance(before.stage, RevealFaceUp) or isinstance(after.stage, RevealFaceUp):
        return []
    lines = [
        f"Set-up: seat {before.options.dealer} deals; "
        f"{before.options.face_up_creeps} face-up Creeps each:"
    ]
    for p in after.players:
        creeps = ", ".join(f"{_name(after, c.slot)} ({after.strength(c)})" for c in p.line)
        lines.append(f"  seat {p.seat}: {creeps}")
    return lines


def consequences(before: State, after: State) -> list[str]:
    """What a step brought about that everyone sees: Creeps that died, players out."""
    said = []
    died = [s for s in after.dead if s not in set(before.dead)]
    if died:
        verb = " dies" if len(died) == 1 else " die"
        said.append(" and ".join(_name(after, s) for s in died) + verb)
    for old, new in zip(before.players, after.players, strict=True):
        if old.active and not new.active:
            said.append(f"seat {new.seat} is out")
    return said


def ending(state: State) -> str | None:
    """The end of the game in words, once it is over."""
    over = racer.pending(state)
    return _ending(state, over.winner) if isinstance(over, racer.GameOver) else None


def move_words(before: State, actor: int, action: racer.Action, after: State) -> str:
    """A seat's action as the story tells it ("" for one the story leaves out)."""
    return _describe(before, actor, action, after)


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
        return f"draws the Creep {_name(after, action.slot)}"
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
    if isinstance(action, racer.Launch) and isinstance(stage, Declaring):
        attackers = " + ".join(_creep(before, s) for s in stage.attackers)
        opener = f" opening with {_name(after, action.slot)}" if action.slot is not None else ""
        return f"attacks {_creep(before, stage.target)} with {attackers}{opener}"
    if isinstance(action, racer.Withdraw):
        return "calls off an attack"
    if isinstance(action, racer.PlayHero):
        return f"seat {actor} plays {_name(after, action.slot)}"
    if isinstance(action, racer.Die) and isinstance(request, racer.NeedDie):
        return f"Modifier die {action.value}"
    if isinstance(action, racer.StopHeroes) and hasattr(stage, "values"):
        values = stage.values
        return f"seat {actor} stops: attack ends {values[0]} to {values[1]}"
    if isinstance(action, racer.AskHostage):
        return f"asks seat {action.seat} for a Hostage Exchange"
    if isinstance(action, racer.AcceptHostage | racer.RefuseHostage):
        return "accepted" if isinstance(action, racer.AcceptHostage) else "refused"
    if isinstance(action, racer.ForceHostage):
        return f"forces a Hostage Exchange on seat {action.seat}"
    if isinstance(action, racer.Discard):
        return f"discards {_name(after, action.slot)}"
    return ""


# --- a Hostage Exchange, and a Modifier's die ---------------------------------------------------


class HostageWatch:
    """Sees a table's states one after another and says when a Hostage Exchange is done:
    ``(asker, target, card the asker got, card the target got)`` as slots.  Both cards are
    picked before either seat learns its new card, so the picks are on view for a while
    (the deck steps that teach each seat its card), even to a table that sees only some states."""

    def __init__(self) -> None:
        self._swap: tuple[int, int, Slot, Slot] | None = None

    def see(self, state: State) -> tuple[int, int, Slot, Slot] | None:
        stage = state.stage
        if isinstance(stage, HostageSwap):
            if len(stage.picked) == 2:
                self._swap = (stage.asker, stage.target, stage.picked[0], stage.picked[1])
            return None
        done, self._swap = self._swap, None
        return done


def swap_story(asker: int, target: int) -> str:
    """The table's words for a finished exchange: that a card changed hands, not which."""
    return f"seat {asker} and seat {target} each take a card blindly from the other's hand"


def swap_news(
    seat: int | None, swap: tuple[int, int, Slot, Slot], name: Callable[[Slot], str]
) -> str | None:
    """The local seat's own side of a finished exchange, or None when it took no part.
    ``name``: the card in a slot, as the local seat knows it."""
    asker, target, to_asker, to_target = swap
    if seat not in (asker, target):
        return None
    other, got, gave = (
        (target, to_asker, to_target) if seat == asker else (asker, to_target, to_asker)
    )
    return f"Hostage Exchange with seat {other}: you gave {name(gave)} and got {name(got)}"


def modifier_die(state: State) -> tuple[tuple[int, Slot, int], int] | None:
    """``(which Hero: turn, target, Heroes played; its die)`` when the last Hero of the attack
    under way is a Modifier whose die is rolled: the die is the last factor on its side."""
    stage = state.stage
    if not isinstance(stage, Exchange) or stage.rolling is not None or not stage.heroes:
        return None
    card = state.card(stage.heroes[-1])
    if card is None or card.hero is not Hero.MODIFIER:
        return None
    side = 1 - stage.to_play  # playing a Hero hands the turn to the other side
    if not stage.stacks[side]:
        return None
    turn = state.turn.number if state.turn is not None else 0
    return (turn, stage.target, len(stage.heroes)), stage.stacks[side][-1]


# --- what the table waits for, in words --------------------------------------------------------

DIE_WORDS = {"start": "start roll", "deck-shift": "Deck Shift", "modifier": "Modifier"}
TOPIC_WORDS = {
    "move": "move",
    "attack": "declare the attack",
    "hero": "play a Hero or stop",
    "react": "answer the Calamity",
    "hostage": "answer the Hostage Exchange",
    "discard": "discard down to the hand limit",
}


def _pool(name: str) -> str:
    if name.startswith("discard"):
        return "the discard pile"
    if name == "faceup":
        return "the face-up Creeps"
    if name in ("creeps", "play", "cards"):
        return {"creeps": "the Creeps", "play": "the play cards", "cards": "the cards"}[name]
    return "a draw deck"


def _random(purpose: str) -> str:
    die = re.fullmatch(r"die \((\S+)\) of seat (\d+)", purpose)
    if die:
        return f"seat {die[2]}'s {DIE_WORDS.get(die[1], 'die')}"
    pick = re.fullmatch(r"blind Hostage pick from seat (\d+)", purpose)
    if pick:
        return f"the blind pick from seat {pick[1]}'s hand"
    return purpose


_STEPS: tuple[tuple[str, Callable[[re.Match[str]], str]], ...] = (
    (r"commit to a deck secret", lambda m: "commit to a deck secret"),
    (r"shuffle (\S+)", lambda m: f"shuffle {_pool(m[1])}"),
    (r"lock (\S+)", lambda m: f"seal {_pool(m[1])}"),
    (r"reveal (\S+) to everyone", lambda m: f"turn up a card of {_pool(m[1])}"),
    (r"release \S+\[\d+\] to seat (\d+)", lambda m: f"let seat {m[1]} see the card it draws"),
    (r"take the hostage card .*", lambda m: "take the Hostage card"),
    (r"hand over the hostage card .*", lambda m: "hand over the Hostage card"),
    (r"show whether the card just drawn is a Creep", lambda m: "place or keep the card it drew"),
    (r"reveal the deck secret for the audit", lambda m: "show its deck secret, to check the game"),
    (r"decide \((\w+)\)", lambda m: TOPIC_WORDS.get(m[1], "decide")),
    (r"reveal randomness for the (.+)", lambda m: f"roll for {_random(m[1])}"),
)


def waiting_words(what: str) -> str:
    """A protocol step text (the racer adapter's ``next()`` and the session's) for people:
    "release deck:3[12] to seat 0" -> "let seat 0 see the card it draws"."""
    retired = re.fullmatch(r"(.+) for retired seat (\d+)", what)
    if retired:  # a step the table takes for a seat it retired
        return f"{waiting_words(retired[1])}, for retired seat {retired[2]}"
    for pattern, words in _STEPS:
        found = re.fullmatch(pattern, what)
        if found:
            return words(found)
    return what
