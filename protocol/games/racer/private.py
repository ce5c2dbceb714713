"""One Racer seat's private side: its deck secret, the deck messages it owes, its hidden hand.

Nothing here is stored apart from the seat's ``SeatSecrets``: every key is derived from the deck
secret and every decoded card from the public deck state, so replaying the log after a restart
rebuilds this side exactly.  Decoded cards are cached by (pool, position, transfers), which only
ever names one card.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from creepnet.engine import racer
from creepnet.engine.racer import KeepDrawn, Observation, PlaceCreep, SeatAction, Slot
from creepnet.protocol.deck import DeckSeat
from creepnet.protocol.deck.escrowing import (
    RetiredSeatKeys,
    bad_shares,
    recover_message,
    refresh_message,
)
from creepnet.protocol.deck.hidden import make_release
from creepnet.protocol.deck.ops import make_lock, make_shuffle
from creepnet.protocol.games.racer.schedule import (
    DeckStep,
    RacerGame,
    ShowDrawn,
    next_step,
    not_a_creep,
)
from creepnet.protocol.rules import GameRuleError, Seating


@dataclass(frozen=True)
class SeatView:
    """What the local seat sees: the engine state with its own hand known, its observation
    (public facts and its hand) and, when it decides, its legal actions."""

    game: RacerGame
    seat: int
    state: racer.State
    observation: Observation
    legal: list[SeatAction]


class RacerPrivate:
    def __init__(self, seating: Seating, seat: int, deck_secret: bytes) -> None:
        self.seating = seating
        self.seat = seat
        self.deck_secret = deck_secret
        self._deck_seat: DeckSeat | None = None
        self._decoded: dict[tuple[str, int, int], int] = {}

    def _me(self, game: RacerGame) -> DeckSeat:
        if self._deck_seat is None:
            self._deck_seat = DeckSeat(game.deck, self.seat, self.deck_secret)
        self._deck_seat.state = game.deck
        return self._deck_seat

    # ----- owed events ----------------------------------------------------------------------

    def owed(self, game: RacerGame, seq: int) -> tuple[str, dict[str, Any]]:
        step = next_step(game)
        if isinstance(step, ShowDrawn):
            card = self.card(game, step.slot)
            if card is None:
                raise GameRuleError("the drawn card is not decodable yet")
            if game.state.catalogue[card].kind is racer.Kind.CREEP:
                return "act", self._shown(game, PlaceCreep(step.slot, card))
            body: dict[str, Any] = {"action": racer.format_action(KeepDrawn(step.slot))}
            needed = not_a_creep(game, step.slot)
            if needed is not None:
                body["proof"] = self._me(game).prove_none_of(seq, *needed)["proof"]
            return "act", body
        assert isinstance(step, DeckStep) and step.author == self.seat
        complaint = self.complaint(game)
        if complaint is not None:
            return "deck", complaint
        if step.seat != self.seat:
            return "deck", self._for_retired(game, step, seq)
        return "deck", self._deck_message(game, step, seq)

    def complaint(self, game: RacerGame) -> dict[str, Any] | None:
        """A ``complain`` about the first share sent to this seat since its last deck step that
        does not open (docs/ESCROW.md, step 2): filed in place of the deck step it owes, the one
        moment the table lets it; None if every share opens and matches."""
        if game.deck.escrow is None or isinstance(racer.pending(game.state), racer.GameOver):
            return None
        found, _ = bad_shares(
            game.deck, self._me(game).keys, self.seat, game.complaint_window(self.seat)
        )
        return found[0] if found else None

    @staticmethod
    def _for_retired(game: RacerGame, step: DeckStep, seq: int) -> dict[str, Any]:
        """A retired seat's step, which the table authors: public or recovered keys, the identity
        permutation (docs/ESCROW.md "Retirement in the deck"); every replica checks it as X's."""
        deck, seat, pool = game.deck, step.seat, step.pool or ""
        keys = RetiredSeatKeys(deck, seat)
        if step.op == "shuffle":
            return make_shuffle(deck, keys, seat, seq, pool)
        if step.op == "lock":
            return make_lock(deck, keys, seat, seq, pool)
        if step.op == "release":
            assert step.to is not None
            return make_release(deck, keys, seat, pool, list(step.positions), step.to)
        raise GameRuleError(f"the table cannot {step.op} for a retired seat")

    def _deck_message(self, game: RacerGame, step: DeckStep, seq: int) -> dict[str, Any]:
        me = self._me(game)
        pool = step.pool or ""
        if step.op == "recover":
            assert step.to is not None
            return recover_message(game.deck, me.keys, self.seat, step.to, list(step.scalars))
        if step.op == "refresh":
            return refresh_message(game.deck, me.keys, self.seat)
        if step.op == "join":
            return me.join()
        if step.op == "shuffle":
            return me.shuffle(seq, pool)
        if step.op == "lock":
            return me.lock(seq, pool)
        if step.op == "release":
            assert step.to is not None
            return me.release(pool, list(step.positions), step.to)
        if step.op == "blind":
            return me.blind(seq, pool, step.positions[0])
        if step.op == "unblind":
            return me.unblind(seq, pool, step.positions[0])
        assert step.op == "reveal"
        return me.reveal()

    # ----- decisions ------------------------------------------------------------------------

    def complete(
        self, game: RacerGame, seq: int, type: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        if type != "act":
            return body
        try:
            action = racer.parse_action(body["action"])
        except racer.IllegalAction as exc:
            raise GameRuleError(exc.reason) from None
        if getattr(action, "card", None) is None:
            return body
        return self._shown(game, action)

    def _shown(self, game: RacerGame, action: SeatAction) -> dict[str, Any]:
        """The act body for an action that shows a hand card: the text and the card's key."""
        slot = getattr(action, "slot", None)
        if not isinstance(slot, int) or slot not in game.where or self.card(game, slot) is None:
            raise GameRuleError("that card is not in your hand")
        pool, position = game.where[slot]
        key = self._me(game).play(pool, position)["key"]
        return {"action": racer.format_action(action), "key": key}

    # ----- what the seat sees ---------------------------------------------------------------

    def card(self, game: RacerGame, slot: Slot) -> int | None:
        """The card in a slot this seat holds (or a public one); None if it cannot see it."""
        where = game.where.get(slot)
        if where is None or where[0] not in game.deck.pools:
            return None
        pool, position = where
        slots = game.deck.pools[pool].slots
        if position >= len(slots):
            return None
        deck_slot = slots[position]
        if deck_slot.is_public:
            return int(deck_slot.card)  # type: ignore[arg-type]
        if deck_slot.holder != self.seat or deck_slot.pending is not None:
            return None
        key = (pool, position, deck_slot.transfers)
        if key not in self._decoded:
            self._decoded[key] = int(self._me(game).decode(pool, position))
        return self._decoded[key]

    def hand(self, game: RacerGame) -> dict[Slot, int]:
        """The seat's hand as it knows it: slot -> card id."""
        cards = {slot: self.card(game, slot) for slot in game.state.players[self.seat].hand}
        return {slot: card for slot, card in cards.items() if card is not None}

    def view(self, game: RacerGame) -> SeatView:
        state = game.state
        known = {**state.known, **self.hand(game)}
        mine = replace(state, known=MappingProxyType(known))
        return SeatView(
            game,
            self.seat,
            mine,
            racer.observation_of_view(mine, self.seat),
            racer.legal_actions(mine),
        )
