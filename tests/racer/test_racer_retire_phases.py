"""A seat retired in each phase where the table can wait on it that the other retirement tests do
not reach (docs/spec-racer.md §5.9): the attacker after its declaration, the defender before the
Modifier die of a launched attack (or a third seat owing its reveal for it), the turn's seat
while a die or a card is drawn for another seat, a discard decision, the Deck Shift after another
seat revealed for it (the draw goes on), the roll to start, a reshuffle of the discard pile (its
pool is voided and made afresh), and a second departure while the first one's recovery or
refreshes are under way (the game ends abandoned there).  The others finish with identical logs
that verify valid and finished (or valid and abandoned, where PROTOCOL.md §5.5 says so)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import (  # noqa: E402
    OPTIONS,
    STOPS,
    Forks,
    Held,
    Stop,
    finish_without,
    later,
    one_log,
    play_until,
    play_until_owed,
    players,
    stops_in_play,
    undecoded,
)

from creepnet.engine import racer  # noqa: E402
from creepnet.engine.racer.retire import SET_UP  # noqa: E402
from creepnet.engine.racer.state import Declaring, Drawing, Exchange, Over  # noqa: E402
from creepnet.protocol.deck.escrowing import refresh_due  # noqa: E402
from creepnet.protocol.games.racer.adapter import RacerRules  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, RacerGame, next_step  # noqa: E402
from creepnet.protocol.rules import CannotPlayOn  # noqa: E402
from creepnet.protocol.session import Session  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402
from creepnet.protocol.verify import verify_log_bytes  # noqa: E402

pytestmark = pytest.mark.usefixtures("memoized_proofs")  # tests/proof_memo.py


def _phase(game: RacerGame, seat: int) -> str | None:
    """Which of PHASES the table is in, waiting on ``seat`` (None: another, or not its turn)."""
    state, step = game.state, next_step(game)
    stage, turn = state.stage, state.turn
    if isinstance(step, racer.Decide) and step.seat == seat:
        if step.topic == "attack" and isinstance(stage, Declaring) and stage.attackers:
            return "declaring"
        if step.topic == "discard":
            return "discard"
    if isinstance(step, racer.NeedDie) and isinstance(stage, Exchange):
        if seat == stage.defender:
            return "die-defender"
        if turn is not None and seat == turn.seat and step.seat == stage.defender:
            return "die-for-the-defender"
        if turn is not None and seat != turn.seat:
            return "die-of-another-attack"
    if isinstance(step, racer.NeedDie) and step.purpose == "start":
        return "start-roll"
    if isinstance(step, racer.NeedDie) and step.purpose == "deck-shift":
        return "deck-shift"
    if (
        isinstance(step, DeckStep)
        and step.seat == seat
        and step.op == "release"
        and step.to not in (-1, seat)
        and isinstance(stage, Drawing)
        and stage.then == "opening"
        and state.start_seat == seat
    ):
        return "opening-release"
    return None


def _reveal_owed(session: Session, seat: int) -> bool:
    turn = session.expected()
    return turn is not None and turn.seat == seat and "reveal" in turn.types


def _stop(phase: str) -> Stop:
    def owed(session: Session, seat: int) -> bool:
        if not session.started or session.finished or session.retired:
            return False
        game = session.game_state
        turn = game.state.turn
        if _phase(game, seat) != phase or (turn is not None and turn.number >= LIMIT):
            return False  # (not in the last turn: the game goes on after the retirement)
        if phase == "deck-shift":  # after another seat's reveal: the draw is spent unused
            return _reveal_owed(session, seat) and bool(session.reveals)
        return not phase.startswith(("die", "start")) or _reveal_owed(session, seat)

    return owed


LIMIT = 12
PHASES = [
    "declaring",
    "die-defender",
    "die-for-the-defender",
    "die-of-another-attack",
    "deck-shift",
    "discard",
    "start-roll",
    "opening-release",
]


@pytest.fixture(scope="module")
def phase_forks() -> Forks[str]:
    """Three-seat games from seed 0 on, each phase's table copied where the first reaches it."""

    def play() -> Iterator[Held]:
        left = {phase: _stop(phase) for phase in PHASES}
        for seed in range(30):
            options = {**OPTIONS, "turn_limit": LIMIT}
            t = SessionHarness(seats=3, kind="racer", options=options, seed=seed)
            table_players = players(3)
            for key, seat in stops_in_play(t, table_players, dict(left)):
                del left[key]
                yield key, seat, t, table_players
                if not left:
                    return

    return Forks(play(), settle=lambda t: t.pump())


def _finishes_without(t: SessionHarness, table: list, gone: int) -> None:
    left = [s for s in range(t.seats) if s != gone]
    finish_without(t, table, {gone})
    assert not [r for r in t.rejections if r[0] != gone], t.rejections
    verdict = verify_log_bytes(one_log(t, left))
    assert verdict.valid and verdict.finished, verdict.error
    assert any("retired by the table" in note for note in verdict.notes)
    assert not t.spectator.result.reason.startswith("audit"), t.spectator.result  # type: ignore[union-attr]
    assert undecoded(t.spectator.game_state) == []


@pytest.mark.parametrize("phase", PHASES)
def test_a_seat_retired_in_a_phase_and_the_others_finish(
    phase_forks: Forks[str], phase: str
) -> None:
    t, table, gone = phase_forks.take(phase)
    before = t.spectator.game_state.state
    assert _phase(t.spectator.game_state, gone) == phase
    run_without(t, table, {gone})
    assert t.spectator.waiting_for().seat == gone  # type: ignore[union-attr]
    draws = t.spectator.draws
    retire(t, gone)
    after = t.spectator.game_state.state
    if phase == "deck-shift":  # the set-up: the engine takes it out at the roll to start
        # Nothing of it is to recover yet (its draw pools' keys wait for the roll to start): the
        # draw goes on without it, the reveal made for it kept (spec-racer.md §5.9)
        assert (
            t.spectator.game_state.deferred == (gone,)
            and not t.spectator.game_state.to_recover[gone]
        )
        assert t.spectator.draws == draws and t.spectator.reveals
    else:
        assert not after.players[gone].active
    turn = before.turn
    if phase in ("declaring", "die-for-the-defender", "discard"):  # its own turn passes
        assert turn is not None and turn.seat == gone
        assert after.turn is not None and after.turn.number == turn.number + 1
    if phase == "die-defender":  # the attack ends as the attacker's move: that move is spent
        assert turn is not None and after.turn is not None and not isinstance(after.stage, Exchange)
        if after.turn.number == turn.number:
            assert after.turn.moves_left == turn.moves_left - 1
        else:
            assert after.turn.number == turn.number + 1 and turn.moves_left == 1
    if phase == "start-roll":
        assert gone not in getattr(after.stage, "contenders", ())
    if phase == "opening-release":
        assert after.start_seat != gone
    _finishes_without(t, table, gone)


def test_a_card_that_does_not_decode_after_one_retirement_is_an_audit_problem(
    phase_forks: Forks[str],
) -> None:
    # Only a second departure can lose an escrow: after one, every card decodes, so a slot the
    # audit cannot decode (as the reshuffle bug left two) is a problem, never passed over.
    t, table, gone = phase_forks.take("declaring")
    run_without(t, table, {gone})
    retire(t, gone)
    finish_without(t, table, {gone})
    game = t.spectator.game_state.fork()
    lost = [*game.state.players[gone].hand, *game.state.players[gone].deck][0]
    del game.where[lost]  # the audit can no longer name that slot's card
    game.result = game.cards = None
    RacerRules._finish(game)
    assert game.result is not None and game.result.reason.startswith("audit"), game.result


# --- a reshuffle of the discard pile under way ----------------------------------------------


def _owes_reshuffle(op: str, drawer: bool) -> Stop:
    def owed(session: Session, seat: int) -> bool:
        if not session.started or session.finished:
            return False
        game = session.game_state
        step, stage = next_step(game), game.state.stage
        return (
            isinstance(step, DeckStep)
            and step.seat == seat
            and step.op == op
            and step.by is None
            and step.pool is not None
            and step.pool.startswith("discard:")
            and isinstance(stage, Drawing)
            and (stage.queue[0][0] == seat) == drawer
            # not the drawer: its line leaves Calamities on the pile the pool was made from
            and (drawer or any(c.attached for c in game.state.players[seat].line))
        )

    return owed


RESHUFFLES = [("shuffle", False), ("lock", True)]


@pytest.fixture(scope="module")
def reshuffle_forks() -> Forks[tuple[str, bool]]:
    def play() -> Iterator[Held]:
        left = {(op, drawer): _owes_reshuffle(op, drawer) for op, drawer in RESHUFFLES}
        for seed in range(10):
            options = {**OPTIONS, "turn_limit": 80}
            t = SessionHarness(seats=3, kind="racer", options=options, seed=seed)
            table_players = players(3)
            for key, seat in stops_in_play(t, table_players, dict(left)):
                del left[key]
                yield key, seat, t, table_players
                if not left:
                    return

    return Forks(play(), settle=lambda t: t.pump())


@pytest.mark.parametrize(("op", "drawer"), RESHUFFLES)
def test_a_seat_retired_during_a_reshuffle_voids_its_pool_and_the_others_finish(
    reshuffle_forks: Forks[tuple[str, bool]], op: str, drawer: bool
) -> None:
    # The seat's line left its attachments on the pile (or its turn passed and the pile changed
    # before the next redeal): the half-made pool no longer held the pile's cards, so slots were
    # mapped to positions it did not have, and cards went missing from the audit unnoticed.
    t, table, gone = reshuffle_forks.take((op, drawer))
    game = t.spectator.game_state
    pool = f"discard:{game.reshuffles}"
    assert pool in game.deck.pools
    run_without(t, table, {gone})
    retire(t, gone)
    after = t.spectator.game_state
    assert after.voided == (pool,) and after.reshuffles == game.reshuffles + 1
    assert all(scalar.name != pool for scalar in after.to_recover[gone])
    _finishes_without(t, table, gone)
    end = t.spectator.game_state
    for slot, (name, j) in end.where.items():  # every reshuffled slot at a position it has
        if name.startswith("discard:"):
            assert name not in end.voided and j < len(end.deck.pools[name].slots), (slot, name)


# --- a second departure before the first one's recovery or refreshes are done ----------------


def _owes_own(op: str) -> Stop:
    def owed(session: Session, seat: int) -> bool:
        step = next_step(session.game_state) if session.started else None
        return isinstance(step, DeckStep) and step.seat == seat == 1 and step.op == op

    return owed


@pytest.fixture(scope="module")
def after_a_retirement() -> Forks[str]:
    """Four seats (seed 5, as the second departure of test_racer_retire_four.py): seat 3 retired
    at a decision from turn 2 on; copied where seat 1 owes its recovery, and its refresh."""

    def play() -> Iterator[Held]:
        t = SessionHarness(seats=4, kind="racer", options=OPTIONS, seed=5)
        table_players = players(4)
        play_until_owed(t, table_players, 3, later(STOPS["decision"], 2))
        run_without(t, table_players, {3})
        retire(t, 3)
        stops = {op: _owes_own(op) for op in ("recover", "refresh")}
        for key, seat in stops_in_play(t, table_players, stops):
            yield key, seat, t, table_players

    return Forks(play(), settle=lambda t: t.pump())


@pytest.mark.parametrize("op", ["recover", "refresh"])
def test_a_second_departure_that_loses_a_share_ends_the_game_abandoned(
    after_a_retirement: Forks[str], op: str
) -> None:
    # Seat 1 held a share of seat 3's keys the table still needed (not yet published), or its
    # own newest escrows still named seat 3: nobody could ever make seat 3's steps, and the
    # table froze at the first one.  Now that retire ends the game, abandoned by seat 1.
    t, table, gone = after_a_retirement.take(op)
    assert gone == 1
    run_without(t, table, {1, 3})
    assert t.spectator.waiting_for().seat == 1  # type: ignore[union-attr]
    event = retire(t, 1)
    assert not t.rejections
    for _, session in t.everyone:
        claim = session.abandoned
        assert claim is not None and (claim.seat, claim.claimant) == (1, 0)
        assert session.expected() is None
    run_without(t, table, {1, 3})  # nothing is owed any more
    verdict = verify_log_bytes(one_log(t, [0, 2]))
    assert verdict.valid and not verdict.finished, verdict.error
    claimed = f"unfinished: abandoned by seat 1, claimed by seat 0 at seq {event.seq}"
    assert verdict.outcome == claimed


def test_a_share_lost_once_the_game_is_decided_costs_the_audit_only(
    after_a_retirement: Forks[str],
) -> None:
    # The same loss at the end-of-game reveals (say the first retirement left one seat in
    # the race): no step of seat 3 is owed any more, so the game keeps its result.
    t, _, gone = after_a_retirement.take("recover")
    rules, game = t.spectator.rules, t.spectator.game_state
    with pytest.raises(CannotPlayOn):
        rules.retire(game, gone)
    decided = game.fork()
    decided.state = replace(decided.state, stage=Over(0))
    after = rules.retire(decided, gone)
    assert after.retired == (3, 1) and after.to_recover[1] == ()
    step = next_step(after)  # the others' useless shares, then the reveals: nothing is stuck
    assert isinstance(step, DeckStep) and step.op == "recover" and step.seat == 2


def test_a_second_departure_after_the_recovery_and_its_refresh_plays_on() -> None:
    # The same table, seat 1 retired later, at a decision: its share of seat 3's keys is
    # published, its escrows re-dealt, so nothing is lost and the two left finish.
    t = SessionHarness(seats=4, kind="racer", options=OPTIONS, seed=5)
    table = players(4)
    play_until_owed(t, table, 3, later(STOPS["decision"], 2))
    run_without(t, table, {3})
    retire(t, 3)
    gone = play_until(t, table, lambda s, seat: seat == 1 and STOPS["decision"](s, seat))
    assert gone == 1
    run_without(t, table, {1, 3})
    retire(t, 1)
    assert t.spectator.abandoned is None
    finish_without(t, table, {1, 3})
    verdict = verify_log_bytes(one_log(t, [0, 2]))
    assert verdict.valid and verdict.finished, verdict.error


def _set_up_lock_of_a_later_draw_pool(session: Session, seat: int) -> bool:
    # it has locked the first draw pool: its lock keys there go to whoever the Deck Shift gives
    # that pool, so the table will need them at the roll to start
    if not session.started or seat != 3:
        return False
    game = session.game_state
    step = next_step(game)
    return (
        isinstance(step, DeckStep)
        and step.seat == 3
        and step.op == "lock"
        and isinstance(game.state.stage, SET_UP)
        and step.pool in game.draw_pools.values()
        and step.pool != game.draw_pools.get(0)
    )


def _set_up_deck_step(session: Session, seat: int) -> bool:
    if not session.started or seat != 1:
        return False
    game = session.game_state
    step = next_step(game)
    return (
        isinstance(step, DeckStep)
        and step.seat == 1
        and step.by is None
        and step.op in ("shuffle", "lock")
        and isinstance(game.state.stage, SET_UP)
    )


def test_a_second_departure_in_the_set_up_before_the_draw_pools_keys_are_known_ends_it() -> None:
    # Seat 3, retired in the set-up after its lock of a draw pool, has lock keys there that the
    # table recovers only at the roll to start (its own draw pool is not known before the Deck
    # Shift).  Seat 1 holds a share of each and leaves first: they are lost, so this retire
    # ends the game (else the table froze at the first draw from that pool).
    t = SessionHarness(seats=4, kind="racer", options=OPTIONS, seed=5)
    table = players(4)
    assert play_until(t, table, _set_up_lock_of_a_later_draw_pool) == 3
    run_without(t, table, {3})
    retire(t, 3)
    assert play_until(t, table, _set_up_deck_step) == 1
    assert not any(refresh_due(t.spectator.game_state.deck, s) for s in (0, 1, 2))
    run_without(t, table, {1, 3})
    retire(t, 1)
    claim = t.spectator.abandoned
    assert claim is not None and (claim.seat, claim.claimant) == (1, 0)
    verdict = verify_log_bytes(one_log(t, [0, 2]))
    assert verdict.valid and not verdict.finished, verdict.error
