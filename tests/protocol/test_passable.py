"""Which received events a relay may pass on before checking them (Session.passable)."""

from test_session import forge, mover, started_table

from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot


def a_move(table: SessionHarness, seat: int):
    session = table.sessions[seat]
    return session.play(creeper_bot("random", seat)(session))


def test_the_owed_authors_next_event_is_passable_before_it_is_checked():
    table = started_table(seed=3)
    seat = mover(table)
    relay = table.spectator  # a third node between the two players
    move = a_move(table, seat)
    assert relay.passable([move.raw]) == 1
    # Signed by the owed author at our head, an illegal move passes too: the relay's full check
    # (and every receiver's) refuses it and names its author.
    illegal = forge(relay, table.identities[seat], "move", {"move": "d4-d5"})
    assert relay.passable([illegal.raw]) == 1


def test_a_chain_by_the_owed_author_passes_and_stops_at_another_author():
    table = started_table(seed=4)
    seat = mover(table)
    relay = table.spectator
    move = a_move(table, seat)
    # Only the first position's author is known without the full check: the relay passes on
    # that author's chain (a batch at most; a receiver refuses what was not theirs to write).
    more = forge(relay, table.identities[seat], "resign", {}, seq=move.seq + 1, prev=move.id)
    assert relay.passable([move.raw, more.raw]) == 2
    other = forge(relay, table.identities[1 - seat], "resign", {}, seq=move.seq + 1, prev=move.id)
    assert relay.passable([move.raw, other.raw]) == 1
    relay.accept(move.raw)
    table.sessions[1 - seat].accept(move.raw)
    assert relay.passable([a_move(table, 1 - seat).raw]) == 1


def test_forgeries_and_misplaced_events_are_not_passable():
    table = started_table(seed=5)
    seat = mover(table)
    relay = table.spectator
    not_owed = forge(relay, table.identities[1 - seat], "resign", {})
    ahead = forge(relay, table.identities[seat], "resign", {}, seq=len(relay.log) + 1)
    stale = forge(relay, table.identities[seat], "resign", {}, prev=b"\x00" * 32)
    tampered = bytearray(forge(relay, table.identities[seat], "resign", {}).raw)
    tampered[-1] ^= 1
    for raw in (not_owed.raw, ahead.raw, stale.raw, bytes(tampered), b"\xc1junk"):
        assert relay.passable([raw]) == 0
    assert relay.passable([]) == 0


def test_nothing_is_passable_in_the_lobby():
    table = SessionHarness(seed=6)
    host = table.sessions[0]
    assert not host.started
    assert host.passable([forge(host, table.identities[0], "start", {}).raw]) == 0


def test_a_passed_event_has_its_signature_verified_once(monkeypatch):
    """The relay checks the signature to pass an event on, then checks the event in full: the
    parsed event is handed over, so Ed25519 runs once, not twice."""
    from creepnet.protocol import event as event_module

    table = started_table(seed=7)
    seat = mover(table)
    relay = table.spectator
    move = a_move(table, seat)
    calls = []
    real = event_module.verify_signature
    monkeypatch.setattr(
        event_module, "verify_signature", lambda *args: calls.append(1) or real(*args)
    )
    assert relay.passable([move.raw]) == 1
    assert relay.receive(move.raw).status == "accepted"
    assert len(calls) == 1
    assert relay.receive(move.raw).status == "duplicate"
