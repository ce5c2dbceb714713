"""Every cheat a Racer log can show is rejected at once (or, for a hidden card, at the audit),
and the author is named.  Honest seats play through the real session code, one event at a time;
at the chosen step one seat signs a doctored event instead.

Three games (seeds 7, 3 and 11) stand in for one per test: each is played once per file, and a
test takes a deep copy of the table made the first time its situation arose (``Forks``,
tests/racer/racer_retire_support.py), the same table a game played afresh to it would leave."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from creepnet.engine import racer
from creepnet.protocol import onion
from creepnet.protocol.deck import DeckSeat, card_point
from creepnet.protocol.event import Event, sign_event
from creepnet.protocol.games.racer.schedule import (
    DeckStep,
    ShowDrawn,
    may_be,
    next_step,
    not_a_creep,
)
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import Forks, Held  # noqa: E402

SEATS = 2
# (the table, the spectator's game) -> True when the situation a test needs has come
Situation = Callable[[SessionHarness, Any], bool]


def racer_table(seed: int = 7, turn_limit: int = 40) -> SessionHarness:
    return SessionHarness(
        seats=SEATS, kind="racer", options={"turn_limit": turn_limit}, seed=seed, onion_length=512
    )


def honest(table: SessionHarness, seat: int) -> tuple[str, dict[str, Any]]:
    """What the seat honestly authors next."""
    session = table.sessions[seat]
    turn = session.expected()
    if "start" in turn.types:
        return "start", {}
    if "reveal" in turn.types:
        assert session.secrets is not None and session.game is not None
        pre = onion.preimage(
            session.game, session.secrets.onion_seed, session.onion_length, session.draws
        )
        return "reveal", {"draw": session.draws, "pre": pre}
    if turn.automatic:
        return session.private.owed(session.game_state, len(session.log))
    text = table.bots[seat](session)
    card = getattr(racer.parse_action(text), "card", None)
    if card is not None and racer.STANDARD_CATALOGUE[card].kind is racer.Kind.CREEP:
        # Only a seat that kept a Creep can hold one; it plays on as if it were not there.
        legal = session.local_view().legal
        text = racer.format_action(next(a for a in legal if getattr(a, "card", None) != card))
    type_, body = session.rules.action(session.game_state, seat, text)
    return type_, session.private.complete(session.game_state, len(session.log), type_, body)


def sign(table: SessionHarness, seat: int, type_: str, body: dict[str, Any]) -> Event:
    log = table.spectator.log
    return sign_event(
        table.identities[seat],
        game=table.spectator.game,
        seq=len(log),
        prev=log.head,
        type=type_,
        body=body,
    )


def deliver(table: SessionHarness, event: Event) -> list:
    return [session.receive(event.raw) for _, session in table.everyone]


def drive_to_each(
    table: SessionHarness, situations: Mapping[str, Situation]
) -> Iterator[Held[str]]:
    """Play honestly, one event at a time; (name, the seat owing the next event, the table, its
    bots) the first time each situation arises, until all have (or the game ends)."""
    table.bots = [seat_bot("racer", "random", seat) for seat in range(SEATS)]
    arisen: set[str] = set()
    while True:
        spectator = table.spectator
        turn = spectator.expected()
        for name, situation in situations.items():
            if spectator.started and name not in arisen and situation(table, spectator.game_state):
                arisen.add(name)
                yield name, turn.seat if turn is not None else -1, table, table.bots
        if len(arisen) == len(situations) or turn is None:
            return
        seat = turn.seat
        receipts = deliver(table, sign(table, seat, *honest(table, seat)))
        assert all(r.status == "accepted" for r in receipts), receipts


def drive(games: dict[int, Forks[str]], seed: int, situation: str) -> tuple[SessionHarness, int]:
    """A table of its own (seed ``seed``) where ``situation`` first arose, and the seat owing
    the next event there."""
    table, _, seat = games[seed].take(situation)
    return table, seat


def assert_rejected_at_once(
    table: SessionHarness, seat: int, type_: str, body: dict, why: str
) -> None:
    event = sign(table, seat, type_, body)
    for receipt in deliver(table, event):
        assert receipt.status == "rejected", receipt.status
        assert receipt.rejection.author == table.identities[seat].public_key
        assert why in receipt.rejection.reason, receipt.rejection.reason


def at_deck(op: str) -> Situation:
    return lambda table, game: isinstance(step := next_step(game), DeckStep) and step.op == op


def at_decision(table: SessionHarness, game) -> bool:
    return isinstance(next_step(game), racer.Decide)


# --- events out of turn -----------------------------------------------------------------------


def test_a_decision_out_of_turn_is_rejected_and_its_author_named(games):
    table, seat = drive(games, 7, "decision")
    other = 1 - seat
    assert_rejected_at_once(table, other, "act", {"action": "pass"}, f"is for seat {seat}")


def test_a_deck_step_out_of_turn_is_rejected(games):
    table, seat = drive(games, 7, "deck shuffle")
    other = (seat + 1) % SEATS
    type_, body = honest(table, seat)  # the owed shuffle, but signed by the wrong seat
    assert_rejected_at_once(table, other, type_, body, f"is for seat {seat}")


# --- cards -------------------------------------------------------------------------------------


def card_in_hand(table: SessionHarness, seat: int, calamity: bool) -> tuple[int, int] | None:
    """The first (slot, card) of seat's hand that is (or, calamity False, is not) a Calamity."""
    for slot, card in table.sessions[seat].local_view().observation.hand:
        if (racer.STANDARD_CATALOGUE[card].kind is racer.Kind.CALAMITY) == calamity:
            return slot, card
    return None


def deciding_a_move_holding(calamity: bool):
    """The situation: a seat decides its move, holding a Calamity (or a card that is not one)."""

    def arises(table: SessionHarness, game) -> bool:
        step = next_step(game)
        if not (isinstance(step, racer.Decide) and step.topic == "move"):
            return False
        return card_in_hand(table, step.seat, calamity) is not None

    return arises


def test_a_card_claimed_that_the_slot_does_not_hold_is_rejected(games):
    """The seat shows one of its own hand slots, with its true key, but names a Calamity."""
    table, seat = drive(games, 7, "a move with a non-Calamity in hand")
    slot, real = card_in_hand(table, seat, calamity=False)
    state = table.spectator.game_state.state
    target = state.players[1 - seat].line[0].slot
    mine = set(dict(table.sessions[seat].local_view().observation.hand).values())
    fake = next(
        c.id
        for c in racer.STANDARD_CATALOGUE.cards
        if c.kind is racer.Kind.CALAMITY and c.id not in mine and c.id not in state.known.values()
    )
    session = table.sessions[seat]
    shown = racer.format_action(racer.Discard(slot, real))  # only to get the slot's true key
    key = session.private.complete(session.game_state, 0, "act", {"action": shown})["key"]
    action = racer.format_action(racer.PlayCalamity(slot, fake, target))
    assert_rejected_at_once(table, seat, "act", {"action": action, "key": key}, "but the card is")


def test_a_card_of_another_seats_hand_cannot_be_played(games):
    table, seat = drive(games, 7, "decision")
    other = 1 - seat
    slot, _ = table.sessions[other].local_view().observation.hand[0]
    state = table.spectator.game_state.state
    calamity = next(c.id for c in racer.STANDARD_CATALOGUE.cards if c.kind is racer.Kind.CALAMITY)
    action = racer.PlayCalamity(slot, calamity, state.players[other].line[0].slot)
    body = {"action": racer.format_action(action), "key": bytes(32)}
    assert_rejected_at_once(table, seat, "act", body, "not in your hand")


def test_a_played_card_with_a_wrong_key_is_rejected(games):
    table, seat = drive(games, 7, "a move with a Calamity in hand")
    slot, card = card_in_hand(table, seat, calamity=True)
    target = table.spectator.game_state.state.players[1 - seat].line[0].slot
    text = racer.format_action(racer.PlayCalamity(slot, card, target))
    body = table.sessions[seat].private.complete(
        table.sessions[seat].game_state, 0, "act", {"action": text}
    )
    assert_rejected_at_once(table, seat, "act", {**body, "key": flip(body["key"])}, "commitment")


def drew_a_creep(table: SessionHarness, game) -> bool:
    step = next_step(game)
    if not isinstance(step, ShowDrawn):
        return False
    card = table.sessions[step.seat].private.card(game, step.slot)
    return racer.STANDARD_CATALOGUE[card].kind is racer.Kind.CREEP


def test_a_drawn_creep_kept_in_hand_is_rejected_at_once(games):
    """Keeping a drawn card needs a none-of proof that it is no Creep: with none, or with a proof
    replayed from an earlier kept card, the event is rejected and its author named."""
    table, seat = drive(games, 3, "drew a Creep")
    slot = next_step(table.spectator.game_state).slot
    keep = {"action": racer.format_action(racer.KeepDrawn(slot))}
    assert_rejected_at_once(table, seat, "act", keep, "needs the proof")
    earlier = [
        e.body["proof"]
        for e in table.spectator.log.events
        if e.type == "act" and "proof" in e.body and e.author == table.identities[seat].public_key
    ]
    replayed = {**keep, "proof": earlier[-1]}
    assert_rejected_at_once(table, seat, "act", replayed, "not proven to be no Creep")


def showing_a_draw_from_the_dealt_family(creep: bool) -> Situation:
    """A seat must show a card drawn from the dealt family that is (or is not) a Creep."""

    def arisen(table: SessionHarness, game) -> bool:
        step = next_step(game)
        if not isinstance(step, ShowDrawn) or not_a_creep(game, step.slot) is None:
            return False
        card = table.sessions[step.seat].private.card(game, step.slot)
        return (racer.STANDARD_CATALOGUE[card].kind is racer.Kind.CREEP) == creep

    return arisen


def kept_draw(
    games: dict[int, Forks[str]], creep: bool
) -> tuple[SessionHarness, int, DeckSeat, int, str]:
    """Where a seat must show a card drawn from the dealt family that is (or is not) a Creep:
    the table, that seat, its deck side, the drawn slot and its card."""
    table, seat = drive(games, 3, "a drawn Creep to show" if creep else "a drawn card to keep")
    slot = next_step(table.spectator.game_state).slot
    session = table.sessions[seat]
    me = DeckSeat(session.game_state.deck, seat, session.secrets.deck_secret)
    return table, seat, me, slot, str(session.private.card(session.game_state, slot))


def test_a_drawn_creep_proven_against_a_set_of_its_own_choosing_is_rejected(games):
    """The Creeps to exclude are the table's, from public state: a valid proof that the card is
    none of the *other* Creeps proves nothing, and the body has no field to name a set."""
    table, seat, me, slot, card = kept_draw(games, creep=True)
    game, seq = table.spectator.game_state, len(table.spectator.log)
    pool, position, excluded = not_a_creep(game, slot)
    assert card in excluded
    others = [c for c in excluded if c != card]
    proof = me.prove_none_of(seq, pool, position, others)["proof"]
    keep = {"action": racer.format_action(racer.KeepDrawn(slot)), "proof": proof}
    assert_rejected_at_once(table, seat, "act", keep, "not proven to be no Creep")
    assert_rejected_at_once(table, seat, "act", {**keep, "excluded": others}, "excluded")


def test_a_kept_card_from_a_log_before_none_of_proofs_still_verifies(games):
    """Old logs carry the OR-proof over the play cards the family may hide (a list): accepted
    where the rule asks for a proof, checked against the set the table computes."""
    table, seat, me, slot, card = kept_draw(games, creep=False)
    game, seq = table.spectator.game_state, len(table.spectator.log)
    pool, position, _ = not_a_creep(game, slot)
    keep = {"action": racer.format_action(racer.KeepDrawn(slot))}
    legacy = me.prove_class(seq, pool, position, may_be(game))["proof"]
    assert isinstance(legacy, list)
    narrower = [c for c in may_be(game) if c != next(c for c in may_be(game) if c != card)]
    short = me.prove_class(seq, pool, position, narrower)["proof"]
    assert_rejected_at_once(table, seat, "act", {**keep, "proof": short}, "class")
    receipts = deliver(table, sign(table, seat, "act", {**keep, "proof": legacy}))
    assert all(r.status == "accepted" for r in receipts), receipts


# --- dice ---------------------------------------------------------------------------------------


def test_a_wrong_die_reveal_is_rejected(games):
    table, _ = drive(games, 7, "a die")
    seat = table.spectator.expected().seat
    type_, body = honest(table, seat)
    body = {**body, "pre": bytes(32)}
    assert_rejected_at_once(table, seat, type_, body, "does not hash")


# --- a bad proof or key at every deck step -------------------------------------------------


def flip(value: bytes) -> bytes:
    return bytes([value[0] ^ 1]) + value[1:]


DECK_CHEATS = {
    "join": (lambda b: {**b, "commit": b["commit"][:31]}, "32 bytes"),
    "shuffle": (lambda b: {**b, "points": [b["points"][0]] * len(b["points"])}, "repeated"),
    # A card swapped for another (the tracer's and the cloner's move): the proof fails.
    "shuffle-substitute": (
        lambda b: {**b, "points": [card_point("7"), *b["points"][1:]]},
        "proof of shuffle does not verify",
    ),
    "lock": (lambda b: {**b, "proofs": [flip(b["proofs"][0])] + b["proofs"][1:]}, "proof"),
    "release": (lambda b: {**b, "keys": [flip(k) for k in b["keys"]]}, "commitment"),
    "blind": (lambda b: {**b, "proof": flip(b["proof"])}, "proof"),
    "unblind": (lambda b: {**b, "proof": flip(b["proof"])}, "proof"),
    "reveal": (lambda b: {**b, "secret": flip(b["secret"])}, "commitment"),
}


@pytest.mark.parametrize("op", list(DECK_CHEATS))
def test_a_bad_deck_step_is_rejected_at_once(games, op):
    tamper, why = DECK_CHEATS[op]
    seed = 11 if op in ("blind", "unblind") else 7
    table, seat = drive(games, seed, "deck " + op.split("-")[0])
    type_, body = honest(table, seat)
    assert_rejected_at_once(table, seat, type_, tamper(body), why)


# --- a rejected event changes nothing ------------------------------------------------------------


def test_a_played_card_with_a_stray_proof_is_rejected_and_the_honest_play_then_accepted(games):
    """Issue 21, attack 1: the card's key was applied to the deck before the stray field was
    seen, so the honest event for that position then crashed every receiver."""
    table, seat = drive(games, 7, "a move with a Calamity in hand")
    slot, card = card_in_hand(table, seat, calamity=True)
    target = table.spectator.game_state.state.players[1 - seat].line[0].slot
    text = racer.format_action(racer.PlayCalamity(slot, card, target))
    session = table.sessions[seat]
    body = session.private.complete(session.game_state, len(session.log), "act", {"action": text})
    assert_rejected_at_once(table, seat, "act", {**body, "proof": b"stray"}, "proof is only")
    receipts = deliver(table, sign(table, seat, "act", body))
    assert all(r.status == "accepted" for r in receipts), receipts


# --- the games the tests fork ---------------------------------------------------------------

SITUATIONS: dict[int, dict[str, Situation]] = {
    7: {
        "decision": at_decision,
        "a move with a non-Calamity in hand": deciding_a_move_holding(calamity=False),
        "a move with a Calamity in hand": deciding_a_move_holding(calamity=True),
        "a die": lambda table, game: isinstance(racer.pending(game.state), racer.NeedDie),
        **{f"deck {op}": at_deck(op) for op in ("join", "shuffle", "lock", "release", "reveal")},
    },
    3: {
        "drew a Creep": drew_a_creep,
        "a drawn Creep to show": showing_a_draw_from_the_dealt_family(creep=True),
        "a drawn card to keep": showing_a_draw_from_the_dealt_family(creep=False),
    },
    11: {"deck blind": at_deck("blind"), "deck unblind": at_deck("unblind")},
}
# Seed 7's situations all arise by its first turn but the deck reveal, which comes once the game
# is over: two turns reach it soonest (a game is the same as with a later limit up to its own).
TURN_LIMITS = {7: 2, 3: 40, 11: 40}


@pytest.fixture(scope="module")
def games() -> dict[int, Forks[str]]:
    """Each seed's game, played lazily as far as the tests ask, forked at each situation."""
    return {
        seed: Forks(drive_to_each(racer_table(seed, TURN_LIMITS[seed]), situations))
        for seed, situations in SITUATIONS.items()
    }


def test_a_deck_step_naming_a_position_or_seat_as_true_is_the_step_refused_by_the_table(games):
    """msgpack's ``true`` is not the integer 1: the table's own check of a release compared
    with ``==``, where Python's True equals 1, and left the refusal to the deck's stricter
    checks after it (a verifier in another language refuses it at the table's check)."""
    table, seat = drive(games, 7, "deck release")
    type_, body = honest(table, seat)
    ints = [body["to"], *body["positions"]]
    assert 1 in ints or 0 in ints, body  # a value a boolean can pass for
    as_bools = {
        **body,
        "to": bool(body["to"]) if body["to"] in (0, 1) else body["to"],
        "positions": [bool(p) if p in (0, 1) else p for p in body["positions"]],
    }
    assert_rejected_at_once(table, seat, type_, as_bools, "expected the release of")
