"""Every rejection branch of the Racer adapter (protocol/games/racer/adapter.py) is run through
the real session, the author is named and nothing changes (issue 22, item 8).

One honest two-seat game is played once.  A spectator then walks its log; at the first position
where each situation arises, it is offered a doctored event, re-signed by the seat whose event
is due there (so it passes the signature and entitlement checks and reaches the adapter), and
records the receipt and the session's state digest before and after.  The honest event must
then be accepted, so one walk serves every case.  The adapter's own turn checks, which the
session's entitlement check always runs first, are shown to be unreachable from a session and
then called directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from creepnet.engine import racer
from creepnet.protocol import onion, retirement
from creepnet.protocol.event import Event, sign_event
from creepnet.protocol.games.racer.schedule import DeckStep, ShowDrawn, next_step, not_a_creep
from creepnet.protocol.identity import Identity
from creepnet.protocol.lobby import derive_game_id
from creepnet.protocol.log import Rejection
from creepnet.protocol.rules import GameRuleError
from creepnet.protocol.session import Phase, Session
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

Body = dict[str, Any]


def deck_at(op: str) -> Callable[[Session, Event], bool]:
    def at(session: Session, honest: Event) -> bool:
        step = next_step(session.game_state)
        return isinstance(step, DeckStep) and step.op == op

    return at


def deciding(where: Callable[[Event], bool]) -> Callable[[Session, Event], bool]:
    def at(session: Session, honest: Event) -> bool:
        return isinstance(next_step(session.game_state), racer.Decide) and where(honest)

    return at


def showing(session: Session, honest: Event) -> bool:
    return isinstance(next_step(session.game_state), ShowDrawn)


def showing_a_kept_card_that_needs_a_proof(session: Session, honest: Event) -> bool:
    step = next_step(session.game_state)
    return (
        isinstance(step, ShowDrawn)
        and not_a_creep(session.game_state, step.slot) is not None
        and isinstance(racer.parse_action(honest.body["action"]), racer.KeepDrawn)
    )


def drawn_from_a_pool_without_creeps(session: Session) -> bool:
    step = next_step(session.game_state)
    return isinstance(step, ShowDrawn) and not_a_creep(session.game_state, step.slot) is None


def shows_a_card(honest: Event) -> bool:
    return "key" in honest.body


def no_card(honest: Event) -> bool:
    return "key" not in honest.body and "proof" not in honest.body


def drawn_slot(session: Session) -> int:
    step = next_step(session.game_state)
    assert isinstance(step, ShowDrawn)
    return step.slot


def a_hero(session: Session) -> int:
    return next(c.id for c in racer.STANDARD_CATALOGUE.cards if c.kind is racer.Kind.HERO)


@dataclass(frozen=True)
class Offer:
    at: Callable[[Session, Event], bool]  # the situation, from the session and the honest event
    body: Callable[[Session, Event], Body]  # the doctored body (of the honest event's type)
    why: str  # a part of the reason the adapter gives


def keep(session: Session) -> str:
    return racer.format_action(racer.KeepDrawn(drawn_slot(session)))


OFFERS: dict[str, Offer] = {
    # --- deck steps: the body must be the step the schedule names ---------------------------
    "a deck step of another op": Offer(
        deck_at("join"), lambda s, e: {**e.body, "op": "reveal"}, "expected a deck join ("
    ),
    "a shuffle of another pool": Offer(
        deck_at("shuffle"), lambda s, e: {**e.body, "pool": "elsewhere"}, "of pool"
    ),
    "a release of other positions": Offer(
        deck_at("release"),
        lambda s, e: {**e.body, "positions": [*e.body["positions"], 10_000]},
        "expected the release of",
    ),
    "a release to another seat": Offer(
        deck_at("release"),
        lambda s, e: {**e.body, "to": 1 if e.body["to"] != 1 else 0},
        "expected the release of",
    ),
    "a blind of another position": Offer(
        deck_at("blind"),
        lambda s, e: {**e.body, "position": e.body["position"] + 1},
        "expected the blind of position",
    ),
    "an unblind of another position": Offer(
        deck_at("unblind"),
        lambda s, e: {**e.body, "position": e.body["position"] + 1},
        "expected the unblind of position",
    ),
    "a deck body with a field of its own": Offer(
        deck_at("lock"), lambda s, e: {**e.body, "extra": 1}, "got ["
    ),
    "a complaint at a table without escrow": Offer(
        deck_at("shuffle"),
        lambda s, e: {"op": "complain", "dealer": 0, "kind": "x", "name": "y", "index": 0},
        "this table has no escrow: there is nothing to complain about",
    ),
    # --- decisions: the action is text in Racer notation, legal, with the fields it needs ---
    "an action that is not text": Offer(
        deciding(no_card), lambda s, e: {"action": 7}, "action must be text in Racer notation"
    ),
    "an action in no notation": Offer(
        deciding(no_card), lambda s, e: {"action": "fly away"}, "unknown action 'fly'"
    ),
    "an action not in canonical spelling": Offer(
        deciding(no_card), lambda s, e: {"action": "pass "}, "write it as 'pass'"
    ),
    "an action with an unknown field": Offer(
        deciding(no_card), lambda s, e: {**e.body, "x": 1}, "got ["
    ),
    "an illegal action": Offer(
        deciding(lambda e: e.body["action"] == "pass"),
        lambda s, e: {"action": "keep-drawn slot=0"},
        "illegal keep-drawn slot=0:",
    ),
    "a card shown from the hand without its key": Offer(
        deciding(shows_a_card),
        lambda s, e: {k: v for k, v in e.body.items() if k != "key"},
        "a card shown from the hand needs its key",
    ),
    "a card named without a slot": Offer(
        deciding(lambda e: e.body["action"] == "launch slot=- card=-"),
        lambda s, e: {
            "action": racer.format_action(racer.Launch(None, a_hero(s))),
            "key": bytes(32),
        },
        "a card shown from the hand needs the slot it is in",
    ),
    "a key for an action that shows no card": Offer(
        deciding(no_card), lambda s, e: {**e.body, "key": bytes(32)}, "key is only for a card"
    ),
    "a proof for an action that keeps no card": Offer(
        deciding(no_card), lambda s, e: {**e.body, "proof": b"x"}, "proof is only for a kept"
    ),
    # --- a drawn card: show that very card, and prove a kept one is no Creep -------------------
    "a drawn card shown for another slot": Offer(
        showing,
        lambda s, e: {"action": racer.format_action(racer.KeepDrawn(drawn_slot(s) + 1))},
        "show the card just drawn: place it if a Creep, else keep it",
    ),
    "a proof for a kept card from a pool without Creeps": Offer(
        lambda s, e: drawn_from_a_pool_without_creeps(s),
        lambda s, e: {"action": keep(s), "proof": b"x"},
        "this card needs no proof: its pool holds no Creep",
    ),
    "a kept card without its proof": Offer(
        showing_a_kept_card_that_needs_a_proof,
        lambda s, e: {"action": keep(s)},
        "keeping a drawn card needs the proof that it is not a Creep",
    ),
}


@dataclass(frozen=True)
class Outcome:
    seq: int
    due: bytes  # the author of the honest event at that position
    author: bytes | None
    kind: str
    reason: str
    unchanged: bool


@pytest.fixture(scope="module")
def walk() -> dict[str, Outcome]:
    """Play one game far enough, then walk its log offering each doctored event where it fits."""
    # Turn 44 is just past the rarest situation (turn 43, about event 565 of 582): a card drawn
    # from the reshuffled discard pile.  The game plays to its end, so its audit runs too.
    table = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 44}, seed=7, onion_length=2048
    )
    table.run([seat_bot("racer", "random", seat) for seat in range(2)])
    assert table.spectator.finished
    by_key = {identity.public_key: identity for identity in table.identities}
    session = Session.follow(table.spectator.game)  # type: ignore[arg-type]
    outcomes: dict[str, Outcome] = {}
    for honest in table.spectator.log.events:
        if session.started and honest.type in ("deck", "act"):
            for name, offer in OFFERS.items():
                if name in outcomes or not offer.at(session, honest):
                    continue
                doctored = sign_event(
                    by_key[honest.author],
                    game=honest.game,
                    seq=honest.seq,
                    prev=honest.prev,
                    type=honest.type,
                    body=offer.body(session, honest),
                )
                before = session.state_digest()
                receipt = session.receive(doctored.raw)
                assert receipt.status == "rejected", (name, receipt.status)
                (rejection,) = receipt.rejections
                unchanged = session.state_digest() == before
                outcomes[name] = Outcome(
                    honest.seq,
                    honest.author,
                    rejection.author,
                    rejection.kind,
                    rejection.reason,
                    unchanged,
                )
        receipt = session.receive(honest.raw)
        assert receipt.status == "accepted", (honest.seq, receipt)
    assert session.finished
    return outcomes


@pytest.mark.parametrize("name", list(OFFERS))
def test_each_rejection_names_the_seat_due_and_changes_nothing(walk, name):
    assert name in walk, f"the game never came to {name!r}: play another seed"
    outcome = walk[name]
    assert outcome.kind == "illegal"
    assert OFFERS[name].why in outcome.reason, outcome.reason
    assert outcome.author == outcome.due
    assert outcome.unchanged, f"{name}: a rejected event changed the session"


# --- the adapter's own turn checks ---------------------------------------------------------------


@pytest.fixture(scope="module")
def at_a_deck_step() -> tuple[SessionHarness, Session]:
    """A table whose next event is a deck step (the first join), seen by a spectator."""
    table = SessionHarness(seats=2, kind="racer", options={"turn_limit": 40}, seed=7)
    session = table.spectator
    while not (session.started and isinstance(next_step(session.game_state), DeckStep)):
        assert table.step([seat_bot("racer", "random", seat) for seat in range(2)])
    return table, session


def signed(table: SessionHarness, session: Session, seat: int, type_: str, body: Body) -> Event:
    return sign_event(
        table.identities[seat],
        game=session.game,  # type: ignore[arg-type]
        seq=len(session.log),
        prev=session.log.head,
        type=type_,
        body=body,
    )


@pytest.mark.parametrize(
    ("by_other_seat", "type_", "session_says", "adapter_says"),
    [
        (True, "deck", "is for seat", "no deck step of this seat is due"),
        (False, "act", "'act' not allowed now", "no decision of this seat is due"),
        (False, "move", "'move' not allowed now", "unknown event type 'move'"),
    ],
)
def test_the_adapters_turn_checks_are_behind_the_sessions_entitlement(
    at_a_deck_step, by_other_seat, type_, session_says, adapter_says
):
    """The session lets an event reach ``apply`` only from the seat ``next`` names and of a
    type it allows, so these adapter checks never fire from a session: the entitlement check
    rejects first.  They still guard a direct caller of ``apply``, leaving the game as it was."""
    table, session = at_a_deck_step
    step = next_step(session.game_state)
    assert isinstance(step, DeckStep)
    seat = 1 - step.author if by_other_seat else step.author
    body = {"op": step.op, "commit": bytes(32)} if type_ == "deck" else {"action": "pass"}
    before = session.state_digest()
    receipt = session.receive(signed(table, session, seat, type_, body).raw)
    (rejection,) = receipt.rejections
    assert (rejection.kind, rejection.author) == ("entitlement", table.identities[seat].public_key)
    assert session_says in rejection.reason, rejection.reason
    assert session.state_digest() == before
    game = session.game_state
    with pytest.raises(GameRuleError, match=adapter_says):
        session.rules.apply(game, seat, type_, body, len(session.log))  # type: ignore[union-attr]
    assert session.state_digest() == before


# --- options: a genesis the Racer rules refuse ------------------------------------------------


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({"bogus": 1}, "unknown racer options ['bogus']"),
        ({"escrow": 2}, "escrow is 1 (the table can play on without a seat) or absent"),
        ({"turn_limit": 0}, "turn_limit must be a positive integer"),
        ({"turn_limit": True}, "turn_limit must be a positive integer"),
        (
            {"creeps_per_player": 3, "face_up_creeps": 4},
            "need 1 <= face_up_creeps <= creeps_per_player",
        ),
        ({"creeps_per_player": 40}, "not enough Creeps in the catalogue"),
    ],
)
def test_a_genesis_with_options_the_racer_rules_refuse_is_rejected(options, why):
    table_key = Identity.from_seed(bytes(32))
    nonce = bytes(16)
    game = derive_game_id(table_key.public_key, nonce)
    session = Session.follow(game)
    body = {
        "nonce": nonce,
        "kind": "racer",
        "name": "table",
        "seats": 2,
        "options": options,
        "onion": 64,
        "player": "p0",
        "anchor": onion.anchor(game, bytes(32), 64),
    }
    event = sign_event(
        table_key, game=game, seq=0, prev=session.log.head, type="genesis", body=body
    )
    before = session.state_digest()
    receipt = session.receive(event.raw)
    (rejection,) = receipt.rejections
    assert (receipt.status, rejection.author) == ("rejected", table_key.public_key)
    assert why in rejection.reason, rejection.reason
    assert session.state_digest() == before


def test_a_local_decision_in_no_notation_is_refused_before_anything_is_signed():
    """``RacerRules.action`` (the local player's words): text in no notation is refused with the
    notation's reason, and the session neither signs nor changes anything."""
    table = SessionHarness(seats=2, kind="racer", options={"turn_limit": 40}, seed=7)
    bots = [seat_bot("racer", "random", seat) for seat in range(2)]
    while not any(s.my_turn() is not None for s in table.sessions):
        for seat, session in enumerate(table.sessions):  # owed events only, no decisions
            table.broadcast(seat, session.owed())
        assert table.pump(), "the game stalled before the first decision"
    session = next(s for s in table.sessions if s.my_turn() is not None)
    before = session.state_digest()
    with pytest.raises(Rejection) as refused:
        session.play("fly away")
    assert (refused.value.kind, refused.value.author) == ("illegal", None)
    assert "unknown action 'fly'" in refused.value.reason
    assert session.state_digest() == before
    session.play(bots[session.local_seat](session))  # type: ignore[index]


def test_a_retirement_at_a_table_without_escrow_ends_the_game_abandoned():
    """Three seats, no ``escrow`` option: nothing of the stalled seat can take its place, so a
    retirement every other seat voted for ends the game, abandoned by that seat and claimed by
    the retire's author (refusing it left the table waiting on the seat for ever)."""
    table = SessionHarness(seats=3, kind="racer", options={"turn_limit": 40}, seed=7)
    session = table.spectator
    while not session.started:
        assert table.step([seat_bot("racer", "random", seat) for seat in range(3)])
    stalled = session.expected().seat  # type: ignore[union-attr]
    position = retirement.Position(session.game, len(session.log), session.log.head, stalled)  # type: ignore[arg-type]
    votes = [retirement.vote(table.identities[s], position, s) for s in range(3) if s != stalled]
    author = retirement.retire_author(3, [], stalled)
    event = signed(table, session, author, "retire", retirement.retire_body(position, votes))
    assert not session.receive(event.raw).rejections
    assert session.phase is Phase.ABANDONED
    gone = session.abandoned
    assert gone is not None and (gone.seat, gone.claimant) == (stalled, author)
    assert session.retired == []  # nobody plays on
