"""Frames on real loopback sockets: limits are enforced before allocating, garbage is refused."""

import struct
import tracemalloc

import pytest
import trio
from conftest import connection_pair, loopback_pair

from creepnet.node.framing import MAX_FRAME, FrameError, FrameReader, encode_frame
from creepnet.protocol import codec


async def test_frames_round_trip_in_order():
    async with connection_pair() as (a, b):
        messages = [{"type": "ping", "n": i, "blob": bytes(i)} for i in range(50)]
        async with trio.open_nursery() as nursery:

            async def sender():
                for message in messages:
                    await a.send(message)

            nursery.start_soon(sender)
            with trio.fail_after(10):
                got = [await b.receive() for _ in messages]
        assert got == messages


async def test_oversized_declared_length_fails_at_once_without_allocating():
    async with loopback_pair() as (client, server):
        reader = FrameReader(server)
        # Only the header is sent: if the reader waited for (or allocated) the body it would
        # hang here or allocate 4 GiB.
        await client.send_all(struct.pack(">I", 0xFFFFFFF0))
        tracemalloc.start()
        try:
            with trio.fail_after(5), pytest.raises(FrameError, match="exceeds the limit"):
                await reader.read()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 1 << 20


async def test_garbage_and_non_canonical_bytes_are_refused():
    cases = [
        b"\xc1",  # never-used msgpack byte
        b"\xcd\x00\x01",  # uint16 for 1: not canonical
        codec.encode([1, 2]),  # not a map
        codec.encode({"kind": "x"}),  # no type
        b"\x81\xa4type\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00",  # a float
    ]
    for body in cases:
        async with loopback_pair() as (client, server):
            await client.send_all(struct.pack(">I", len(body)) + body)
            with trio.fail_after(5), pytest.raises(FrameError):
                await FrameReader(server).read()


async def test_zero_length_and_truncated_frames():
    async with loopback_pair() as (client, server):
        await client.send_all(struct.pack(">I", 0))
        with trio.fail_after(5), pytest.raises(FrameError, match="empty"):
            await FrameReader(server).read()
    async with loopback_pair() as (client, server):
        await client.send_all(struct.pack(">I", 100) + b"\x00" * 10)
        await client.aclose()
        with trio.fail_after(5), pytest.raises(FrameError, match="middle of a frame"):
            await FrameReader(server).read()


async def test_a_flood_of_small_frames_is_read_with_bounded_buffer():
    frame = encode_frame({"type": "ping", "n": 1})
    count = 20000
    async with loopback_pair() as (client, server):
        reader = FrameReader(server)
        async with trio.open_nursery() as nursery:

            async def flood():
                await client.send_all(frame * count)

            nursery.start_soon(flood)
            with trio.fail_after(20):
                for _ in range(count):
                    assert (await reader.read())["n"] == 1
                    assert len(reader._buffer) <= 64 << 10


def test_encoder_refuses_oversized_messages():
    with pytest.raises(FrameError):
        encode_frame({"type": "events", "items": [bytes(1 << 20), bytes(1 << 20)]})
    assert len(encode_frame({"type": "x", "b": bytes(1000)})) < MAX_FRAME
