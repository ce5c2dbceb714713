"""Checking a batch's signatures before its rules changes no verdict (protocol/verify.py).

Whatever the batch size, the verdict of a tampered log is the one of a replay that judges each
event completely before parsing the next (a batch of one): same kind, same position, same
author, whichever of a bad signature, a malformed event or an illegal move comes first.
"""

import pytest

from creepnet.protocol import codec, verify
from creepnet.protocol.event import parse_event, sign_event
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot
from creepnet.protocol.verify import verify_log_bytes

SEED = 17


def finished_log() -> tuple[list[bytes], SessionHarness]:
    table = SessionHarness(seed=SEED, options={"max_plies": 40})
    table.run([creeper_bot("random", SEED), creeper_bot("random", SEED + 1)])
    return [e.raw for e in table.spectator.log.events], table


RAWS, TABLE = finished_log()
MOVES = [i for i, raw in enumerate(RAWS) if parse_event(raw).type == "move"]


def forged(raws: list[bytes], index: int) -> None:
    fields = codec.decode(raws[index])
    fields["sig"] = bytes(64)
    raws[index] = codec.encode(fields)


def malformed(raws: list[bytes], index: int) -> None:
    """Well framed, but seq is a uint16 for a number a shorter form holds: not canonical."""
    seq = codec.decode(raws[index])["seq"]
    wide = b"\xa3seq\xcd" + seq.to_bytes(2, "big")
    raws[index] = raws[index].replace(b"\xa3seq" + codec.encode(seq), wide, 1)


def unframed(raws: list[bytes], index: int) -> None:
    raws[index] = raws[index][:-1] + b"\xc1"  # the never-used msgpack byte: the framing breaks


def illegal(raws: list[bytes], index: int) -> None:
    """The same move event, validly signed by its author, moving from an empty hole."""
    event = parse_event(raws[index])
    author = next(i for i in TABLE.identities if i.public_key == event.author)
    raws[index] = sign_event(
        author, game=event.game, seq=event.seq, prev=event.prev, type="move", body={"move": "d4-d5"}
    ).raw


def verdicts(data: bytes, monkeypatch) -> list[dict]:
    seen = []
    for size in (1, 3, 8, 256):
        monkeypatch.setattr(verify, "BATCH", size)
        seen.append(verify_log_bytes(data).to_json())
    return seen


@pytest.mark.parametrize(
    "faults, kind",
    [
        ([(forged, 0), (malformed, 2)], "signature"),
        ([(malformed, 0), (forged, 2)], "malformed"),
        ([(illegal, 0), (forged, 1)], "illegal"),
        ([(forged, 0), (illegal, 1)], "signature"),
        ([(illegal, 0), (malformed, 1)], "illegal"),
        ([(malformed, 0)], "malformed"),
        ([(forged, 0), (unframed, 2)], "signature"),
        ([(unframed, 0), (forged, 2)], "malformed"),
    ],
)
@pytest.mark.parametrize("first", [MOVES[2], MOVES[5], MOVES[7]])
def test_the_first_fault_in_file_order_wins_whatever_the_batch(faults, kind, first, monkeypatch):
    raws = list(RAWS)
    for fault, offset in faults:
        fault(raws, MOVES[MOVES.index(first) + offset])
    results = verdicts(b"".join(raws), monkeypatch)
    assert all(result == results[0] for result in results)
    error = results[0]["error"]
    assert (error["seq"], error["kind"]) == (first, kind)
    assert results[0]["events"] == first
    if kind == "illegal":  # a validly signed illegal move blames its signer
        assert error["author"] == parse_event(raws[first]).author.hex()


def test_a_valid_log_and_a_torn_one_read_the_same_whatever_the_batch(monkeypatch):
    data = b"".join(RAWS)
    assert all(result["valid"] for result in verdicts(data, monkeypatch))
    torn = verdicts(data[:-5], monkeypatch)
    assert all(result == torn[0] for result in torn)
    assert torn[0]["error"]["kind"] == "torn-tail"
