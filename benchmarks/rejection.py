"""What a rejected event costs, and what making rejection change nothing costs (issue 21).

1. **Fork overhead**: ``Session.from_log`` of a seeded 4-player Racer log with the game forked per
   event (``RacerGame.fork``, as built) and with the fork short-circuited (the old in-place path,
   which was unsafe but is the floor), interleaved so machine load hits both alike.
2. **CPU by proof** (attack 5): at a kept drawn card, what a verifier spends on the valid none-of
   proof, on an invalid one of the right size, on an invalid OR-proof in the old list form (a
   well-formed list with one canonical pair per card the family may hide: the most a list can
   cost), and on a malformed list (wrong count, refused before any group operation).  ``apply`` is
   pure, so each is timed on the same state.

Times are CPU seconds of this process (``time.process_time``, every thread), the best of several
rounds, so other load on a shared machine does not skew the ratios.

    nice -n 19 .venv/bin/python benchmarks/rejection.py [--players 4] [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import time
from collections.abc import Callable

from creepnet.protocol.deck.group import L
from creepnet.protocol.games.racer import table as racer_table
from creepnet.protocol.games.racer.schedule import may_be, next_step, not_a_creep
from creepnet.protocol.log import Rejection, parse_or_reject
from creepnet.protocol.rules import GameRuleError
from creepnet.protocol.session import Session
from creepnet.protocol.testing.sessions import SessionHarness, seat_bot


def seeded_log(players: int) -> list[bytes]:
    table = SessionHarness(
        seats=players, kind="racer", options={"turn_limit": 40}, seed=1, onion_length=512
    )
    table.run([seat_bot("racer", "random", seat) for seat in range(players)])
    return [event.raw for event in table.spectator.log.events]


def fork_overhead(raws: list[bytes], rounds: int) -> None:
    real = racer_table.RacerGame.fork
    best = {"fork": float("inf"), "in place": float("inf")}
    for _ in range(rounds):
        for name in best:
            racer_table.RacerGame.fork = real if name == "fork" else (lambda self: self)  # type: ignore[method-assign]
            start = time.process_time()
            Session.from_log(raws)
            best[name] = min(best[name], time.process_time() - start)
    racer_table.RacerGame.fork = real  # type: ignore[method-assign]
    ratio = best["fork"] / best["in place"]
    per_event = 1000 * (best["fork"] - best["in place"]) / len(raws)
    print(
        f"from_log of {len(raws)} events (CPU): in place {best['in place']:.3f} s, "
        f"forked {best['fork']:.3f} s ({ratio:.3f}x, {per_event:+.3f} ms/event)"
    )


def seconds(call: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        with contextlib.suppress(GameRuleError, Rejection):
            call()
        best = min(best, time.process_time() - start)
    return best


def proof_costs(raws: list[bytes], repeat: int) -> None:
    """Replay to a kept drawn card (with a none-of proof) past the first third of the game."""
    session = Session()
    position = None
    for raw in raws:
        event = parse_or_reject(raw)
        proof = event.body.get("proof")
        if event.type == "act" and isinstance(proof, bytes) and len(session.log) > len(raws) // 3:
            position = event
            break
        session.accept(raw)
    assert position is not None, "no kept card with a none-of proof in this log"
    turn = session.expected()
    assert turn is not None and session.rules is not None
    game, seat, seq = session.game_state, turn.seat, position.seq
    rules = session.rules
    slot = next_step(game).slot
    _, _, excluded = not_a_creep(game, slot)
    allowed = may_be(game)
    honest = position.body

    def apply(body: dict) -> Callable[[], object]:
        return lambda: rules.apply(game, seat, "act", body, seq)

    flipped = bytearray(honest["proof"])
    flipped[-1] ^= 1
    pairs = [
        int.to_bytes(1 + secrets.randbelow(L - 1), 32, "little")
        + int.to_bytes(1 + secrets.randbelow(L - 1), 32, "little")
        for _ in allowed
    ]
    cases = {
        f"valid none-of ({len(excluded)} Creeps excluded)": apply(honest),
        "invalid none-of, right size": apply({**honest, "proof": bytes(flipped)}),
        f"invalid OR-proof list, {len(allowed)} pairs (old form)": apply(
            {**honest, "proof": pairs}
        ),
        "malformed OR-proof list, one pair short": apply({**honest, "proof": pairs[:-1]}),
    }
    base = None
    for name, call in cases.items():
        cost = seconds(call, repeat)
        base = base or cost
        print(f"{name:55s} {1000 * cost:8.3f} ms  ({cost / base:5.2f}x the valid one)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    raws = seeded_log(args.players)
    fork_overhead(raws, args.rounds)
    proof_costs(raws, 20)


if __name__ == "__main__":
    main()
