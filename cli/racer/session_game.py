"""A networked Creepy Racer session as the console's ``RacerView``.

The seat's observation and legal actions come from the racer adapter's accessors (passed in, so
this module reads no session internals beyond the public ``Session`` API); the story is told
from the log: each ``act`` event is a seat action in ``racer.format_action`` text, narrated
against the public engine state before and after it, and the deck work between acts is told
by its consequences (deaths, players out, the end), and what the states show between acts (a
Modifier's die, a finished Hostage Exchange).  Everything in the story is public; ``news`` is
the local seat's own side of an exchange (which card it gave and which it got).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from creepnet.cli.racer.narration import (
    HostageWatch,
    Story,
    modifier_die,
    swap_news,
    swap_story,
    waiting_words,
)
from creepnet.cli.text import printable
from creepnet.engine import racer
from creepnet.engine.racer import IllegalAction, Observation, SeatAction
from creepnet.engine.racer.state import RevealFaceUp
from creepnet.protocol.identity import fingerprint
from creepnet.protocol.verify import abandonment_text


class SeatViewLike(Protocol):
    """What the adapter's seat view offers (read only: the adapter's is a frozen record)."""

    @property
    def observation(self) -> Observation: ...
    @property
    def legal(self) -> Sequence[Any]: ...


SeatViewOf = Callable[[Any], SeatViewLike | None]
PublicOf = Callable[[Any, int], Observation | None]


class SessionGame:
    def __init__(self, session: Any, seat_view: SeatViewOf, public_observation: PublicOf) -> None:
        self.session = session
        self._seat_view = seat_view
        self._public = public_observation
        self._story = Story()
        self._seen = 0  # log events already told
        self._state: racer.State | None = None  # the public state when they were
        self._hostage = HostageWatch()
        self._dice: set[tuple[int, int, int]] = set()  # Modifier dice told (modifier_die's key)
        self._cards: dict[int, int] = {}  # every card our hand has held: slot -> card id
        self._news: list[str] = []

    @property
    def local_seat(self) -> int | None:
        return self.session.local_seat

    def labels(self) -> Sequence[str]:
        return [seat.player for seat in self.session.seats]

    def observation(self) -> Observation | None:
        state = self._public_state()
        if state is None:
            return None
        self._catch_up()  # the deal too: the story tells the face-up Creeps once they are shown
        if isinstance(state.stage, RevealFaceUp):  # dealt, not yet shown
            return None
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
        return self.session.outcome_text or abandonment_text(self.session)

    def waiting(self) -> str | None:
        """Whom the game waits for, and for what, in words for people (not the step's text)."""
        waiting = self.session.waiting_for()
        if waiting is None:
            return None
        # As the console names seats everywhere else: by number and name.
        who = printable(f"seat {waiting.seat} {waiting.player}")
        return f"waiting for {who} to {waiting_words(waiting.what)}"

    def news(self) -> list[str]:
        """What only the local seat may be told, once: its side of a Hostage Exchange."""
        self._catch_up()
        news, self._news = self._news, []
        return news

    def seat_count(self) -> int:
        return self.session.seat_count

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
        self._remember_hand()
        swap = self._hostage.see(state)
        if before is None or _turns_between(before, state) > 1:  # joined late, or looked away
            if state.turn is not None:
                turn = (state.turn.number, state.turn.seat)
                self._story.note(f"(the game is at turn {state.turn.number})", under_way=turn)
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
        self._tell_between_acts(state, swap)
        if before is not state or acts:
            self._story.step(before, racer.CHANCE, None, state)

    def _tell_between_acts(
        self, state: racer.State, swap: tuple[int, int, int, int] | None
    ) -> None:
        die = modifier_die(state)
        if die is not None and die[0] not in self._dice:
            self._dice.add(die[0])
            self._story.add(f"Modifier die {die[1]}")
        if swap is not None:
            self._story.add(swap_story(swap[0], swap[1]))
            catalogue = state.catalogue

            def name(slot: int) -> str:  # the card as our hand knew it
                return catalogue[self._cards[slot]].name if slot in self._cards else "a card"

            mine = swap_news(self.local_seat, swap, name)
            if mine is not None:
                self._news.append(mine)

    def _remember_hand(self) -> None:
        state = self._public_state()
        if self.local_seat is None or state is None or isinstance(state.stage, RevealFaceUp):
            return  # no hand yet (dealt face-up cards not shown: the seat view cannot be built)
        view = self._seat_view(self.session)
        if view is not None:
            self._cards.update(view.observation.hand)


def _turns_between(before: racer.State, after: racer.State) -> int:
    """Turn boundaries crossed from ``before`` to ``after`` (the deal counts as turn 0)."""
    first = before.turn.number if before.turn is not None else 0
    return (after.turn.number if after.turn is not None else 0) - first


def _action(body: Any) -> SeatAction | None:
    try:
        return racer.parse_action(body["action"])
    except (IllegalAction, KeyError, TypeError):
        return None  # the session accepted the event, so this does not happen
