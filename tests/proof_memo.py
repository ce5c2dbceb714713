"""A test-only memo of the deck's proof checks, for the slow whole-game harness tests.

An in-memory table of N seats and a spectator checks every proof of the game N+1 times (every
replica applies every event), and ``verify_log_bytes`` once more at the end: the same pure,
deterministic check of the same bytes.  Inside ``memoized_proofs()`` each check below runs for
real the first time it meets a given input, and a repeat of exactly that input (every argument,
byte for byte: the proof, the points, the card table and the context) returns the first
answer.  Only a success is remembered: a failing check, or any input that differs by one byte,
runs the real check again.  The product code is untouched; the checks are memoized only inside
the context, and only the tests that ask for it (the ``memoized_proofs`` fixture in
conftest.py) use it: never the cheat, rejection, property or vector tests, nor any test that
checks a refusal, which run every check for real.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

# (module, name, what a passing check returns): each place a check is looked up from at call
# time (ops and hidden import dleq's verify by name; escrow calls it as dleq.verify).  The
# shuffle and none-of checks raise on a failure, the others return False.
CHECKS = (
    ("creepnet.protocol.deck.ops", "verify_shuffle", None),
    ("creepnet.protocol.deck.ops", "verify", True),
    ("creepnet.protocol.deck.hidden", "verify", True),
    ("creepnet.protocol.deck.dleq", "verify", True),
    ("creepnet.protocol.deck.noneof", "verify_none_of", None),
    ("creepnet.protocol.deck.classproof", "verify_class", True),
)


class Unfreezable(TypeError):
    """An argument of a kind the memo does not key on: the check runs for real."""


def frozen(value: object) -> object:
    """An exact, hashable image of a check's argument: its type and every byte of it."""
    if value is None or type(value) in (bytes, str, int, bool):
        return (type(value).__name__, value)
    if type(value) in (list, tuple):
        return ("seq", tuple(frozen(item) for item in value))  # type: ignore[union-attr]
    if type(value) is dict:
        # in its own order: the same map reordered is a miss, so runs the real check
        return ("map", tuple((frozen(k), frozen(v)) for k, v in value.items()))  # type: ignore[union-attr]
    raise Unfreezable(type(value).__name__)


class ProofMemo:
    def __init__(self) -> None:
        self.passed: set[tuple[str, object]] = set()
        self.hits = 0
        self.misses = 0

    def wrap(self, name: str, check: Callable[..., Any], passed: bool | None) -> Callable[..., Any]:
        def memoized(*args: Any) -> Any:
            try:
                key = (name, frozen(args))
            except Unfreezable:
                return check(*args)
            if key in self.passed:
                self.hits += 1
                return passed
            self.misses += 1
            result = check(*args)  # a failure raises, or returns False: never remembered
            if result is passed:
                self.passed.add(key)
            return result

        memoized.__wrapped__ = check  # type: ignore[attr-defined]
        return memoized


@contextmanager
def memoized_proofs(memo: ProofMemo | None = None) -> Iterator[ProofMemo]:
    """Every check in CHECKS memoized (successes only, keyed on all its input) until exit, in
    ``memo`` if given (what it remembered from an earlier context still counts)."""
    memo = memo or ProofMemo()
    with pytest.MonkeyPatch.context() as patch:
        for module_name, name, passed in CHECKS:
            module = importlib.import_module(module_name)
            patch.setattr(module, name, memo.wrap(name, getattr(module, name), passed))
        yield memo
