"""Onion reveals inside a session: one per seat per random draw, in seat order (protocol/onion.py).

Each seat committed at genesis or join to the anchor of a hash chain; its reveal for draw N must
hash to the layer it revealed last, so no seat can choose its value after seeing the others'.
When every seat has revealed, the draw's entropy is the hash of all preimages (bound to the game
and draw number) and is mapped without bias onto the bound the game asked for.
"""

from __future__ import annotations

from typing import Any

from creepnet.protocol import onion
from creepnet.protocol.rules import GameRuleError, expect_keys


def check_reveal(
    game: bytes, last_reveal: bytes, draws: int, body: dict[str, Any], skip: int = 0
) -> bytes:
    """The preimage a ``reveal`` body discloses for draw ``draws``; raises GameRuleError.

    ``skip``: draws the seat did not reveal for (spent unused when a retired seat took the
    draw's purpose with it: protocol/retirement.py), whose layers it now hashes through too."""
    expect_keys(body, {"draw", "pre"})
    if type(body["draw"]) is not int or body["draw"] != draws:
        raise GameRuleError(f"reveal is for draw {body['draw']!r}, expected {draws}")
    pre = body["pre"]
    if not isinstance(pre, bytes) or len(pre) != onion.SECRET_SIZE:
        raise GameRuleError("revealed value does not hash to the seat's committed onion layer")
    layer = pre
    for _ in range(skip):
        layer = onion.step(game, layer)
    if not onion.check_reveal(game, last_reveal, layer):
        raise GameRuleError("revealed value does not hash to the seat's committed onion layer")
    return pre


def draw_value(game: bytes, draws: int, reveals: list[bytes], bound: int) -> int:
    """The uniform value in [0, bound) that every seat's preimages for this draw fix."""
    return onion.uniform(onion.draw_entropy(game, draws, reveals), bound)


def own_reveal(game: bytes, onion_seed: bytes, onion_length: int, draws: int) -> dict[str, Any]:
    """The body of the local seat's reveal for draw ``draws``."""
    return {"draw": draws, "pre": onion.preimage(game, onion_seed, onion_length, draws)}
