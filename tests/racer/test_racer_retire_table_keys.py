"""A retired seat's table-made deck steps must use the keys the spec names.

docs/ESCROW.md "Retirement in the deck": the table authors retired seat X's steps with
``RetiredSeatKeys``: every scalar X had not committed to yet is *public*, so anyone can use it at
the audit.  Checked by their proofs alone (as the spec said before), the seat that signs them
(the lowest remaining) could lock X's share of a pool with keys only it knows: every event was
accepted, and at the end the audit could not decode the cards under those keys, so a game the
signer was losing ended "draw (audit: ... was never revealed)", valid, with nobody blamed
(found by review; a 3-seat game played to a winner, seed 3, ended that way when seat 0 did it).
Now a lock under a retired seat's number must commit to the table's keys (C_j = b_j·G, one
fixed-base multiplication a position), and a new layer of a shuffle under it to the public
layer (PROTOCOL.md §5.3).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))
from retirement_support import retire, run_without  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from racer_retire_support import OPTIONS, STOPS, one_owed, play_until_owed, players  # noqa: E402

from creepnet.protocol.deck import escrowing  # noqa: E402
from creepnet.protocol.deck.group import scalar_from_wide  # noqa: E402
from creepnet.protocol.event import sign_event  # noqa: E402
from creepnet.protocol.games.racer.schedule import DeckStep, next_step  # noqa: E402
from creepnet.protocol.testing.sessions import SessionHarness  # noqa: E402

# The table's step, and the scalars it would make secret: a lock's keys, a shuffle's new layer.
SECRET = {"lock": "lock", "shuffle": "layer"}


@pytest.mark.parametrize("op", ["shuffle", "lock"])
def test_the_table_cannot_step_for_a_retired_seat_with_keys_only_its_signer_knows(
    monkeypatch: pytest.MonkeyPatch, op: str
) -> None:
    t = SessionHarness(seats=3, kind="racer", options=OPTIONS, seed=3)
    table_players = players(3)
    play_until_owed(t, table_players, 1, STOPS["shuffle"])  # seat 1 stops in the set-up
    run_without(t, table_players, {1})
    retire(t, 1)
    signer = t.sessions[0]
    while True:  # the recoveries, then the table's shuffle of `creeps` for seat 1, ...
        step = next_step(signer.game_state)
        if isinstance(step, DeckStep) and step.op == op and step.by is not None:
            break
        turn = t.spectator.expected()
        assert turn is not None
        seat = turn.seat
        event = one_owed(t.sessions[seat])  # one event at a time: stop right at the step
        assert event is not None, step
        t.broadcast(seat, [event])
        t.pump()
    assert step.seat == 1 and step.by == 0  # seat 0 owes seat 1's step

    public = escrowing.RetiredSeatKeys._scalar

    def secret_keys(keys: escrowing.RetiredSeatKeys, *label: str | int) -> bytes:
        if label[0] != SECRET[op]:
            return public(keys, *label)
        return scalar_from_wide(hashlib.sha512(repr(label).encode() + b"seat 0 alone").digest())

    with monkeypatch.context() as patched:
        patched.setattr(escrowing.RetiredSeatKeys, "_scalar", secret_keys)
        kind, body = signer.private.owed(signer.game_state, len(signer.log))  # type: ignore[union-attr]
    assert kind == "deck" and body["op"] == op
    event = sign_event(
        t.identities[0],
        game=signer.game,  # type: ignore[arg-type]
        seq=len(signer.log),
        prev=signer.log.head,
        type="deck",
        body=body,
    )
    before = t.spectator.state_digest()
    receipt = t.spectator.receive(event.raw)
    assert receipt.status == "rejected", f"a {op} for seat 1 under keys nobody else can know"
    assert receipt.rejection is not None and receipt.rejection.author == event.author
    assert t.spectator.state_digest() == before

    # The same step with the table's keys is the one the table owes: it goes in.
    honest = one_owed(signer)
    assert honest is not None
    assert t.spectator.receive(honest.raw).status == "accepted"
