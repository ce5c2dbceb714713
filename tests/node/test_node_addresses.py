"""One reading of where an address is, for every policy of the node.

The admission (handshake and peer slots), the mesh (what a peer's word makes us dial, and our
own records) and the host finder (an advert's address) each split an address into its host
themselves, and treated the internet carrier's `wan:` addresses three ways: the whole label
(relays and all, so one peer was two addresses, dialled or accepted), nothing at all, or
whatever came before the last colon (`wan` for most addresses; part of an IPv6 relay for
others).  `transport.address_host` is now the one reading.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from creepnet.node import admission
from creepnet.node.admission import Admission
from creepnet.node.transport import Connection, Timeouts, address_host

PEER = "12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN"
RELAY4 = f"/ip4/192.0.2.1/tcp/4001/p2p/{PEER}"
RELAY6 = f"/ip6/2001:db8::1/tcp/4001/p2p/{PEER}"


@pytest.mark.parametrize(
    ("address", "host"),
    [
        ("192.168.1.5:4100", "192.168.1.5"),
        ("[fe80::1]:4100", "fe80::1"),
        ("[::ffff:10.0.0.1]:4100", "::ffff:10.0.0.1"),
        (f"wan:{PEER}", f"wan:{PEER}"),  # an accepted stream's label
        (f"wan:{PEER}@{RELAY4}", f"wan:{PEER}"),  # a dialled address: the same peer
        (f"wan:{PEER}@{RELAY4},{RELAY6}", f"wan:{PEER}"),  # colons in a relay: still the peer
        ("peer", "peer"),  # a label that is no address is its own host
    ],
)
def test_an_address_is_read_as_one_host_whatever_carries_it(address, host):
    assert address_host(address) == host


def test_one_internet_peer_is_one_address_to_the_peer_slots_dialled_or_accepted(monkeypatch):
    """Two connections of one peer id (one we dialled at its relays, one it opened) and a
    lone other peer: the fullest address is that peer id, holding two, and its newest peer
    gives way to a newcomer from elsewhere."""
    monkeypatch.setattr(admission, "MAX_PEERS", 3)
    closed: list[str] = []

    def peer(key: bytes, label: str) -> SimpleNamespace:
        return SimpleNamespace(
            key=key, close_reason="", conn=SimpleNamespace(label=label, origin=address_host(label)),
            close=lambda reason: closed.append(label),
        )  # fmt: skip

    peers = {
        b"a": peer(b"a", f"wan:{PEER}"),
        b"b": peer(b"b", f"wan:{PEER}@{RELAY6}"),
        b"c": peer(b"c", "wan:12D3KooWOther"),
    }
    assert Admission.make_room(peers, b"new", players=(), address="wan:12D3KooWNewcomer") is None
    assert closed == [f"wan:{PEER}@{RELAY6}"]


def test_throwaway_peer_ids_from_one_ip_give_way_to_a_joiner_from_elsewhere(monkeypatch):
    """Over the internet every peer id was its own address to the peer slots, and peer ids are
    free: one machine's throw-away ids, pinging, filled every slot and kept joiners and
    spectators out.  A stream the carrier accepts now comes from the IP its connection comes
    from (``CarrierStream.origin``: the peer's, or the relay's), so they are one origin
    holding the most, and its newest gives way to a newcomer from another."""
    monkeypatch.setattr(admission, "MAX_PEERS", 8)
    closed: list[bytes] = []

    def peer(key: bytes, origin: str) -> SimpleNamespace:
        conn = SimpleNamespace(label=f"wan:12D3KooW{key.hex()}", origin=origin)
        return SimpleNamespace(
            key=key, close_reason="", conn=conn, close=lambda reason: closed.append(key)
        )

    flood = {bytes([i]): peer(bytes([i]), "198.51.100.7") for i in range(7)}
    peers = {**flood, b"spectator": peer(b"spectator", "203.0.113.9")}
    assert Admission.make_room(peers, b"joiner", players=(), address="192.0.2.44") is None
    assert closed == [bytes([6])]  # the flood's newest, never the spectator

    # what the peer slots read is the stream's origin, not its free peer id
    class Stream:
        origin = "198.51.100.7"

    conn = Connection(Stream(), Timeouts(), label="wan:12D3KooWfresh")  # type: ignore[arg-type]
    assert conn.origin == "198.51.100.7"
    lan = Connection(object(), Timeouts(), label="10.0.0.5:4100")  # type: ignore[arg-type]
    assert lan.origin == "10.0.0.5"
