"""A wire with a fixed delay: every Ethernet frame between two interfaces, late by D ms.

The kernel here has no ``netem`` qdisc, so the NAT test bed (netns_nat.py) gets its link delay
from this small userspace bridge instead: run inside a namespace that holds the two ends of
two veth pairs and nothing else (no address, no forwarding), it reads every frame arriving on
one end with an ``AF_PACKET`` socket and writes it out of the other end ``--delay-ms`` later,
in both directions, in arrival order (one delay for all, so order is kept).  ARP, TCP and
everything else cross it unchanged: to the two sides it is one Ethernet segment, D ms long.

    python netns_wire.py run D IFACE_A IFACE_B    (D in ms; prints "wire ready", runs until killed)
    python netns_wire.py no-offload DEV…

The devices that transmit *into* the wire must compute their own checksums and segment their
own packets: a veth normally hands its peer partial checksums and 64 KiB GSO super-packets,
which are fine inside one kernel but not once copied out through a packet socket.
``no_offload(dev)`` turns transmit checksumming off (TSO and GSO follow it), with the same
ioctl ``ethtool -K DEV tx off`` uses — ethtool itself need not be installed.

Stdlib only; one thread, ``select`` with microsecond timeouts: the frames leave within a few
tens of µs of their due time on an idle machine (more when the cores are busy, as for any
process; the bed's measurements say so).
"""

from __future__ import annotations

import collections
import ctypes
import fcntl
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # sll_pkttype of a frame this host sent: never forwarded back
SIOCETHTOOL = 0x8946
ETHTOOL_STXCSUM = 0x17  # legacy "set tx checksumming" (TSO/GSO are dropped along with it)
MAX_FRAME = 65536


def no_offload(dev: str) -> None:
    """Transmit checksums and segmentation in software on dev (in the current namespace)."""
    value = ctypes.create_string_buffer(struct.pack("II", ETHTOOL_STXCSUM, 0), 8)
    request = struct.pack("16sP", dev.encode(), ctypes.addressof(value)).ljust(40, b"\0")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock, SIOCETHTOOL, request)


def packet_socket(dev: str) -> socket.socket:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind((dev, ETH_P_ALL))
    sock.setblocking(False)
    return sock


def run(delay: float, dev_a: str, dev_b: str) -> None:
    a, b = packet_socket(dev_a), packet_socket(dev_b)
    other = {a: b, b: a}
    due: collections.deque[tuple[float, socket.socket, bytes]] = collections.deque()
    print("wire ready", flush=True)
    while True:
        timeout = None if not due else max(0.0, due[0][0] - time.monotonic())
        readable, _, _ = select.select([a, b], [], [], timeout)
        for sock in readable:
            while True:
                try:
                    frame, address = sock.recvfrom(MAX_FRAME)
                except BlockingIOError:
                    break
                if address[2] != PACKET_OUTGOING:
                    due.append((time.monotonic() + delay, other[sock], frame))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, sock, frame = due.popleft()
            try:
                sock.send(frame)
            except OSError as exc:  # a frame the other side cannot take is lost, as on a wire
                print(f"wire: dropped a {len(frame)}-byte frame: {exc}", file=sys.stderr)


def main(argv: list[str]) -> None:
    if argv[:1] == ["run"] and len(argv) == 4:
        run(float(argv[1]) / 1000, argv[2], argv[3])
    elif argv[:1] == ["no-offload"]:
        for dev in argv[1:]:
            no_offload(dev)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
