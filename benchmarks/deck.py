"""Cost of encrypted decks: set-up (shuffle + lock + proofs), verification, a private
draw end to end, and the audit, against the bare cost of one scalar multiplication
measured in the same run.

Set-up "complete" = every seat's own work (shuffle + lock + proofs) plus one peer's
verification of every step.  Goal: 4 seats x 135 cards <= 2 s.
The floor is the encryption work alone: each seat multiplies every card once to
shuffle and once to lock, i.e. 2 x seats x cards scalar multiplications.

    python benchmarks/deck.py [--rounds R]
"""

from __future__ import annotations

import argparse
import secrets
import time
from collections.abc import Callable

import nacl.bindings as nb

from creepnet.protocol.deck import PUBLIC, DeckSeat, DeckState, audit, create_message


def cpu(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.process_time()
    result = fn()
    return time.process_time() - t, result


def scalar_mult_cost(n: int = 3000) -> float:
    k = nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
    p = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    t = time.process_time()
    for _ in range(n):
        nb.crypto_scalarmult_ed25519_noclamp(k, p)
    return (time.process_time() - t) / n


def run(seats: int, cards: int) -> dict[str, float]:
    ids = [f"card-{i}" for i in range(cards)]
    keys = [secrets.token_bytes(32) for _ in range(seats)]
    state = DeckState(secrets.token_bytes(16), keys, ids)  # the one verifying peer's replica
    players = [DeckSeat(state, s) for s in range(seats)]
    seq = 0

    def post(seat: int, make: Callable[[int], dict]) -> tuple[float, float]:
        nonlocal seq
        seq += 1
        made, msg = cpu(lambda: make(seq))
        checked, _ = cpu(lambda: state.apply(seat, seq, msg))  # type: ignore[arg-type]
        return made, checked

    for p in players:
        post(p.seat, lambda q, p=p: p.join())
    post(0, lambda q: create_message("deck", ids))
    work = {"shuffle": 0.0, "lock": 0.0, "verify_shuffle": 0.0, "verify_lock": 0.0}
    for p in players:
        made, checked = post(p.seat, lambda q, p=p: p.shuffle(q, "deck"))
        work["shuffle"] += made
        work["verify_shuffle"] += checked
    for p in players:
        made, checked = post(p.seat, lambda q, p=p: p.lock(q, "deck"))
        work["lock"] += made
        work["verify_lock"] += checked

    def draw() -> str:
        for p in players[1:]:
            post(p.seat, lambda q, p=p: p.release("deck", [0], 0))
        return players[0].decode("deck", 0)

    draw_time, _ = cpu(draw)
    # play a little so the audit has every kind of record
    for p in players:
        post(p.seat, lambda q, p=p: p.release("deck", [1], PUBLIC))

    def finish() -> None:
        for p in players:
            post(p.seat, lambda q, p=p: p.reveal())
        audit(state)

    audit_time, _ = cpu(finish)
    setup = sum(work.values())
    return {
        "shuffle_per_seat": work["shuffle"] / seats,
        "lock_per_seat": work["lock"] / seats,
        "verify_shuffle_per_seat": work["verify_shuffle"] / seats,
        "verify_lock_per_seat": work["verify_lock"] / seats,
        "setup_total": setup,
        "draw": draw_time,
        "audit": audit_time,
        "floor_mults": 2 * seats * cards,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="best of R runs")
    args = parser.parse_args()
    mult = scalar_mult_cost()
    print(f"one scalar multiplication: {mult * 1e6:.1f} us")
    for seats, cards in ((2, 52), (4, 135)):
        best = min((run(seats, cards) for _ in range(args.rounds)), key=lambda r: r["setup_total"])
        floor = best["floor_mults"] * mult
        print(f"\n{seats} seats x {cards} cards (best of {args.rounds}, CPU time)")
        print(f"  shuffle, per seat:             {best['shuffle_per_seat'] * 1e3:8.1f} ms")
        print(f"  lock + proofs, per seat:       {best['lock_per_seat'] * 1e3:8.1f} ms")
        print(f"  verify one seat's shuffle:     {best['verify_shuffle_per_seat'] * 1e3:8.1f} ms")
        print(f"  verify one seat's lock:        {best['verify_lock_per_seat'] * 1e3:8.1f} ms")
        print(
            f"  complete set-up (all seats' work + one peer's checks): "
            f"{best['setup_total'] * 1e3:.0f} ms"
        )
        print(
            f"  floor ({best['floor_mults']:.0f} mults): {floor * 1e3:.0f} ms, "
            f"ratio {best['setup_total'] / floor:.1f}x"
        )
        print(f"  one private draw end to end:   {best['draw'] * 1e3:8.2f} ms")
        print(f"  full audit (reveal + recompute): {best['audit'] * 1e3:6.1f} ms")


if __name__ == "__main__":
    main()
