"""A networked Creepy Racer session as the console's ``RacerTable``.

The seat's observation and legal actions come from the racer adapter's accessors (passed in, so
this module reads no session internals beyond the public ``Session`` API); the story is told
from the log: each ``act`` event is a seat action in ``racer.format_action`` text, narrated
against the public engine state before and after it, and the deck work between acts is told
by its consequences (deaths, players out, the end).  Everything told is public.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from creepnet.cli.racer.narration import Story
from creepnet.engine import racer
from creepnet.engine.racer import IllegalAction, Observation, SeatAction
from creepnet.engine.racer.state import RevealFaceUp
from creepnet.protocol.identity import fingerprint


class SeatViewLike(Protocol):
    """What the adapter's seat view offers (read only: the adapter's is a frozen record)."""

    @property
    def observation(self) -> Observation: ...
    @property
    def legal(self) -> Sequence[Any]: ...


SeatViewOf = Callable[[Any], SeatViewLike | None]
PublicOf = Callable[[Any, int], Observation | None]


class SessionTable:
    def __init__(self, session: Any, seat_view: SeatViewOf, public_observation: PublicOf) -> None:
        self.session = session
        self._seat_view = seat_view
        self._public = public_observation
        self._story = Story()
        self._seen = 0  # log events already told
        self._state: racer.State | None = None  # the public state when they were

    @property
    def local_seat(self) -> int | None:
        return self.session.local_seat  # type: ignore[no-any-return]

    def labels(self) -> Sequence[str]:
        return [seat.player for seat in self.session.seats]

    def observation(self) -> Observation | None:
        state = self._public_state()
        if state is None or isinstance(state.stage, RevealFaceUp):  # dealt, not yet shown
            return None
        self._catch_up()
        if self.local_seat is None:
            return self._public(self.session, 0)
        view = self._seat_view(self.session)
        return view.observation if view is not None else None

    def legal(self) -> Sequence[SeatAction]:
        if self.local_seat is None or self.session.my_turn() is None:
            return []
        view = self._seat_view(self.session)
        return list(view.legal) if view is not None else []

    def story(self) -> Sequence[str]:
        self._catch_up()
        return self._story.lines

    def outcome(self) -> str | None:
        if self.session.halted is not None:
            return "stopped: a player signed two different events at one position (proof kept)"
        return self.session.outcome_text  # type: ignore[no-any-return]

    def waiting(self) -> str | None:
        waiting = self.session.waiting_for()
        return waiting.describe() if waiting is not None else None

    def seat_of_peer(self, peer: str | None) -> int | None:
        keys = [fingerprint(seat.key) for seat in self.session.seats]
        return keys.index(peer) if peer in keys else None

    # ----- the story from the log ----------------------------------------------------------

    def _public_state(self) -> racer.State | None:
        game = self.session.game_state if self.session.started else None
        return getattr(game, "state", None)

    def _catch_up(self) -> None:
        """Tell the events since the last call.  The session keeps no state between events,
        so the acts of a batch are all told against the states before and after the batch,
        and their consequences once, at the end."""
        state = self._public_state()
        events = self.session.log.events
        fresh, self._seen = events[self._seen :], len(events)
        if state is None or not fresh:
            return
        before, self._state = self._state, state
        if before is None or _turns_between(before, state) > 1:  # joined late, or looked away
            if state.turn is not None:
                self._story.note(f"(the game is at turn {state.turn.number})")
            return
        keys = [seat.key for seat in self.session.seats]
        acts = [
            (keys.index(event.author), action)
            for event in fresh
            if event.type == "act"
            and event.author in keys
            and (action := _action(event.body)) is not None
        ]
        for actor, action in acts:
            self._story.step(before, actor, action, state, consequences=False)
        if before is not state or acts:
            self._story.step(before, racer.CHANCE, None, state)


def _turns_between(before: racer.State, after: racer.State) -> int:
    """Turn boundaries crossed from ``before`` to ``after`` (the deal counts as turn 0)."""
    first = before.turn.number if before.turn is not None else 0
    return (after.turn.number if after.turn is not None else 0) - first


def _action(body: Any) -> SeatAction | None:
    try:
        return racer.parse_action(body["action"])
    except (IllegalAction, KeyError, TypeError):
        return None  # the session accepted the event, so this does not happen
