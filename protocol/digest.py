"""A canonical digest of an in-memory state: equal digests mean nothing it holds has changed.

For tests and the fuzzer, which check that a rejected event changes nothing
(``Session.state_digest``).  The walk is generic, so a game's state needs no code of its own:
every value is framed with a type tag and its length (SHA-256 over an unambiguous encoding, as in
protocol/deck/state.py), objects by their class name and attributes, maps and sets in a sorted
order of their items' encodings.  An ``Event`` is its canonical bytes: every other field is
computed from them.  A dataclass is its declared fields: an attribute set beside them (a frozen
engine state memoising its hash or its win check with ``object.__setattr__``) is a cache of
what the fields already say, and a rejected event may well fill one in.  An object met again
inside itself (a cycle) is framed as a reference to its depth on the walk; one met again
elsewhere is encoded once and reused.
"""

from __future__ import annotations

import hashlib
import types
from collections.abc import Mapping, Set
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

from creepnet.protocol.event import Event


class _Walk:
    def __init__(self) -> None:
        self.active: dict[int, int] = {}  # id -> depth, for the objects being encoded now
        self.done: dict[int, tuple[object, bytes]] = {}  # id -> (the object, kept alive; bytes)


def state_digest(value: object) -> bytes:
    return hashlib.sha256(b"creepnet/state-digest/v1\x00" + _encode(value, _Walk())).digest()


def _frame(tag: bytes, payload: bytes) -> bytes:
    return tag + len(payload).to_bytes(8, "big") + payload


def _encode(value: Any, active: _Walk) -> bytes:
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return _frame(type(value).__name__.encode(), repr(value).encode())
    if isinstance(value, Enum):
        return _frame(b"enum", f"{type(value).__qualname__}.{value.name}".encode())
    if isinstance(value, Event):
        return _frame(b"event", value.raw)
    if isinstance(value, type | types.FunctionType | types.MethodType | types.BuiltinFunctionType):
        return _frame(b"code", getattr(value, "__qualname__", repr(value)).encode())
    key = id(value)
    if key in active.active:
        return _frame(b"cycle", str(active.active[key]).encode())
    if key in active.done:
        return active.done[key][1]
    active.active[key] = len(active.active)
    try:
        encoded = _frame(type(value).__qualname__.encode(), _contents(value, active))
    finally:
        del active.active[key]
    active.done[key] = (value, encoded)
    return encoded


def _contents(value: Any, active: _Walk) -> bytes:
    if isinstance(value, list | tuple):
        return b"".join(_encode(item, active) for item in value)
    if isinstance(value, Mapping):
        items = sorted(_encode(k, active) + _encode(v, active) for k, v in value.items())
        return b"".join(items)
    if isinstance(value, Set):
        return b"".join(sorted(_encode(item, active) for item in value))
    if is_dataclass(value):  # its declared fields: anything else is a memo of them
        names = [field.name for field in fields(value)]
        return b"".join(_attribute(value, name, active) for name in names)
    if hasattr(value, "__dict__") or hasattr(value, "__slots__"):
        names = sorted(getattr(value, "__dict__", {}))
        slots = [s for cls in type(value).__mro__ for s in getattr(cls, "__slots__", ())]
        return b"".join(_attribute(value, name, active) for name in [*names, *sorted(set(slots))])
    raise TypeError(f"cannot digest a {type(value).__name__}")


def _attribute(value: Any, name: str, active: _Walk) -> bytes:
    if not hasattr(value, name):  # an unset slot
        return _encode(name, active) + _frame(b"unset", b"")
    return _encode(name, active) + _encode(getattr(value, name), active)
