"""Creepy Racer's rules adapter: two event types over the session, ``deck`` and ``act``.

* ``deck`` — body is exactly one deck message (docs/DECKS.md), the one ``table.next_step`` names:
  its op, pool, positions and recipient must match, then ``DeckState.apply`` checks its proofs.
  In a table with escrow it may instead be a ``complain`` (docs/ESCROW.md "How Creepy Racer uses
  it", step 2): upheld, the game ends void naming the dealer; false or late, it is refused.
* ``act`` — ``{"action": TEXT}`` in ``racer.format_action`` notation, plus ``"key"`` (the deck
  play proof: the holder's key for the slot) when the action shows a card from the hand, or
  ``"proof"`` (a deck none-of proof that the card is not a Creep) when it keeps a drawn card.  The
  engine checks the rule, the deck checks the card: a card the seat does not hold, or that is not
  the card it names, is rejected at once.

Dice and the Hostage pick are onion randomness (``NeedRandom``).  ``apply`` and ``apply_random``
work on a fork of the game (``RacerGame.fork``) and return it: the game they are given is never
changed, so the session keeps it as it was when an event is rejected halfway through its checks
(a play's key is applied to the deck before a stray ``proof`` field is seen, for example).
"""

from __future__ import annotations

from typing import Any

from creepnet.engine import racer
from creepnet.engine.racer import Decide, Die, IllegalAction, KeepDrawn, NeedDie, NeedPick, Pick
from creepnet.engine.racer.retire import SET_UP
from creepnet.protocol.deck import DeckError
from creepnet.protocol.deck.audit import audit
from creepnet.protocol.games.racer.private import RacerPrivate
from creepnet.protocol.games.racer.schedule import (
    RECENT,
    DeckStep,
    RacerGame,
    ShowDrawn,
    lost_share,
    may_be,
    new_game,
    next_step,
    not_a_creep,
    settle,
    to_recover,
    void_reshuffle,
)
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.rules import (
    CannotPlayOn,
    GameRuleError,
    NeedRandom,
    Owed,
    Result,
    Seating,
    Turn,
    expect_keys,
)

OPTIONS = {
    *("creeps_per_player", "face_up_creeps", "turn_limit", "withdrawals_per_turn"),
    *("escrow", "release_ahead"),
}
TABLE_OPTIONS = {"escrow", "release_ahead"}  # options of the table, not of the engine

# The fields of each deck message a seat may send (op included); bodies are closed.  ``escrow``
# is optional where the deck carries it (docs/ESCROW.md); the deck checks it is there exactly
# when due, and refuses it in a deck without escrow, so older logs verify unchanged.
DECK_FIELDS: dict[str, set[str]] = {
    "join": {"op", "commit"},
    "shuffle": {"op", "pool", "points", "commit", "proof"},
    "lock": {"op", "pool", "points", "commits", "proofs"},
    "recover": {"op", "dealer", "scalars", "shares"},
    "refresh": {"op", "escrow"},
    "complain": {"op", "dealer", "kind", "name", "index", "epoch", "point", "proof"},
    "release": {"op", "pool", "positions", "to", "keys"},
    "blind": {"op", "pool", "position", "commit", "point", "proof"},
    "unblind": {"op", "pool", "position", "point", "proof"},
    "reveal": {"op", "secret"},
}


ESCROWED = {"join", "shuffle", "lock"}


def engine_options(seats: int, options: dict[str, Any]) -> racer.Options:
    rules = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
    return racer.Options(players=seats, **rules)


class RacerRules:
    kind = "racer"
    min_seats = 2
    max_seats = 4

    def check_options(self, options: dict[str, Any], seats: int) -> None:
        unknown = set(options) - OPTIONS
        if unknown:
            raise GameRuleError(f"unknown racer options {sorted(unknown)}")
        if options.get("escrow", 1) != 1:
            raise GameRuleError("escrow is 1 (the table can play on without a seat) or absent")
        if options.get("release_ahead", 1) != 1:
            raise GameRuleError(
                "release_ahead is 1 (a draw's releases cover the stage's certain draws) or absent"
            )
        for name, value in options.items():
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
                raise GameRuleError(f"{name} must be a positive integer")
        if "escrow" in options and seats < 3:  # it would mean nothing: refused, not ignored
            raise GameRuleError("escrow needs 3-4 seats (two would hold each other's keys)")
        try:
            engine_options(seats, options).validate(racer.STANDARD_CATALOGUE)
        except ValueError as exc:
            raise GameRuleError(str(exc)) from None

    def start(self, seats: int, options: dict[str, Any], seating: Seating) -> RacerGame:
        try:
            state = racer.new_game(engine_options(seats, options))
        except ValueError as exc:
            raise GameRuleError(str(exc)) from None
        escrow = options.get("escrow") == 1  # 3-4 seats: check_options refuses it with two
        ahead = options.get("release_ahead") == 1
        game = new_game(seating.game, seating.keys, state, escrow, ahead)
        settle(game)
        return game

    def next(self, game: RacerGame) -> Turn | NeedRandom | Owed | None:
        if game.result is not None:
            return None
        step = next_step(game)
        if isinstance(step, DeckStep):
            what = step.what if step.by is None else f"{step.what} for retired seat {step.seat}"
            return Owed(step.author, "deck", what)
        if isinstance(step, ShowDrawn):
            return Owed(step.seat, "act", "show whether the card just drawn is a Creep")
        if isinstance(step, NeedDie):
            return NeedRandom(6, f"die ({step.purpose}) of seat {step.seat}")
        if isinstance(step, NeedPick):
            return NeedRandom(step.size, f"blind Hostage pick from seat {step.giver}")
        if isinstance(step, Decide):
            return Turn(step.seat, frozenset({"act"}), f"decide ({step.topic})")
        return None

    def apply_random(self, game: RacerGame, value: int) -> RacerGame:
        game = game.fork()
        request = racer.pending(game.state)
        chance = Die(value + 1) if isinstance(request, NeedDie) else Pick(value)
        game.state = racer.apply(game.state, chance)
        settle(game)
        return game

    def apply(
        self, game: RacerGame, seat: int, type: str, body: dict[str, Any], seq: int = 0
    ) -> RacerGame:
        game = game.fork()
        step = next_step(game)
        if type == "deck":
            if not isinstance(step, DeckStep) or step.author != seat:
                raise GameRuleError("no deck step of this seat is due")
            if body.get("op") == "complain":
                self._complain(game, seat, body, seq)
                return game
            self._deck(game, step, body, seq)
            if game.deck.escrow is not None:  # its complaint window closes with this step
                game.complain_from[seat] = len(game.deck.escrow.kept)
        elif type == "act":
            if not isinstance(step, ShowDrawn | Decide) or step.seat != seat:
                raise GameRuleError("no decision of this seat is due")
            self._act(game, step, seat, body, seq)
        else:
            raise GameRuleError(f"unknown event type {type!r}")
        settle(game)
        if isinstance(racer.pending(game.state), racer.GameOver):
            self._finish(game)
        return game

    @staticmethod
    def _deck(game: RacerGame, step: DeckStep, body: dict[str, Any], seq: int) -> None:
        if body.get("op") != step.op:
            raise GameRuleError(f"expected a deck {step.op} ({step.what})")
        expect_keys(body, DECK_FIELDS[step.op], {"escrow"} if step.op in ESCROWED else set())
        if step.pool is not None and body.get("pool") != step.pool:
            raise GameRuleError(f"expected a {step.op} of pool {step.pool!r}")
        if step.op == "release" and (
            not _exactly(body.get("positions"), list(step.positions))
            or not _exactly(body.get("to"), step.to)
        ):
            raise GameRuleError(
                f"expected the release of {list(step.positions)} to {step.to} ({step.what})"
            )
        if step.op in ("blind", "unblind") and not _exactly(
            body.get("position"), step.positions[0]
        ):
            raise GameRuleError(f"expected the {step.op} of position {step.positions[0]}")
        if step.op == "recover" and (
            not _exactly(body.get("dealer"), step.to)
            or not _exactly(body.get("scalars"), [[s.kind, s.name, s.index] for s in step.scalars])
        ):
            raise GameRuleError(f"expected the shares of seat {step.to}'s keys the table needs")
        try:
            game.deck.apply(step.seat, seq, body)
        except DeckError as exc:
            raise GameRuleError(f"deck {step.op}: {exc}") from None

    @staticmethod
    def _complain(game: RacerGame, seat: int, body: dict[str, Any], seq: int) -> None:
        """A recipient's complaint, in place of its owed deck step (docs/ESCROW.md, step 2):
        about a bundle kept since its last deck step, judged by the deck at once.  Upheld, the
        game ends void naming the dealer; false or unproven, it is refused naming its author."""
        book = game.deck.escrow
        if book is None:
            raise GameRuleError("this table has no escrow: there is nothing to complain about")
        expect_keys(body, DECK_FIELDS["complain"])
        if isinstance(racer.pending(game.state), racer.GameOver):
            raise GameRuleError("the game is over: the audit re-derives every escrow instead")
        wanted = (body["dealer"], body["kind"], body["name"], body["index"], body["epoch"])
        window = book.kept[game.complaint_window(seat) :]
        if not any(
            (t.dealer, t.scalar.kind, t.scalar.name, t.scalar.index, t.epoch) == wanted
            and seat in t.recipients
            for t, _ in window
        ):
            raise GameRuleError(
                "a complaint is about an escrow sent to its author since the author's last "
                "deck step (the window closes at that step)"
            )
        try:
            game.deck.apply(seat, seq, body)
        except DeckError as exc:
            raise GameRuleError(f"deck complain: {exc}") from None
        assert book.convictions  # apply either convicts or raises
        c = book.convictions[0]
        scalar = f"{c.scalar.kind} {c.scalar.name}/{c.scalar.index}"
        reason = f"escrow: seat {c.dealer} dealt a bad share of its {scalar} to seat {c.complainer}"
        game.result = Result(None, f"{reason} ({c.reason})", c.dealer)

    @staticmethod
    def _act(
        game: RacerGame, step: ShowDrawn | Decide, seat: int, body: dict[str, Any], seq: int
    ) -> None:
        expect_keys(body, {"action"}, {"key", "proof"})
        text = body["action"]
        if not isinstance(text, str):
            raise GameRuleError("action must be text in Racer notation")
        try:
            action = racer.parse_action(text)
        except IllegalAction as exc:
            raise GameRuleError(exc.reason) from None
        if isinstance(step, ShowDrawn) and getattr(action, "slot", None) != step.slot:
            raise GameRuleError("show the card just drawn: place it if a Creep, else keep it")
        try:
            state = racer.apply(game.state, action)
        except IllegalAction as exc:
            raise GameRuleError(f"illegal {text}: {exc.reason}") from None
        card = getattr(action, "card", None)
        slot = getattr(action, "slot", None)
        play = None
        if card is not None:
            if "key" not in body:
                raise GameRuleError("a card shown from the hand needs its key")
            if not isinstance(slot, int) or slot not in game.where:  # `launch slot=- card=…`
                raise GameRuleError("a card shown from the hand needs the slot it is in")
            pool, position = game.where[slot]
            play = {
                "op": "play",
                "pool": pool,
                "position": position,
                "key": body["key"],
                "card": str(card),
            }
        elif "key" in body:
            raise GameRuleError("key is only for a card shown from the hand")
        if play is not None:
            try:
                game.deck.apply(seat, seq, play)
            except DeckError as exc:
                raise GameRuleError(f"{text}: {exc}") from None
        if isinstance(action, KeepDrawn):
            RacerRules._not_a_creep(game, seat, action, body, seq)
        elif "proof" in body:
            raise GameRuleError("proof is only for a kept drawn card")
        game.recent = (*game.recent, (game.state, seat, action))[-RECENT:]
        game.state = state

    @staticmethod
    def _not_a_creep(
        game: RacerGame, seat: int, action: KeepDrawn, body: dict[str, Any], seq: int
    ) -> None:
        """A kept drawn card must be proven, now, to be no Creep (a none-of proof)."""
        needed = not_a_creep(game, action.slot)
        if needed is None:
            if "proof" in body:
                raise GameRuleError("this card needs no proof: its pool holds no Creep")
            return
        if "proof" not in body:
            raise GameRuleError("keeping a drawn card needs the proof that it is not a Creep")
        pool, position, excluded = needed
        proof = body["proof"]
        # The set is the table's, never the sender's.  A list is the OR-proof over the play cards
        # that logs written before none-of proofs carry: still checked, at its old cost.
        message = (
            {"op": "class", "pool": pool, "position": position, "allowed": may_be(game)}
            if isinstance(proof, list)
            else {"op": "none_of", "pool": pool, "position": position, "excluded": excluded}
        )
        message["proof"] = proof
        try:
            game.deck.apply(seat, seq, message)
        except DeckError as exc:
            raise GameRuleError(f"keep-drawn: not proven to be no Creep: {exc}") from None

    def retire(self, game: RacerGame, seat: int) -> RacerGame:
        """``seat`` has left for good (the session's ``retire``): the deck stops escrowing to it
        and lets the table act for it; the schedule owes recoveries, refreshes and then its
        steps by the table (protocol/games/racer/schedule.py); the engine takes it out."""
        if game.deck.escrow is None:
            raise CannotPlayOn("this table has no escrow: it cannot play on without a seat")
        if game.deck.joins[seat] is None:  # else the table would owe a join it cannot make
            raise CannotPlayOn(
                f"seat {seat} has not joined the deck: none of its keys is escrowed, the table "
                "cannot act for it"
            )
        game = game.fork()
        set_up = isinstance(game.state.stage, SET_UP)
        # Out of the game (its last Creep gone) or at the end-of-game reveals, the seat still
        # owes deck steps: the table retires it in the deck and the schedule alone (the engine
        # has nothing of it to take out), or one sore loser would stop the table for good.
        over = isinstance(racer.pending(game.state), racer.GameOver)
        engine_done = over or not game.state.players[seat].active
        game.deck.retire(seat)
        game.retired = (*game.retired, seat)
        void_reshuffle(game)
        # At the reveals no scalar is needed any more: the audit opens X's escrow shares.
        game.to_recover[seat] = () if over else to_recover(game, seat)
        if set_up:
            game.deferred = (*game.deferred, seat)
        elif not engine_done:
            game.state = racer.retire(game.state, seat)
        settle(game)
        if isinstance(racer.pending(game.state), racer.GameOver):
            # no step of a retired seat is owed at the reveals: a lost share costs the audit
            # those cards only (docs/ESCROW.md step 4), the result stands
            self._finish(game)
            return game
        lost = lost_share(game)
        if lost is not None:  # a second departure before its shares were in (or its refresh)
            dealer, scalar = lost
            raise CannotPlayOn(
                f"seat {seat} leaves with its share of seat {dealer}'s {scalar.kind} "
                f"{scalar.name}/{scalar.index} unpublished: the table cannot act for seat {dealer}"
            )
        return game

    @staticmethod
    def _finish(game: RacerGame) -> None:
        """Every secret is out: decode every card, check every claim, then the result."""
        if any(game.deck.secrets[s] is None for s in game.remaining) or game.result is not None:
            return
        over = racer.pending(game.state)
        assert isinstance(over, racer.GameOver)
        try:
            report = audit(game.deck)
        except DeckError as exc:
            game.result = Result(None, f"audit: {exc}", exc.seat)
            return
        game.cards = {
            slot: int(report.cards[where])
            for slot, where in game.where.items()
            if where in report.cards
        }
        reveal = {s: c for s, c in game.cards.items() if s not in game.state.known}
        # A retired seat's cards decode from its escrow (docs/ESCROW.md step 4): only those under
        # a scalar whose escrow is lost (a recipient retired after it) stay hidden, so only after
        # a second departure; else a hidden card is an audit problem, never passed over.
        hidden = len(game.retired) >= 2 and any(
            slot not in game.state.known and slot not in game.cards
            for _, slot in racer.locations(game.state)
        )
        left = frozenset(game.retired)
        problems = racer.audit(game.state, reveal, partial=hidden, left=left)
        if problems:
            game.result = Result(None, f"audit: {problems[0]}")
        elif over.winner is None:
            game.result = Result(None, "the turn limit was reached")
        else:
            game.result = Result(over.winner, "keeping the last Creeps in play")

    def result(self, game: RacerGame) -> Result | None:
        return game.result

    def action(self, game: RacerGame, seat: int, text: str) -> tuple[str, dict[str, Any]]:
        try:
            return "act", {"action": racer.format_action(racer.parse_action(text))}
        except IllegalAction as exc:
            raise GameRuleError(exc.reason) from None

    def describe(self, game: RacerGame, seat: int) -> str:
        player = game.state.players[seat]
        if seat in game.retired:
            return "retired"
        if not player.active:
            return "out"
        count = len(player.line)
        return f"{count} Creep{'' if count == 1 else 's'} in line"

    def private_side(self, seating: Seating, seat: int, secrets: SeatSecrets) -> RacerPrivate:
        return RacerPrivate(seating, seat, secrets.deck_secret)


def _exactly(value: object, expected: object) -> bool:
    """``value == expected`` with the types too, through lists: msgpack's ``true`` is not the
    integer 1 here, as the deck's own checks (and a verifier in a stricter language) hold."""
    if isinstance(expected, list):
        return (
            type(value) is list
            and len(value) == len(expected)
            and all(_exactly(v, e) for v, e in zip(value, expected, strict=True))
        )
    return type(value) is type(expected) and value == expected
