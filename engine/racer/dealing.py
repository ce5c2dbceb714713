"""Set-up (the Creep and Play Pile shuffles and deals, the face-up Creeps, the Deck Shift, the
roll to start) and drawing (a drawn Creep goes to the line, an empty deck is refilled from the
discard pile).

Specified in docs/spec-racer.md §5.1 (set-up) and §5.2 (drawing, the redeal).
"""

from __future__ import annotations

from dataclasses import replace

from creepnet.engine.racer.actions import (
    Die,
    IllegalAction,
    KeepDrawn,
    Learn,
    PlaceCreep,
    Shuffle,
    Slot,
)
from creepnet.engine.racer.cards import Kind
from creepnet.engine.racer.state import (
    DeckShift,
    Drawing,
    Handlers,
    LineCreep,
    Moves,
    RevealFaceUp,
    SetupShuffle,
    StartRoll,
    State,
    with_player,
)
from creepnet.engine.racer.table import (
    everyone,
    require_die,
    require_kind,
    reveal,
    shuffled,
    without,
)
from creepnet.engine.racer.turns import start_turn


def _on_setup_shuffle(state: State, st: SetupShuffle, action: Shuffle) -> State:
    n, opts = state.n, state.options
    if st.pool == "creeps":
        state, slots = shuffled(state, state.creep_pile, action)
        in_play = opts.creeps_per_player * n
        face_up = slots[: opts.face_up_creeps * n]
        players = [replace(p, line=(), deck=()) for p in state.players]
        for k, slot in enumerate(face_up):
            p = players[k % n]
            players[k % n] = replace(p, line=p.line + (LineCreep(slot),))
        for k, slot in enumerate(slots[len(face_up) : in_play]):
            p = players[k % n]
            players[k % n] = replace(p, deck=p.deck + (slot,), deck_creeps=p.deck_creeps + 1)
        return replace(
            state,
            players=tuple(players),
            creep_pile=(),
            box=slots[in_play:],
            stage=RevealFaceUp(face_up),
        )
    if st.pool == "play":
        state, slots = shuffled(state, state.play_pile, action)
        players = list(state.players)
        for k, slot in enumerate(slots):  # clockwise from seat 0, as evenly as possible
            p = players[k % n]
            players[k % n] = replace(p, deck=p.deck + (slot,))
        return replace(state, players=tuple(players), play_pile=(), stage=SetupShuffle("deck", 0))
    player = state.players[st.seat]
    state, slots = shuffled(state, player.deck, action)
    state = with_player(state, replace(player, deck=slots))
    following = SetupShuffle("deck", st.seat + 1) if st.seat + 1 < n else DeckShift()
    return replace(state, stage=following)


def _on_reveal_face_up(state: State, st: RevealFaceUp, action: Learn) -> State:
    if action.slot != st.slots[0] or action.card is None:
        raise IllegalAction("a face-up Creep must be revealed to everyone")
    require_kind(state, action.card, Kind.CREEP)
    state = reveal(state, action.slot, action.card, everyone(state))
    rest = st.slots[1:]
    return replace(state, stage=RevealFaceUp(rest) if rest else SetupShuffle("play"))


def _on_deck_shift(state: State, st: DeckShift, action: Die) -> State:
    require_die(action)
    if action.value % 2 == 1:  # odd: every deck passes to the player on the left
        n = state.n
        players = tuple(
            replace(
                p,
                deck=state.players[(p.seat - 1) % n].deck,
                deck_creeps=state.players[(p.seat - 1) % n].deck_creeps,
            )
            for p in state.players
        )
        state = replace(state, players=players)
    return replace(state, stage=StartRoll(tuple(range(state.n))))


def _on_start_roll(state: State, st: StartRoll, action: Die) -> State:
    require_die(action)
    rolls = st.rolls + (action.value,)
    if len(rolls) < len(st.contenders):
        return replace(state, stage=StartRoll(st.contenders, rolls))
    best = max(rolls)
    tied = tuple(seat for seat, roll in zip(st.contenders, rolls, strict=True) if roll == best)
    if len(tied) > 1:
        return replace(state, stage=StartRoll(tied))
    start = tied[0]
    order = [(start + k) % state.n for k in range(state.n)]
    queue = tuple((seat, state.options.opening_hand) for seat in order)
    return replace(state, start_seat=start, stage=Drawing(queue, "opening"))


def _on_redeal(state: State, st: Drawing, action: Shuffle) -> State:
    if not st.redeal:
        raise IllegalAction("no shuffle is due")
    state, slots = shuffled(state, state.discard, action)
    drawer = st.queue[0][0]
    order = [drawer]
    while (following := state.next_active(order[-1])) != drawer:
        order.append(following)
    players = list(state.players)
    for k, slot in enumerate(slots):  # round-robin to the bottoms of the decks
        p = players[order[k % len(order)]]
        players[p.seat] = replace(p, deck=p.deck + (slot,))
    return replace(state, players=tuple(players), discard=(), stage=replace(st, redeal=False))


def _on_draw_learn(state: State, st: Drawing, action: Learn) -> State:
    if st.drawn is None or st.learned or action.slot != st.drawn:
        raise IllegalAction("that is not the card being drawn")
    if action.card is not None:
        state = reveal(state, action.slot, action.card, frozenset({st.queue[0][0]}))
    return replace(state, stage=replace(st, learned=True))


def _on_place_creep(state: State, st: Drawing, action: PlaceCreep) -> State:
    seat = _check_drawn(st, action.slot)
    require_kind(state, action.card, Kind.CREEP)
    state = reveal(state, action.slot, action.card, everyone(state))
    p = state.players[seat]
    if p.deck_creeps <= 0:
        raise IllegalAction("no Creep is left in that deck")
    p = replace(
        p,
        hand=without(p.hand, action.slot),
        line=p.line + (LineCreep(action.slot),),
        deck_creeps=p.deck_creeps - 1,
    )
    state = with_player(state, p)
    # A Creep is replaced by another draw: the queue count stays.
    return replace(state, stage=replace(st, drawn=None, learned=False))


def _on_keep_drawn(state: State, st: Drawing, action: KeepDrawn) -> State:
    seat = _check_drawn(st, action.slot)
    card = state.card(action.slot)
    if card is not None and card.kind is Kind.CREEP:
        raise IllegalAction("a drawn Creep must be placed in the line")
    player = state.players[seat]
    if player.deck_creeps > len(player.deck):  # every card that was left is a Creep
        raise IllegalAction("only Creeps were left in that deck: the card drawn is a Creep")
    (seat, count), *rest = st.queue
    queue = ((seat, count - 1), *rest)
    return replace(state, stage=replace(st, queue=queue, drawn=None, learned=False))


def _check_drawn(st: Drawing, slot: Slot) -> int:
    if st.drawn is None or not st.learned or slot != st.drawn:
        raise IllegalAction("that is not the card just drawn")
    return st.queue[0][0]


def settle_drawing(state: State, st: Drawing) -> State | None:
    if st.drawn is not None or st.redeal:
        return None
    if not st.queue:
        if st.then == "opening":
            assert state.start_seat is not None
            return start_turn(state, state.start_seat, 1)
        return replace(state, stage=Moves())
    (seat, count), *rest = st.queue
    player = state.players[seat]
    if count <= 0 or not player.active:
        return replace(state, stage=replace(st, queue=tuple(rest)))
    if player.deck:
        slot = player.deck[0]
        state = with_player(
            state, replace(player, deck=player.deck[1:], hand=player.hand + (slot,))
        )
        return replace(state, stage=replace(st, drawn=slot, learned=False))
    if state.discard:
        return replace(state, stage=replace(st, redeal=True))
    return replace(state, stage=replace(st, queue=tuple(rest)))  # nothing left to draw


HANDLERS: Handlers = {
    (SetupShuffle, Shuffle): _on_setup_shuffle,
    (RevealFaceUp, Learn): _on_reveal_face_up,
    (DeckShift, Die): _on_deck_shift,
    (StartRoll, Die): _on_start_roll,
    (Drawing, Shuffle): _on_redeal,
    (Drawing, Learn): _on_draw_learn,
    (Drawing, PlaceCreep): _on_place_creep,
    (Drawing, KeepDrawn): _on_keep_drawn,
}
