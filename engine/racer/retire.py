"""A seat that leaves for good (the table retired it: protocol/retirement.py): it is out, as an
eliminated player is, and the game goes on among the others.

Its hand and its draw deck leave play (they stay where they are, under an ``out:`` place, and
nobody ever learns them); its line goes to the Dead Creep pile and what was attached to it to the
discard pile (all public).  What it was part of is cancelled: its turn passes (an attack it
launched ends, the Heroes played go to the discard pile); an attack on it ends as a move of the
attacker; a Calamity waiting for its Monster reaction ends the Calamity's move; a Hostage
Exchange with it is cancelled: before any card has changed hands the move is not spent; during
the hand-over of the two picked cards (``HostageSwap.to_learn``, one card at a time, each taken
through the deck's blind/unblind transfer) the card already handed over stays with its taker (its
transfer is done: only the taker holds it), the one not yet handed over goes back to the end of
its giver's hand (its transfer, if begun, is void), and the move counts as made when a card did
change hands (docs/spec-racer.md §5.9).  Its draws leave the draw queue.  Retiring during the
set-up before the roll to start is refused (``IllegalAction``): the protocol layer then retires
the seat once it may.
"""

from __future__ import annotations

from dataclasses import replace

from creepnet.engine.racer.actions import IllegalAction
from creepnet.engine.racer.rules import settle
from creepnet.engine.racer.state import (
    DeckShift,
    Declaring,
    Drawing,
    Exchange,
    HostageAnswer,
    HostageSwap,
    Moves,
    Over,
    React,
    RevealFaceUp,
    SetupShuffle,
    StartRoll,
    State,
    with_player,
)
from creepnet.engine.racer.table import without
from creepnet.engine.racer.turns import end_turn, finish_move

SET_UP = (SetupShuffle, RevealFaceUp, DeckShift)


def can_retire(state: State, seat: int) -> str | None:
    """Why ``seat`` cannot be retired now (None: it can)."""
    st = state.stage
    if not 0 <= seat < state.n or not state.players[seat].active:
        return f"seat {seat} is not in the game"
    if isinstance(st, Over):
        return "the game is over"
    if isinstance(st, SET_UP):
        return "the set-up is under way (a seat may be retired from the roll to start on)"
    return None


def retire(state: State, seat: int) -> State:
    """The state with ``seat`` out for good (module docstring); raises IllegalAction."""
    reason = can_retire(state, seat)
    if reason is not None:
        raise IllegalAction(f"cannot retire seat {seat}: {reason}")
    player = state.players[seat]
    line = tuple(c.slot for c in player.line)
    attached = tuple(s for c in player.line for s in c.attached)
    state = with_player(state, replace(player, line=(), active=False, deck_creeps=0))
    state = replace(state, dead=state.dead + line, discard=state.discard + attached)
    state = _cancel(state, seat)
    remaining = state.active_seats()
    if len(remaining) <= 1:
        # The last seat in wins, as when a kill leaves it alone (finish_move), even where X's
        # turn passing has just started a turn past the turn limit (Over(None)): the spec's
        # "if one seat is left active, it wins" comes after what X was part of ends (§5.9).
        state = replace(state, stage=Over(remaining[0] if remaining else None))
    return settle(state)


def _cancel(state: State, seat: int) -> State:
    handed_over = False
    if isinstance(state.stage, HostageSwap) and seat in (state.stage.asker, state.stage.target):
        state, handed_over = _cancel_hand_over(state, state.stage)
    st = state.stage
    if isinstance(st, StartRoll):
        rolled = dict(zip(st.contenders, st.rolls, strict=False))
        contenders = tuple(s for s in st.contenders if s != seat)
        kept = tuple(rolled[s] for s in contenders if s in rolled)
        return replace(state, stage=_start_roll(state, contenders, kept))
    if isinstance(st, Drawing):
        if st.queue and st.queue[0][0] == seat:
            st = replace(st, drawn=None, learned=False)  # the card drawn left with the hand
        st = replace(st, queue=tuple(q for q in st.queue if q[0] != seat))
        state = replace(state, stage=st)
        if st.then == "opening" and state.start_seat == seat:  # the first turn passes too
            state = replace(state, start_seat=state.next_active(seat))
    turn = state.turn
    if turn is not None and turn.seat == seat:  # its turn passes; Heroes in play are discarded
        heroes = st.heroes if isinstance(st, Exchange) else ()
        return end_turn(replace(state, discard=state.discard + heroes))
    if isinstance(st, Exchange) and st.defender == seat:
        return finish_move(replace(state, discard=state.discard + st.heroes, stage=Moves()))
    if isinstance(st, React) and st.seat == seat:
        return finish_move(replace(state, stage=Moves()))
    if isinstance(st, HostageAnswer | HostageSwap) and st.target == seat:
        return finish_move(state) if handed_over else replace(state, stage=Moves())
    if isinstance(st, Declaring) and state.find_creep(st.target) is None:
        return replace(state, stage=Moves())  # its target went to the Dead Creep pile
    return state


def _cancel_hand_over(state: State, st: HostageSwap) -> tuple[State, bool]:
    """Undo the picked cards' hand-overs not yet done: each goes from its taker's hand back to
    the end of its giver's.  True if one card had already changed hands (it stays)."""
    for slot, taker in st.to_learn:
        giver = st.target if taker == st.asker else st.asker
        took, gave = state.players[taker], state.players[giver]
        state = with_player(state, replace(took, hand=without(took.hand, slot)))
        state = with_player(state, replace(gave, hand=gave.hand + (slot,)))
    return state, len(st.picked) == 2 and len(st.to_learn) < 2


def _start_roll(state: State, contenders: tuple[int, ...], rolls: tuple[int, ...]) -> StartRoll:
    """The roll to start without the retired seat; if everyone left has rolled, roll again
    among them all (simplest fair rule: no roll is judged against a seat no longer there)."""
    if len(rolls) < len(contenders):
        return StartRoll(contenders, rolls)
    return StartRoll(contenders)
