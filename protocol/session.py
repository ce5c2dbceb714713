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

The session's **phase** (``Phase``, h11-style) and the events each allows, in one place
(``ALLOWED``; ``expected`` names the one entitled seat, ``_commit`` is the only transition):

    empty     → genesis (by the key the game id commits to: protocol/seating.py)
    lobby     → seat (host, while seats are free) · start (host, once full)
    playing   → the game's Turn · reveal (every seat in seat order: protocol/reveals.py)
                · an owed step (the seat the game names)
                · retire (3+ seats left) or abandon (2 left) of the seat waited on, by the
                  seat protocol/retirement.py names
    finished, exhausted (randomness spent), halted (equivocation),
    abandoned (a 2-seat claim) → nothing

Invariants kept here and nowhere else: the log is a verified chain whose every event was judged
by ``_commit`` against the state before it; a rejected event changes nothing (every new value is
computed first and assigned together, and a game's ``apply`` leaves its input as it was); the
game halts only on a proof that checks against the log (``halt``).

This module is the façade, the state and the one commit path; its parts live beside it and
use only its public methods: seating.py (genesis and joins), entitlement.py (judging an event's
author and type), reveals.py (onion draws), authoring.py (what the local seat writes),
receiving.py (disorder, duplicates, equivocation: the ``Inbox``) and labels.py (words for people).
"""

from __future__ import annotations

import secrets
from enum import Enum
from typing import Any

from creepnet.protocol import authoring, onion, retirement
from creepnet.protocol.digest import state_digest
from creepnet.protocol.entitlement import check_entitled, is_decision, waited_on
from creepnet.protocol.event import Event, sign_event
from creepnet.protocol.identity import Identity
from creepnet.protocol.labels import Waiting, outcome_text, seat_label
from creepnet.protocol.lobby import GAME_NONCE_SIZE, JoinError, SeatSecrets, derive_game_id
from creepnet.protocol.log import (
    EquivocationProof,
    EventLog,
    Rejection,
    check_link,
    parse_or_reject,
)
from creepnet.protocol.pending import Allowance
from creepnet.protocol.receiving import Inbox, Receipt
from creepnet.protocol.reveals import check_reveal, draw_value
from creepnet.protocol.rules import (
    CannotPlayOn,
    GameRuleError,
    GameRules,
    HiddenInformation,
    NeedRandom,
    Owed,
    PrivateSide,
    Result,
    Retiring,
    Seating,
    Turn,
    WrapsEngine,
    expect_keys,
)
from creepnet.protocol.seating import MAX_GAME_NAME, Seat, read_genesis, read_seat

__all__ = ["ALLOWED", "MAX_GAME_NAME", "Phase", "Receipt", "Seat", "Session", "Waiting"]


class Phase(Enum):
    """Where a session is in its game (the module docstring's table)."""

    EMPTY = "empty"
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    EXHAUSTED = "exhausted"
    HALTED = "halted"
    ABANDONED = "abandoned"


# The event types each phase allows ("turn": the game's turn types and owed steps, and reveal).
ALLOWED: dict[Phase, frozenset[str]] = {
    Phase.EMPTY: frozenset({"genesis"}),
    Phase.LOBBY: frozenset({"seat", "start"}),
    Phase.PLAYING: frozenset({"turn", "reveal", "retire", "abandon"}),
    Phase.FINISHED: frozenset(),
    Phase.EXHAUSTED: frozenset(),
    Phase.HALTED: frozenset(),
    Phase.ABANDONED: frozenset(),
}


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
        self.retired: list[int] = []  # seats retired by the table, in log order
        self.skipped: dict[int, int] = {}  # seat -> onion layers its next reveal skips
        self.abandoned: retirement.Abandonment | None = None
        self.retire_after = retirement.DEFAULT_RETIRE_AFTER  # seconds (a genesis option)
        self._private: PrivateSide | None = None
        self.pinned_host = host  # the genesis must be signed by this key, when known
        self._inbox = Inbox()  # held events, and what `passable` parsed last
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

    def adopt(self, other: Session) -> None:
        """Become ``other``: a replay of a prefix of this log with a retirement of our seat
        that overtook our own events there (node/overtaken.py).  In place, so every holder of
        this session (a face, the bot, the stall watcher) sees the table's log from now on."""
        if other.game != self.game or other.identity is not self.identity:
            raise ValueError("a session adopts only a replay of its own game and seat")
        vars(self).clear()
        vars(self).update(vars(other))

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
    def remaining(self) -> tuple[int, ...]:
        """The seats still playing (not retired), in seat order."""
        return self._playing(self.retired)

    @property
    def retires_a_silence(self) -> bool:
        """Whether the table retires a silent seat and plays on (three or more seats still
        playing), rather than the one other seat claiming the game abandoned (two): what every
        face tells a player about waiting, leaving and silence."""
        return len(self.remaining) > 2

    def _playing(self, retired: list[int]) -> tuple[int, ...]:
        return retirement.remaining(len(self.seats), retired)

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
    def over(self) -> bool:
        """Nothing more can be played: finished, halted on a fork, or claimed abandoned."""
        return self.finished or self.halted is not None or self.abandoned is not None

    @property
    def result(self) -> Result | None:
        if self.rules is None or not self.started:
            return None
        return self.rules.result(self.game_state)

    @property
    def engine_state(self) -> Any:
        """The game engine's own state, for faces that draw it (None before the start)."""
        return self.game_state.state if isinstance(self.game_state, WrapsEngine) else None

    @property
    def phase(self) -> Phase:
        return self._where()[0]

    def _where(self) -> tuple[Phase, Turn | NeedRandom | Owed | None]:
        """The phase, and while playing the game's next step (asked once: it may cost)."""
        if self.halted is not None:
            return Phase.HALTED, None
        if not self.log.events:
            return Phase.EMPTY, None
        if self.abandoned is not None:
            return Phase.ABANDONED, None
        if not self.started:
            return Phase.LOBBY, None
        assert self.rules is not None
        if self.rules.result(self.game_state) is not None:
            return Phase.FINISHED, None
        step = self.rules.next(self.game_state)
        if isinstance(step, NeedRandom) and self.draws >= self.onion_length:
            return Phase.EXHAUSTED, None  # nobody can extend the game any more
        return (Phase.PLAYING, step) if step is not None else (Phase.FINISHED, None)

    def expected(self) -> Turn | None:
        """The seat entitled to author the next event and the types it may author."""
        phase, step = self._where()
        if phase is Phase.LOBBY:
            if len(self.seats) < self.seat_count:
                return Turn(0, frozenset({"seat"}), "seat the next player who asks to join")
            return Turn(0, frozenset({"start"}), "start the game")
        if isinstance(step, NeedRandom):
            seat = self.remaining[len(self.reveals)]  # retired seats reveal no more
            what = f"reveal randomness for the {step.purpose}"
            return Turn(seat, frozenset({"reveal"}), what, automatic=True)
        if isinstance(step, Owed):
            return Turn(step.seat, frozenset({step.type}), step.what, automatic=True)
        return step

    def exhausted(self) -> bool:
        """The game needs a random draw but every committed onion preimage is spent."""
        return self.phase is Phase.EXHAUSTED

    def waiting_for(self) -> Waiting | None:
        turn = self.expected()
        if turn is None or turn.seat >= len(self.seats):
            return None
        seat = self.seats[turn.seat]
        return Waiting(turn.seat, seat.key, seat.player, len(self.log) - 1, turn.what)

    def my_turn(self) -> Turn | None:
        """The local seat's turn to take a decision (not an automatic step), if it is one."""
        turn = self.expected()
        return turn if is_decision(turn, self.local_seat) else None

    @property
    def private(self) -> PrivateSide | None:
        """The local seat's private side, for games with hidden information (else None)."""
        if self._private is None and self.started and self.secrets is not None:
            seat = self.local_seat
            if isinstance(self.rules, HiddenInformation) and seat is not None:
                self._private = self.rules.private_side(self._seating(), seat, self.secrets)
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
        receipt = self._inbox.receive(self, raw)
        if sender is not None and receipt.status in ("duplicate", "pending", "deferred", "late"):
            self._allowance.charge(sender)
        return receipt

    def wasted(self, sender: bytes) -> int:
        """Deliveries from sender charged to its allowance so far (protocol/pending.py)."""
        return self._allowance.wasted(sender)

    def owed_author(self) -> bytes | None:
        """The key of the seat owed the next event once the game has started (None before,
        after the end, or where nobody is seated): whose chain a relay may pass on."""
        turn = self.expected() if self.started else None
        if turn is None or turn.seat >= len(self.seat_keys):
            return None
        return self.seat_keys[turn.seat]

    def passable(self, raws: list[bytes]) -> int:
        """How many leading raws a relay may pass on before checking them (Inbox.passable)."""
        return self._inbox.passable(self, raws)

    def knows(self, event_id: bytes) -> bool:
        """Whether the event with this id is in the log (a duplicate is found by one hash)."""
        return event_id in self._ids

    @property
    def held(self) -> int:
        """How many events are held for positions not yet reached (protocol/pending.py)."""
        return len(self._inbox.held)

    def halt(self, proof: EquivocationProof) -> None:
        """Stop the game on an equivocation: two events by one author for one position, the first
        of them the one this log accepted there.  Anything less is refused (ValueError)."""
        first = proof.verify()
        if first.seq >= len(self.log) or self.log.events[first.seq].raw != proof.first:
            raise ValueError("the proof's first event is not the one this log holds")
        self.halted = proof

    # ----- local actions --------------------------------------------------------------------

    def admit(self, join_request: bytes) -> Event:
        """Host: seat the player who sent this signed join request."""
        return authoring.admit(self, join_request)

    def join_request(self, player: str) -> bytes:
        """Joiner: a signed request for the next free seat of this (lobby) game."""
        return authoring.join_request(self, player)

    def owed(self) -> list[Event]:
        """Sign and append every automatic event the local seat owes now (start, reveals).

        Raises OnionExhausted when the game is stuck for want of randomness, but only when there
        is nothing to send: events already signed are always returned, never lost.
        """
        return authoring.owed(self)

    def play(self, text: str) -> Event:
        """The local player's decision, in the game's command words (``e7-d6``, ``resign``)."""
        return authoring.play(self, text)

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

    def write(self, type_: str, body: dict[str, Any]) -> Event:
        """Sign and append our own event through the very checks a peer's event goes through."""
        event = self._sign(type_, body)
        self._commit(event)
        return event

    # ----- the one path every event takes ---------------------------------------------------

    def _commit(self, event: Event) -> None:
        """Check event against everything and append it; on any failure nothing has changed.

        Every check and every rule runs on new values (the game's ``apply`` returns a new state
        and leaves the one it is given as it was: protocol/rules.py); they are assigned together
        only once the whole event is accepted.  A rule that fails in an unforeseen way is still
        a rejection naming the event's author, never an exception out of ``receive``."""
        if self.halted is not None:
            raise Rejection(event.seq, "halted", "the game was stopped by an equivocation")
        check_link(event, self.game, len(self.log), self.log.head)
        try:
            if event.seq == 0:
                self._genesis(event)
            else:
                self._entitled(event)
        except Rejection:
            raise
        except (GameRuleError, JoinError) as exc:
            raise Rejection(event.seq, "illegal", str(exc), event.author) from None
        except Exception as exc:  # a bug in a game's rules must never become a remote kill switch
            reason = f"the game's rules failed on this event ({type(exc).__name__}: {exc})"
            raise Rejection(event.seq, "illegal", reason, event.author) from None
        self.log.events.append(event)  # check_link already validated the link
        self._ids.add(event.id)

    def _entitled(self, event: Event) -> None:
        if event.type in retirement.TYPES and self.started:
            self._retire(event)
            return
        turn = check_entitled(event, self.expected(), self.seat_keys, self.exhausted)
        if event.type == "seat":
            self.seats.append(read_seat(event, self.game, self.log.events[0].id, self.seats))
        elif event.type == "start":
            expect_keys(event.body, set())
            assert self.rules is not None
            game_state = self.rules.start(self.seat_count, self.options, self._seating())
            self.started, self.game_state = True, game_state
        elif event.type == "reveal":
            self._reveal(event, turn.seat)
        else:
            assert self.rules is not None
            self.game_state = self.rules.apply(
                self.game_state, turn.seat, event.type, event.body, event.seq
            )

    def _genesis(self, event: Event) -> None:
        founded = read_genesis(event, self.pinned_host)
        self.game = founded.game
        self.kind, self.name, self.rules = founded.rules.kind, founded.name, founded.rules
        self.seat_count, self.onion_length = founded.seat_count, founded.onion_length
        self.options, self.retire_after = retirement.split_options(founded.options)
        self.seats = [founded.host]

    def _reveal(self, event: Event, seat: int) -> None:
        assert self.game is not None and self.rules is not None
        skip = self.skipped.get(seat, 0)
        pre = check_reveal(self.game, self.seats[seat].last_reveal, self.draws, event.body, skip)
        reveals, game_state, draws = self._draw([*self.reveals, pre], self.game_state, self.retired)
        self.seats[seat].last_reveal = pre
        self.reveals, self.game_state, self.draws = reveals, game_state, draws
        self.skipped = {s: k for s, k in self.skipped.items() if s != seat}

    def _draw(
        self, reveals: list[bytes], game_state: Any, retired: list[int]
    ) -> tuple[list[bytes], Any, int]:
        """The draw done once every remaining seat has revealed (else nothing changes)."""
        assert self.game is not None and self.rules is not None
        step = self.rules.next(game_state)
        playing = len(self.seats) - len(retired)
        if len(reveals) < playing or not isinstance(step, NeedRandom):
            return reveals, game_state, self.draws
        value = draw_value(self.game, self.draws, reveals, step.bound)
        return [], self.rules.apply_random(game_state, value), self.draws + 1

    def _retire(self, event: Event) -> None:
        """A ``retire`` or ``abandon`` of the seat the table waits on (protocol/retirement.py)."""
        assert self.game is not None and self.rules is not None
        seat = waited_on(event, self.expected(), self.exhausted).seat
        position = retirement.Position(self.game, event.seq, event.prev, seat)
        if event.type == "abandon":
            claimant = retirement.check_abandon(position, self.seat_keys, self.retired, event)
            self.abandoned = retirement.Abandonment(seat, claimant, event.seq)
            return
        retirement.check_retire(position, self.seat_keys, self.retired, event)
        try:
            if not isinstance(self.rules, Retiring):
                raise CannotPlayOn(f"{self.kind} cannot play on without a seat")
            game_state = self.rules.retire(self.game_state, seat)
        except CannotPlayOn:
            # Every other seat voted X out and nothing of X can take its place: the game stops
            # here, abandoned by X as a 2-seat game would be, claimed by the retire's author
            # (refusing the retire instead left the table waiting on X for ever).
            author = retirement.retire_author(len(self.seat_keys), self.retired, seat)
            self.abandoned = retirement.Abandonment(seat, author, event.seq)
            return
        retired = [*self.retired, seat]
        reveals, game_state, draws = self._draw(self.reveals, game_state, retired)
        skipped = self.skipped
        if reveals and not isinstance(self.rules.next(game_state), NeedRandom):
            # The draw's purpose left with the seat (its own die): the draw is spent unused,
            # and the seats that had not revealed for it skip that layer of their onion.
            done = len(reveals)
            skipped = {
                **skipped,
                **{s: skipped.get(s, 0) + 1 for s in self._playing(retired)[done:]},
            }
            reveals, draws = [], draws + 1
        self.retired, self.reveals, self.skipped = retired, reveals, skipped
        self.game_state, self.draws = game_state, draws

    def state_digest(self) -> bytes:
        """A digest of everything this session holds (protocol/digest.py), its log, game,
        buffers and caches included: the same before and after an event it rejects.  The
        identity and seat secrets it was made with are left out: no event can change them."""
        held = {k: v for k, v in vars(self).items() if k not in ("identity", "secrets")}
        return state_digest(held)

    # ----- words for people -----------------------------------------------------------------

    def seat_label(self, seat: int) -> str:
        return seat_label(self, seat)

    @property
    def outcome_text(self) -> str | None:
        return outcome_text(self)
