"""Who gives way when the peer slots are full and a seated player comes (admission.py)."""

from __future__ import annotations

from types import SimpleNamespace

from creepnet.node.admission import MAX_PEERS, Admission


def test_a_seats_reconnections_push_out_the_flood_not_the_spectators_oldest_first():
    """One machine fills the peer slots with throw-away keys after three spectators came; a
    key seated in one of our games (on a LAN anyone may join an open lobby) then comes and
    goes.  Each of its arrivals took the place of the *oldest* anonymous peer: the spectators,
    one by one, while the flood stayed (it gives way to nobody else: a spectator's redial
    pushes out the flood's newest, and the flood refills the slot the seat left).  A seated
    player now takes the place of the newest anonymous peer of the address holding the most,
    as anyone else does."""
    closed: list[bytes] = []

    def peer(key: bytes, origin: str) -> SimpleNamespace:
        def close(reason: str) -> None:
            closed.append(key)
            slot.close_reason = reason

        conn = SimpleNamespace(label=f"{origin}:4100", origin=origin)
        slot = SimpleNamespace(key=key, close_reason="", conn=conn, close=close)
        return slot

    spectators = {f"spectator {i}".encode(): peer(f"spectator {i}".encode(), f"10.0.0.{i}")
                  for i in range(1, 4)}  # fmt: skip
    flood = {bytes([i]): peer(bytes([i]), "10.0.0.66") for i in range(MAX_PEERS - 3)}
    peers = {**spectators, **flood}
    seat = b"seated key"
    for round_ in range(3):  # the seat comes and goes; the flood refills the slot it left
        assert Admission.make_room(peers, seat, players={seat}, address="10.0.0.66") is None
        peers = {key: p for key, p in peers.items() if not p.close_reason}
        refill = f"refill {round_}".encode()
        peers[refill] = peer(refill, "10.0.0.66")
        assert len(peers) == MAX_PEERS
    assert not set(closed) & set(spectators), closed
    assert closed == [bytes([MAX_PEERS - 4]), b"refill 0", b"refill 1"]
