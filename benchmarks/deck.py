"""Cost of encrypted decks, in CPU time and as multiples of one scalar multiplication
measured in the same run:

* proof of shuffle: prove and verify per card (goal: prove + verify <= 12 mults/card);
* the whole Creepy Racer set-up, 4 seats x 135 cards: every seat's proven shuffles of
  the Creep and Play piles, splits and merges into four Draw Decks, each owner's
  proven re-shuffle of its deck, every seat's lock of every pool — all seats' work
  plus one peer's checks of every step (goal <= 2 s);
* "not a Creep" for a kept card: the OR-proof over the 95 play cards and the none-of proof
  over the hidden Creeps, side by side on the same slot, prove and verify;
* a private draw end to end, and the audit;
* with --escrow, the same Racer set-up with key escrow in the deck messages (docs/ESCROW.md)
  side by side with it without: every shuffle carries its new layer's escrow, every lock one per
  position, the peer checks every bundle, every recipient opens its shares (goal: <= +15%); then
  the escrow constructions side by side per scalar (the earlier one with every share commitment
  published and checked by every replica, today's with the last one implied, and today's with
  batched recipients' checks).

    python benchmarks/deck.py [--rounds R] [--escrow]
"""

from __future__ import annotations

import argparse
import os
import secrets
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import nacl.bindings as nb

from creepnet.protocol.deck import (
    PUBLIC,
    DeckSeat,
    DeckState,
    audit,
    create_message,
    escrow,
    merge_message,
    split_message,
)
from creepnet.protocol.deck import threads as deck_threads
from creepnet.protocol.deck.classproof import prove_class, verify_class
from creepnet.protocol.deck.escrowing import RetiredSeatKeys, recover_message, refresh_message
from creepnet.protocol.deck.group import (
    BASE,
    IDENTITY,
    ONE,
    add,
    check_point,
    combine_base,
    frame,
    mul,
    mul_base,
    scalar_add,
    sub,
)
from creepnet.protocol.deck.group import combine as combine_points
from creepnet.protocol.deck.hidden import holder_key, make_release
from creepnet.protocol.deck.keys import DeckKeys
from creepnet.protocol.deck.noneof import prove_none_of, verify_none_of
from creepnet.protocol.deck.shuffleproof import prove_shuffle, verify_shuffle

T = TypeVar("T")


def cpu(fn: Callable[[], T]) -> tuple[float, T]:
    t = time.process_time()
    result = fn()
    return time.process_time() - t, result


def scalar_mult_cost(n: int = 200, batches: int = 10) -> float:
    """Seconds per multiplication: the least-disturbed of a few short batches."""
    k = nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
    p = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    best = float("inf")
    for _ in range(batches):
        t = time.process_time()
        for _ in range(n):
            nb.crypto_scalarmult_ed25519_noclamp(k, p)
        best = min(best, (time.process_time() - t) / n)
    return best


def shuffle_proof(cards: int) -> dict[str, float]:
    """One shuffle at depth 1: re-encryption, proof and verification, each timed alone,
    in seconds per card.  Two units measured around it: `mult`, a tight loop of one
    multiplication just before and after; and `encrypt`, the re-encryption itself,
    i.e. one multiplication per card on the real points, in the same moment."""
    before = scalar_mult_cost(200, 3)
    keys = DeckKeys(secrets.token_bytes(16), secrets.token_bytes(32), secrets.token_bytes(32))
    inputs = [nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32)) for _ in range(cards)]
    step, commit = keys.layer_step("f", 1), keys.layer_commit("f", 1)
    perm = keys.permutation("p", 0, cards)
    encrypt, outputs = cpu(lambda: [mul(step, inputs[i]) for i in perm])
    ctx = b"benchmark context"
    prove, proof = cpu(lambda: prove_shuffle(inputs, outputs, perm, step, BASE, ONE, commit, ctx))
    verify, _ = cpu(lambda: verify_shuffle(proof, inputs, outputs, BASE, commit, ctx))
    mult = (before + scalar_mult_cost(200, 3)) / 2
    return {
        "mult": mult,
        "encrypt": encrypt / cards,
        "prove": prove / cards,
        "verify": verify / cards,
        "both": (prove + verify) / cards,
    }


def threads_side_by_side(cards: int, rounds: int) -> dict[str, float]:
    """Wall seconds to prove and to verify one shuffle of `cards`, on one thread and spread
    over the group's threads (deck_threads.MAX_THREADS), alternating, best of `rounds` each."""
    keys = DeckKeys(secrets.token_bytes(16), secrets.token_bytes(32), secrets.token_bytes(32))
    inputs = [nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32)) for _ in range(cards)]
    step, commit = keys.layer_step("f", 1), keys.layer_commit("f", 1)
    perm = keys.permutation("p", 0, cards)
    outputs = [mul(step, inputs[i]) for i in perm]
    ctx = b"benchmark context"
    best: dict[str, float] = {}
    default = deck_threads.MAX_THREADS
    try:
        for _ in range(rounds):
            for threads in (1, default):
                deck_threads.MAX_THREADS = threads
                start = time.perf_counter()
                proof = prove_shuffle(inputs, outputs, perm, step, BASE, ONE, commit, ctx)
                middle = time.perf_counter()
                verify_shuffle(proof, inputs, outputs, BASE, commit, ctx)
                end = time.perf_counter()
                timed = {f"prove {threads}": middle - start, f"verify {threads}": end - middle}
                for key, value in timed.items():
                    best[key] = min(best.get(key, value), value)
    finally:
        deck_threads.MAX_THREADS = default
    return best


class Run:
    """Seats authoring in turn; one replica (the verifying peer, timed) applies every message.
    The authors read a replica of their own (untimed): a seat does not re-check its own proofs
    (DeckState.vouch), and the peer must check every one.

    With an `escrow` mode the deck escrows (DeckState(escrow=True), docs/ESCROW.md): "all" every
    lock key (what Creepy Racer does), "exempt" all but a seat's keys on its own Draw Deck;
    making the bundles is in the authors' work, their check in the peer's, and every seat's
    opening of its shares (DeckSeat.escrow_complaints after each message) is work as well."""

    def __init__(self, seats: int, cards: list[str], escrow_mode: str | None = None) -> None:
        game, keys = secrets.token_bytes(16), [secrets.token_bytes(32) for _ in range(seats)]
        exempt = (lambda seat, pool: pool == f"draw{seat}") if escrow_mode == "exempt" else None
        on = escrow_mode is not None
        self.state = DeckState(game, keys, cards, escrow=on, escrow_exempt=exempt)
        self.authors = DeckState(game, keys, cards, escrow=on, escrow_exempt=exempt)
        self.players = [DeckSeat(self.authors, s) for s in range(seats)]
        self.seq = 0
        self.work = 0.0  # authors' CPU
        self.checks = 0.0  # the verifying peer's CPU
        self.opening = 0.0  # recipients' CPU opening their shares (part of work)
        for p in self.players:
            self.post(p.seat, lambda q, p=p: p.join())

    def post(self, seat: int, make: Callable[[int], dict]) -> None:
        self.seq += 1
        made, msg = cpu(lambda: make(self.seq))
        checked, _ = cpu(lambda: self.state.apply(seat, self.seq, msg))
        self.authors.apply(seat, self.seq, msg)
        self.work += made
        self.checks += checked
        if self.authors.escrow is not None:
            opened, complaints = cpu(
                lambda: [c for p in self.players for c in p.escrow_complaints()]
            )
            assert not complaints
            self.work += opened
            self.opening += opened

    @property
    def escrowed(self) -> int:
        return 0 if self.state.escrow is None else len(self.state.escrow.bundles)

    @property
    def escrow_bytes(self) -> int:
        book = self.state.escrow
        if book is None:
            return 0
        return sum(
            len(t.recipients) * (32 + escrow.BOX_BYTES) - 32 for t, _ in book.bundles.values()
        )

    def shuffle(self, pool: str, seats: list[int] | None = None) -> None:
        for p in self.players if seats is None else [self.players[s] for s in seats]:
            self.post(p.seat, lambda q, p=p: p.shuffle(q, pool))

    def lock(self, pool: str) -> None:
        for p in self.players:
            self.post(p.seat, lambda q, p=p: p.lock(q, pool))


def racer_setup(seats: int = 4, escrow_mode: str | None = None) -> tuple[Run, dict[str, float]]:
    """The Creepy Racer deal: 40 Creeps + 95 others in one family; every seat shuffles
    both piles; 10 Creeps + 15 others per seat merge into its Draw Deck, which its
    owner re-shuffles; 35 others stay in the shared Play Pile; every pool is locked."""
    creeps, others = [f"creep-{i}" for i in range(40)], [f"card-{i}" for i in range(95)]
    run = Run(seats, creeps + others, escrow_mode)
    run.post(0, lambda q: create_message("all", creeps + others))
    run.post(0, lambda q: split_message("all", ["creeps", "others"], [40, 95]))
    times: dict[str, float] = {}

    def phase(name: str, fn: Callable[[], None]) -> None:
        before = run.work + run.checks
        fn()
        times[name] = run.work + run.checks - before

    def first_shuffles() -> None:
        run.shuffle("creeps")
        run.shuffle("others")

    def deal() -> None:
        creep_piles = [f"c{s}" for s in range(seats)]
        run.post(0, lambda q: split_message("creeps", creep_piles, [10] * seats))
        names = [f"o{s}" for s in range(seats)] + ["play"]
        run.post(0, lambda q: split_message("others", names, [15] * seats + [95 - 15 * seats]))
        for s in range(seats):
            run.post(0, lambda q, s=s: merge_message([f"c{s}", f"o{s}"], f"draw{s}"))
            run.shuffle(f"draw{s}", [s])

    def locks() -> None:
        for pool in [f"draw{s}" for s in range(seats)] + ["play"]:
            run.lock(pool)

    phase("shuffles", first_shuffles)
    phase("owners", deal)
    phase("locks", locks)
    return run, times


def not_a_creep_proofs(creeps: int = 40, plays: int = 95) -> dict[str, float]:
    """A hidden non-Creep proven to be "not a Creep" both ways, on the same slot in the same
    moment: the OR-proof that it is one of the `plays` play cards (``class``), and the none-of
    proof that it is none of the hidden Creeps (``none_of``), for 34 of them (2 players: 40
    minus 6 face up) and 28 (4 players: 40 minus 12).  CPU seconds per proof."""
    cards = [f"card-{i}" for i in range(plays)] + [f"creep-{i}" for i in range(creeps)]
    run = Run(2, cards)
    run.post(0, lambda q: create_message("deck", cards))
    run.shuffle("deck")
    run.lock("deck")
    run.post(1, lambda q: run.players[1].release("deck", list(range(41)), 0))
    held = next(j for j in range(41) if not run.players[0].decode("deck", j).startswith("creep"))
    slot, points = run.state.pools["deck"].slots[held], run.state.table.point_of
    key = holder_key(run.players[0].keys, "deck", held, slot)
    card, commit, core = run.players[0].decode("deck", held), slot.holder_commit, slot.core
    ctx = b"benchmark context"
    before = scalar_mult_cost(200, 3)
    out: dict[str, float] = {}
    allowed = cards[:plays]
    out["class prove"], proof = cpu(
        lambda: prove_class(key, card, commit, core, points, allowed, ctx)  # type: ignore[arg-type]
    )
    out["class verify"], ok = cpu(
        lambda: verify_class(proof, commit, core, points, allowed, ctx)  # type: ignore[arg-type]
    )
    assert ok
    for hidden in (34, 28):
        excluded = cards[plays : plays + hidden]
        out[f"none_of {hidden} prove"], proof = cpu(
            lambda ex=excluded: prove_none_of(key, card, commit, core, points, ex, ctx)  # type: ignore[arg-type]
        )
        out[f"none_of {hidden} verify"], _ = cpu(
            lambda ex=excluded, p=proof: verify_none_of(p, commit, core, points, ex, ctx)  # type: ignore[arg-type]
        )
    out["mult"] = (before + scalar_mult_cost(200, 3)) / 2
    return out


def draw_and_audit(run: Run) -> dict[str, float]:
    def draw() -> str:
        for p in run.players[1:]:
            run.post(p.seat, lambda q, p=p: p.release("draw0", [0], 0))
        return run.players[0].decode("draw0", 0)

    draw_time, _ = cpu(draw)
    for p in run.players:
        run.post(p.seat, lambda q, p=p: p.release("play", [0], PUBLIC))

    def finish() -> None:
        for p in run.players:
            run.post(p.seat, lambda q, p=p: p.reveal())
        audit(run.state)

    audit_time, _ = cpu(finish)
    return {"draw": draw_time, "audit": audit_time}


def escrow_side_by_side(rounds: int) -> None:
    """The 4 x 135 set-up without escrow, with every lock key escrowed (Creepy Racer's deck) and
    with each seat's lock of its own Draw Deck exempt, alternating, best of `rounds` each (CPU)."""
    modes: list[str | None] = [None, "all", "exempt"]
    best: dict[str | None, Run] = {}
    for _ in range(rounds):
        for mode in modes:
            run, _ = racer_setup(escrow_mode=mode)
            if mode not in best or run.work + run.checks < best[mode].work + best[mode].checks:
                best[mode] = run
    plain = best[None].work + best[None].checks
    mult = scalar_mult_cost()
    print(f"\nCreepy Racer set-up with key escrow, 4 seats x 135 cards (best of {rounds}, CPU)")
    print(f"  one scalar multiplication: {mult * 1e6:.1f} us")
    print("  set-up                     scalars  work ms  checks ms  total ms  vs plain  escrow KB")
    for mode, label in (
        (None, "no escrow"),
        ("all", "every lock key (Racer)"),
        ("exempt", "own Draw Deck exempt"),
    ):
        run = best[mode]
        total = run.work + run.checks
        print(
            f"  {label:26} {run.escrowed:7} {run.work * 1e3:8.0f} {run.checks * 1e3:10.0f} "
            f"{total * 1e3:9.0f} {total / plain:8.3f}x {run.escrow_bytes / 1024:9.1f}"
        )
        if run.escrowed:
            per = (total - plain) / run.escrowed
            print(
                f"  {'':26} escrow: +{(total - plain) * 1e3:.0f} ms, of which the recipients' "
                f"opening {run.opening * 1e3:.0f} ms; {per * 1e6:.0f} us = {per / mult:.2f} "
                "mults per scalar"
            )
    after = retirement(best["all"])
    print("  after seat 3 retires (every lock key escrowed, CPU, work + one peer's checks):")
    print(
        f"    3 seats publish their shares of its {after['scalars']:.0f} lock keys: "
        f"{after['recover'] * 1e3:6.1f} ms"
    )
    print(
        f"    3 seats re-deal what it held shares of (refresh):   {after['refresh'] * 1e3:6.1f} ms"
    )
    print(f"    a private draw with the table releasing for it:     {after['draw'] * 1e3:6.1f} ms")


# --- escrow constructions side by side, per scalar (docs/ESCROW.md "Benchmark") ----------------


class Constructions:
    """One dealer's escrows of one lock of 135 positions at a 4-seat table, three ways:

    * ``before``: all m share commitments published, and every replica checks them publicly
      (S_1 .. S_{m-1} validated, S_m == K - their sum byte for byte), the recipients then
      s_i·G == S_i (the construction of this repository before; a reference copy here);
    * ``now``: S_m implied (escrow.py): no public group work, the implied share's recipient
      derives K - (S_1 + ... + S_{m-1}) for its check;
    * ``batched``: ``now`` with each recipient's checks of one message batched (Bellare-Garay-
      Rabin's small-exponent test: random 128-bit z_j, one check (sum z_j s_j)·G == sum z_j S_j),
      a reference here: without a multi-scalar multiplication in libsodium the right side costs
      one variable-base multiplication per share, four times a fixed-base one."""

    def __init__(self, positions: int = 135) -> None:
        game = secrets.token_bytes(16)
        ids = [bytes([s]) * 32 for s in range(4)]
        self.keys = [DeckKeys(game, ids[s], secrets.token_bytes(32)) for s in range(4)]
        self.mine = [escrow.EscrowKeys(k, s) for s, k in enumerate(self.keys)]
        published = [
            escrow.check_escrow_keys(m.published(), s, game, ids[s])
            for s, m in enumerate(self.mine)
        ]
        self.table = escrow.directory(game, ids, published)
        self.dealer = 2
        self.items = []
        for j in range(positions):
            value = self.keys[2].lock_key("pool", j)
            what = escrow.ScalarId("lock", "pool", j)
            self.items.append((escrow.Escrowed(2, what, 0, (0, 1, 3), mul_base(value)), value))
        for r in (0, 1, 3):  # the channel points, once a game in both constructions
            self.mine[2].channel_to(self.table, r)
            self.mine[r].channel_from(self.table, 2)

    # -- before (a reference copy of the earlier construction) ---------------------------------

    def before_deal(self, escrowed: escrow.Escrowed, value: bytes) -> escrow.Bundle:
        first = self.keys[2].escrow_shares(*escrowed.labels(), escrowed.recipients)
        rest = bytes(32)
        for share in first:
            rest = scalar_add(rest, share)
        shares = [*first, nb.crypto_core_ed25519_scalar_sub(value, rest)]
        commits = [mul_base(x) for x in shares]
        boxes = [
            escrow._seal(
                self.table, escrowed, i, self.mine[2].channel_to(self.table, r), shares[i],
                frame(escrow.AAD_DOMAIN, escrowed.commit, commits[i]),
            )
            for i, r in enumerate(escrowed.recipients)
        ]  # fmt: skip
        return escrow.Bundle(tuple(commits), tuple(boxes))

    @staticmethod
    def before_check(escrowed: escrow.Escrowed, bundle: escrow.Bundle) -> None:
        commits = bundle.commits
        partial = check_point(commits[0], 2, "escrow", 0)
        for i in range(1, len(commits) - 1):
            partial = add(partial, check_point(commits[i], 2, "escrow", i))
        assert commits[-1] == sub(escrowed.commit, partial) and commits[-1] != IDENTITY

    def before_open(self, r: int, escrowed: escrow.Escrowed, bundle: escrow.Bundle) -> bytes:
        i = escrowed.share_index(r)
        cipher, nonce = escrow._cipher(
            self.table, escrowed, r, self.mine[r].channel_from(self.table, 2)
        )
        aad = frame(escrow.AAD_DOMAIN, escrowed.commit, bundle.commits[i])
        share = cipher.decrypt(nonce, bundle.boxes[i], aad)
        assert mul_base(share) == bundle.commits[i]
        return share

    # -- batched recipients' checks (a reference: the check escrow.py does not do) -----------

    def batched_open(self, r: int, bundles: list[escrow.Bundle]) -> None:
        shares, commits = [], []
        for (escrowed, _), bundle in zip(self.items, bundles, strict=True):
            i = escrowed.share_index(r)
            cipher, nonce = escrow._cipher(
                self.table, escrowed, r, self.mine[r].channel_from(self.table, 2)
            )
            aad = escrow._aad(escrowed, bundle.commits)
            shares.append(int.from_bytes(cipher.decrypt(nonce, bundle.boxes[i], aad), "little"))
            commit = escrow.share_commit(escrowed, bundle, i)
            assert commit is not None
            commits.append(commit)
        z = [secrets.randbits(128) for _ in shares]
        left = combine_points(zip(z, commits, strict=True))
        assert left == combine_base(sum(zj * sj for zj, sj in zip(z, shares, strict=True)))

    def batched_open_all(self, recipients: tuple[int, ...], bundles: list) -> None:
        for r in recipients:
            self.batched_open(r, bundles)

    def timed(self, rounds: int) -> dict[str, dict[str, float]]:
        """CPU seconds per scalar, best of `rounds`: dealing, one replica's public check, and
        the three recipients' opening, for each construction."""
        best: dict[str, dict[str, float]] = {}

        def keep(name: str, part: str, seconds: float) -> None:
            row = best.setdefault(name, {})
            row[part] = min(row.get(part, seconds), seconds / len(self.items))

        recipients = (0, 1, 3)
        items = self.items

        def check_all(bundles: list, check: Callable) -> None:
            for (e, _), b in zip(items, bundles, strict=True):
                check(e, b)

        def open_all(bundles: list, opener: Callable) -> None:
            for r in recipients:
                for (e, _), b in zip(items, bundles, strict=True):
                    opener(r, e, b)

        def now_open(r: int, e: escrow.Escrowed, b: escrow.Bundle) -> bytes:
            return escrow.open_share(self.table, self.mine[r], e, b)

        for _ in range(rounds):
            t, old = cpu(lambda: [self.before_deal(e, v) for e, v in items])
            keep("before", "deal", t)
            keep("before", "check", cpu(partial(check_all, old, self.before_check))[0])
            keep("before", "open", cpu(partial(open_all, old, self.before_open))[0])
            t, new = cpu(
                lambda: [escrow.make_bundle(self.table, self.mine[2], e, v) for e, v in items]
            )
            wire = [b.message() for b in new]
            for name in ("now", "batched"):
                keep(name, "deal", t)
                keep(name, "check", cpu(partial(check_all, wire, escrow.check_bundle))[0])
            keep("now", "open", cpu(partial(open_all, new, now_open))[0])
            keep("batched", "open", cpu(partial(self.batched_open_all, recipients, new))[0])
        return best


def constructions_side_by_side(rounds: int) -> None:
    mult = scalar_mult_cost()
    best = Constructions().timed(rounds)
    print(f"\nescrow constructions, per scalar, 4 seats (m = 3), one lock of 135 positions "
          f"(best of {rounds}, CPU; one multiplication {mult * 1e6:.1f} us)")  # fmt: skip
    print("  construction   deal us  check us  open us (3 recipients)  one peer us  3 peers us")
    base = None
    for name in ("before", "now", "batched"):
        row = best[name]
        one = row["deal"] + row["check"] + row["open"]
        three = row["deal"] + 3 * row["check"] + row["open"]
        base = base or one
        print(f"  {name:12} {row['deal'] * 1e6:9.1f} {row['check'] * 1e6:9.1f} "
              f"{row['open'] * 1e6:24.1f} {one * 1e6:12.1f} {three * 1e6:11.1f}"
              f"   ({one / base:.2f}x)")  # fmt: skip


def _same(message: dict, seq: int) -> dict:
    return message


def _recovery(state: DeckState, seat: DeckSeat, gone: int, needed: list, seq: int) -> dict:
    return recover_message(state, seat.keys, seat.seat, gone, needed)


def _refresh(state: DeckState, seat: DeckSeat, seq: int) -> dict:
    return refresh_message(state, seat.keys, seat.seat)


def retirement(run: Run, gone: int = 3) -> dict[str, float]:
    """After the Racer set-up with escrow, seat `gone` retires: the others recover its lock keys
    of every pool but its own Draw Deck, re-deal what it held shares of, and seat 0 draws with
    the table releasing for the retired seat.  CPU seconds (authors' work + the peer's checks)."""
    for state in (run.state, run.authors):
        state.retire(gone)
    book = run.state.escrow
    assert book is not None
    needed = [
        scalar
        for (dealer, scalar) in book.bundles
        if dealer == gone and scalar.kind == "lock" and scalar.name != f"draw{gone}"
    ]
    out: dict[str, float] = {"scalars": len(needed)}

    def timed(name: str, fn: Callable[[], None]) -> None:
        before = run.work + run.checks
        fn()
        out[name] = run.work + run.checks - before

    others = [p for p in run.players if p.seat != gone]

    def recover() -> None:
        for p in others:
            run.post(p.seat, partial(_recovery, run.authors, p, gone, needed))

    def refresh() -> None:
        for p in others:
            run.post(p.seat, partial(_refresh, run.authors, p))

    def draw() -> None:
        for p in others[1:]:
            run.post(p.seat, partial(_same, p.release("draw0", [1], 0)))
        keys = RetiredSeatKeys(run.authors, gone)
        run.post(gone, partial(_same, make_release(run.authors, keys, gone, "draw0", [1], 0)))
        run.players[0].decode("draw0", 1)

    timed("recover", recover)
    timed("refresh", refresh)
    timed("draw", draw)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="best of R runs")
    parser.add_argument(
        "--escrow", action="store_true", help="only the set-up with and without key escrow"
    )
    args = parser.parse_args()
    if args.escrow:
        escrow_side_by_side(args.rounds)
        constructions_side_by_side(args.rounds)
        return
    mult = scalar_mult_cost()
    base = cpu(lambda: [nb.crypto_scalarmult_ed25519_base_noclamp(ONE) for _ in range(3000)])[0]
    q = nb.crypto_core_ed25519_from_uniform(bytes(32))
    add = cpu(lambda: [nb.crypto_core_ed25519_add(q, q) for _ in range(3000)])[0]
    print(
        f"one scalar multiplication: {mult * 1e6:.1f} us; fixed base {base / 3000 / mult:.2f}, "
        f"point addition {add / 3000 / mult:.2f} of it"
    )

    for cards in (52, 135):
        rounds = [shuffle_proof(cards) for _ in range(args.rounds)]
        mid = sorted(rounds, key=lambda r: r["both"] / r["mult"])[len(rounds) // 2]
        print(f"\nproof of shuffle, {cards} cards, per card (median round of {args.rounds}, CPU)")
        print(f"  one multiplication, tight loop around it: {mid['mult'] * 1e6:6.1f} us")
        print(f"  one multiplication, re-encrypting:        {mid['encrypt'] * 1e6:6.1f} us")
        for name, key in (
            ("prove", "prove"),
            ("verify", "verify"),
            ("prove + verify (goal <= 12)", "both"),
        ):
            t = mid[key]
            print(
                f"  {name + ':':28} {t * 1e3:6.3f} ms = {t / mid['mult']:5.2f} mults "
                f"({t / mid['encrypt']:5.2f} re-encryption mults)"
            )

    threads = min(deck_threads.MAX_THREADS, len(os.sched_getaffinity(0)))
    best = threads_side_by_side(95, args.rounds)
    print(f"\nproof of shuffle, 95 cards, wall ms: one thread vs {threads} (best of {args.rounds})")
    for step in ("prove", "verify"):
        one, many = best[f"{step} 1"] * 1e3, best[f"{step} {deck_threads.MAX_THREADS}"] * 1e3
        print(f"  {step:7} {one:6.1f} ms vs {many:6.1f} ms: {one / many:.2f}x")

    results = [racer_setup() for _ in range(args.rounds)]
    run, phases = min(results, key=lambda r: r[0].work + r[0].checks)
    total = run.work + run.checks
    print(f"\nCreepy Racer set-up, 4 seats x 135 cards (best of {args.rounds}, CPU)")
    print(f"  every seat shuffles Creeps + others: {phases['shuffles'] * 1e3:7.0f} ms")
    print(f"  deal, merge, owners' re-shuffles:    {phases['owners'] * 1e3:7.0f} ms")
    print(f"  every seat locks every pool:         {phases['locks'] * 1e3:7.0f} ms")
    print(f"  all seats' work:                     {run.work * 1e3:7.0f} ms")
    print(f"  one peer's checks:                   {run.checks * 1e3:7.0f} ms")
    print(f"  complete set-up:                     {total * 1e3:7.0f} ms (goal <= 2000)")
    extra = draw_and_audit(run)
    print(f"  one private draw end to end:         {extra['draw'] * 1e3:7.2f} ms")
    print(f"  full audit (reveals + recompute):    {extra['audit'] * 1e3:7.1f} ms")

    rounds = [not_a_creep_proofs() for _ in range(args.rounds)]
    best = {key: min(r[key] for r in rounds) for key in rounds[0]}
    unit = best["mult"]
    print(f"\n'not a Creep' for a kept card, same slot, same run (best of {args.rounds}, CPU)")
    print("  proof                            prove ms  verify ms  mults/card  verify vs OR")
    rows = [("OR-proof over 95 play cards", "class", 95)]
    rows += [(f"none-of {n} hidden Creeps", f"none_of {n}", n) for n in (34, 28)]
    for label, key, size in rows:
        prove, verify = best[f"{key} prove"] * 1e3, best[f"{key} verify"] * 1e3
        per_card = (best[f"{key} prove"] + best[f"{key} verify"]) / size / unit
        ratio = best["class verify"] / best[f"{key} verify"]
        print(f"  {label:31} {prove:9.2f} {verify:10.2f} {per_card:11.2f} {ratio:12.1f}x")


if __name__ == "__main__":
    main()
