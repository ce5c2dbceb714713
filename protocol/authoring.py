"""What the local seat writes: join requests, seating, owed automatic steps and decisions.

Every event built here is signed and then appended through the session's one commit path, the
very checks a peer's event goes through, so a local bug can never produce an event peers reject.
One check is not made twice: the deck proofs our private side has just computed
(protocol/deck/state.py, ``DeckState.vouch``: only the exact statement and proof it computed
skip their check; every rule and every other check still runs, and every peer checks the proofs
in full), as they are the costliest part of an event and hold by construction.
Owed steps (start, onion reveals, a hidden-information game's deck steps written by its
``rules.PrivateSide``) are taken one seat at a time in the order the game fixes; decisions are
the player's words parsed by the game's rules, then completed with any private proofs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from creepnet.protocol import onion
from creepnet.protocol.event import Event
from creepnet.protocol.lobby import JoinError, JoinRequest
from creepnet.protocol.log import Rejection
from creepnet.protocol.reveals import own_reveal
from creepnet.protocol.rules import GameRuleError

if TYPE_CHECKING:
    from creepnet.protocol.session import Session


def admit(session: Session, join_request: bytes) -> Event:
    """Host: seat the player who sent this signed join request."""
    try:
        request = JoinRequest.from_bytes(join_request)
    except JoinError as exc:
        raise Rejection(len(session.log), "join", str(exc)) from None
    return session.write("seat", {"join": request.to_map()})


def join_request(session: Session, player: str) -> bytes:
    """Joiner: a signed request for the next free seat of this (lobby) game."""
    seat = session.next_free_seat
    if seat is None or session.identity is None or session.secrets is None or session.game is None:
        raise Rejection(len(session.log), "join", "this game has no free seat to ask for")
    return JoinRequest.create(
        session.identity,
        session.secrets,
        game=session.game,
        genesis=session.log.events[0].id,
        seat=seat,
        player=player,
        onion_length=session.onion_length,
    ).to_bytes()


def owed(session: Session) -> list[Event]:
    """Sign and append every automatic event the local seat owes now; see ``Session.owed``."""
    produced: list[Event] = []
    while True:
        turn = session.expected()
        if turn is None or turn.seat != session.local_seat:
            break
        if "start" in turn.types:
            produced.append(session.write("start", {}))
        elif "reveal" in turn.types:
            assert session.secrets is not None and session.game is not None
            body = own_reveal(
                session.game, session.secrets.onion_seed, session.onion_length, session.draws
            )
            produced.append(session.write("reveal", body))
        elif turn.automatic and session.private is not None:
            type_, body = session.private.owed(session.game_state, len(session.log))
            produced.append(session.write(type_, body))
        else:
            break
    if not produced and session.exhausted():
        raise onion.OnionExhausted(
            f"the game needs random draw {session.draws} but its seats committed to only "
            f"{session.onion_length}; start a new game with a longer onion"
        )
    return produced


def play(session: Session, text: str) -> Event:
    """The local player's decision, in the game's command words (``e7-d6``, ``resign``)."""
    turn = session.my_turn()
    if turn is None:
        waiting = session.waiting_for()
        why = waiting.describe() if waiting else "the game is over"
        raise Rejection(len(session.log), "entitlement", f"not your turn ({why})")
    assert session.rules is not None
    try:
        type_, body = session.rules.action(session.game_state, turn.seat, text)
    except GameRuleError as exc:
        raise Rejection(len(session.log), "illegal", str(exc)) from None
    if type_ not in turn.types:
        raise Rejection(len(session.log), "illegal", f"{type_} is not possible now")
    private = session.private
    if private is not None:
        try:
            body = private.complete(session.game_state, len(session.log), type_, body)
        except GameRuleError as exc:
            raise Rejection(len(session.log), "illegal", str(exc)) from None
    return session.write(type_, body)
