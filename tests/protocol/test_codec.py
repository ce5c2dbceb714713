"""Canonical msgpack: round-trips of every allowed shape, rejection of every other form."""

import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol import codec
from creepnet.protocol.codec import CodecError, Limits, decode, encode, split_stream

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=40)
    | st.binary(max_size=40)
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_every_allowed_value_round_trips(value):
    data = encode(value)
    assert decode(data) == value
    assert encode(decode(data)) == data


@given(st.dictionaries(st.text(max_size=6), st.integers(0, 9), min_size=2, max_size=8))
def test_key_order_does_not_change_the_encoding(mapping):
    reversed_mapping = dict(reversed(list(mapping.items())))
    assert encode(mapping) == encode(reversed_mapping)


def test_keys_sort_by_utf8_bytes():
    data = encode({"é": 1, "z": 2, "a": 3})
    keys = list(msgpack.unpackb(data, raw=False).keys())
    assert keys == sorted(keys, key=lambda k: k.encode())


def raw_map(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return bytes([0x80 | len(pairs)]) + b"".join(k + v for k, v in pairs)


def fixstr(text: str) -> bytes:
    data = text.encode()
    return bytes([0xA0 | len(data)]) + data


@pytest.mark.parametrize(
    "data, reason",
    [
        (raw_map([(fixstr("b"), b"\x01"), (fixstr("a"), b"\x02")]), "not sorted"),
        (raw_map([(fixstr("a"), b"\x01"), (fixstr("a"), b"\x02")]), "duplicate"),
        (b"\xcc\x05", "canonical"),  # uint8 for a fixint
        (b"\xd1\x00\x01", "canonical"),  # int16 for 1
        (b"\xcd\x00\xff", "canonical"),  # uint16 for 255
        (b"\xd9\x02hi", "canonical"),  # str8 for a 2-byte string
        (b"\xdc\x00\x01\x01", "canonical"),  # array16 for one element
        (b"\xde\x00\x01\xa1a\x01", "canonical"),  # map16 for one pair
        (b"\xcb" + struct.pack(">d", 1.5), "float"),
        (b"\xca" + struct.pack(">f", 1.5), "float"),
        (b"\xd4\x01\x00", "ext"),
        (b"\xd6\xff\x00\x00\x00\x01", "ext"),  # the msgpack timestamp
        (raw_map([(b"\x01", b"\x02")]), "key must be str"),
        (raw_map([(b"\xc4\x01k", b"\x02")]), "key must be str"),
        (b"\xa2\xff\xfe", "UTF-8"),
        (b"\x01\x02", "trailing"),
        (b"\xdb\xff\xff\xff\xff", "malformed"),  # str32 declaring 4 GiB
        (b"\xc6\x7f\xff\xff\xff", "malformed"),  # bin32 declaring 2 GiB
        (b"\xdd\xff\xff\xff\xff", "malformed"),  # array32 declaring 4G items
        (b"\xdf\xff\xff\xff\xff", "malformed"),  # map32 declaring 4G pairs
        (b"", "malformed"),
        (b"\xc1", "malformed"),  # the never-used type byte
    ],
)
def test_non_canonical_and_hostile_forms_are_rejected(data, reason):
    with pytest.raises(CodecError, match=reason):
        decode(data)


def test_bin_is_required_for_bytes_and_str_for_text():
    assert encode(b"ab")[0] == 0xC4
    assert encode("ab")[0] == 0xA2
    assert decode(b"\xc4\x02ab") == b"ab"
    assert decode(b"\xa2ab") == "ab"


def test_deep_nesting_is_rejected():
    deep = b"\x91" * 40 + b"\x00"
    with pytest.raises(CodecError, match="deeper"):
        decode(deep)
    value: list = [0]
    for _ in range(40):
        value = [value]
    with pytest.raises(CodecError, match="deeper"):
        encode(value)


def nested(levels: int, inner: object) -> object:
    value = inner
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("levels, inner", [(16, []), (16, {}), (16, [0])])
def test_the_encoder_refuses_exactly_the_nesting_the_decoder_refuses(levels, inner):
    """17 containers deep: scalars do not count (PROTOCOL.md §1), so [] inside 16 lists is as
    deep as [0] inside 16: the encoder must not make bytes every decoder refuses."""
    with pytest.raises(CodecError, match="deeper"):
        decode(b"\x91" * levels + encode(inner))
    with pytest.raises(CodecError, match="deeper"):
        encode(nested(levels, inner))
    assert decode(encode(nested(levels - 1, inner))) == nested(levels - 1, inner)


def test_extremely_deep_nesting_does_not_crash():
    with pytest.raises(CodecError):
        decode(b"\x91" * 100_000 + b"\x00", Limits(max_size=1 << 20))


def test_oversize_input_is_rejected_before_decoding():
    with pytest.raises(CodecError, match="exceeds"):
        decode(encode(b"x" * 2000), Limits(max_size=1000))


def test_limits_bound_declared_lengths():
    limits = Limits(max_str=10, max_bin=10, max_array=3, max_map=2)
    for value in ("x" * 11, b"x" * 11, [1, 2, 3, 4], {"a": 1, "b": 2, "c": 3}):
        with pytest.raises(CodecError):
            decode(encode(value), limits)


@pytest.mark.parametrize(
    "value", [1.5, {1: 2}, {b"k": 1}, 2**64, -(2**63) - 1, object(), {"a": {3}}]
)
def test_encoder_refuses_disallowed_values(value):
    with pytest.raises(CodecError):
        encode(value)


def test_split_stream_finds_boundaries_and_torn_tail():
    items = [encode({"n": i, "pad": b"x" * i}) for i in range(5)]
    data = b"".join(items)
    split = split_stream(data)
    assert split.items == items and split.tail == b""
    torn = split_stream(data + items[0][:3])
    assert torn.items == items and torn.tail == items[0][:3]


def test_split_stream_rejects_garbage():
    with pytest.raises(CodecError, match="offset"):
        split_stream(encode(1) + b"\xc1\x00")


# An ext32 declaring 2**32 - 1 data bytes: msgpack's C skip adds its type byte in 32 bits and
# reads it as an empty ext, five bytes long, then reads the ext's data as more values.
EXT32_GREATEST = b"\xc9\xff\xff\xff\xff"


@pytest.mark.parametrize(
    "tail",
    [
        EXT32_GREATEST,
        EXT32_GREATEST + b"\x01",
        b"\x92" + EXT32_GREATEST + b"\x01\x02\x03",
        b"\x92" + EXT32_GREATEST + b"\x01\xc1",  # the 0xc1 is the ext's data, not a type byte
    ],
)
def test_a_stream_ending_inside_an_ext32_of_the_greatest_length_has_a_torn_tail(tail):
    head = encode({"n": 1}) + encode([1, 2])
    split = split_stream(head + tail)
    assert split.items == [encode({"n": 1}), encode([1, 2])]
    assert split.tail == tail


def test_the_greatest_ext32_length_inside_a_bin_is_only_content():
    items = [encode(b"\x00" + EXT32_GREATEST + b"\x00"), encode([EXT32_GREATEST, 7])]
    assert split_stream(b"".join(items) + b"\x92\xc0").items == items


CHUNKS = [
    bytes([b])
    for b in (0x00, 0x7F, 0x80, 0x81, 0x90, 0x91, 0x92, 0xA1, 0xC0, 0xC1, 0xC4, 0xC7, 0xC9, 0xCA)
] + [EXT32_GREATEST, b"\xc8\xff\xff", b"\xdd\xff\xff\xff\xff", b"\xdf\x00\x00\x00\x01", b"\xff"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(CHUNKS), st.binary(max_size=3)), max_size=12))
def test_the_stream_is_cut_by_the_structural_scan_of_the_spec(chunks):
    """iter_stream (msgpack's skip, for speed) cuts exactly where value_end (PROTOCOL.md §4,
    written out) does, and fails or stops where it does."""
    data = b"".join(chunks)
    expected: list[bytes] = []
    start, fault = 0, False
    while start < len(data):
        try:
            end = codec.value_end(data, start)
        except CodecError:
            fault = True
            break
        if end is None:
            break
        expected.append(data[start:end])
        start = end
    if fault:
        with pytest.raises(codec.StreamError) as caught:
            split_stream(data)
        assert caught.value.index == len(expected) and caught.value.offset == start
    else:
        split = split_stream(data)
        assert split.items == expected and split.tail == data[start:]
