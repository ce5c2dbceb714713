"""Terminal play of Creepy Racer, without I/O: what to show and what a typed line means.

The console reads the game from a ``RacerView`` (the local seat's observation and legal
actions, and the story in words), never from session internals, so the same console runs over a
networked session and over a local engine game (``LocalGame``).  The board fits 80×24.  A typed
line is resolved against the legal actions only (``grammar``), so everything the console accepts
or suggests is legal; it hands the session ``racer.format_action(action)``.  The later steps of a
one-line attack (``attack 1b with a c go 2``) wait in ``planned`` and go out through
``pending_action`` as the game asks for them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from string import ascii_lowercase
from typing import Protocol

from creepnet.cli.narration import unseated_news
from creepnet.cli.racer.grammar import (
    Step,
    creep_labels,
    resolve,
    spelling,
    split_steps,
    split_words,
)
from creepnet.cli.racer.narration import DIE_WORDS, TOPIC_WORDS
from creepnet.cli.reply import Reply
from creepnet.cli.text import fit, printable, printable_lines
from creepnet.engine import racer
from creepnet.engine.racer import Observation, SeatAction
from creepnet.engine.racer.cards import (
    HERO_EFFECTS,
    KIND_WORDS,
    STANDARD_CATALOGUE,
    Card,
    Catalogue,
    Kind,
    effect,
)
from creepnet.engine.racer.view import CreepView, PlayerView

WIDTH = 80
HEIGHT = 24  # the board takes at most HEIGHT - 2 rows: the status line and the prompt follow

HELP = """\
moves (cards by their number in your hand, Creeps by seat and letter: 1b):
  3 1b           play card 3 on Creep 1b (a Calamity on theirs, a Good
                 Fortune on yours)
  3              play card 3 when it has one use: a Hero in an attack,
                 a Monster, a discard
  attack 1b      attack Creep 1b; then 'with a' (enlist your Creep a), 'go'
                 or 'go 3' (launch, opening with Hero 3), or 'withdraw';
                 in one line: attack 1b with a c go 3
  stop           play no more Heroes in this attack
  ask 2, force 2 a Hostage Exchange with seat 2 (force: once a game, and
                 it cannot be refused)
  yes / no       accept or refuse a Hostage Exchange; 'no' also declines
                 to play a Monster
  pass           end your moves for this turn
other commands:
  moves          what you can type now      board   show the table again
  card 3         what card 3 does ('card': your hand, 'card 1b': a Creep)
  help cards     what each kind of card does
  help           this text
  quit           stop for now; the game waits (the same command resumes it)
  leave          leave for good: the others retire your seat and play on
  claim          two seats left and the other is gone: claim the game abandoned
Words may be shortened: 'att 1b', 'fo 2', 'dis 3'."""


def cards_help(catalogue: Catalogue = STANDARD_CATALOGUE) -> str:
    """What each kind of card does, from the catalogue's own words (engine/racer/cards.py)."""
    first: dict[Kind, Card] = {}
    for card in catalogue.cards:
        first.setdefault(card.kind, card)
    rows = ["the kinds of card ('card 3' tells what card 3 in your hand does):"]
    for kind in (Kind.CREEP, Kind.CALAMITY, Kind.GOOD_FORTUNE, Kind.MONSTER):
        if kind in first:
            example = first[kind]
            rows.append(f"  {KIND_WORDS[kind]}, e.g. {example.name}: {effect(catalogue, example)}")
    rows.append("  Hero, played in an attack:")
    rows.extend(f"    {hero}: {words}" for hero, words in HERO_EFFECTS.items())
    rows.append("Calamity / its Good Fortune / its Monster:")
    rows.extend(f"  {f.calamity} / {f.good_fortune} / {f.monster}" for f in catalogue.families)
    return "\n".join(textwrap.fill(row, WIDTH - 1, subsequent_indent="      ") for row in rows)


class RacerView(Protocol):
    """Where the console reads the game: a networked session or a local engine game."""

    @property
    def local_seat(self) -> int | None: ...  # None for a spectator (read only)

    def labels(self) -> Sequence[str]: ...  # a short name per seat
    def observation(self) -> Observation | None: ...  # the local seat's (or public); None: no deal
    def legal(self) -> Sequence[SeatAction]: ...  # the local seat's options now, else empty
    def story(self) -> Sequence[str]: ...  # the game in words, one line per turn, oldest first
    def outcome(self) -> str | None: ...  # how the game ended or stopped; None while it runs
    def waiting(self) -> str | None: ...  # whom the game waits for, when the table knows better
    def seat_of_peer(self, fingerprint: str | None) -> int | None: ...
    def seat_count(self) -> int: ...  # seats the game is played with (filled or not)
    def news(self) -> Sequence[str]: ...  # what only the local seat is told, once


class RacerConsole:
    resign_queued = False  # Creepy Racer has no resignation: a player who leaves is waited for

    def __init__(
        self, view: RacerView, colour: bool = False, redraw_after: frozenset[str] = frozenset()
    ) -> None:
        self.view = view
        self.colour = colour
        self.redraw_after = redraw_after or frozenset({"act"})
        self.planned: list[Step] = []  # later steps of a one-line attack
        self.notice = ""  # said once with the next status
        self.hinted = False
        self.seated = 0  # seats taken when the lobby was last shown
        self.news: list[str] = []  # the table's news for the local seat, said with the status

    # ----- what to show ----------------------------------------------------------------------

    def ready(self) -> bool:
        """The deal is done and the first turn has begun: the table is worth showing."""
        obs = self.view.observation()
        return obs is not None and (obs.turn_seat is not None or self.view.outcome() is not None)

    def introduction(self) -> str:
        labels = self.view.labels()
        lines = [f"Creepy Racer, {len(labels)} players"]
        for seat in range(len(labels)):
            lines.append(f"  {self._label(seat)}")
        if self.view.local_seat is None:
            lines.append("  you are watching")
        lines.append("type 'help' for commands, 'help cards' for what the cards do")
        return fit(printable_lines("\n".join(lines)))

    def board(self) -> str:
        obs = self.view.observation()
        if obs is None:
            return "(waiting for the deal)"
        rows = [self._header(obs)]
        for player in obs.players:
            rows.extend(self._seat_rows(obs, player))
        if obs.attack is not None:
            rows.append(_clip(self._attack_row(obs)))
        rows.append(_clip(_discard_row(obs)))
        seat = self.view.local_seat
        if seat is not None and obs.players[seat].active:  # an out player's hand left play
            cards = [
                f"{n} {obs.catalogue[card].name} ({KIND_WORDS[obs.catalogue[card].kind]})"
                for n, (_, card) in enumerate(obs.hand, start=1)
            ] or ["(no cards)"]
            rows.extend(_wrap("your hand: ", cards))
        # What happened, newest last, in the rows left by the status (news included).
        room = HEIGHT - 2 - len(rows) - len(self._pending_news()) - bool(self.notice)
        if room > 0:
            recent = self.view.story()[-room:]
            rows.extend([row for line in recent for row in _wrap("", line.split(), " ")][-room:])
        return "\n".join(rows)

    def status(self) -> str:
        return fit(printable_lines(self._status()))

    def _status(self) -> str:
        outcome = self.view.outcome()
        if outcome is not None:
            return f"game over: {outcome}"
        obs = self.view.observation()
        seats = self._seat_news(dealt=self.ready())
        if obs is None:
            labels, count = self.view.labels(), self.view.seat_count()
            if len(labels) < count:
                text = f"waiting for players to join ({len(labels)}/{count} seats taken)"
                if self.view.local_seat is not None:
                    text += "; 'quit' stops waiting"
            else:
                text = self.view.waiting() or "dealing the cards"
            return "\n".join([*seats, text])
        news = [*self._pending_news(), self.notice] if self.notice else self._pending_news()
        self.news, self.notice = [], ""
        text = self._request_text(obs)
        if self.view.legal() and not self.hinted and isinstance(obs.request, racer.Decide):
            self.hinted = True
            hint = " ('moves' lists them)"
            text += hint if len(text + hint) <= WIDTH else ""  # the status keeps to one row
        return "\n".join([*seats, *news, text])

    def _pending_news(self) -> list[str]:
        self.news.extend(self.view.news())
        return list(self.news)

    def _seat_news(self, dealt: bool) -> list[str]:
        """Seats taken since the last status, ours too, until the first turn (a console that
        first looks at a game under way, e.g. on resuming, announces nobody)."""
        labels, count = self.view.labels(), self.view.seat_count()
        fresh = range(self.seated, len(labels))
        self.seated = len(labels)
        if dealt:
            return []
        lines = [
            f"you have seat {seat}"
            if seat == self.view.local_seat
            else f"* {self._label(seat)} takes a seat"
            for seat in fresh
            if seat > 0 or seat == self.view.local_seat  # seat 0 hosts: it was there first
        ]
        if fresh and len(labels) == count:
            lines.append(f"all {count} seats taken: the game starts")
        return lines

    def prompt(self) -> str:
        return "> " if self.view.legal() else ""

    def peer_news(
        self, connected: bool, fingerprint: str | None, text: str, back: bool = False
    ) -> str:
        """A connection change in words about the game (peer text made printable)."""
        seat = self.view.seat_of_peer(fingerprint)
        if seat is None or self.view.outcome() is not None:
            return fit(printable(f"* {unseated_news(text, connected, self.ready())}"))
        name = printable(f"{self._label(seat)} ({fingerprint})")
        if connected:
            return fit(f"* {name} is back; the game goes on" if back else f"* {name} is connected")
        return fit(f"* {name} disconnected; the game waits, and nothing played is lost")

    # ----- what a line means -----------------------------------------------------------------

    def pending_action(self) -> str | None:
        """A forced draw step (place the drawn Creep, or keep the card), or the next planned
        step of a one-line attack, once the game asks for it."""
        legal = self.view.legal()
        if len(legal) == 1 and isinstance(legal[0], racer.PlaceCreep | racer.KeepDrawn):
            return racer.format_action(legal[0])
        obs = self.view.observation()
        if not self.planned or not legal or obs is None:
            return None
        step = self.planned.pop(0)
        found = resolve(obs, legal, step)
        if isinstance(found, str):
            self.planned.clear()
            self.notice = f"the rest of your attack was not sent: '{' '.join(step)}': {found}"
            return None
        return racer.format_action(found)

    def handle(self, line: str) -> Reply:
        reply = self._handle(line)
        if reply.text and reply.text != HELP:
            reply.text = fit(reply.text)
        return reply

    def _handle(self, line: str) -> Reply:
        raw = line.lower().split()
        if raw[:1] in (["card"], ["cards"]):
            return Reply(self._card_text(raw[1:]))
        if raw[:2] in (["help", "cards"], ["help", "card"]):
            obs = self.view.observation()
            return Reply(cards_help(obs.catalogue) if obs is not None else cards_help())
        try:
            words = split_words(line)
        except ValueError as exc:
            return Reply(f"{exc}; type 'help' for commands")
        if not words:
            return Reply()
        head = words[0]
        if head == "help":
            return Reply(HELP)
        if head == "board":
            return Reply(self.board() + "\n" + self.status())
        if head == "quit":
            return Reply("leaving; the game stays open", quit=True)  # the command says how back
        if self.view.local_seat is None:
            return Reply("you are watching; only 'board', 'help' and 'quit' work here")
        outcome = self.view.outcome()
        if outcome is not None:
            return Reply(f"the game is over: {outcome}")
        obs, legal = self.view.observation(), self.view.legal()
        if obs is None or not legal:
            return Reply("not your turn: " + self.status())
        if head == "moves":
            return Reply(_options_text(obs, legal))
        planned = split_steps(words)
        found = resolve(obs, legal, planned[0])
        if isinstance(found, str):
            return Reply(found)
        self.planned = planned[1:]
        return Reply(action=racer.format_action(found))

    def _card_text(self, words: list[str]) -> str:
        """`card 3`: what hand card 3 does; `card 1b`: a Creep on the table; `card`: the hand."""
        obs = self.view.observation()
        if obs is None:
            return "no cards are dealt yet; 'help cards' says what each kind does"
        if not words:
            if not obs.hand:
                return "you hold no cards; 'card 1b' tells a Creep on the table"
            return "\n".join(
                _card_line(obs.catalogue, str(n), obs.catalogue[card])
                for n, (_, card) in enumerate(obs.hand, start=1)
            )
        word = words[0]
        if word.isdigit():
            if not 0 < int(word) <= len(obs.hand):
                count = len(obs.hand)
                return f"you hold {count} card{'s' if count != 1 else ''}; 'card' lists them"
            return _card_line(obs.catalogue, word, obs.catalogue[obs.hand[int(word) - 1][1]])
        for player in obs.players:
            for letter, creep in zip(ascii_lowercase, player.line, strict=False):
                if f"{player.seat}{letter}" == word:
                    rows = [_card_line(obs.catalogue, word, obs.catalogue[creep.card])]
                    rows += [
                        _card_line(obs.catalogue, "  on it:", obs.catalogue[c])
                        for c in creep.attached
                    ]
                    return "\n".join(rows)
        return f"no card {word!r}: type 'card 3' for hand card 3, or 'card 1b' for Creep 1b"

    # ----- pieces of the board -----------------------------------------------------------------

    def _label(self, seat: int) -> str:
        labels = self.view.labels()
        name = labels[seat] if seat < len(labels) else ""
        you = "(you)" if seat == self.view.local_seat else ""
        return " ".join(part for part in (f"seat {seat}", name, you) if part)

    def _header(self, obs: Observation) -> str:
        if obs.turn_seat is None:
            return "Creepy Racer - setting up"
        left = f", {obs.moves_left} move{'s' if obs.moves_left != 1 else ''} left"
        return _clip(
            f"Creepy Racer - turn {obs.turn_number}: {self._label(obs.turn_seat)}'s turn"
            + (left if isinstance(obs.request, racer.Decide) else "")
        )

    def _seat_rows(self, obs: Observation, player: PlayerView) -> list[str]:
        marker = ">" if player.seat == obs.turn_seat else " "
        if not player.active:
            return [_clip(f"{marker}{self._label(player.seat)}: out")]
        forced = ", forced exchange used" if player.forced_hostage else ""
        head = (
            f"{marker}{self._label(player.seat)}: hand {player.hand_count}, deck "
            f"{player.deck_count} ({_count(player.deck_creeps, 'Creep')}){forced}"
        )
        creeps = [
            _creep_text(obs, letter, creep)
            for letter, creep in zip(ascii_lowercase, player.line, strict=False)
        ]
        return [_clip(head)] + _wrap("  ", creeps or ["(no Creep in line)"])

    def _attack_row(self, obs: Observation) -> str:
        attack = obs.attack
        assert attack is not None
        labels = creep_labels(obs)
        attackers = "+".join(labels[s] for s in attack.attackers) or "?"
        text = f"attack: seat {attack.attacker}'s {attackers} on {labels.get(attack.target, '?')}"
        if attack.values is not None:
            text += f" - {attack.values[0]} against {attack.values[1]}"
        if attack.heroes:
            text += ", Heroes: " + ", ".join(obs.catalogue[c].name for c in attack.heroes)
        return text

    def _request_text(self, obs: Observation) -> str:
        request, me = obs.request, self.view.local_seat
        if isinstance(request, racer.Decide):
            if request.seat == me and self.view.legal():
                return _YOUR_TOPIC.get(request.topic, "your decision")
            waiting = f"waiting for {self._label(request.seat)} to {TOPIC_WORDS[request.topic]}"
            return waiting
        return self.view.waiting() or _chance_text(obs, request)


_YOUR_TOPIC = {
    "move": "your move: play a card by number, attack, ask or force, or pass",
    "attack": "your attack: 'with a' (enlist a), 'go' or 'go N' (open with Hero N), 'withdraw'",
    "hero": "the attack waits for you: play a Hero by number, or 'stop'",
    "react": "a Calamity hit your Creep: play the matching Monster by number, or 'no'",
    "hostage": "you are asked for a Hostage Exchange: 'yes' or 'no'",
    "discard": "too many cards: discard one by number",
}


def _chance_text(obs: Observation, request: racer.Request) -> str:
    if isinstance(request, racer.NeedShuffle):
        return f"shuffling the {request.pool.split(':')[0]} pile"
    if isinstance(request, racer.NeedDie):
        return f"rolling seat {request.seat}'s {DIE_WORDS.get(request.purpose, 'die')}"
    if isinstance(request, racer.NeedCard | racer.NeedReveal):
        return "drawing"
    if isinstance(request, racer.NeedPick):
        return f"seat {request.taker} takes a card blindly from seat {request.giver}"
    return "working…"


# --- rendering helpers ------------------------------------------------------------------------


def _clip(text: str) -> str:
    return text if len(text) < WIDTH else text[: WIDTH - 2] + "…"


def _wrap(lead: str, items: Sequence[str], gap: str = "  ") -> list[str]:
    """``items`` after ``lead``, as many to a row as fit; continuation rows are indented."""
    rows, row = [], lead
    indent = " " * min(len(lead), 4) if lead.strip() else lead or "    "
    for item in items:
        candidate = f"{row}{gap if row.strip() and not row.endswith(' ') else ''}{item}"
        if len(candidate) >= WIDTH and row.strip():
            rows.append(row)
            candidate = indent + item
        row = candidate
    rows.append(row)
    return [_clip(r) for r in rows]


def _creep_text(obs: Observation, letter: str, creep: CreepView) -> str:
    card = obs.catalogue[creep.card]
    strength = f"{creep.strength}" + (
        f"/{card.strength}" if creep.strength != card.strength else ""
    )
    attached = ", ".join(obs.catalogue[c].name for c in creep.attached)
    return f"{letter} {card.name} {strength}" + (f" [{attached}]" if attached else "")


def _discard_row(obs: Observation) -> str:
    top = obs.catalogue[obs.discard[-1]].name if obs.discard else "empty"
    return f"discard pile: {len(obs.discard)} (top {top}); dead Creeps: {len(obs.dead)}"


def _options_text(obs: Observation, legal: Sequence[SeatAction]) -> str:
    spellings = sorted({" ".join(spelling(obs, a)) for a in legal}, key=_option_order)
    return "\n".join(_wrap("you can type: ", spellings))


def _option_order(text: str) -> tuple[int, str]:
    first = text.split()[0]
    return (0, f"{int(first):3d}{text}") if first.isdigit() else (1, text)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' if number != 1 else ''}"


def _card_line(catalogue: Catalogue, label: str, card: Card) -> str:
    return f"{label} {card.name}, {KIND_WORDS[card.kind]}: {effect(catalogue, card)}"
