"""What the engine asks for (requests) and what it accepts (actions).

Everything random or hidden is an input: the engine never rolls, shuffles or peeks. At each
state ``pending(state)`` returns one request; its ``actor`` is a seat or ``CHANCE``.

* Chance requests are answered with chance actions (``Shuffle``, ``Die``, ``Learn``, ``Pick``),
  supplied by the full-information driver from a seeded RNG, or by the protocol layer from
  its joint randomness / decryptions.
* Seat requests are answered with that seat's actions; ``legal_actions(state)`` lists them.

A card moved out of a hand names both its slot (the opaque position handle) and its card id:
the slot proves the seat holds it, the id reveals it. All actions are frozen dataclasses and
round-trip through plain dicts (``action_to_dict`` / ``action_from_dict``) for signed logs.

The requests and their answers are specified in docs/spec-racer.md §4.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from creepnet.engine.racer.cards import CardId

Slot = int  # opaque handle of one physical card position
CHANCE = -1  # the actor of chance requests
PUBLIC = -2  # "learner" of a reveal that every seat sees


class IllegalAction(ValueError):
    """The action is not allowed in this state; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- requests --------------------------------------------------------------------------------


@dataclass(frozen=True)
class NeedShuffle:
    """Shuffle ``slots`` (the named pool); answer ``Shuffle``. The result gets fresh handles."""

    pool: str
    slots: tuple[Slot, ...]
    actor: int = CHANCE

    @property
    def size(self) -> int:
        return len(self.slots)


@dataclass(frozen=True)
class NeedDie:
    """Roll one die for ``purpose`` (deck-shift, start, modifier) on behalf of ``seat``."""

    purpose: str
    seat: int
    actor: int = CHANCE


@dataclass(frozen=True)
class NeedCard:
    """Which card is in ``slot``: learned by ``learner`` only, or by all if it is ``PUBLIC``."""

    slot: Slot
    learner: int
    actor: int = CHANCE


@dataclass(frozen=True)
class NeedPick:
    """A blind hostage pick: which of ``giver``'s ``size`` hand positions ``taker`` gets."""

    giver: int
    taker: int
    size: int
    actor: int = CHANCE


@dataclass(frozen=True)
class NeedReveal:
    """``seat`` just drew ``slot``: it must place it publicly if it is a Creep, else keep it."""

    seat: int
    slot: Slot

    @property
    def actor(self) -> int:
        return self.seat


@dataclass(frozen=True)
class Decide:
    """``seat`` decides; ``topic`` is move / attack / hero / react / hostage / discard.

    The options are ``legal_actions(state)`` (they depend on the seat's own hand).
    """

    seat: int
    topic: str

    @property
    def actor(self) -> int:
        return self.seat


@dataclass(frozen=True)
class GameOver:
    winner: int | None  # None: the turn limit ended the game as a draw
    actor: int = CHANCE  # nobody acts; kept so every request has an actor


Request = NeedShuffle | NeedDie | NeedCard | NeedPick | NeedReveal | Decide | GameOver


# --- chance actions --------------------------------------------------------------------------


@dataclass(frozen=True)
class Shuffle:
    """New order: position i holds old position ``permutation[i]``. ``None``: a blind shuffle
    (under encryption nobody knows the permutation, so identities become unknown)."""

    permutation: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Die:
    value: int


@dataclass(frozen=True)
class Learn:
    """Answer to NeedCard; ``card`` is None for a seat that does not learn a private draw."""

    slot: Slot
    card: CardId | None


@dataclass(frozen=True)
class Pick:
    index: int


# --- seat actions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceCreep:
    """Reveal a just-drawn Creep and put it in the line (not a move)."""

    slot: Slot
    card: CardId


@dataclass(frozen=True)
class KeepDrawn:
    """Claim the just-drawn card is not a Creep (checked when revealed, or at the audit)."""

    slot: Slot


@dataclass(frozen=True)
class Pass:
    """Make no (further) move this turn."""


@dataclass(frozen=True)
class PlayCalamity:
    slot: Slot
    card: CardId
    target: Slot  # an opponent's Creep


@dataclass(frozen=True)
class PlayGoodFortune:
    slot: Slot
    card: CardId
    target: Slot  # one of your Creeps carrying the matching Calamity


@dataclass(frozen=True)
class DeclareAttack:
    """Start declaring an attack on an opponent's Creep (the move counts at ``Launch``)."""

    target: Slot


@dataclass(frozen=True)
class AddAttacker:
    creep: Slot


@dataclass(frozen=True)
class Launch:
    """Launch the declared attack, optionally opened with a Hero from hand."""

    slot: Slot | None = None
    card: CardId | None = None


@dataclass(frozen=True)
class Withdraw:
    """Abandon the declaration; no move is used."""


@dataclass(frozen=True)
class PlayHero:
    slot: Slot
    card: CardId


@dataclass(frozen=True)
class StopHeroes:
    """Play no more Heroes: the exchange ends."""


@dataclass(frozen=True)
class PlayMonster:
    slot: Slot
    card: CardId


@dataclass(frozen=True)
class DeclineMonster:
    """Always legal, so declining never reveals whether the Monster was held."""


@dataclass(frozen=True)
class AskHostage:
    seat: int


@dataclass(frozen=True)
class ForceHostage:
    seat: int


@dataclass(frozen=True)
class AcceptHostage:
    pass


@dataclass(frozen=True)
class RefuseHostage:
    pass


@dataclass(frozen=True)
class Discard:
    slot: Slot
    card: CardId


ChanceAction = Shuffle | Die | Learn | Pick
SeatAction = (
    PlaceCreep
    | KeepDrawn
    | Pass
    | PlayCalamity
    | PlayGoodFortune
    | DeclareAttack
    | AddAttacker
    | Launch
    | Withdraw
    | PlayHero
    | StopHeroes
    | PlayMonster
    | DeclineMonster
    | AskHostage
    | ForceHostage
    | AcceptHostage
    | RefuseHostage
    | Discard
)
Action = ChanceAction | SeatAction

_ACTION_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        Shuffle,
        Die,
        Learn,
        Pick,
        PlaceCreep,
        KeepDrawn,
        Pass,
        PlayCalamity,
        PlayGoodFortune,
        DeclareAttack,
        AddAttacker,
        Launch,
        Withdraw,
        PlayHero,
        StopHeroes,
        PlayMonster,
        DeclineMonster,
        AskHostage,
        ForceHostage,
        AcceptHostage,
        RefuseHostage,
        Discard,
    )
}


def action_to_dict(action: Action) -> dict[str, Any]:
    data: dict[str, Any] = {"type": type(action).__name__}
    for f in fields(action):
        value = getattr(action, f.name)
        data[f.name] = list(value) if isinstance(value, tuple) else value
    return data


def action_from_dict(data: dict[str, Any]) -> Action:
    try:
        cls = _ACTION_TYPES[data["type"]]
        kwargs = {k: v for k, v in data.items() if k != "type"}
        if isinstance(kwargs.get("permutation"), list):
            kwargs["permutation"] = tuple(kwargs["permutation"])
        return cls(**kwargs)
    except (KeyError, TypeError) as exc:
        raise IllegalAction(f"malformed action {data!r}") from exc
