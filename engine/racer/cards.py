"""Creepy Racer card catalogue: card kinds, the catalogue as plain data, and what each card
does in words for people (``KIND_WORDS``, ``HERO_EFFECTS``, ``effect``: the terminal's `card N`
and `help cards`, one source for every face).

The printed rules name the card kinds but not the card list. The standard catalogue below is
the project's reconstruction (see docs/rules-racer.md); only "Bone Dry" / "Extra Gas" come
from the text. A catalogue is built from a JSON-like dict so home rules can load their own.

Ids are stable: cards are numbered 0.. in the order the spec lists them (a ``count`` entry
expands to consecutive ids). The encrypted-deck layer maps these ids to group points.

Card ids and kinds as a verifier needs them: docs/spec-racer.md §1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

CardId = int


class Kind(StrEnum):
    CREEP = "creep"
    CALAMITY = "calamity"
    GOOD_FORTUNE = "good_fortune"
    MONSTER = "monster"
    HERO = "hero"


class Hero(StrEnum):
    DOUBLE = "2X"
    TRIPLE = "3X"
    MODIFIER = "Modifier"
    REVERSAL = "Reversal"
    ERASER = "Creep Eraser"


# Heroes that may open an attack (the text forbids opening with a Creep Eraser).
OPENING_HEROES = frozenset({Hero.DOUBLE, Hero.TRIPLE, Hero.MODIFIER, Hero.REVERSAL})


@dataclass(frozen=True)
class Family:
    """A Calamity with its matching Good Fortune and Monster Good Fortune."""

    key: str
    calamity: str
    good_fortune: str
    monster: str


@dataclass(frozen=True)
class Card:
    id: CardId
    kind: Kind
    name: str
    family: str | None = None  # calamity / good fortune / monster
    strength: int = 0  # creeps only
    hero: Hero | None = None  # heroes only

    def __str__(self) -> str:
        return self.name


class CatalogueError(ValueError):
    """The catalogue spec is malformed."""


@dataclass(frozen=True)
class Catalogue:
    families: tuple[Family, ...]
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        if any(card.id != index for index, card in enumerate(self.cards)):
            raise CatalogueError("card ids must be 0..n-1 in order")

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, card_id: CardId) -> Card:
        return self.cards[card_id]

    def family(self, key: str) -> Family:
        for family in self.families:
            if family.key == key:
                return family
        raise KeyError(key)

    @property
    def creep_ids(self) -> tuple[CardId, ...]:
        return tuple(c.id for c in self.cards if c.kind is Kind.CREEP)

    @property
    def play_ids(self) -> tuple[CardId, ...]:
        """Everything that is not a Creep: the Play Pile."""
        return tuple(c.id for c in self.cards if c.kind is not Kind.CREEP)

    def ids_named(self, name: str) -> tuple[CardId, ...]:
        """All copies of a card, by its printed name (case-insensitive)."""
        wanted = name.casefold()
        return tuple(c.id for c in self.cards if c.name.casefold() == wanted)

    # --- plain-data round trip -------------------------------------------------------------

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> Catalogue:
        """Build from ``{"families": [...], "cards": [...]}`` (see STANDARD_SPEC)."""
        try:
            families = tuple(
                Family(f["key"], f["calamity"], f["good_fortune"], f["monster"])
                for f in spec["families"]
            )
            by_key = {f.key: f for f in families}
            if len(by_key) != len(families):
                raise CatalogueError("duplicate family key")
            cards: list[Card] = []
            for entry in spec["cards"]:
                for _ in range(int(entry.get("count", 1))):
                    cards.append(_card_from_entry(len(cards), entry, by_key))
        except (KeyError, TypeError) as exc:
            raise CatalogueError(f"bad catalogue spec: {exc!r}") from exc
        return cls(families, tuple(cards))

    def to_dict(self) -> dict[str, Any]:
        """One entry per card (no ``count``), so ids are explicit to a reader."""
        return {
            "families": [
                {
                    "key": f.key,
                    "calamity": f.calamity,
                    "good_fortune": f.good_fortune,
                    "monster": f.monster,
                }
                for f in self.families
            ],
            "cards": [_card_to_entry(c) for c in self.cards],
        }


def _card_from_entry(
    card_id: int, entry: Mapping[str, Any], families: Mapping[str, Family]
) -> Card:
    kind = Kind(entry["kind"])
    if kind is Kind.CREEP:
        strength = int(entry["strength"])
        if strength < 1:
            raise CatalogueError(f"creep {entry['name']!r} needs strength >= 1")
        return Card(card_id, kind, entry["name"], strength=strength)
    if kind is Kind.HERO:
        hero = Hero(entry["hero"])
        return Card(card_id, kind, entry.get("name", hero.value), hero=hero)
    family = families[entry["family"]]
    name = {
        Kind.CALAMITY: family.calamity,
        Kind.GOOD_FORTUNE: family.good_fortune,
        Kind.MONSTER: family.monster,
    }[kind]
    return Card(card_id, kind, name, family=family.key)


def _card_to_entry(card: Card) -> dict[str, Any]:
    if card.kind is Kind.CREEP:
        return {"kind": card.kind.value, "name": card.name, "strength": card.strength}
    if card.kind is Kind.HERO:
        assert card.hero is not None
        return {"kind": card.kind.value, "hero": card.hero.value, "name": card.name}
    return {"kind": card.kind.value, "family": card.family}


# --- what a card does, in words for people (the terminal's `card N` and `help cards`) ---------

KIND_WORDS = {
    Kind.CREEP: "Creep",
    Kind.CALAMITY: "Calamity",
    Kind.GOOD_FORTUNE: "Good Fortune",
    Kind.MONSTER: "Monster",
    Kind.HERO: "Hero",
}

HERO_EFFECTS = {
    Hero.DOUBLE: "doubles your side's value",
    Hero.TRIPLE: "triples your side's value",
    Hero.MODIFIER: "multiplies your side's value by a die roll",
    Hero.REVERSAL: "takes the other side's last Hero for you (with none, the values swap)",
    Hero.ERASER: "wins the attack at once (it cannot open one)",
}


def effect(catalogue: Catalogue, card: Card) -> str:
    """What ``card`` does, in one sentence of docs/rules-racer.md's rules."""
    if card.kind is Kind.CREEP:
        return f"strength {card.strength}; races in your line, attacks and is attacked"
    if card.kind is Kind.HERO:
        assert card.hero is not None
        return f"in an attack, {HERO_EFFECTS[card.hero]}"
    assert card.family is not None
    family = catalogue.family(card.family)
    if card.kind is Kind.CALAMITY:
        return (
            f"on an opponent's Creep: -1 strength (never on a line showing {family.monster}); "
            f"{family.good_fortune} heals it"
        )
    if card.kind is Kind.GOOD_FORTUNE:
        return f"on your Creep carrying {family.calamity}: both are discarded (+1 strength)"
    return (
        f"when {family.calamity} hits your Creep: sits on it, every {family.calamity} on your "
        f"Creeps is discarded, you take the next turn; no {family.calamity} on that line "
        "while it stays"
    )


# --- the standard (reconstructed) tournament catalogue ----------------------------------------

_FAMILIES = (
    # Only this first pair is named in the printed rules; the rest is reconstruction.
    ("bone-dry", "Bone Dry", "Extra Gas", "Fuel Fiend"),
    ("flat-tire", "Flat Tire", "Spare Wheel", "Tread Troll"),
    ("blown-gasket", "Blown Gasket", "Duct Tape", "Grease Gremlin"),
    ("dead-battery", "Dead Battery", "Jump Start", "Voltage Vampire"),
    ("wrong-turn", "Wrong Turn", "Shortcut", "Map Mummy"),
)

_CREEPS = (
    # 14 of strength 3
    ("Grimy Gus", 3),
    ("Slime Sally", 3),
    ("Pothole Pete", 3),
    ("Mudflap Mo", 3),
    ("Rusty Rita", 3),
    ("Sputter Sam", 3),
    ("Lugnut Lou", 3),
    ("Smoggy Sue", 3),
    ("Dipstick Dan", 3),
    ("Creaky Kate", 3),
    ("Hubcap Hank", 3),
    ("Oily Olive", 3),
    ("Backfire Bob", 3),
    ("Fender Fay", 3),
    # 14 of strength 4
    ("Skidmark Skip", 4),
    ("Ghoul Gearhead", 4),
    ("Exhaust Ed", 4),
    ("Crankshaft Cora", 4),
    ("Radiator Rex", 4),
    ("Wheelie Wanda", 4),
    ("Piston Pam", 4),
    ("Turbo Toad", 4),
    ("Clutch Claw", 4),
    ("Muffler Mummy", 4),
    ("Axle Agnes", 4),
    ("Tailpipe Ted", 4),
    ("Bumper Bat", 4),
    ("Drift Drool", 4),
    # 12 of strength 5
    ("Nitro Nosferatu", 5),
    ("Hot Rod Horror", 5),
    ("Burnout Banshee", 5),
    ("Chrome Cyclops", 5),
    ("V8 Vulture", 5),
    ("Redline Reaper", 5),
    ("Pit Stop Phantom", 5),
    ("Road Rage Golem", 5),
    ("Checkered Ghoul", 5),
    ("Dragster Dracula", 5),
    ("Supercharged Slug", 5),
    ("Fishtail Fiend", 5),
)

STANDARD_SPEC: dict[str, Any] = {
    "families": [
        {"key": k, "calamity": c, "good_fortune": g, "monster": m} for k, c, g, m in _FAMILIES
    ],
    "cards": [
        *({"kind": "creep", "name": name, "strength": s} for name, s in _CREEPS),
        *(
            entry
            for key, *_ in _FAMILIES
            for entry in (
                {"kind": "calamity", "family": key, "count": 6},
                {"kind": "good_fortune", "family": key, "count": 6},
                {"kind": "monster", "family": key, "count": 1},
            )
        ),
        {"kind": "hero", "hero": "2X", "count": 8},
        {"kind": "hero", "hero": "3X", "count": 7},
        {"kind": "hero", "hero": "Modifier", "count": 5},
        {"kind": "hero", "hero": "Reversal", "count": 5},
        {"kind": "hero", "hero": "Creep Eraser", "count": 5},
    ],
}

STANDARD_CATALOGUE = Catalogue.from_dict(STANDARD_SPEC)
