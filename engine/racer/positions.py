"""Crafted positions: build a mid-game State from card names, for tests and puzzles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from creepnet.engine.racer.cards import STANDARD_CATALOGUE, CardId, Catalogue, Kind
from creepnet.engine.racer.rules import begin_turn
from creepnet.engine.racer.state import LineCreep, Moves, Options, Player, State, Turn

CardRef = str | int  # a printed name (the next unused copy) or a card id
CreepRef = CardRef | tuple[CardRef, Sequence[CardRef]]  # a Creep, optionally with attachments


def crafted_position(
    lines: Mapping[int, Sequence[CreepRef]],
    hands: Mapping[int, Sequence[CardRef]] | None = None,
    decks: Mapping[int, Sequence[CardRef]] | None = None,
    discard: Sequence[CardRef] = (),
    dead: Sequence[CardRef] = (),
    *,
    turn: int = 0,
    moves_left: int | None = None,
    at: str = "moves",
    forced_used: Sequence[int] = (),
    options: Options | None = None,
    catalogue: Catalogue = STANDARD_CATALOGUE,
) -> State:
    """A full-information state with the named cards in place; all other cards are boxed.

    ``lines[seat]`` lists Creeps, each a name or ``(name, [attached names])``; a seat with
    an empty (or no) line and no Creep in its deck is out. Decks list the top card first.
    ``at="moves"`` puts ``turn`` at its moves (draws done); ``at="turn-start"`` starts that
    turn with its draws.
    """
    players_n = options.players if options else max(lines) + 1
    options = options or Options(players=players_n)
    hands, decks = hands or {}, decks or {}
    unused = list(range(len(catalogue)))

    def take(ref: CardRef) -> CardId:
        if isinstance(ref, int):
            candidates = [ref]
        else:
            candidates = list(catalogue.ids_named(ref))
            if not candidates:
                raise ValueError(f"no card named {ref!r}")
        for card_id in candidates:
            if card_id in unused:
                unused.remove(card_id)
                return card_id
        raise ValueError(f"no unused copy of {ref!r} left")

    players = []
    for seat in range(players_n):
        line = []
        for ref in lines.get(seat, ()):
            name, attached = (ref, ()) if not isinstance(ref, tuple) else ref
            creep = take(name)
            if catalogue[creep].kind is not Kind.CREEP:
                raise ValueError(f"{name!r} is not a Creep")
            line.append(LineCreep(creep, tuple(take(a) for a in attached)))
            calamities = sum(catalogue[a].kind is Kind.CALAMITY for a in line[-1].attached)
            if calamities >= catalogue[creep].strength:
                raise ValueError(f"{name!r} would be dead")
        deck = tuple(take(r) for r in decks.get(seat, ()))
        deck_creeps = sum(catalogue[card_id].kind is Kind.CREEP for card_id in deck)
        players.append(
            Player(
                seat,
                deck=deck,
                hand=tuple(take(r) for r in hands.get(seat, ())),
                line=tuple(line),
                active=bool(line) or deck_creeps > 0,
                deck_creeps=deck_creeps,
                forced_hostage=seat in forced_used,
            )
        )
    discard_ids = tuple(take(r) for r in discard)
    dead_ids = tuple(take(r) for r in dead)
    everyone = frozenset(range(players_n))
    audience: dict[int, frozenset[int]] = {}
    for p in players:
        audience.update({s: frozenset({p.seat}) for s in p.hand})
        for c in p.line:
            audience.update({s: everyone for s in (c.slot, *c.attached)})
    audience.update({s: everyone for s in (*discard_ids, *dead_ids)})
    state = State(
        catalogue=catalogue,
        options=options,
        players=tuple(players),
        stage=Moves(),
        box=tuple(unused),
        discard=discard_ids,
        dead=dead_ids,
        known=MappingProxyType({card_id: card_id for card_id in range(len(catalogue))}),
        audience=MappingProxyType(audience),
        next_slot=len(catalogue),
        start_seat=turn,
    )
    if at == "turn-start":
        return begin_turn(state, turn)
    if at != "moves":
        raise ValueError("at is 'moves' or 'turn-start'")
    left = options.moves_per_turn if moves_left is None else moves_left
    return replace(state, turn=Turn(turn, 1, moves_left=left))


def slot_of(state: State, name: str, seat: int | None = None) -> int:
    """The slot of the first card called ``name`` in a line (Creeps and attachments) or
    hand, optionally only ``seat``'s; the state must know it."""
    wanted = name.casefold()
    for player in state.players:
        if seat is not None and player.seat != seat:
            continue
        slots = [s for c in player.line for s in (c.slot, *c.attached)] + list(player.hand)
        for slot in slots:
            card = state.card(slot)
            if card is not None and card.name.casefold() == wanted:
                return slot
    raise LookupError(f"no known {name!r} in play")
