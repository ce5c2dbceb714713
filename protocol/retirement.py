"""Retirement of a seat that stops answering (3+ seats) and abandonment (2 seats left).

**Votes.**  When the session waits on seat X at position S (X owes the event at ``seq`` S, whose
``prev`` is the id P of event S−1) for the table's ``retire_after`` seconds, each remaining seat
V ≠ X signs, with its seat key (Ed25519, as every event), the vote

    frame("creepnet/retire/vote/v1", game id, S, P, X, V)

(docs/PROTOCOL.md "Retirement": ``frame`` is DECKS.md's length-prefixed framing, integers as
8-byte big-endian, the game id and P as bytes).  Binding S and P ties a vote to one position of
one chain: it cannot be replayed at another position, another branch or another game.

**The ``retire`` event** at S is authored by one deterministic seat, the lowest-numbered remaining
seat other than X, with the body ``{"seat": X, "votes": [[V, signature]…]}``: the votes of ALL
remaining seats other than X, the author's own included (so every vote is the same object, gossiped
or in the log), in increasing seat order, no duplicate, each checked against its signer's key.
Every replica then retires X: its later owed steps are the table's, its onion preimages leave
later draws (the draw under way completes among the remaining seats) and the game's rules take X
out (``rules.Retiring``).  A game whose rules cannot retire a seat refuses the event.

**Why honest nodes converge.**  An honest seat votes at S only if it holds no event of X at S, and
once it has voted it accepts no event of X at S (a late one is kept aside as evidence, never
appended).  A complete retirement carries the vote of every remaining seat, so if it exists, no
honest remaining seat accepted X's event at S before voting, nor after: X's late event and a
complete retirement are never both accepted by honest nodes.  The one race left is a seat B that
got X's event just before its own timeout while the others voted: B never votes, so the
retirement cannot complete, and B answers the votes with a signed **objection**
``frame("creepnet/retire/objection/v1", game id, S, P, X, B, id of X's event)`` carrying X's event:
a voter that sees it accepts X's event (its promise is void: without B's vote no retirement at S can
exist).  A seat that signs both a vote and an objection for one position has equivocated; the two
signatures are the proof (``conflicting``).

**Leaving on purpose**: a seat's signed ``frame("creepnet/retire/leave/v1", game id, X)`` (a node
message, not an event) lets the others vote at once instead of waiting.

**Abandonment (two remaining seats).**  Escrow among two would give each the other's secrets, so
there is none and no retirement: the remaining seat Y may instead sign ``abandon`` ``{"seat": X}``
at the position X owes.  The log ends there, *unfinished: abandoned by seat X, claimed by seat Y at
seq S*.  It is a claim, not a result: nobody wins, and a late event of X simply never follows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from creepnet.protocol.event import Event
from creepnet.protocol.identity import Identity, verify_signature
from creepnet.protocol.log import Rejection
from creepnet.protocol.rules import GameRuleError, expect_keys

VOTE_DOMAIN = b"creepnet/retire/vote/v1"
OBJECTION_DOMAIN = b"creepnet/retire/objection/v1"
LEAVE_DOMAIN = b"creepnet/retire/leave/v1"
DEFAULT_RETIRE_AFTER = 120  # seconds
MAX_RETIRE_AFTER = 86_400
TYPES = frozenset({"retire", "abandon"})


def frame(*parts: bytes | int) -> bytes:
    """DECKS.md's framing for bytes and integers: tag, 4-byte length, data."""
    out = bytearray()
    for part in parts:
        data, tag = (
            (part.to_bytes(8, "big", signed=True), b"i") if isinstance(part, int) else (part, b"b")
        )
        out += tag + len(data).to_bytes(4, "big") + data
    return bytes(out)


@dataclass(frozen=True)
class Position:
    """Where the table waits on seat X: the game, the seq X owes and the id of the event before."""

    game: bytes
    seq: int
    prev: bytes
    seat: int

    def framable(self) -> bool:
        """Whether its numbers fit the frame's signed 8-byte integers (a peer's message may
        name any msgpack integer; frame would raise OverflowError, not refuse)."""
        return all(0 <= n < 1 << 63 for n in (self.seq, self.seat))

    def vote_message(self, voter: int) -> bytes:
        return frame(VOTE_DOMAIN, self.game, self.seq, self.prev, self.seat, voter)

    def objection_message(self, objector: int, event_id: bytes) -> bytes:
        return frame(
            OBJECTION_DOMAIN, self.game, self.seq, self.prev, self.seat, objector, event_id
        )


# ----- the game option ----------------------------------------------------------------------


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The game's own options and ``retire_after`` (a genesis option of every game, read only by
    the node); GameRuleError if it is not a whole number of seconds in 1..86400."""
    rest = {k: v for k, v in options.items() if k != "retire_after"}
    value = options.get("retire_after", DEFAULT_RETIRE_AFTER)
    if type(value) is not int or not 1 <= value <= MAX_RETIRE_AFTER:
        raise GameRuleError(f"retire_after must be 1-{MAX_RETIRE_AFTER} seconds")
    return rest, value


# ----- votes, objections, leave notices ------------------------------------------------------


def vote(identity: Identity, position: Position, voter: int) -> list[Any]:
    """Our vote ``[voter, signature]`` to retire ``position.seat`` (never our own seat)."""
    if voter == position.seat:
        raise ValueError("a seat does not vote to retire itself")
    return [voter, identity.sign(position.vote_message(voter))]


def check_vote(position: Position, keys: Sequence[bytes], value: object) -> int:
    """The voter of a well-formed, validly signed vote for this position; GameRuleError."""
    if not isinstance(value, list) or len(value) != 2 or type(value[0]) is not int:
        raise GameRuleError("a vote is [seat, signature]")
    voter, signature = value
    if not position.framable():
        raise GameRuleError("a vote names a position no log can have")
    if not 0 <= voter < len(keys):
        raise GameRuleError(f"vote by seat {voter}, which is no seat of this game")
    if voter == position.seat:
        raise GameRuleError(f"vote by seat {voter}, the seat being retired")
    if not verify_signature(keys[voter], position.vote_message(voter), signature):
        raise GameRuleError(
            f"vote of seat {voter} is not its signature for retiring seat {position.seat} "
            f"at seq {position.seq} after event {position.prev.hex()[:16]}"
        )
    return voter


def objection(identity: Identity, position: Position, objector: int, event_id: bytes) -> bytes:
    """Our signed word that we hold X's event ``event_id`` at this position (we will not vote)."""
    return identity.sign(position.objection_message(objector, event_id))


def check_objection(
    position: Position, keys: Sequence[bytes], objector: int, event_id: bytes, signature: bytes
) -> bool:
    return (
        position.framable()
        and 0 <= objector < len(keys)
        and objector != position.seat
        and verify_signature(
            keys[objector], position.objection_message(objector, event_id), signature
        )
    )


def leave_notice(identity: Identity, game: bytes, seat: int) -> bytes:
    """A seat's signed word that it leaves this game for good (a node message, not an event)."""
    return identity.sign(frame(LEAVE_DOMAIN, game, seat))


def check_leave(game: bytes, keys: Sequence[bytes], seat: int, signature: bytes) -> bool:
    return 0 <= seat < len(keys) and verify_signature(
        keys[seat], frame(LEAVE_DOMAIN, game, seat), signature
    )


# ----- the events ---------------------------------------------------------------------------


def remaining(seats: int, retired: Sequence[int]) -> tuple[int, ...]:
    return tuple(s for s in range(seats) if s not in retired)


def retire_author(seats: int, retired: Sequence[int], seat: int) -> int:
    """The one seat that appends the retirement of ``seat``: the lowest remaining other seat."""
    return min(s for s in remaining(seats, retired) if s != seat)


def names_seat_of(event: Event, keys: Sequence[bytes], author: bytes) -> bool:
    """Whether ``event`` is a ``retire`` or ``abandon`` of the seat ``author`` holds: what a
    move of that seat crossing its retirement meets at its position (only the body's claim;
    whether the table could retire that seat there is the session's check)."""
    if event.type not in TYPES or author not in keys or not isinstance(event.body, dict):
        return False
    seat = event.body.get("seat")
    return type(seat) is int and 0 <= seat < len(keys) and keys[seat] == author


def retire_body(position: Position, votes: Sequence[list[Any]]) -> dict[str, Any]:
    return {"seat": position.seat, "votes": sorted(votes, key=lambda v: v[0])}


def _author(position: Position, keys: Sequence[bytes], event: Event, seat: int) -> None:
    if event.author != keys[seat]:
        raise Rejection(
            event.seq,
            "entitlement",
            f"not entitled: the {event.type} of seat {position.seat} is for seat {seat}",
            event.author,
        )


def check_retire(
    position: Position, keys: Sequence[bytes], retired: Sequence[int], event: Event
) -> None:
    """By the deterministic author, with every vote of every remaining seat but X, each for this
    position, in seat order, once.  Rejection (a wrong author) or GameRuleError (a bad body)."""
    left = remaining(len(keys), retired)
    if len(left) < 3:
        raise GameRuleError("two seats left: the remaining one may only claim an abandonment")
    _author(position, keys, event, retire_author(len(keys), retired, position.seat))
    body = event.body
    expect_keys(body, {"seat", "votes"})
    if type(body["seat"]) is not int or body["seat"] != position.seat:
        raise GameRuleError(f"the table waits on seat {position.seat}; only it may be retired")
    votes = body["votes"]
    if not isinstance(votes, list):
        raise GameRuleError("votes must be a list")
    wanted = [s for s in left if s != position.seat]
    # Past one vote more than wanted the list fails below whatever the rest holds: checking
    # them all would let one event buy a signature check per copy of a vote (~14,000 a MiB).
    voters = [check_vote(position, keys, v) for v in votes[: len(wanted) + 1]]
    if voters != wanted:
        missing = sorted(set(wanted) - set(voters))
        extra = sorted(set(voters) - set(wanted))
        if len(set(voters)) != len(voters):
            reason = "a seat voted twice"
        elif missing:
            reason = f"the votes of seats {missing} are missing"
        elif extra:
            reason = f"seats {extra} do not play any more"
        else:
            reason = "votes must be in seat order"
        raise GameRuleError(f"retirement of seat {position.seat}: {reason}")


def check_abandon(
    position: Position, keys: Sequence[bytes], retired: Sequence[int], event: Event
) -> int:
    """The claimant: the one other seat left of two.  Rejection or GameRuleError."""
    left = remaining(len(keys), retired)
    if len(left) != 2:
        raise GameRuleError("three or more seats play: a stalled seat is retired, not abandoned")
    claimant = next(s for s in left if s != position.seat)
    _author(position, keys, event, claimant)
    expect_keys(event.body, {"seat"})
    if type(event.body["seat"]) is not int or event.body["seat"] != position.seat:
        raise GameRuleError(
            f"the table waits on seat {position.seat}; only its abandonment may be claimed"
        )
    return claimant


@dataclass(frozen=True)
class Abandonment:
    """How a 2-seat game stopped: ``seat`` abandoned it, ``claimant`` claimed so at ``seq``."""

    seat: int
    claimant: int
    seq: int


# ----- one node's ballot box for one position -------------------------------------------------


class Ballot:
    """The votes a node has gathered to retire ``position.seat``, and its promise.

    Once the local seat has voted, the node must not accept X's event at this position unless an
    objection voids the promise (module docstring); ``blocks`` says so for the node's delivery."""

    def __init__(self, position: Position, keys: Sequence[bytes], retired: Sequence[int]) -> None:
        self.position = position
        self.keys = list(keys)
        self.wanted = [s for s in remaining(len(keys), retired) if s != position.seat]
        self.votes: dict[int, list[Any]] = {}
        self.voted = False
        self.objected = False
        self.evidence: list[bytes] = []  # X's late events kept aside

    def add(self, value: object) -> bool:
        """Take a vote from anyone; True if it is new and valid (False: ignored, never raises)."""
        try:
            voter = check_vote(self.position, self.keys, value)
        except GameRuleError:
            return False
        if voter not in self.wanted or voter in self.votes:
            return False
        assert isinstance(value, list)  # check_vote read it as one
        self.votes[voter] = list(value)
        return True

    def cast(self, identity: Identity, voter: int) -> list[Any]:
        ours = vote(identity, self.position, voter)
        self.add(ours)
        self.voted = True
        return ours

    def object(self) -> None:
        """A valid objection arrived: no retirement at this position can complete."""
        self.objected = True

    @property
    def complete(self) -> bool:
        return not self.objected and sorted(self.votes) == self.wanted

    def body(self) -> dict[str, Any]:
        return retire_body(self.position, list(self.votes.values()))

    def blocks(self, seq: int, author_seat: int | None) -> bool:
        """Whether an event at ``seq`` by ``author_seat`` must be kept aside, not accepted."""
        return (
            self.voted
            and not self.objected
            and seq == self.position.seq
            and author_seat == self.position.seat
        )
