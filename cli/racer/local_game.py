"""A Creepy Racer game in one process, seen from one seat or by a spectator: the console's
``RacerView`` over the full-information engine driver.

It is what a networked session gives the console (the seat's observation, its legal actions
when it decides, the story in words), built from the engine directly: the local demo draws its
screens with it, and the console's tests play through it.  Seats with a bot play themselves;
the others wait for ``play``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from creepnet.cli.racer.narration import HostageWatch, Story, swap_news, swap_story
from creepnet.engine import racer
from creepnet.engine.racer import Bot, Observation, SeatAction, State
from creepnet.engine.racer.state import RevealFaceUp


class LocalGame:
    def __init__(
        self,
        state: State,
        seed: int,
        local_seat: int | None,
        bots: Mapping[int, Bot],
        labels: Sequence[str] = (),
    ) -> None:
        self.state = state
        self.local_seat = local_seat
        self.bots = dict(bots)
        self._labels = list(labels) or [""] * state.n
        self._rng = random.Random(seed)
        self._story = Story()
        self._hostage = HostageWatch()
        self._news: list[str] = []

    @classmethod
    def new(
        cls, options: racer.Options, seed: int, local_seat: int | None, bots: Mapping[int, Bot]
    ) -> LocalGame:
        return cls(racer.new_game(options), seed, local_seat, bots)

    # ----- RacerView ----------------------------------------------------------------------------

    def labels(self) -> Sequence[str]:
        return self._labels

    def observation(self) -> Observation | None:
        if isinstance(self.state.stage, RevealFaceUp):  # dealt face-up, not yet shown
            return None
        if self.local_seat is None:
            return racer.observation_of_view(public_view(self.state), 0)
        return racer.observation(self.state, self.local_seat)

    def legal(self) -> Sequence[SeatAction]:
        seat = self.local_seat
        if seat is None or racer.pending(self.state).actor != seat or seat in self.bots:
            return []
        return racer.legal_actions(racer.redact(self.state, seat))

    def story(self) -> Sequence[str]:
        return self._story.lines

    def new_story(self) -> list[str]:
        """Story lines of turns finished since the last call (the local demo prints them)."""
        return self._story.new_lines()

    def outcome(self) -> str | None:
        request = racer.pending(self.state)
        if not isinstance(request, racer.GameOver):
            return None
        return self._story.lines[-1] if self._story.lines else "the game is over"

    def waiting(self) -> str | None:
        return None

    def news(self) -> list[str]:
        news, self._news = self._news, []
        return news

    def seat_of_peer(self, fingerprint: str | None) -> int | None:
        return None

    def seat_count(self) -> int:
        return self.state.n

    # ----- playing ---------------------------------------------------------------------------

    def play(self, text: str) -> None:
        """What ``node.play`` does with the console's action: parse, check, apply; then the
        bots and chance play on until a person must decide. Raises IllegalAction."""
        action = racer.parse_action(text)
        request = racer.pending(self.state)
        if request.actor != self.local_seat or action not in self.legal():
            raise racer.IllegalAction(f"{text!r} is not a legal action now")
        self._apply(action)
        self.advance()

    def advance(self, steps: int | None = None) -> int:
        """Chance and the bots act until a seat without a bot decides, the game ends, or
        ``steps`` steps were taken. Returns the steps taken."""
        taken = 0
        while steps is None or taken < steps:
            request = racer.pending(self.state)
            if isinstance(request, racer.GameOver):
                break
            actor = request.actor
            if actor == racer.CHANCE:
                action: racer.Action = racer.chance_action(self.state, self._rng)
            else:
                view = racer.redact(self.state, actor)
                legal = racer.legal_actions(view)
                if len(legal) == 1 and isinstance(legal[0], racer.PlaceCreep | racer.KeepDrawn):
                    action = legal[0]  # a forced draw step, as the session plays it
                elif actor in self.bots:
                    action = self.bots[actor].choose(racer.observation_of_view(view, actor), legal)
                else:
                    break
            self._apply(action)
            taken += 1
        return taken

    def _apply(self, action: racer.Action) -> None:
        before = self.state
        actor = racer.pending(before).actor
        self.state = racer.apply(before, action)
        self._story.step(before, actor, action, self.state)
        swap = self._hostage.see(self.state)
        if swap is not None:
            self._story.add(swap_story(swap[0], swap[1]))
            mine = swap_news(self.local_seat, swap, self._card_name)
            if mine is not None:
                self._news.append(mine)

    def _card_name(self, slot: int) -> str:
        card = self.state.card(slot)
        return card.name if card is not None else "a card"


def public_view(state: State) -> State:
    """``state`` as a spectator knows it: the cards every seat has seen, nothing else."""
    public = racer.public_slots(state)
    known = {slot: card for slot, card in state.known.items() if slot in public}
    return replace(state, known=MappingProxyType(known))
