"""`--trace FILE`: when this node stored each event, one line per event, to measure latency.

A line is ``<unix time, µs> <game id hex> <seq>``, written when the event is durably stored
(the moment the node may send it on).  Traces of several nodes on one machine share a clock,
so their lines can be merged to see how long each hop took (benchmarks/racer_network.py does).
"""

from __future__ import annotations

import time
from pathlib import Path


class EventTrace:
    def __init__(self, path: Path) -> None:
        # Line-buffered: a trace read while the node runs, or after a kill, is whole up to there.
        self._file = path.open("a", buffering=1, encoding="ascii")

    def stored(self, game: bytes, first: int, count: int) -> None:
        stamp = f"{time.time():.6f} {game.hex()}"
        self._file.write("".join(f"{stamp} {first + k}\n" for k in range(count)))

    def close(self) -> None:
        self._file.close()


def read_trace(path: Path) -> dict[bytes, dict[int, float]]:
    """Per game, the time each seq was stored (the first time, if stored again after a resume)."""
    times: dict[bytes, dict[int, float]] = {}
    for line in path.read_text(encoding="ascii").splitlines():
        stamp, game, seq = line.split()
        times.setdefault(bytes.fromhex(game), {}).setdefault(int(seq), float(stamp))
    return times
