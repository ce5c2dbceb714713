"""parse_event's short cut for a well-formed envelope judges exactly as the full checks do.

parse_event skips the generic shape walk of the envelope map when its keys and field types are
already right, and checks only the body's levels.  Any bytes, signed or not, must still get the
verdict (event or error message) of the plain rule: ``codec.decode``, then every envelope check.
"""

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol import codec
from creepnet.protocol.event import (
    SIGNING_DOMAIN,
    EventError,
    _check_envelope,
    parse_event,
    sign_event,
)
from creepnet.protocol.identity import Identity

ALICE = Identity.from_seed(bytes(range(32)))
GOOD = sign_event(ALICE, game=b"G" * 16, seq=5, prev=b"P" * 32, type="move", body={"move": "e7-d6"})
FIELDS = codec.decode(GOOD.raw)


def reference(raw: bytes) -> tuple:
    """The verdict of the plain rule: decode canonically, then check every envelope rule."""
    try:
        value = codec.decode(raw)
    except codec.CodecError as exc:
        return ("error", f"undecodable event: {exc}")
    try:
        _check_envelope(value)
    except EventError as exc:
        return ("error", str(exc))
    return ("event", value["seq"], value["type"], value["body"], value["sig"])


def verdict(raw: bytes) -> tuple:
    try:
        event = parse_event(raw)
    except EventError as exc:
        return ("error", str(exc))
    return ("event", event.seq, event.type, event.body, event.sig)


def signed(pairs: list[tuple[object, object]], header: bytes | None = None) -> bytes:
    """An envelope packed as given (order, duplicates and all), signed over its other pairs."""
    unsigned = [(k, v) for k, v in pairs if k != "sig"]
    body = b"".join(msgpack.packb(k) + msgpack.packb(v, use_bin_type=True) for k, v in unsigned)
    message = SIGNING_DOMAIN + bytes([0x80 | len(unsigned)]) + body
    sig = ALICE.sign(message)
    out = b"".join(
        msgpack.packb(k) + msgpack.packb(sig if k == "sig" else v, use_bin_type=True)
        for k, v in pairs
    )
    return (header or bytes([0x80 | len(pairs)])) + out


def envelope(**changes: object) -> list[tuple[object, object]]:
    return sorted({**FIELDS, **changes}.items())


@pytest.mark.parametrize(
    "raw, reason",
    [
        (signed(envelope(body={"move": 1.5})), "floats are not allowed"),
        (signed(envelope(body={"b": 1, "a": 2})), "map keys not sorted"),
        (signed(envelope(body={"m": {"x": [[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]}})), "deeper"),
        (signed([*envelope()[:1], *envelope()]), "not the canonical encoding"),  # author twice
        (signed(envelope(), header=b"\xde\x00\x08"), "not the canonical encoding"),  # map16
        (signed(envelope(v=True)), "unsupported protocol version True"),
        (signed(envelope(seq=-1)), "seq must be a non-negative integer"),
        (signed(envelope(type="")), "type must be a short non-empty string"),
        (signed(envelope(game=b"G" * 15)), "game must be 16 bytes"),
        (signed(envelope(body=[])), "body must be a map"),
        (signed(envelope(seq=5.0)), "floats are not allowed"),
    ],
)
def test_broken_envelopes_are_refused_as_before(raw, reason):
    assert verdict(raw) == reference(raw)
    with pytest.raises(EventError, match=reason):
        parse_event(raw)


def test_a_body_with_a_non_str_key_is_refused():
    body = b"\x81\x01\xa1x"  # {1: "x"}
    raw = GOOD.raw.replace(b"\xa4body\x81\xa4move\xa5e7-d6", b"\xa4body" + body)
    assert verdict(raw) == reference(raw) and "map key must be str" in verdict(raw)[1]


def test_a_non_minimal_seq_is_refused():
    raw = GOOD.raw.replace(b"\xa3seq\x05", b"\xa3seq\xcc\x05")  # uint8 for a fixint
    assert verdict(raw) == reference(raw) and "canonical" in verdict(raw)[1]


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.binary(max_size=70),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=4) | st.integers(0, 3), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*FIELDS, "extra"]), values, max_size=3),
    st.sets(st.sampled_from([*FIELDS])),
    st.booleans(),
)
def test_any_envelope_gets_the_verdict_of_the_plain_rule(changes, dropped, shuffle):
    pairs = [(k, v) for k, v in envelope(**changes) if k not in dropped]
    raw = signed(pairs[::-1] if shuffle else pairs)
    assert verdict(raw) == reference(raw)


def test_a_parsed_event_holds_every_field_of_an_event_and_equals_one_built_normally():
    event = parse_event(GOOD.raw)
    assert set(vars(event)) >= set(type(event).__dataclass_fields__)
    rebuilt = type(event)(**{name: getattr(event, name) for name in event.__dataclass_fields__})
    assert rebuilt == event and vars(rebuilt).keys() <= vars(event).keys()
