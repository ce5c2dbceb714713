"""What a seat may see (``observation``) and the end-of-game audit of hidden cards.

The end-of-game ``audit`` is specified in docs/spec-racer.md §9.5.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from creepnet.engine.racer.actions import Request, Slot
from creepnet.engine.racer.cards import CardId, Catalogue, Kind
from creepnet.engine.racer.rules import pending
from creepnet.engine.racer.state import (
    Declaring,
    Drawing,
    Exchange,
    React,
    State,
    locations,
    redact,
)


@dataclass(frozen=True)
class CreepView:
    slot: Slot
    card: CardId
    strength: int
    attached: tuple[CardId, ...]


@dataclass(frozen=True)
class PlayerView:
    seat: int
    active: bool
    line: tuple[CreepView, ...]
    hand_count: int
    deck_count: int
    deck_creeps: int  # Creeps still in the draw deck (public)
    forced_hostage: bool


@dataclass(frozen=True)
class AttackView:
    attacker: int
    defender: int | None  # None while still declaring
    attackers: tuple[Slot, ...]
    target: Slot
    values: tuple[int, int] | None  # (attacker, defender) once launched
    stacks: tuple[tuple[int, ...], tuple[int, ...]]  # factors each side may lose to Reversal
    heroes: tuple[CardId, ...]


@dataclass(frozen=True)
class Observation:
    """Public facts plus the seat's own hand: everything a bot may base its choice on."""

    seat: int
    catalogue: Catalogue
    request: Request
    turn_seat: int | None
    turn_number: int
    moves_left: int
    players: tuple[PlayerView, ...]
    hand: tuple[tuple[Slot, CardId], ...]
    discard: tuple[CardId, ...]
    dead: tuple[CardId, ...]
    attack: AttackView | None
    calamity_hit: Slot | None  # the Creep a Calamity just hit, while its owner may react


def observation(state: State, seat: int) -> Observation:
    """``seat``'s observation, derived only from its own information state."""
    return observation_of_view(redact(state, seat), seat)


def observation_of_view(view: State, seat: int) -> Observation:
    """As ``observation`` for a state that is already ``redact(state, seat)`` (or a seat's
    protocol node state), saving the second redaction on hot paths."""
    st = view.stage
    players = tuple(
        PlayerView(
            seat=p.seat,
            active=p.active,
            line=tuple(
                CreepView(
                    c.slot,
                    view.public_card(c.slot).id,
                    view.strength(c),
                    tuple(view.public_card(s).id for s in c.attached),
                )
                for c in p.line
            ),
            hand_count=len(p.hand),
            deck_count=len(p.deck),
            deck_creeps=p.deck_creeps,
            forced_hostage=p.forced_hostage,
        )
        for p in view.players
    )
    hand = tuple((s, view.known[s]) for s in view.players[seat].hand if s in view.known)
    turn = view.turn
    attack = None
    if isinstance(st, Declaring) and turn is not None:
        attack = AttackView(turn.seat, None, st.attackers, st.target, None, ((), ()), ())
    elif isinstance(st, Exchange) and turn is not None:
        attack = AttackView(
            turn.seat,
            st.defender,
            st.attackers,
            st.target,
            st.values,
            st.stacks,
            tuple(view.public_card(s).id for s in st.heroes),
        )
    return Observation(
        seat=seat,
        catalogue=view.catalogue,
        request=pending(view),
        turn_seat=turn.seat if turn else None,
        turn_number=turn.number if turn else 0,
        moves_left=turn.moves_left if turn else 0,
        players=players,
        hand=hand,
        discard=tuple(view.public_card(s).id for s in view.discard),
        dead=tuple(view.public_card(s).id for s in view.dead),
        attack=attack,
        calamity_hit=st.creep if isinstance(st, React) else None,
    )


def audit(
    state: State,
    reveal: Mapping[Slot, CardId] | None = None,
    *,
    partial: bool = False,
    left: frozenset[int] = frozenset(),
) -> list[str]:
    """Problems with where the cards are, given the identities still hidden (``reveal``).

    Checks that every card of the catalogue is in exactly one place, that no revealed
    identity contradicts what the game saw, and that no hand hides a Creep (a drawn Creep
    must have been placed). An empty list means the game was clean.

    ``partial``: some cards can never be revealed (a retired seat's scalar whose escrow was
    lost stays on them): those are passed over, and every revealed one is still checked.
    ``left``: seats retired from the game; a hand of theirs may hold the Creep they were
    drawing when they left (they never got to place it).
    """
    out_hands = {f"out:hand:{seat}" for seat in left}
    identities = dict(state.known)
    problems = []
    for slot, revealed in (reveal or {}).items():
        if identities.get(slot, revealed) != revealed:
            problems.append(f"slot {slot} was seen as #{identities[slot]}, revealed as #{revealed}")
        identities.setdefault(slot, revealed)
    where: dict[CardId, str] = {}
    # A card being drawn is in the hand until the drawer says whether it is a Creep.
    drawing = state.stage.drawn if isinstance(state.stage, Drawing) else None
    for place, slot in locations(state):
        card_id = identities.get(slot)
        if card_id is None:
            if not partial:
                problems.append(f"slot {slot} in {place} was never revealed")
            continue
        if card_id in where:
            problems.append(f"card #{card_id} is both in {where[card_id]} and {place}")
        where[card_id] = place
        kind = state.catalogue[card_id].kind
        if "hand" in place and kind is Kind.CREEP and slot != drawing and place not in out_hands:
            problems.append(f"Creep #{card_id} was kept hidden in {place}")
        if place.startswith("line") and kind is not Kind.CREEP:
            problems.append(f"#{card_id} in {place} is not a Creep")
    missing = set(range(len(state.catalogue))) - set(where)
    if missing and not partial:
        problems.append(f"cards missing: {sorted(missing)}")
    return problems
