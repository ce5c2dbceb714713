"""Group operations spread over threads give exactly the plain loop's results and first error."""

import threading
import time

import pytest

from creepnet.protocol.deck import group, threads
from creepnet.protocol.deck.group import BASE, BadPoint, as_scalar, combine, mul
from creepnet.protocol.deck.threads import spread


@pytest.fixture
def three_threads(monkeypatch):
    monkeypatch.setattr(threads, "workers", lambda: 3)


def test_spread_keeps_the_order_and_uses_other_threads(three_threads):
    seen = set()

    def square(x):
        seen.add(threading.get_ident())
        time.sleep(0.001)  # long enough that the shares overlap
        return x * x

    assert spread(square, list(range(30))) == [x * x for x in range(30)]
    assert len(seen) > 1


def test_spread_raises_the_first_failure_in_order_not_in_time(three_threads):
    def check(x):
        if x == 5:
            time.sleep(0.05)  # fails last in time, first in order
            raise ValueError("five")
        if x == 25:
            raise ValueError("twenty-five")
        return x

    with pytest.raises(ValueError, match="five"):
        spread(check, list(range(30)))


def test_combine_spread_over_threads_equals_the_plain_sum(three_threads):
    points = [mul(as_scalar(k + 2), BASE) for k in range(40)]
    terms = [(3 * k + 1, p) for k, p in enumerate(points)] + [(0, points[0])]
    expected = group._partial_sum((0, terms))
    assert combine(terms) == expected
    assert combine(terms[:3]) == group._partial_sum((0, terms[:3]))  # below the threshold
    assert combine([]) == group.IDENTITY


def test_combine_names_the_first_bad_term_whichever_thread_finds_it(three_threads):
    points = [mul(as_scalar(k + 2), BASE) for k in range(40)]
    terms = [(k + 1, p) for k, p in enumerate(points)]
    terms[30] = (7, b"\xff" * 32)  # in the last share
    terms[17] = (7, group.IDENTITY)  # small order: rejected too, and earlier
    with pytest.raises(BadPoint) as raised:
        combine(terms)
    assert raised.value.index == 17


def test_a_bad_thread_limit_falls_back_to_the_default(monkeypatch):
    monkeypatch.setenv("CREEPNET_THREADS", "lots")
    assert threads._thread_limit() == 4
    monkeypatch.setenv("CREEPNET_THREADS", "1")
    assert threads._thread_limit() == 1


@pytest.mark.timeout(60)
def test_a_spread_inside_a_spread_finishes(three_threads):
    """A spread function that itself spreads (as a future proof might) must not wait on the
    pool it runs in: every share would be queued behind the waiting ones."""

    def inner(x):
        return sum(spread(lambda y: y * x, list(range(20))))

    assert spread(inner, list(range(30))) == [x * 190 for x in range(30)]
