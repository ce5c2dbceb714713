"""Canonical msgpack: one value, exactly one valid encoding.

Allowed values: None, bool, int (-2**63 .. 2**64-1), str, bytes, list and dict with str keys.
Canonical form: map keys sorted by their UTF-8 bytes, no duplicates, smallest integer and
length encodings, bin for bytes and str for text, no floats and no ext types.

The decoder enforces hard limits before allocating — including a cap on the total number of
items (map pairs, array elements and the containers themselves), counted as each container is
completed, so 2 MiB of empty maps cannot become 150 MB of Python objects — then re-encodes what
it decoded and demands the same bytes: that single check rejects every non-minimal form msgpack
allows (wide ints, str8 for a short string, map16 for a small map, ...), so signed and hashed
bytes are well defined.

A stream (a log file) is cut into values by a structural scan (``iter_stream``): msgpack's own
``skip`` for speed, checked by ``value_end`` (the scan of docs/PROTOCOL.md §4 written out) where
that ``skip`` is known to misread an input.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import msgpack

INT_MIN = -(2**63)
INT_MAX = 2**64 - 1


class CodecError(ValueError):
    """Bytes or a value that are not canonical creepnet msgpack; the message says why."""


class StreamError(CodecError):
    """A malformed value inside a stream: ``index`` values and ``offset`` bytes precede it."""

    def __init__(self, message: str, index: int, offset: int) -> None:
        super().__init__(message)
        self.index = index
        self.offset = offset


@dataclass(frozen=True)
class Limits:
    """Hard bounds on what one decoded value may hold."""

    max_size: int = 1 << 20  # bytes of one encoded value (one event or one frame)
    max_str: int = 16 << 10
    max_bin: int = 1 << 20
    max_array: int = 16384
    max_map: int = 256
    max_depth: int = 16
    max_items: int = 1 << 17  # pairs + elements + containers in one value


DEFAULT_LIMITS = Limits()


def encode(value: Any) -> bytes:
    """Encode a value canonically; raise CodecError for anything outside the allowed shapes."""
    try:
        return msgpack.packb(_canonical(value, 1, DEFAULT_LIMITS.max_depth), use_bin_type=True)
    except (OverflowError, ValueError) as exc:
        raise CodecError(f"cannot encode: {exc}") from exc


def _canonical(value: Any, depth: int, max_depth: int) -> Any:
    """A copy of value with every map's keys in canonical order; rejects disallowed types.

    ``depth`` is value's level if it is a container (the outermost is 1; scalars do not count),
    so this refuses exactly the nesting ``check_shape`` refuses."""
    if depth > max_depth and isinstance(value, (list, tuple, dict)):
        raise CodecError(f"nesting deeper than {max_depth}")
    if value is None or isinstance(value, (bool, str, bytes)):
        return value
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise CodecError(f"integer out of range: {value}")
        return value
    if isinstance(value, (list, tuple)):
        return [_canonical(item, depth + 1, max_depth) for item in value]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CodecError(f"map key must be str, not {type(key).__name__}")
        # Python orders str by code point, which is also the order of their UTF-8 bytes.
        return {key: _canonical(value[key], depth + 1, max_depth) for key in sorted(value)}
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise CodecError(f"type not allowed: {type(value).__name__}")


# One packer for every re-encoding check (packb builds a new one per call, twice the cost).
# pack() of plain values runs in C without releasing the GIL, so sharing it is safe.
_REPACKER = msgpack.Packer(use_bin_type=True)


def _ext_hook(code: int, data: bytes) -> Any:
    raise CodecError(f"ext type {code} not allowed")


def check_shape(value: Any, limits: Limits = DEFAULT_LIMITS, depth: int = 1) -> None:
    """Step 2 of ``decode``: reject what msgpack can decode but we never encode: floats, keys
    that are not str or not in order (duplicates are caught by ``check_canonical``), and
    over-deep nesting.  ``depth`` is value's own level (1 at the top), for a caller that has
    already judged the levels above it (protocol/event.py does for the envelope).
    """
    kind = type(value)
    if kind is float:
        raise CodecError("floats are not allowed")
    if kind is dict or kind is list:
        _check_container(value, depth, limits.max_depth)


def _check_container(container: Any, depth: int, max_depth: int) -> None:
    """check_shape of a map or array; only containers are visited, as this runs on every
    received event."""
    if depth > max_depth:
        raise CodecError(f"nesting deeper than {max_depth}")
    if type(container) is dict:
        keys = [*container]
        for key in keys:
            if type(key) is not str:
                raise CodecError(f"map key must be str, not {type(key).__name__}")
        if keys != sorted(keys):
            raise CodecError("map keys not sorted")
        items: Any = container.values()
    else:
        items = container
    for item in items:
        kind = type(item)
        if kind is float:
            raise CodecError("floats are not allowed")
        if kind is dict or kind is list:
            _check_container(item, depth + 1, max_depth)


def check_canonical(value: Any, data: bytes) -> None:
    """Step 3 of ``decode``: data must be exactly what we encode value to.

    This one comparison rejects every non-minimal form msgpack allows (see the module
    docstring); it relies on check_shape for key order, which a re-encoding keeps as found.
    """
    if _REPACKER.pack(value) != data:
        raise CodecError(
            "not the canonical encoding (a non-minimal int or length, another type, "
            "or a duplicate map key)"
        )


@lru_cache(maxsize=8)
def _unpacker_options(limits: Limits) -> dict[str, Any]:
    return dict(
        raw=False,
        use_list=True,
        strict_map_key=False,  # check_shape gives the clearer error for non-str keys
        ext_hook=_ext_hook,
        max_str_len=limits.max_str,
        max_bin_len=limits.max_bin,
        max_array_len=limits.max_array,
        max_map_len=limits.max_map,
        max_ext_len=0,
    )


_DEFAULT_OPTIONS = _unpacker_options(DEFAULT_LIMITS)


def _item_budget(limits: Limits) -> dict[str, Any]:
    """Unpacker hooks that count every completed container's items and stop past the cap."""
    left = limits.max_items

    def spend(count: int) -> None:
        nonlocal left
        left -= count + 1
        if left < 0:
            raise CodecError(f"more than {limits.max_items} items in one value")

    def mapping(items: dict[str, Any]) -> dict[str, Any]:
        spend(len(items))
        return items

    def array(items: list[Any]) -> list[Any]:
        spend(len(items))
        return items

    return {"object_hook": mapping, "list_hook": array}


def decode(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Decode exactly one canonical value occupying all of data, or raise CodecError."""
    value = unpack(data, limits)
    check_shape(value, limits)
    check_canonical(value, data)
    return value


def unpack(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Step 1 of ``decode``: exactly one msgpack value within the limits, not yet judged
    canonical: a caller must go on with ``check_shape`` and ``check_canonical``."""
    if len(data) > limits.max_size:
        raise CodecError(f"input of {len(data)} bytes exceeds the limit of {limits.max_size}")
    try:
        # Shared options, copied before adding the budget; the default's looked up without
        # hashing the Limits dataclass (a Python-level hash, paid on every event).
        options = _DEFAULT_OPTIONS if limits is DEFAULT_LIMITS else _unpacker_options(limits)
        if len(data) > limits.max_items:  # every item takes a byte, so smaller input is safe
            options = {**options, **_item_budget(limits)}
        return msgpack.unpackb(data, **options)
    except CodecError:
        raise
    except msgpack.ExtraData:
        raise CodecError("trailing bytes after the value") from None
    except UnicodeDecodeError:
        raise CodecError("invalid UTF-8 in a string") from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise CodecError(f"malformed msgpack: {str(exc) or type(exc).__name__}") from None


@dataclass(frozen=True)
class Split:
    """A byte stream cut into complete values, and whatever incomplete bytes follow them."""

    items: list[bytes]
    tail: bytes


def split_stream(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Split:
    """Cut concatenated msgpack values into their byte ranges without trusting their content.

    Only the last value may be incomplete (a torn write); it is returned as ``tail``.
    Malformed framing raises StreamError naming the offset.  Values are skipped, not built:
    each item still needs ``decode``, which is where its content is judged.
    """
    items = list(iter_stream(data, limits))
    return Split(items, data[sum(map(len, items)) :])


def iter_stream(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Iterator[bytes]:
    """The complete values of a stream, one by one, as ``split_stream`` cuts them.

    A malformed value raises StreamError only once every value before it has been yielded, so
    a reader judges values in stream order; an incomplete last value just ends the iteration.
    """
    unpacker = msgpack.Unpacker(max_buffer_size=max(len(data), 1), **_unpacker_options(limits))
    unpacker.feed(data)
    index = start = 0
    try:
        for _ in _iterate(unpacker):
            end = unpacker.tell()
            if data.find(_EXT32_WRAP, start, end) >= 0:  # msgpack may have misread it
                true_end = value_end(data, start)  # the same, or past max_size: a 4 GiB ext
                if true_end is None:
                    return  # the file ends inside that ext: a torn tail
                end = true_end
            if end - start > limits.max_size:
                raise CodecError(f"value at offset {start} exceeds {limits.max_size} bytes")
            yield data[start:end]
            index, start = index + 1, end
    except CodecError as exc:
        raise StreamError(f"at offset {start}: {exc}", index, start) from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        if _torn_at_wrapped_ext(data, start):
            return  # what msgpack read as structure after the wrapped ext is the ext's data
        message = f"at offset {start}: malformed msgpack: {str(exc) or type(exc).__name__}"
        raise StreamError(message, index, start) from None


def _iterate(unpacker: msgpack.Unpacker) -> Iterator[None]:
    while True:
        try:
            unpacker.skip()
        except msgpack.OutOfData:
            return
        yield None


# msgpack's C skip adds an ext32's type byte to its 32-bit length in 32 bits, so the greatest
# length, 2**32 - 1, wraps to an empty ext: it calls the value complete five bytes in, and reads
# the ext's data as more values.  Where these bytes occur in a value, ``value_end`` decides.  A
# value that really holds such an ext is over 4 GiB, so the file always ends inside it (torn).
_EXT32_WRAP = b"\xc9\xff\xff\xff\xff"

# Type bytes of fixed size after the type byte: nil, booleans, floats, ints, fixext (type + data).
_FIXED = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
_FIXED |= {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}
# bin, ext and str with a length header: (bytes of the length, bytes before the data: ext's type).
_SIZED = {0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0), 0xC7: (1, 1), 0xC8: (2, 1), 0xC9: (4, 1)}
_SIZED |= {0xD9: (1, 0), 0xDA: (2, 0), 0xDB: (4, 0)}
# array16/32 and map16/32: (bytes of the count, items per entry).
_COUNTED = {0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}
MAX_OPEN = 1024  # containers open at once in a structural scan (msgpack's stack)


def _torn_at_wrapped_ext(data: bytes, start: int) -> bool:
    """Whether the value msgpack's skip refused at ``start`` is really one the file ends
    inside, its skip having read a wrapped ext's data as structure."""
    if data.find(_EXT32_WRAP, start) < 0:
        return False
    try:
        return value_end(data, start) is None
    except CodecError:
        return False  # the fault msgpack found comes before any wrapped ext


def value_end(data: bytes, start: int) -> int | None:
    """Where the value at ``start`` ends, by the structural scan of docs/PROTOCOL.md §4.

    Reads type bytes and length headers only, never content.  None if ``data`` ends first (a
    torn tail); CodecError for a ``0xc1`` or a 1,025th container open at once.  The reference
    for msgpack's own ``skip``, which ``iter_stream`` uses for speed and this corrects."""
    open_: list[int] = []  # items still owed by each open container, innermost last
    at, size = start, len(data)
    while at < size:
        head = data[at]
        at += 1
        count = None
        if head <= 0x7F or head >= 0xE0:
            pass
        elif head <= 0x9F:  # fixmap, fixarray
            count = (head & 0x0F) * (2 if head <= 0x8F else 1)
        elif head <= 0xBF:  # fixstr
            at += head & 0x1F
        elif head in _FIXED:
            at += _FIXED[head]
        elif head in _SIZED:
            width, before = _SIZED[head]
            at += width + before + int.from_bytes(data[at : at + width], "big")
        elif head in _COUNTED:
            width, per = _COUNTED[head]
            count = per * int.from_bytes(data[at : at + width], "big")
            at += width
        else:
            raise CodecError(f"type byte 0x{head:02x} at offset {at - 1}")
        if at > size:
            return None
        if count is not None:
            if len(open_) >= MAX_OPEN:
                raise CodecError(f"more than {MAX_OPEN} containers open at offset {at}")
            if count:
                open_.append(count)
                continue
        while open_:  # the item just read completes every container it was the last one of
            open_[-1] -= 1
            if open_[-1]:
                break
            open_.pop()
        if not open_:
            return at
    return None
