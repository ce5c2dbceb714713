"""Node-frame fuzzing (issue 21.7), fast enough for CI: hostile frames and messages — random
bytes, valid msgpack of wrong shapes, huge declared lengths, messages of the right types with
wrong fields — against the frame decoder directly, and against a live node over loopback.

The node must stay up, keep serving an honest peer, leave its game as it was, and never hit an
internal error: fault isolation (test_node_faults.py) would hide a bug from the players, so the
fuzzer checks the node's reports for one.
"""

from __future__ import annotations

import struct

import msgpack
import trio
import trio.testing
from conftest import FAST, faults_reported, raw_peer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from creepnet.node import messages
from creepnet.node.framing import HANDSHAKE_FRAME, HANDSHAKE_LIMITS, FrameError, FrameReader
from creepnet.node.node import Node
from creepnet.node.peer import ProtocolViolation
from creepnet.protocol import codec
from creepnet.protocol.identity import Identity

TYPES = [*messages.SHAPES, "ping", "pong", "error", "hello", "auth", "ready", "x" * 300]
MALLORY = Identity.from_seed(b"\x72" * 32)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.binary(max_size=40)
    | st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


@st.composite
def shaped(draw: st.DrawFn, game: bytes = b"\x00" * 16) -> dict:
    """A message of a known type, each field right or wrong."""
    fields = {
        "game": st.just(game) | st.binary(max_size=20),
        "from": st.integers(min_value=-5, max_value=2**64 - 1) | values,
        "length": st.integers(min_value=-5, max_value=2**64 - 1) | values,
        "items": st.lists(st.binary(max_size=60), max_size=8) | values,
        "request": st.binary(max_size=80) | values,
        "reason": st.text(max_size=40) | values,
        # retirement and mesh fields: integers up to what msgpack carries (a seat of 2**63
        # once reached the signing frame and raised OverflowError)
        "seq": st.integers(min_value=-5, max_value=2**64 - 1) | values,
        "seat": st.integers(min_value=-5, max_value=2**64 - 1) | values,
        "objector": st.integers(min_value=-5, max_value=2**64 - 1) | values,
        "port": st.integers(min_value=-5, max_value=2**64 - 1) | values,
        "prev": st.binary(min_size=32, max_size=32) | values,
        "vote": st.tuples(
            st.integers(min_value=0, max_value=2**64 - 1), st.binary(max_size=64)
        ).map(list)
        | values,
        "event": st.binary(max_size=80) | values,
        "signature": st.binary(min_size=64, max_size=64) | values,
    }
    message = {"type": draw(st.sampled_from(TYPES))}
    for name, strategy in fields.items():
        if draw(st.booleans()):
            message[name] = draw(strategy)
    return message


def encode(value) -> bytes:
    """Canonical where the codec takes it, else msgpack's own (often non-canonical) bytes."""
    try:
        return codec.encode(value)
    except (codec.CodecError, TypeError, ValueError, OverflowError):
        return msgpack.packb(value)


frame_bodies = (
    st.binary(min_size=1, max_size=300)
    | values.map(encode)
    | shaped().map(encode)
    | st.binary(max_size=40).map(lambda tail: b"\xdf\xff\xff\xff\xff" + tail)  # a 4G-entry map
)


@settings(max_examples=300, deadline=None)
@given(st.lists(frame_bodies | st.integers(0, 2**32 - 1), min_size=1, max_size=6))
async def test_the_frame_decoder_returns_a_message_or_a_frame_error_for_any_bytes(frames):
    """Bytes straight into the decoder (the handshake's limits, as a stranger meets them):
    a message of the right form, or FrameError — nothing else, ever."""
    send, receive = trio.testing.memory_stream_one_way_pair()
    wire = b"".join(
        struct.pack(">I", item) if isinstance(item, int) else struct.pack(">I", len(item)) + item
        for item in frames
    )
    await send.send_all(wire)
    await send.aclose()
    reader = FrameReader(receive, HANDSHAKE_FRAME, HANDSHAKE_LIMITS)
    with trio.fail_after(10):
        while True:
            try:
                message = await reader.read()
            except FrameError:
                return
            assert isinstance(message, dict) and isinstance(message["type"], str)
            try:
                checked = messages.check(message)
            except ProtocolViolation:
                continue
            assert message["type"] in messages.SHAPES
            # the fields of its type, as they came; nothing else goes on from here
            assert set(checked) == {"type", *messages.SHAPES[message["type"]]}
            assert all(checked[name] is message[name] for name in checked)


async def hostile_session(address: str, conn_frames: list) -> None:
    """One connection of Mallory's: through the handshake, then the frames, sealed as the
    channel wants (or a bare header declaring a length), until the node hangs up."""
    conn = await raw_peer(address, MALLORY)
    try:
        for item in conn_frames:
            if isinstance(item, int):
                await conn.stream.send_all(struct.pack(">I", item))
                continue
            body = item if isinstance(item, bytes) else encode(item)
            sealed = conn._sealer.seal(body)
            await conn.stream.send_all(struct.pack(">I", len(sealed)) + sealed)
    except trio.BrokenResourceError:
        pass  # the node hung up on an earlier frame: as it should
    finally:
        await trio.aclose_forcefully(conn.stream)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_a_live_node_survives_hostile_frames_and_keeps_serving(tmp_path_factory, data):
    home = tmp_path_factory.mktemp("fuzz")
    async with Node.open(home / "alice", timeouts=FAST) as alice, alice.updates() as news:
        game = await alice.host_game("creeper", "fuzz", player="alice")
        before = alice.session(game).log.to_bytes()
        connections = data.draw(
            st.lists(
                st.lists(frame_bodies | shaped(game) | st.integers(0, 2**32 - 1), max_size=5),
                min_size=1,
                max_size=3,
            )
        )
        with trio.fail_after(30):
            for frames in connections:
                await hostile_session(alice.address, frames)
            honest = await raw_peer(alice.address, Identity.generate())
            await honest.send({"type": "list"})
            while (reply := await honest.receive())["type"] != "games":
                pass
        assert [item["game"] for item in reply["items"]] == [game]
        assert alice.session(game).log.to_bytes() == before
        assert not faults_reported(news)
