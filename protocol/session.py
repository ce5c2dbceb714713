"""The session: folds verified events into a game, one entitled author per position (h11-style).

At every position exactly one seat may author the next event (the host in the lobby, then whoever
the game names, and for randomness every seat in seat order), so honest peers never fork.  The same
code path checks a peer's event, the local seat's own event and every event of an offline log:

    decode → signature → game, seq, prev → entitlement → rules (reveals, joins, moves) → append

A session never does I/O.  A node feeds it bytes (``receive``), sends what it produced
(``owed``, ``play``, ``admit``) and asks whom it is waiting for (``waiting_for``).

Games with hidden information name **owed steps** (``rules.Owed``: shuffles, locks, key releases,
the end-of-game reveal) exactly as onion reveals are scheduled: one seat at a time, in the order
the game fixes.  ``owed`` has the local seat's private side (``rules.PrivateSide``, built from the
stored seat secrets) write their bodies; ``play`` lets it add proofs to a decision.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from creepnet.protocol import onion
from creepnet.protocol.event import Event, sign_event
from creepnet.protocol.games import GAMES
from creepnet.protocol.identity import Identity, fingerprint
from creepnet.protocol.lobby import (
    GAME_NONCE_SIZE,
    JoinError,
    JoinRequest,
    SeatSecrets,
    check_player_name,
    derive_game_id,
)
from creepnet.protocol.log import (
    EquivocationProof,
    EventLog,
    Rejection,
    check_link,
    find_equivocation,
    parse_or_reject,
)
from creepnet.protocol.pending import Allowance, FutureEvents
from creepnet.protocol.rules import (
    GameRuleError,
    GameRules,
    NeedRandom,
    Owed,
    PrivateSide,
    Result,
    Seating,
    Turn,
    expect_keys,
)
from creepnet.protocol.text import valid_name

MAX_GAME_NAME = 64


@dataclass
class Seat:
    key: bytes
    player: str
    anchor: bytes
    last_reveal: bytes  # the onion layer the next reveal must hash to

    @property
    def label(self) -> str:
        return f"{self.player} ({fingerprint(self.key)})"


@dataclass(frozen=True)
class Waiting:
    """Whose event the game is waiting for, since which accepted event, and for what."""

    seat: int
    key: bytes
    player: str
    since_seq: int
    what: str

    def describe(self) -> str:
        return f"waiting for seat {self.seat}, {self.player} ({fingerprint(self.key)}): {self.what}"


@dataclass
class Receipt:
    """What happened to incoming bytes: status is accepted, duplicate, pending (held for a later
    position), deferred (not held, nobody blamed: see protocol/pending.py), rejected,
    equivocation or halted.  ``accepted`` also lists held events that now fit."""

    status: str
    accepted: list[Event] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    proof: EquivocationProof | None = None

    @property
    def rejection(self) -> Rejection | None:
        return self.rejections[0] if self.rejections else None


class Session:
    """One game's state as this peer knows it; see the module docstring."""

    def __init__(
        self,
        identity: Identity | None = None,
        secrets_: SeatSecrets | None = None,
        game: bytes | None = None,
        host: bytes | None = None,
    ) -> None:
        self.identity = identity
        self.secrets = secrets_
        self.log = EventLog()
        self.game: bytes | None = game
        self.kind = ""
        self.name = ""
        self.rules: GameRules | None = None
        self.options: dict[str, Any] = {}
        self.seat_count = 0
        self.onion_length = 0
        self.seats: list[Seat] = []
        self.started = False
        self.game_state: Any = None
        self.draws = 0  # completed random draws
        self.reveals: list[bytes] = []  # the current draw's preimages so far, in seat order
        self.halted: EquivocationProof | None = None
        self._private: PrivateSide | None = None
        self.pinned_host = host  # the genesis must be signed by this key, when known
        self._future = FutureEvents()
        self._allowance = Allowance()
        self._ids: set[bytes] = set()  # accepted event ids: a duplicate is found by one hash

    # ----- construction -------------------------------------------------------------------

    @classmethod
    def host(
        cls,
        identity: Identity,
        seat_secrets: SeatSecrets,
        *,
        kind: str,
        name: str,
        seats: int = 2,
        player: str = "host",
        options: dict[str, Any] | None = None,
        onion_length: int = onion.DEFAULT_LENGTH,
        nonce: bytes | None = None,
    ) -> Session:
        """A new game whose genesis this identity signs; it takes seat 0.

        The game id is derived from the host key and a fresh ``nonce`` (given only by tests)."""
        nonce = nonce or secrets.token_bytes(GAME_NONCE_SIZE)
        game = derive_game_id(identity.public_key, nonce)
        session = cls(identity, seat_secrets, game)
        body = {
            "nonce": nonce,
            "kind": kind,
            "name": name,
            "seats": seats,
            "options": options or {},
            "onion": onion_length,
            "player": player,
            "anchor": onion.anchor(game, seat_secrets.onion_seed, onion_length),
        }
        session._commit(session._sign("genesis", body))
        return session

    @classmethod
    def follow(
        cls,
        game: bytes,
        identity: Identity | None = None,
        seat_secrets: SeatSecrets | None = None,
        *,
        host: bytes | None = None,
    ) -> Session:
        """An empty session for a known game id, filled by ``receive`` (joiners, spectators).

        The id already commits to its host's key; ``host`` pins that key where the caller
        learned it (a listing), so a genesis by anyone else is refused with a clear reason."""
        return cls(identity, seat_secrets, game, host)

    @classmethod
    def from_log(
        cls,
        raws: list[bytes],
        identity: Identity | None = None,
        seat_secrets: SeatSecrets | None = None,
    ) -> Session:
        """Replay and fully verify events; raises Rejection at the first bad one."""
        session = cls(identity, seat_secrets)
        for raw in raws:
            session.accept(raw)
        return session

    # ----- what the game is waiting for ------------------------------------------------------

    @property
    def local_seat(self) -> int | None:
        if self.identity is None:
            return None
        for index, seat in enumerate(self.seats):
            if seat.key == self.identity.public_key:
                return index
        return None

    @property
    def seat_keys(self) -> list[bytes]:
        return [seat.key for seat in self.seats]

    @property
    def next_free_seat(self) -> int | None:
        if self.started or not self.log.events or len(self.seats) >= self.seat_count:
            return None
        return len(self.seats)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def result(self) -> Result | None:
        if self.rules is None or not self.started:
            return None
        return self.rules.result(self.game_state)

    @property
    def engine_state(self) -> Any:
        return getattr(self.game_state, "state", None)

    def expected(self) -> Turn | None:
        """The seat entitled to author the next event and the types it may author."""
        if self.halted is not None or not self.log.events:
            return None
        if not self.started:
            if len(self.seats) < self.seat_count:
                return Turn(0, frozenset({"seat"}), "seat the next player who asks to join")
            return Turn(0, frozenset({"start"}), "start the game")
        assert self.rules is not None
        step = self.rules.next(self.game_state)
        if isinstance(step, NeedRandom):
            if self.draws >= self.onion_length:
                return None  # see exhausted(): nobody can extend the game any more
            seat = len(self.reveals)
            what = f"reveal randomness for the {step.purpose}"
            return Turn(seat, frozenset({"reveal"}), what, automatic=True)
        if isinstance(step, Owed):
            return Turn(step.seat, frozenset({step.type}), step.what, automatic=True)
        return step

    def exhausted(self) -> bool:
        """The game needs a random draw but every committed onion preimage is spent."""
        if not self.started or self.finished or self.rules is None:
            return False
        step = self.rules.next(self.game_state)
        return isinstance(step, NeedRandom) and self.draws >= self.onion_length

    def waiting_for(self) -> Waiting | None:
        turn = self.expected()
        if turn is None or turn.seat >= len(self.seats):
            return None
        seat = self.seats[turn.seat]
        return Waiting(turn.seat, seat.key, seat.player, len(self.log) - 1, turn.what)

    def my_turn(self) -> Turn | None:
        """The local seat's turn to take a decision (not an automatic step), if it is one."""
        turn = self.expected()
        if (
            turn is None
            or turn.seat != self.local_seat
            or turn.automatic
            or turn.types & {"reveal", "seat", "start"}
        ):
            return None
        return turn

    @property
    def private(self) -> PrivateSide | None:
        """The local seat's private side, for games with hidden information (else None)."""
        if self._private is None and self.started and self.secrets is not None:
            make = getattr(self.rules, "private_side", None)
            seat = self.local_seat
            if make is not None and seat is not None:
                self._private = make(self._seating(), seat, self.secrets)
        return self._private

    def local_view(self) -> Any:
        """What the local seat may see: the game state, joined with its private side if any."""
        private = self.private
        return self.game_state if private is None else private.view(self.game_state)

    def _seating(self) -> Seating:
        assert self.game is not None
        return Seating(self.game, tuple(self.seat_keys))

    # ----- incoming bytes -------------------------------------------------------------------

    def accept(self, raw: bytes) -> Event:
        """Strictly append the next event of a log: raises Rejection, never holds or halts.

        For replaying a log in order; live peers use ``receive``, which copes with disorder.
        """
        return self.accept_event(parse_or_reject(raw, len(self.log)))

    def accept_event(self, event: Event) -> Event:
        """``accept`` for an event already parsed (``parse_or_reject`` at this position)."""
        self._commit(event)
        return event

    def receive(self, raw: bytes, sender: bytes | None = None) -> Receipt:
        """Take an event from anywhere; never raises for bad input.

        ``sender`` (the connection's key) is charged for every delivery that does not move the
        game; past its allowance its bytes are refused unread (protocol/pending.py)."""
        if self.halted is not None:
            return Receipt("halted", proof=self.halted)
        if sender is not None and self._allowance.exhausted(sender, len(self.log)):
            reason = "too many duplicate or unusable events from this sender"
            return Receipt("rejected", rejections=[Rejection(None, "flood", reason)])
        receipt = self._receive(raw)
        if sender is not None and receipt.status in ("duplicate", "pending", "deferred"):
            self._allowance.charge(sender)
        return receipt

    def _receive(self, raw: bytes) -> Receipt:
        if hashlib.sha256(raw).digest() in self._ids:
            return Receipt("duplicate")
        try:
            event = parse_or_reject(raw)
        except Rejection as rejection:
            return Receipt("rejected", rejections=[rejection])
        if self.game is not None and event.game != self.game:
            return Receipt(
                "rejected", rejections=[Rejection(event.seq, "game", "event of another game")]
            )
        if event.seq < len(self.log):
            return self._conflict(self.log.events[event.seq], event)
        if event.seq > len(self.log):
            return self._hold(event)
        receipt = Receipt("accepted")
        try:
            self._commit(event)
        except Rejection as rejection:
            return Receipt("rejected", rejections=[rejection])
        receipt.accepted.append(event)
        self._drain(receipt)
        return receipt

    def _conflict(self, known: Event, event: Event) -> Receipt:
        """An event for a filled position: known is accepted, so the same author is a fork."""
        if known.raw == event.raw:
            return Receipt("duplicate")
        proof = find_equivocation(known, event)
        if proof is not None:
            return self._halt(proof)
        if event.signature_valid() and event.prev == known.prev:
            # Same history, so the same entitled author: this signer claimed a seat not theirs.
            reason = f"not entitled: seq {event.seq} belongs to {fingerprint(known.author)}"
            return Receipt(
                "rejected", rejections=[Rejection(event.seq, "entitlement", reason, event.author)]
            )
        return Receipt(
            "rejected",
            rejections=[Rejection(event.seq, "chain", "conflicts with an accepted event")],
        )

    def _may_ever_author(self, key: bytes) -> bool:
        """Whether key could write some later event of this game, as far as we know now."""
        return bool(self.log.events) and (key == self.log.events[0].author or key in self.seat_keys)

    def _hold(self, event: Event) -> Receipt:
        if not event.signature_valid():  # never let forged bytes occupy a future slot
            return Receipt(
                "rejected", rejections=[Rejection(event.seq, "signature", "bad signature")]
            )
        if not self._may_ever_author(event.author):
            return Receipt("deferred")  # maybe a seat still to join: fetched again when due
        return Receipt(self._future.hold(event, len(self.log)))

    def _drain(self, receipt: Receipt) -> None:
        """Commit held events that now fit; losing candidates are judged against the winner."""
        while len(self.log) in self._future:
            candidates = self._future.pop(len(self.log))
            committed = None
            for event in candidates:
                if committed is None:
                    try:
                        self._commit(event)
                    except Rejection as rejection:
                        receipt.rejections.append(rejection)
                        continue
                    committed = event
                    receipt.accepted.append(event)
                else:
                    verdict = self._conflict(committed, event)
                    receipt.rejections.extend(verdict.rejections)
                    if verdict.proof is not None:
                        receipt.status, receipt.proof = "equivocation", verdict.proof
                        return
            if committed is None:
                break
        self._future.drop_before(len(self.log) + 1)

    def _halt(self, proof: EquivocationProof) -> Receipt:
        self.halted = proof
        author = proof.author
        rejection = Rejection(
            parse_or_reject(proof.first).seq,
            "equivocation",
            "two different signed events at one position: game stopped",
            author,
        )
        return Receipt("equivocation", rejections=[rejection], proof=proof)

    # ----- local actions --------------------------------------------------------------------

    def admit(self, join_request: bytes) -> Event:
        """Host: seat the player who sent this signed join request."""
        try:
            request = JoinRequest.from_bytes(join_request)
        except JoinError as exc:
            raise Rejection(len(self.log), "join", str(exc)) from None
        return self._author("seat", {"join": request.to_map()})

    def join_request(self, player: str) -> bytes:
        """Joiner: a signed request for the next free seat of this (lobby) game."""
        seat = self.next_free_seat
        if seat is None or self.identity is None or self.secrets is None or self.game is None:
            raise Rejection(len(self.log), "join", "this game has no free seat to ask for")
        return JoinRequest.create(
            self.identity,
            self.secrets,
            game=self.game,
            genesis=self.log.events[0].id,
            seat=seat,
            player=player,
            onion_length=self.onion_length,
        ).to_bytes()

    def owed(self) -> list[Event]:
        """Sign and append every automatic event the local seat owes now (start, reveals).

        Raises OnionExhausted when the game is stuck for want of randomness, but only when there
        is nothing to send: events already signed are always returned, never lost.
        """
        produced: list[Event] = []
        while True:
            turn = self.expected()
            if turn is None or turn.seat != self.local_seat:
                break
            if "start" in turn.types:
                produced.append(self._author("start", {}))
            elif "reveal" in turn.types:
                assert self.secrets is not None
                pre = onion.preimage(
                    self.game, self.secrets.onion_seed, self.onion_length, self.draws
                )
                produced.append(self._author("reveal", {"draw": self.draws, "pre": pre}))
            elif turn.automatic and self.private is not None:
                type_, body = self.private.owed(self.game_state, len(self.log))
                produced.append(self._author(type_, body))
            else:
                break
        if not produced and self.exhausted():
            raise onion.OnionExhausted(
                f"the game needs random draw {self.draws} but its seats committed to only "
                f"{self.onion_length}; start a new game with a longer onion"
            )
        return produced

    def play(self, text: str) -> Event:
        """The local player's decision, in the game's command words (``e7-d6``, ``resign``)."""
        turn = self.my_turn()
        if turn is None:
            waiting = self.waiting_for()
            why = waiting.describe() if waiting else "the game is over"
            raise Rejection(len(self.log), "entitlement", f"not your turn ({why})")
        assert self.rules is not None
        try:
            type_, body = self.rules.action(self.game_state, turn.seat, text)
        except GameRuleError as exc:
            raise Rejection(len(self.log), "illegal", str(exc)) from None
        if type_ not in turn.types:
            raise Rejection(len(self.log), "illegal", f"{type_} is not possible now")
        private = self.private
        if private is not None:
            try:
                body = private.complete(self.game_state, len(self.log), type_, body)
            except GameRuleError as exc:
                raise Rejection(len(self.log), "illegal", str(exc)) from None
        return self._author(type_, body)

    def _sign(self, type_: str, body: dict[str, Any]) -> Event:
        if self.identity is None or self.game is None:
            raise Rejection(
                len(self.log), "entitlement", "this session has no identity to sign with"
            )
        return sign_event(
            self.identity,
            game=self.game,
            seq=len(self.log),
            prev=self.log.head,
            type=type_,
            body=body,
        )

    def _author(self, type_: str, body: dict[str, Any]) -> Event:
        """Sign and append our own event through the very checks a peer's event goes through."""
        event = self._sign(type_, body)
        self._commit(event)
        return event

    # ----- the one path every event takes ---------------------------------------------------

    def _commit(self, event: Event) -> None:
        if self.halted is not None:
            raise Rejection(event.seq, "halted", "the game was stopped by an equivocation")
        check_link(event, self.game, len(self.log), self.log.head)
        if event.seq == 0:
            self._genesis(event)
        else:
            self._entitled(event)
        self.log.events.append(event)  # check_link already validated the link
        self._ids.add(event.id)

    def _entitled(self, event: Event) -> None:
        turn = self.expected()
        if turn is None:
            # Signed for exactly this position, though nobody may write here: the author's fault.
            if self.exhausted():
                raise Rejection(
                    event.seq, "finished", "no event can follow: randomness exhausted", event.author
                )
            raise Rejection(
                event.seq, "finished", "the game is over; no event may follow", event.author
            )
        author = self.seats[turn.seat].key if turn.seat < len(self.seats) else None
        if event.author != author:
            raise Rejection(
                event.seq,
                "entitlement",
                f"not entitled: {turn.what} is for seat {turn.seat}",
                event.author,
            )
        if event.type not in turn.types:
            raise Rejection(
                event.seq,
                "entitlement",
                f"{event.type!r} not allowed now (expected {', '.join(sorted(turn.types))})",
                event.author,
            )
        try:
            if event.type == "seat":
                self._seat(event)
            elif event.type == "start":
                expect_keys(event.body, set())
                assert self.rules is not None
                self.started = True
                self.game_state = self.rules.start(self.seat_count, self.options, self._seating())
            elif event.type == "reveal":
                self._reveal(event, turn.seat)
            else:
                assert self.rules is not None
                self.game_state = self.rules.apply(
                    self.game_state, turn.seat, event.type, event.body, event.seq
                )
        except (GameRuleError, JoinError) as exc:
            raise Rejection(event.seq, "illegal", str(exc), event.author) from None

    def _genesis(self, event: Event) -> None:
        def bad(reason: str) -> Rejection:
            return Rejection(0, "genesis", reason, event.author)

        if event.type != "genesis":
            raise bad("the first event must be a genesis")
        body = event.body
        try:
            expect_keys(
                body, {"nonce", "kind", "name", "seats", "options", "onion", "player", "anchor"}
            )
            check_player_name(body["player"])
        except (GameRuleError, JoinError) as exc:
            raise bad(str(exc)) from None
        nonce = body["nonce"]
        if type(nonce) is not bytes or len(nonce) != GAME_NONCE_SIZE:
            raise bad(f"nonce must be {GAME_NONCE_SIZE} bytes")
        if event.game != derive_game_id(event.author, nonce):
            raise bad("the game id is not SHA-256(domain, host key, nonce): not this host's game")
        if self.pinned_host is not None and event.author != self.pinned_host:
            raise bad(f"signed by {fingerprint(event.author)}, not the host this game was found at")
        game = GAMES.get(body["kind"]) if isinstance(body["kind"], str) else None
        rules = game.rules if game is not None else None
        if rules is None:
            raise bad(f"unknown game kind {body['kind']!r}")
        name, seats, length = body["name"], body["seats"], body["onion"]
        if not valid_name(name, MAX_GAME_NAME):
            raise bad(
                f"game name must be 1-{MAX_GAME_NAME} printable code points (no control, "
                "separator or invisible format character)"
            )
        if type(seats) is not int or not rules.min_seats <= seats <= rules.max_seats:
            raise bad(f"{rules.kind} takes {rules.min_seats}-{rules.max_seats} seats")
        if type(length) is not int or not 1 <= length <= onion.MAX_LENGTH:
            raise bad(f"onion length must be 1-{onion.MAX_LENGTH}")
        if not isinstance(body["anchor"], bytes) or len(body["anchor"]) != onion.SECRET_SIZE:
            raise bad("bad randomness anchor")
        if not isinstance(body["options"], dict):
            raise bad("options must be a map")
        try:
            rules.check_options(body["options"])
        except GameRuleError as exc:
            raise bad(str(exc)) from None
        self.game = event.game
        self.kind, self.name, self.rules = rules.kind, name, rules
        self.seat_count, self.onion_length, self.options = seats, length, body["options"]
        self.seats = [Seat(event.author, body["player"], body["anchor"], body["anchor"])]

    def _seat(self, event: Event) -> None:
        expect_keys(event.body, {"join"})
        request = JoinRequest.from_map(event.body["join"])
        if request.game != self.game or request.genesis != self.log.events[0].id:
            raise JoinError("join request is for another game")
        if request.seat != len(self.seats):
            raise JoinError(
                f"join request is for seat {request.seat}, the next free seat is {len(self.seats)}"
            )
        if request.key in self.seat_keys:
            raise JoinError("this player already has a seat")
        self.seats.append(Seat(request.key, request.player, request.anchor, request.anchor))

    def _reveal(self, event: Event, seat: int) -> None:
        expect_keys(event.body, {"draw", "pre"})
        if type(event.body["draw"]) is not int or event.body["draw"] != self.draws:
            raise GameRuleError(f"reveal is for draw {event.body['draw']!r}, expected {self.draws}")
        pre = event.body["pre"]
        assert self.game is not None
        if not isinstance(pre, bytes) or not onion.check_reveal(
            self.game, self.seats[seat].last_reveal, pre
        ):
            raise GameRuleError("revealed value does not hash to the seat's committed onion layer")
        self.seats[seat].last_reveal = pre
        self.reveals.append(pre)
        if len(self.reveals) == len(self.seats):
            assert self.rules is not None
            step = self.rules.next(self.game_state)
            assert isinstance(step, NeedRandom)
            value = onion.uniform(
                onion.draw_entropy(self.game, self.draws, self.reveals), step.bound
            )
            self.game_state = self.rules.apply_random(self.game_state, value)
            self.draws += 1
            self.reveals = []

    # ----- words for people -----------------------------------------------------------------

    def seat_label(self, seat: int) -> str:
        label = f"seat {seat}, {self.seats[seat].label}"
        if self.started and self.rules is not None:
            label += f", {self.rules.describe(self.game_state, seat)}"
        return label

    @property
    def outcome_text(self) -> str | None:
        result = self.result
        if result is None:
            return None
        if result.culprit is not None:
            return f"void: {self.seat_label(result.culprit)} cheated ({result.reason})"
        if result.winner is None:
            return f"draw ({result.reason})"
        return f"{self.seat_label(result.winner)} wins by {result.reason}"
