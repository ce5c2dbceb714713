"""Creepy Racer rules: ``pending``, ``legal_actions`` and ``apply``.

``apply(state, action)`` takes ``action`` as the answer of ``pending(state).actor`` (the
protocol layer checks who signed it) and returns the next state, always settled at the next
request. The engine never needs a hidden identity to move on: a hidden card is named by the
action that reveals it, and checked against what this state already knows.

The rules live by concern, each module owning the handlers of its stages:

* ``waiting``    — ``pending`` and ``legal_actions``
* ``dealing``    — set-up and drawing
* ``turns``      — turns, passing, discarding, game over
* ``calamities`` — Calamity, the Monster reaction, Good Fortune
* ``attacks``    — declaring, launching, the Hero exchange
* ``hostage``    — the Hostage Exchange
* ``table``      — the bookkeeping they share (reveals, hands, shuffles, deaths)

This module joins their handler tables and settles the automatic steps between requests.

Specified in docs/spec-racer.md §4 (requests), §5 (transitions) and §6 (settling).
"""

from __future__ import annotations

from creepnet.engine.racer import attacks, calamities, dealing, hostage, turns
from creepnet.engine.racer.actions import Action, IllegalAction
from creepnet.engine.racer.attacks import resolve_attack
from creepnet.engine.racer.dealing import settle_drawing
from creepnet.engine.racer.state import Discarding, Drawing, Exchange, Handlers, State
from creepnet.engine.racer.table import side_seat, turn_seat
from creepnet.engine.racer.turns import end_turn, start_turn
from creepnet.engine.racer.waiting import legal_actions, pending

__all__ = ["apply", "begin_turn", "legal_actions", "pending", "settle"]

# (stage type, action type) -> handler(state, stage, action) -> unsettled next state
_HANDLERS: Handlers = {
    **dealing.HANDLERS,
    **turns.HANDLERS,
    **calamities.HANDLERS,
    **attacks.HANDLERS,
    **hostage.HANDLERS,
}


def apply(state: State, action: Action) -> State:
    """The next state after ``action`` by ``pending(state).actor``; raises IllegalAction."""
    st = state.stage
    handler = _HANDLERS.get((type(st), type(action)))
    if handler is None:
        raise IllegalAction(f"{type(action).__name__} is not an answer to {pending(state)!r}")
    return _settle(handler(state, st, action))


def begin_turn(state: State, seat: int, number: int = 1) -> State:
    """Start turn ``number`` for ``seat`` (draws first), settled at the next request."""
    return _settle(start_turn(state, seat, number))


def settle(state: State) -> State:
    """Perform the automatic steps until the next request (draws, ending a turn, ...)."""
    return _settle(state)


def _settle(state: State) -> State:
    while True:
        st = state.stage
        if isinstance(st, Drawing):
            following = settle_drawing(state, st)
        elif isinstance(st, Discarding):
            seat = turn_seat(state)
            following = (
                end_turn(state)
                if len(state.players[seat].hand) <= state.options.hand_limit
                else None
            )
        elif isinstance(st, Exchange) and st.rolling is None:
            seat = side_seat(state, st, st.to_play)
            following = resolve_attack(state, st) if not state.players[seat].hand else None
        else:
            following = None
        if following is None:
            return state
        state = following
