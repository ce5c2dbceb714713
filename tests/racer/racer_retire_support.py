"""Playing a Racer table with escrow up to a seat's departure and on without it, for the
retirement tests: one event at a time (``play_until``), so a test can stop (or doctor) a seat at
the very event it owes (``Session.owed`` signs every automatic event a seat owes at once), or
until a seat owes a kind of step (``play_until_owed``), and the checks a table that finished
without a seat must pass."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

from conftest import deep_copy

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

from creepnet.engine import racer  # noqa: E402
from creepnet.protocol.authoring import own_reveal  # noqa: E402
from creepnet.protocol.deck.escrowing import refresh_due  # noqa: E402
from creepnet.protocol.event import Event  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, RacerGame, next_step  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

# Every stop of these tests comes by turn 5 (the four-seat Hostage hand-overs); the games are
# the same as with a later limit up to it, and play three turns and more after the departure.
OPTIONS = {"creeps_per_player": 3, "face_up_creeps": 1, "escrow": 1, "turn_limit": 8}

# (the seat's own session, the seat) -> True to stop before it signs its next event
Stop = Callable[[Session, int], bool]
K = TypeVar("K")


def one_owed(session: Session) -> Event | None:
    """Sign and append the next automatic event the seat owes, if any (one only)."""
    turn = session.expected()
    if turn is None or turn.seat != session.local_seat:
        return None
    if "start" in turn.types:
        return session.write("start", {})
    if not turn.automatic:
        return None
    if "reveal" in turn.types:
        assert session.secrets is not None and session.game is not None
        body = own_reveal(
            session.game, session.secrets.onion_seed, session.onion_length, session.draws
        )
        return session.write("reveal", body)
    assert session.private is not None
    return session.write(*session.private.owed(session.game_state, len(session.log)))


def stops_in_play(
    t: SessionHarness, players: list, stops: Mapping[K, Stop], rounds: int = 5_000
) -> Iterator[tuple[K, int]]:
    """Every seat plays, one event at a time; (key, seat) the first time each stop holds for a
    seat before it signs (that seat's events of this go not yet delivered), until every stop
    has held or the game ends.  Play goes on unchanged after each: no stop alters the game."""
    held: set[K] = set()
    for _ in range(rounds):
        for seat, session in enumerate(t.sessions):
            while True:
                for key, stop in stops.items():
                    if key not in held and stop(session, seat):
                        held.add(key)
                        yield key, seat
                if len(held) == len(stops):
                    return
                event = one_owed(session)
                if event is None:
                    break
                t.broadcast(seat, [event])
            if session.my_turn() is not None:
                t.broadcast(seat, [session.play(players[seat](session))])
            t.pump()
        if t.spectator.finished:
            return
    raise AssertionError("the game neither ended nor reached every stop")


def play_until(t: SessionHarness, players: list, stop: Stop, rounds: int = 5_000) -> int | None:
    """Every seat plays, one event at a time, until ``stop`` holds for a seat before it signs
    (that seat is returned, everything sent delivered) or the game ends (None)."""
    for _, seat in stops_in_play(t, players, {None: stop}, rounds):
        t.pump()
        return seat
    return None


# --- stopping at a kind of owed step ------------------------------------------------------------


def _deck_step(op: str, private: bool | None = None) -> Stop:
    def owed(session: Session, seat: int) -> bool:
        if not session.started:
            return False
        step = next_step(session.game_state)
        return (
            isinstance(step, DeckStep)
            and step.seat == seat
            and step.op == op
            and (private is None or (step.to != -1) == private)
        )

    return owed


def _reveal(session: Session, seat: int) -> bool:
    turn = session.expected()
    return session.started and turn is not None and turn.seat == seat and "reveal" in turn.types


def _decision(session: Session, seat: int) -> bool:
    turn = session.expected()
    return session.started and turn is not None and turn.seat == seat and not turn.automatic


STOPS: dict[str, Stop] = {
    "shuffle": _deck_step("shuffle"),
    "lock": _deck_step("lock"),
    "private release": _deck_step("release", private=True),
    "onion reveal": _reveal,
    "decision": _decision,
}


def later(stop: Stop, turns: int) -> Stop:
    """``stop``, but only from turn ``turns`` on (mid-game, not in the set-up)."""

    def owed(session: Session, seat: int) -> bool:
        turn = session.started and session.game_state.state.turn
        return bool(turn) and turn.number >= turns and stop(session, seat)  # type: ignore[union-attr]

    return owed


def players(seats: int) -> list:
    return [seat_bot("racer", "random", s) for s in range(seats)]


def owed_in_play(
    t: SessionHarness, players: list, gone: int, stops: Mapping[K, Stop]
) -> Iterator[tuple[K, int]]:
    """Every seat plays; (key, ``gone``) the first time ``gone`` owes the step its stop names
    (by the spectator's replica, everything sent delivered), until every stop has held."""
    held: set[K] = set()
    for _ in range(20_000):
        for seat, session in enumerate(t.sessions):
            for key, stop in stops.items():
                if key not in held and stop(t.spectator, gone):
                    held.add(key)
                    yield key, gone
            if len(held) == len(stops):
                return
            owed = session.owed()  # the spectator is as it was: no stop holds before the move
            if session.my_turn() is not None:
                owed.append(session.play(players[seat](session)))
            t.broadcast(seat, owed)
            t.pump()
    raise AssertionError("the seat never owed that step")


def play_until_owed(t: SessionHarness, players: list, gone: int, stop: Stop) -> None:
    """Every seat plays until ``gone`` owes the step ``stop`` names; then it is silent."""
    next(owed_in_play(t, players, gone, {None: stop}))


# --- one game standing in for several that differ only in where they stop ---------------------


def copied(t: SessionHarness, players: list) -> tuple[SessionHarness, list]:
    """A deep copy of the table and its bots: nothing shared, and it goes on exactly as the
    original would (the same decisions from the same states; only fresh proof nonces differ).
    The events of the logs are the exception: immutable (a frozen Event, whose only cache is its
    own signature's verdict), so both tables hold the same ones, as copy.deepcopy treats bytes."""
    events: dict[int, Any] = {id(e): e for _, session in t.everyone for e in session.log.events}
    return deep_copy((t, players), events)


# what a game played for forks yields: a stop's key and seat, at that table with those players
Held = tuple[K, int, SessionHarness, list]


def at_table(t: SessionHarness, players: list, play: Iterator[tuple[K, int]]) -> Iterator[Held]:
    return ((key, seat, t, players) for key, seat in play)


class Forks(Generic[K]):
    """Tables copied from a game the first time each of its stops held, so each test goes on
    from its stop as a game played afresh to it would have, without playing the same opening
    again.  Played lazily, only as far as the stop asked for.  ``play`` is ``stops_in_play`` or
    ``owed_in_play`` (through ``at_table``); ``settle`` makes a copy the table that a fresh game
    stopped there would leave (``play_until`` delivers what the stopped seat had sent)."""

    def __init__(
        self, play: Iterator[Held], settle: Callable[[SessionHarness], Any] = lambda t: None
    ) -> None:
        self.play, self.settle = play, settle
        self.kept: dict[K, tuple[SessionHarness, list, int]] = {}

    def take(self, key: K) -> tuple[SessionHarness, list, int]:
        """A table of its own at ``key``'s stop, its players, and the seat the stop held for."""
        while key not in self.kept:
            held = next(self.play, None)
            if held is None:
                raise AssertionError(f"no game reached {key!r}")
            said, seat, t, players = held
            fork, fork_players = copied(t, players)
            self.settle(fork)
            self.kept[said] = (fork, fork_players, seat)
        fork, fork_players, seat = self.kept[key]
        return (*copied(fork, fork_players), seat)  # the kept one stays as it is, for the next


# --- the table that finished without a seat -----------------------------------------------------


def finish_without(t: SessionHarness, players: list, gone: set[int]) -> None:
    run_without(t, players, gone)
    for seat in range(t.seats):
        if seat not in gone:
            assert t.sessions[seat].finished, t.sessions[seat].waiting_for()


def one_log(t: SessionHarness, seats: list[int]) -> bytes:
    """The log every seat of ``seats`` and the spectator hold: one and the same."""
    logs = {b"".join(e.raw for e in t.sessions[s].log.events) for s in seats}
    logs.add(b"".join(e.raw for e in t.spectator.log.events))
    assert len(logs) == 1
    return logs.pop()


def undecoded(game: RacerGame) -> list[int]:
    """Slots the end-of-game audit could not decode (none, once every escrow opened)."""
    state = game.state
    assert game.cards is not None
    return [s for _, s in racer.locations(state) if s not in state.known and s not in game.cards]


# --- one seat stops at each kind of step, at three or four seats -------------------------------


def stop_forks(seats: int) -> Forks[str]:
    """One game (seed ``seats``) copied where seat 1 first owes each kind of step in STOPS."""
    t = SessionHarness(seats=seats, kind="racer", options=OPTIONS, seed=seats)
    table_players = players(seats)
    return Forks(at_table(t, table_players, owed_in_play(t, table_players, 1, STOPS)))


def retire_and_finish(t: Any, players: Any, gone: int) -> None:
    """The others run until the table waits on ``gone``, retire it and finish: the log verifies
    as a finished game with a real ending and every card decoded."""
    run_without(t, players, {gone})
    assert t.spectator.waiting_for().seat == gone  # type: ignore[union-attr]
    retire(t, gone)
    finish_without(t, players, {gone})
    assert not t.rejections
    left = [s for s in range(t.seats) if s != gone]
    verdict = verify_log_bytes(one_log(t, left))
    assert verdict.valid and verdict.finished, verdict.error
    assert any("retired by the table" in note for note in verdict.notes)
    # A real ending, not a void, and a full audit: the retired seat's cards decode from its
    # escrow (its hand and Draw Deck included), so every card is checked to be in one place.
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]
    assert undecoded(t.spectator.game_state) == []


def seat_stops_and_the_others_finish(forks: Forks[str], stop: str) -> None:
    """From a table where seat 1 owes ``stop``'s step (the same game as one played afresh to it)."""
    t, players, gone = forks.take(stop)
    seats = t.seats
    retire_and_finish(t, players, gone)
    left = [s for s in range(seats) if s != gone]
    game = t.spectator.game_state
    out = [*game.state.players[gone].hand, *game.state.players[gone].deck]
    assert out and all(slot in game.cards or slot in game.state.known for slot in out)
    assert not game.state.players[gone].active and game.retired == (gone,)
    book = game.deck.escrow
    ops = [e.body.get("op") for e in t.spectator.log.events if e.type == "deck"]
    assert all((gone, scalar) in book.recovered for scalar in game.to_recover[gone])
    # one round of recoveries (two when retired before the Deck Shift: its draw deck is known
    # only after it), each by every seat left
    rounds, rest = divmod(ops.count("recover"), len(left))
    assert rest == 0 and (rounds > 0) == bool(game.to_recover[gone]) and rounds <= 2
    assert not any(refresh_due(game.deck, s) for s in left)
    assert ops.count("refresh") <= (len(left) if seats == 4 else 0)
