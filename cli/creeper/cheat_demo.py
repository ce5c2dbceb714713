"""After a demo game, the guest turns cheater with its real key; verification names it.

Each attempt is something a dishonest player could really do to a log it holds, and each verdict
comes from the same verifier every node and `creepnet verify` run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from creepnet.engine import creeper
from creepnet.node.storage import load_identity
from creepnet.protocol import codec
from creepnet.protocol.event import Event, sign_event
from creepnet.protocol.identity import Identity
from creepnet.protocol.log import EquivocationProof, load_log
from creepnet.protocol.verify import replay, verify_log_bytes

Out = Callable[[str], None]


def run_cheats(log_bytes: bytes, cheater_home: Path, out: Out = print) -> bool:
    """Play the cheater against a finished log; True when every cheat was caught as expected."""
    cheater = load_identity(cheater_home)
    events = load_log(log_bytes).events
    mine = [e for e in events if e.author == cheater.public_key and e.type == "move"]
    if not mine:
        out("(the guest made no move to cheat with)")
        return True
    out(f"\nNow the guest ({cheater.fingerprint}) turns cheater, with its own key:")
    twin = _twin(events, cheater, mine[0])  # one forged alternative, used twice below
    caught = [
        _edit_without_key(events, mine[-1], out),
        _illegal_move(events, cheater, mine[-1], out),
        _late_move(events, cheater, out),
        _rewrite_history(events, mine[0], twin, out),
        _equivocate(cheater, mine[0], twin, out),
    ]
    return all(caught)


def _verdict(label: str, data: bytes, out: Out, blame: bytes | None) -> bool:
    verdict = verify_log_bytes(data)
    text = verdict.error.describe() if verdict.error else "valid"
    out(f"  {label}\n    creepnet verify: {'INVALID' if not verdict.valid else 'valid'}: {text}")
    return not verdict.valid and verdict.error is not None and verdict.error.author == blame


def _edit_without_key(events: list[Event], target: Event, out: Out) -> bool:
    fields = codec.decode(target.raw)
    fields["body"] = {"move": _other_move(events, target) or fields["body"]["move"]}
    data = b"".join(codec.encode(fields) if e is target else e.raw for e in events)
    label = f"1. edits its move at seq {target.seq} in the file, keeping the old signature"
    return _verdict(label, data, out, blame=None)  # forged bytes prove nothing about anyone


def _illegal_move(events: list[Event], cheater: Identity, target: Event, out: Out) -> bool:
    """Cut the log before one of its moves and sign an illegal one there instead."""
    session, _ = replay(b"".join(e.raw for e in events[: target.seq]))
    state = session.engine_state
    # Moving one of the opponent's pins is never legal: a plausible-looking forgery.
    theirs = creeper.legal_moves(replace(state, to_move=state.to_move.other))
    body = {"move": creeper.format_move(theirs[0])}
    forged = sign_event(
        cheater, game=target.game, seq=target.seq, prev=target.prev, type="move", body=body
    )
    label = f"2. cuts the log at seq {target.seq} and signs the illegal move {body['move']} there"
    return _verdict(label, session.log.to_bytes() + forged.raw, out, blame=cheater.public_key)


def _late_move(events: list[Event], cheater: Identity, out: Out) -> bool:
    last = events[-1]
    late = sign_event(
        cheater, game=last.game, seq=last.seq + 1, prev=last.id, type="resign", body={}
    )
    label = f"3. appends an event after the game's end (seq {late.seq})"
    data = b"".join(e.raw for e in events) + late.raw
    return _verdict(label, data, out, blame=cheater.public_key)


def _twin(events: list[Event], cheater: Identity, target: Event) -> Event:
    """The cheater's own signature on a different, plausible move at target's position."""
    body = {"move": _other_move(events, target) or target.body["move"]}
    return sign_event(
        cheater, game=target.game, seq=target.seq, prev=target.prev, type=target.type, body=body
    )


def _rewrite_history(events: list[Event], target: Event, twin: Event, out: Out) -> bool:
    data = b"".join(twin.raw if e is target else e.raw for e in events)
    label = f"4. re-signs a different move at seq {target.seq}, keeping the rest of the game"
    # The opponent's next event points at the original: the chain breaks right after.
    return _verdict(label, data, out, blame=None)


def _equivocate(cheater: Identity, target: Event, twin: Event, out: Out) -> bool:
    proof = EquivocationProof(target.raw, twin.raw)
    named = proof.verify().author == cheater.public_key
    out(
        f"  5. tells the two players different moves at seq {target.seq}\n"
        f"    the two signed events form a portable proof: {cheater.fingerprint} equivocated"
    )
    return named


def _other_move(events: list[Event], target: Event) -> str | None:
    """Another legal move for the position before target, so the forgery is plausible."""
    session, _ = replay(b"".join(e.raw for e in events[: target.seq]))
    legal = [creeper.format_move(m) for m in creeper.legal_moves(session.engine_state)]
    others = [m for m in legal if m != target.body.get("move")]
    return others[0] if others else None
