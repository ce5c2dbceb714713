"""Public, replicated deck state: pools, locked slots and the audit trail.

Every seat keeps one DeckState and applies every message to it in log order;
the records kept here are what the end-of-game audit re-checks with the
revealed secrets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from creepnet.protocol.deck.errors import DeckError

T = TypeVar("T")

PUBLIC = -1  # "release to everybody": a public reveal of a locked slot


@dataclass
class OpenProgress:
    """A shuffle-phase position being opened, one seat layer at a time."""

    point: bytes
    next_seat: int = 0


@dataclass
class PendingTransfer:
    """First pass of a transfer done: `to` has blinded the core with t (T = t·G)."""

    to: int
    blind_commit: bytes
    blinded: bytes


@dataclass
class Slot:
    """One position of a locked pool.

    `point` carries every seat's per-position key b_j.  Once all seats but one
    have released their b_j, `core` = k·M is public where k is the holder's key
    (its b_j, or its blinding t after a transfer) and `holder_commit` = k·G.
    """

    point: bytes
    commits: list[bytes]
    released: dict[int, bytes] = field(default_factory=dict)
    release_to: int | None = None
    holder: int | None = None
    holder_commit: bytes | None = None
    core: bytes | None = None
    card: str | None = None
    transfers: int = 0
    pending: PendingTransfer | None = None

    @property
    def is_public(self) -> bool:
        return self.card is not None

    def copy(self) -> Slot:
        """A copy that can change apart from this slot: its lists and maps are copied
        (tests/protocol/test_deck_fork.py checks that none is missed); bytes are immutable and
        ``pending`` is replaced, never changed in place, so they are shared."""
        twin = object.__new__(Slot)
        twin.__dict__.update(self.__dict__)
        twin.commits = list(self.commits)
        twin.released = dict(self.released)
        return twin


@dataclass
class Pool:
    name: str
    family: str
    points: list[bytes]
    depth: list[int]  # per seat: how many times it has layered this family
    shuffles: int = 0
    public: dict[int, str] = field(default_factory=dict)  # opened in the shuffle phase
    opening: dict[int, OpenProgress] = field(default_factory=dict)
    locks: int = 0  # seats (in seat order) that have locked
    lock_commits: list[list[bytes]] = field(default_factory=list)
    slots: list[Slot] = field(default_factory=list)

    @property
    def shuffling(self) -> bool:
        return self.locks == 0

    def locked(self, seats: int) -> bool:
        return self.locks == seats

    def copy(self) -> Pool:
        """A copy that can change apart from this pool (DeckState.fork), its slots included;
        an OpenProgress is replaced, never changed in place."""
        twin = object.__new__(Pool)
        twin.__dict__.update(self.__dict__)
        twin.points = list(self.points)
        twin.depth = list(self.depth)
        twin.public = dict(self.public)
        twin.opening = dict(self.opening)
        twin.lock_commits = [list(commits) for commits in self.lock_commits]
        twin.slots = [slot.copy() for slot in self.slots]
        return twin


# --- audit trail ------------------------------------------------------------------


@dataclass(frozen=True)
class ShuffleRecord:
    seat: int
    pool: str
    family: str
    index: int  # how many shuffles the pool had before this one
    depth: int  # the seat's depth after this shuffle
    inputs: list[bytes]
    outputs: list[bytes]


@dataclass(frozen=True)
class LockRecord:
    seat: int
    pool: str
    commits: list[bytes]


@dataclass(frozen=True)
class BlindRecord:
    seat: int
    pool: str
    position: int
    transfer: int
    commit: bytes


Record = ShuffleRecord | LockRecord | BlindRecord


# --- message field access -----------------------------------------------------------


def get(msg: dict, key: str, kind: type[T], seat: int, op: str) -> T:
    """A typed field of a received message; a missing or mistyped one is the author's fault."""
    value = msg.get(key)
    if type(value) is not kind:  # exact: True is not a position, nor a str subclass a name
        raise DeckError(seat, op, f"field {key!r} missing or not {kind.__name__}")
    return value


def get_str(msg: dict, key: str, seat: int, op: str) -> str:
    return get(msg, key, str, seat, op)


def get_int(msg: dict, key: str, seat: int, op: str) -> int:
    return get(msg, key, int, seat, op)


def get_list(msg: dict, key: str, seat: int, op: str) -> list:
    return get(msg, key, list, seat, op)
