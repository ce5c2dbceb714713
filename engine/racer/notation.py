"""A canonical text for every seat action, e.g. ``play-calamity slot=12 card=44 target=7``.

It is what a bot or a console hands to the session (as Creeper moves are notation): one line,
unambiguous, readable in logs, and parseable without any seat's private knowledge, because it
names slots and card ids outright.  Friendlier input (hand positions, names) is the console's
job; it resolves what a person typed to an action and formats it here.

Specified in docs/spec-racer.md §7 (action texts).
"""

from __future__ import annotations

import re
from dataclasses import fields

from creepnet.engine.racer.actions import (
    Action,
    IllegalAction,
    SeatAction,
    action_from_dict,
    action_to_dict,
)

_SEAT_ACTION_NAMES = {
    re.sub(r"(?<!^)(?=[A-Z])", "-", cls.__name__).lower(): cls.__name__
    for cls in SeatAction.__args__
}
_TYPE_NAMES = {v: k for k, v in _SEAT_ACTION_NAMES.items()}
_NUMBER = re.compile(r"-|0|[1-9][0-9]{0,9}")


def format_action(action: Action) -> str:
    """The canonical text of a seat action."""
    data = action_to_dict(action)
    name = _TYPE_NAMES.get(data.pop("type"))
    if name is None:
        raise IllegalAction(f"{type(action).__name__} is not a seat action")
    parts = [name] + [
        f"{f.name}={'-' if data[f.name] is None else data[f.name]}" for f in fields(action)
    ]
    return " ".join(parts)


def parse_action(text: str) -> SeatAction:
    """The seat action a canonical text names (IllegalAction, with the reason, if none)."""
    words = text.split()
    if not words or words[0] not in _SEAT_ACTION_NAMES:
        known = ", ".join(sorted(_SEAT_ACTION_NAMES))
        raise IllegalAction(f"unknown action {words[0] if words else ''!r}; actions: {known}")
    data: dict[str, object] = {"type": _SEAT_ACTION_NAMES[words[0]]}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or not key.isidentifier() or key in data or not _NUMBER.fullmatch(value):
            raise IllegalAction(f"bad field {word!r}: write name=number (or name=- for none)")
        data[key] = None if value == "-" else int(value)
    action = action_from_dict(data)
    if format_action(action) != text:  # fields in order, none missing, one space: one spelling
        raise IllegalAction(f"write it as {format_action(action)!r}")
    return action  # type: ignore[return-value]
