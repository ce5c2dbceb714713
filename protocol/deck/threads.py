"""Spreading libsodium group operations over one thread per core.

libsodium releases the GIL for the length of each group operation, so the many independent
multiplications of a proof or a check (a shuffle's re-encryptions, each lock position, each
excluded card, the terms of a verification's linear combination) run in parallel on threads:
same results, same first error, in a fraction of the time when a core is idle, as the next
author's is while it checks.  Deterministic whatever the thread count; no I/O.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MINIMUM = 8  # items (each ~0.1 ms of libsodium) below which a thread hand-off costs more


def spread(fn: Callable[[T], R], items: Sequence[T], *, minimum: int = MINIMUM) -> list[R]:
    """``[fn(x) for x in items]``, in contiguous shares over one thread per core.

    For functions whose time is libsodium group operations (the GIL is released
    meanwhile).  The calling thread computes the first share itself.  Results are
    in order, and an exception is the one the plain loop would raise first."""
    count = workers()
    if count < 2 or len(items) < minimum or getattr(_local, "worker", False):
        # In a pool thread a nested spread runs as a plain loop: waiting there for shares
        # queued behind our own could leave every pool thread waiting.
        return [fn(x) for x in items]
    size = -(-len(items) // count)
    shares = [items[start : start + size] for start in range(0, len(items), size)]
    pool = _executor(count)
    futures: list[Future[list[R]]] = [pool.submit(_share, fn, share) for share in shares[1:]]
    try:
        results = _share(fn, shares[0])
    except BaseException:
        for future in futures:
            future.cancel()  # what already runs finishes on its own: nothing is shared
        raise
    for future in futures:  # in order: the first failing share is the earliest failure
        results += future.result()
    return results


def _share(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    return [fn(x) for x in items]


def workers() -> int:
    """Threads a spread uses: one per core this process may run on, at most MAX_THREADS."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_THREADS, cores or 1))


# Beyond 4 the shares (one pool of cards) get too small to pay; CREEPNET_THREADS=1 keeps a
# node on one core (a shared machine, or to compare).
def _thread_limit() -> int:
    value = os.environ.get("CREEPNET_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else 4


MAX_THREADS = _thread_limit()
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_local = threading.local()  # .worker: this thread is one of the pool's


def _executor(count: int) -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                count - 1, thread_name_prefix="creepnet-group", initializer=_mark_worker
            )
        return _pool


def _mark_worker() -> None:
    _local.worker = True


def _forget_pool() -> None:  # a forked child has none of the parent's threads
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)
