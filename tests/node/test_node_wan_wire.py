"""The NAT bed's delaying wire (tests/node/netns_wire.py): what crosses it is late, and intact.

One home behind a cone NAT, its uplink a wire 20 ms long each way, and a TCP echo in the public
namespace: a connection set up through the wire takes at least one round trip (40 ms), each
echo of a small frame at least another, and a bulk transfer arrives byte for byte (checksums
computed before the wire, every frame copied whole).  Skipped (with the reason) where the bed
cannot be built.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netns_nat  # noqa: E402
from netns_nat import bed_or_skip  # noqa: E402

DELAY_MS = 20.0
ECHO_PORT = 5000

ECHO = """
import socket, sys
server = socket.create_server((sys.argv[1], int(sys.argv[2])))
print("listening", flush=True)
conn, _ = server.accept()
while data := conn.recv(65536):
    conn.sendall(data)
"""

CLIENT = """
import hashlib, socket, sys, threading, time
started = time.perf_counter()
conn = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
connect = time.perf_counter() - started
conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
echoes = []
for _ in range(5):
    started = time.perf_counter()
    conn.sendall(b"x" * 100)
    got = b""
    while len(got) < 100:
        got += conn.recv(100 - len(got))
    echoes.append(time.perf_counter() - started)
bulk = bytes(range(256)) * 8192  # 2 MiB: many full-size frames
back = bytearray()
def receive():
    while len(back) < len(bulk):
        back.extend(conn.recv(1 << 20))
reader = threading.Thread(target=receive)
reader.start()
conn.sendall(bulk)
reader.join(30)
same = hashlib.sha256(back).digest() == hashlib.sha256(bulk).digest()
print(f"{connect} {min(echoes)} {max(echoes)} {same}")
"""


@pytest.fixture
def delayed_home() -> Iterator[netns_nat.Internet]:
    yield from bed_or_skip({"a": "cone"}, delay_ms=DELAY_MS)


def test_the_wire_delays_every_frame_both_ways_and_keeps_them_intact(delayed_home):
    bed = delayed_home
    public = bed.relay_addresses[0]
    echo = subprocess.Popen(
        bed.python(bed.public, "-c", ECHO, public, str(ECHO_PORT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert echo.stdout is not None and echo.stdout.readline().strip() == "listening"
        result = subprocess.run(
            bed.python(bed.homes["a"].name, "-c", CLIENT, public, str(ECHO_PORT)),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        connect, fastest, slowest, same = result.stdout.split()
    finally:
        echo.kill()
        echo.wait()
    round_trip = 2 * DELAY_MS / 1000
    assert float(connect) >= round_trip  # the SYN and the SYN-ACK each crossed the wire
    assert round_trip <= float(fastest) <= float(slowest) < round_trip + 1.0
    assert same == "True"  # 2 MiB echoed through the wire, byte for byte
