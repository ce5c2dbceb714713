"""Creepy Racer game state: immutable, with hidden cards as opaque slots.

Every physical card in the game sits in one *slot* (an int handle) in exactly one place:
a deck, a hand, a line (as a Creep or attached to one), the discard pile, the Dead Creep
pile, the box (Creeps not in this game) or, during an attack, the played-Hero area.
``known`` maps slots to card ids *as far as this state knows*: the full-information driver's
state knows every slot; a protocol node's state knows public cards and its own hand only.
``audience`` records which seats have seen each slot, so ``redact(state, seat)`` can derive
any seat's information state from a full one. Shuffles issue fresh handles, which is how
"nobody knows where that card went" is expressed.

Specified in docs/spec-racer.md §3 (state, slots, revealing) and §2 (options).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from creepnet.engine.racer.actions import Slot
from creepnet.engine.racer.cards import STANDARD_CATALOGUE, Card, CardId, Catalogue, Kind


@dataclass(frozen=True)
class Options:
    players: int = 2
    creeps_per_player: int = 10  # fewer gives a shorter game (the text allows it)
    face_up_creeps: int = 3
    opening_hand: int = 5
    draws_per_turn: int = 2
    moves_per_turn: int = 2
    hand_limit: int = 10
    turn_limit: int | None = None  # after this many turns the game is a draw
    dealer: int = 0  # rolls for the Deck Shift; cards are dealt from seat 0 onwards
    # Withdrawn declarations a turn may have (none: no limit, as in every log before the
    # option). A withdrawal uses no move, so without a limit one seat could declare and
    # withdraw for ever: every event resets the table's patience, and the table waits.
    withdrawals_per_turn: int | None = None

    def validate(self, catalogue: Catalogue) -> None:
        if not 2 <= self.players <= 4:
            raise ValueError("Creepy Racer is for 2-4 players")
        if not 1 <= self.face_up_creeps <= self.creeps_per_player:
            raise ValueError("need 1 <= face_up_creeps <= creeps_per_player")
        if self.players * self.creeps_per_player > len(catalogue.creep_ids):
            raise ValueError("not enough Creeps in the catalogue for this many players")
        if not 0 <= self.dealer < self.players:
            raise ValueError("dealer must be a seat")
        if self.withdrawals_per_turn is not None and self.withdrawals_per_turn < 1:
            raise ValueError("withdrawals_per_turn must be at least 1")


@dataclass(frozen=True)
class LineCreep:
    slot: Slot
    attached: tuple[Slot, ...] = ()  # Calamities and a Monster, in the order played


@dataclass(frozen=True)
class Player:
    seat: int
    deck: tuple[Slot, ...] = ()  # index 0 is the top
    hand: tuple[Slot, ...] = ()
    line: tuple[LineCreep, ...] = ()
    active: bool = True  # False once eliminated: hand and deck have left play
    # Creeps of the draw deck not yet placed (one just drawn counts until it is): public, since
    # the face-down deal gives each deck the same number and a drawn Creep is placed face-up;
    # the Deck Shift carries it with the deck.
    deck_creeps: int = 0
    forced_hostage: bool = False  # the once-per-game forced Hostage Exchange is used


# --- stages: where in the game we are ---------------------------------------------------------


@dataclass(frozen=True)
class SetupShuffle:
    pool: str  # "creeps", "play" or "deck"
    seat: int = 0  # for "deck"


@dataclass(frozen=True)
class RevealFaceUp:
    slots: tuple[Slot, ...]  # face-up Creeps still to be revealed, in deal order


@dataclass(frozen=True)
class DeckShift:
    pass


@dataclass(frozen=True)
class StartRoll:
    contenders: tuple[int, ...]
    rolls: tuple[int, ...] = ()


@dataclass(frozen=True)
class Drawing:
    queue: tuple[tuple[int, int], ...]  # (seat, non-Creep cards still to draw)
    then: str  # "opening" (start the first turn) or "moves"
    drawn: Slot | None = None
    learned: bool = False
    redeal: bool = False  # waiting for the discard pile's shuffle


@dataclass(frozen=True)
class Moves:
    pass


@dataclass(frozen=True)
class Declaring:
    target: Slot
    attackers: tuple[Slot, ...] = ()


@dataclass(frozen=True)
class Exchange:
    """An attack after launch. Sides: 0 attacker, 1 defender.

    Each value is its base times the factors on that side's stack; Reversal moves the
    opponent's last factor (or swaps values and stacks), so undoing a factor is exact.
    """

    defender: int
    attackers: tuple[Slot, ...]
    target: Slot
    values: tuple[int, int]
    stacks: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    heroes: tuple[Slot, ...] = ()
    to_play: int = 1
    rolling: int | None = None  # side whose Modifier waits for its die
    opening_roll: bool = False
    eraser: int | None = None  # side that played a Creep Eraser


@dataclass(frozen=True)
class React:
    by: int  # who played the Calamity
    seat: int  # whose Creep was hit
    creep: Slot
    family: str


@dataclass(frozen=True)
class HostageAnswer:
    asker: int
    target: int


@dataclass(frozen=True)
class HostageSwap:
    asker: int
    target: int
    picked: tuple[Slot, ...] = ()  # [0] taken from target by asker, [1] from asker by target
    to_learn: tuple[tuple[Slot, int], ...] = ()


@dataclass(frozen=True)
class Discarding:
    pass


@dataclass(frozen=True)
class Over:
    winner: int | None


Stage = (
    SetupShuffle
    | RevealFaceUp
    | DeckShift
    | StartRoll
    | Drawing
    | Moves
    | Declaring
    | Exchange
    | React
    | HostageAnswer
    | HostageSwap
    | Discarding
    | Over
)


@dataclass(frozen=True)
class Turn:
    seat: int
    number: int
    moves_left: int = 0
    next_seat: int | None = None  # a Monster reaction hands the next turn to its player
    withdrawn: int = 0  # declarations withdrawn this turn (Options.withdrawals_per_turn)


EMPTY_MAP: Mapping[int, int] = MappingProxyType({})


@dataclass(frozen=True)
class State:
    catalogue: Catalogue
    options: Options
    players: tuple[Player, ...]
    stage: Stage
    turn: Turn | None = None
    creep_pile: tuple[Slot, ...] = ()  # set-up only
    play_pile: tuple[Slot, ...] = ()  # set-up only
    box: tuple[Slot, ...] = ()  # Creeps not used in this game (hidden)
    discard: tuple[Slot, ...] = ()
    dead: tuple[Slot, ...] = ()
    known: Mapping[Slot, CardId] = field(default_factory=lambda: EMPTY_MAP)
    audience: Mapping[Slot, frozenset[int]] = field(default_factory=lambda: MappingProxyType({}))
    next_slot: int = 0
    start_seat: int | None = None

    # --- small queries used everywhere ---------------------------------------------------

    @property
    def n(self) -> int:
        return len(self.players)

    def card(self, slot: Slot) -> Card | None:
        card_id = self.known.get(slot)
        return None if card_id is None else self.catalogue[card_id]

    def public_card(self, slot: Slot) -> Card:
        """A card every seat can see (line, discard, dead); always known."""
        card = self.card(slot)
        if card is None:
            raise AssertionError(f"public slot {slot} has no known identity")
        return card

    def strength(self, creep: LineCreep) -> int:
        calamities = sum(1 for s in creep.attached if self.public_card(s).kind is Kind.CALAMITY)
        return self.public_card(creep.slot).strength - calamities

    def find_creep(self, slot: Slot) -> tuple[int, LineCreep] | None:
        for player in self.players:
            for creep in player.line:
                if creep.slot == slot:
                    return player.seat, creep
        return None

    def active_seats(self) -> tuple[int, ...]:
        return tuple(p.seat for p in self.players if p.active)

    def next_active(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            candidate = (seat + step) % self.n
            if self.players[candidate].active:
                return candidate
        return seat

    def shows_monster(self, seat: int, family: str) -> bool:
        return any(
            self.public_card(s).kind is Kind.MONSTER and self.public_card(s).family == family
            for creep in self.players[seat].line
            for s in creep.attached
        )


def new_game(options: Options | None = None, catalogue: Catalogue = STANDARD_CATALOGUE) -> State:
    """The boxed game: both piles sorted by card id (public), waiting for the Creep shuffle."""
    options = options or Options()
    options.validate(catalogue)
    everyone = frozenset(range(options.players))
    creep_ids = catalogue.creep_ids
    play_ids = catalogue.play_ids
    # Slot handles start equal to card ids: before any shuffle the order is public.
    known = {card_id: card_id for card_id in (*creep_ids, *play_ids)}
    return State(
        catalogue=catalogue,
        options=options,
        players=tuple(Player(seat) for seat in range(options.players)),
        stage=SetupShuffle("creeps"),
        creep_pile=creep_ids,
        play_pile=play_ids,
        known=MappingProxyType(known),
        audience=MappingProxyType({slot: everyone for slot in known}),
        next_slot=len(catalogue),
    )


# --- where every slot is ------------------------------------------------------------------------


def locations(state: State) -> Iterator[tuple[str, Slot]]:
    """Every slot in the game with the name of the place holding it."""
    for name, pile in (
        ("creep_pile", state.creep_pile),
        ("play_pile", state.play_pile),
        ("box", state.box),
        ("discard", state.discard),
        ("dead", state.dead),
    ):
        for slot in pile:
            yield name, slot
    for p in state.players:
        where = "" if p.active else "out:"
        for slot in p.deck:
            yield f"{where}deck:{p.seat}", slot
        for slot in p.hand:
            yield f"{where}hand:{p.seat}", slot
        for creep in p.line:
            yield f"line:{p.seat}", creep.slot
            for slot in creep.attached:
                yield f"attached:{p.seat}", slot
    if isinstance(state.stage, Exchange):
        for slot in state.stage.heroes:
            yield "attack", slot


def public_slots(state: State) -> set[Slot]:
    """Slots every seat can see: lines, attachments, discard, dead, Heroes in an attack."""
    return {
        slot
        for place, slot in locations(state)
        if place.split(":")[0] in ("line", "attached", "discard", "dead", "attack")
    }


def redact(state: State, seat: int) -> State:
    """``seat``'s information state: only the identities that seat has seen."""
    known = {s: c for s, c in state.known.items() if seat in state.audience.get(s, ())}
    return replace(state, known=MappingProxyType(known))


def with_player(state: State, player: Player) -> State:
    players = list(state.players)
    players[player.seat] = player
    return replace(state, players=tuple(players))


# A stage's answer to an action: (state, the stage, the action) -> the unsettled next state.
# Each stage module (dealing, turns, attacks, …) keys its handlers by (stage type, action type).
Handler = Callable[[State, Any, Any], State]
Handlers = dict[tuple[type, type], Handler]
