"""`creepnet log FILE`: one readable line per event, or JSON lines."""

from __future__ import annotations

import argparse
import json

from creepnet.cli.options import read_log
from creepnet.cli.text import printable
from creepnet.protocol.event import EventError, parse_event


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("log", help="print the events of a game log")
    parser.add_argument("file", help="a game log file")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(func=run)


def describe_body(body: dict) -> str:
    parts = []
    for key, value in body.items():
        if isinstance(value, bytes):
            text = value.hex()[:12] + ("…" if len(value) > 6 else "")
        elif isinstance(value, (list, dict)):
            text = f"[{len(value)}]" if isinstance(value, list) else "{…}"
        else:
            text = str(value)
        parts.append(f"{key}={text}")
    return " ".join(parts)


def run(args: argparse.Namespace) -> int:
    log_file = read_log(args.file)
    for seq, raw in enumerate(log_file.items):
        try:
            event = parse_event(raw)
        except EventError as exc:
            print(printable(f"seq {seq}: malformed event: {exc}"))
            return 1
        if args.json:
            print(json.dumps(event.to_json()))
        else:
            print(
                printable(
                    f"{event.seq:5d}  {event.author_fingerprint}  {event.type:<10} "
                    f"{describe_body(event.body)}"
                )
            )
    if log_file.torn:
        print(f"(torn tail: {len(log_file.torn_tail)} trailing bytes are an incomplete event)")
        return 1
    if not log_file.items:  # as damaged as a torn one: verify calls it INVALID
        print("(the log holds no events)")
        return 1
    return 0
