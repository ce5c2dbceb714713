"""The table's bookkeeping, shared by every rule: where a card goes, who has seen it, and the
checks that a card named by a seat is really in its hand.

Every function takes a state and returns a new one (or raises IllegalAction); none decides
what the game waits for next.

Specified in docs/spec-racer.md §3 (revealing, fresh slots) and §5.5 (kill).
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from creepnet.engine.racer.actions import Die, IllegalAction, Shuffle, Slot
from creepnet.engine.racer.cards import Card, CardId, Kind
from creepnet.engine.racer.state import Exchange, LineCreep, State, with_player


def side_seat(state: State, ex: Exchange, side: int) -> int:
    assert state.turn is not None
    return state.turn.seat if side == 0 else ex.defender


def everyone(state: State) -> frozenset[int]:
    return frozenset(range(state.n))


def turn_seat(state: State) -> int:
    assert state.turn is not None
    return state.turn.seat


def without(slots: tuple[Slot, ...], slot: Slot) -> tuple[Slot, ...]:
    index = slots.index(slot)
    return slots[:index] + slots[index + 1 :]


def require_die(action: Die) -> None:
    if not 1 <= action.value <= 6:
        raise IllegalAction("a die shows 1 to 6")


def require_kind(state: State, card_id: CardId, kind: Kind) -> Card:
    if not 0 <= card_id < len(state.catalogue):
        raise IllegalAction(f"no card {card_id}")
    card = state.catalogue[card_id]
    if card.kind is not kind:
        raise IllegalAction(f"{card.name} is not a {kind.value}")
    return card


def from_hand(state: State, seat: int, slot: Slot, card_id: CardId, kind: Kind | None) -> Card:
    """Check that ``seat`` holds ``slot`` and that it can be ``card_id`` of ``kind``."""
    if slot not in state.players[seat].hand:
        raise IllegalAction("that card is not in your hand")
    if not 0 <= card_id < len(state.catalogue):
        raise IllegalAction(f"no card {card_id}")
    card = state.catalogue[card_id]
    if kind is not None and card.kind is not kind:
        raise IllegalAction(f"{card.name} is not a {kind.value}")
    if card.kind is Kind.CREEP:
        raise IllegalAction("a Creep is never held in hand")
    known = state.known.get(slot)
    if known is not None and known != card_id:
        raise IllegalAction("that slot holds a different card")
    return card


def play_from_hand(state: State, seat: int, slot: Slot, card_id: CardId) -> State:
    """Reveal a hand card to everyone and take it out of the hand (caller places it)."""
    state = reveal(state, slot, card_id, everyone(state))
    player = state.players[seat]
    return with_player(state, replace(player, hand=without(player.hand, slot)))


def reveal(state: State, slot: Slot, card_id: CardId, seats: frozenset[int]) -> State:
    if not 0 <= card_id < len(state.catalogue):
        raise IllegalAction(f"no card {card_id}")
    current = state.known.get(slot)
    known = state.known
    if current is None:
        if card_id in known.values():
            raise IllegalAction(f"{state.catalogue[card_id].name} (#{card_id}) is elsewhere")
        known = MappingProxyType({**known, slot: card_id})
    elif current != card_id:
        raise IllegalAction("that slot holds a different card")
    seen = state.audience.get(slot, frozenset())
    audience = state.audience
    if not seats <= seen:
        audience = MappingProxyType({**audience, slot: seen | seats})
    return replace(state, known=known, audience=audience)


def shuffled(
    state: State, slots: tuple[Slot, ...], action: Shuffle
) -> tuple[State, tuple[Slot, ...]]:
    """Fresh handles for a shuffled pool; identities follow a given permutation."""
    size = len(slots)
    permutation = action.permutation
    if permutation is not None and sorted(permutation) != list(range(size)):
        raise IllegalAction(f"not a permutation of {size} cards")
    fresh = tuple(range(state.next_slot, state.next_slot + size))
    known = dict(state.known)
    audience = dict(state.audience)
    old = {slot: known.pop(slot, None) for slot in slots}
    for slot in slots:
        audience.pop(slot, None)
    if permutation is not None:
        for new_slot, source in zip(fresh, permutation, strict=True):
            card_id = old[slots[source]]
            if card_id is not None:
                known[new_slot] = card_id
    state = replace(
        state,
        known=MappingProxyType(known),
        audience=MappingProxyType(audience),
        next_slot=state.next_slot + size,
    )
    return state, fresh


def replace_creep(state: State, seat: int, creep: LineCreep) -> State:
    player = state.players[seat]
    line = tuple(creep if c.slot == creep.slot else c for c in player.line)
    return with_player(state, replace(player, line=line))


def matching_calamity(state: State, creep: LineCreep, family: str | None) -> Slot | None:
    for slot in creep.attached:
        card = state.public_card(slot)
        if card.kind is Kind.CALAMITY and card.family == family:
            return slot
    return None


def kill(state: State, slot: Slot) -> State:
    """The Creep goes to the Dead Creep pile, its cards to the discard pile. A player with an
    empty line and no Creep left in the draw deck is out at once (``finish_move`` then looks
    for the winner); one with Creeps still to draw plays on."""
    found = state.find_creep(slot)
    if found is None:
        return state
    seat, creep = found
    player = state.players[seat]
    line = tuple(c for c in player.line if c.slot != slot)
    player = replace(player, line=line, active=bool(line) or player.deck_creeps > 0)
    state = with_player(state, player)
    return replace(state, dead=state.dead + (slot,), discard=state.discard + creep.attached)
