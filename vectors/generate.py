"""Build every conformance vector in this folder from fixed seeds (vectors/README.md).

    python vectors/generate.py            # rewrite the JSON files
    python vectors/generate.py --check    # exit 1 if any file would change

Everything is deterministic: identities and seat secrets come from fixed seeds
(``protocol/testing/sessions.py``'s derivation), the proofs' hedged nonces from a counter-mode
SHA-256 stream that replaces ``secrets.token_bytes`` while the generator runs, and the deck's thread
pool is held to one thread so those nonces are drawn in one order.  Running it twice gives
byte-identical files (tests/vectors/test_vectors.py checks that the committed files are its
output), so a deliberate protocol change shows up as a diff of these files.

The values written are our implementation's outputs; tests/vectors/test_vectors.py checks
every vector against our own code again, so the files can never drift from it.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FORMAT = 1  # version of the vector file format (README.md); bump on an incompatible change


# --- determinism --------------------------------------------------------------------------------


@contextlib.contextmanager
def deterministic(label: str) -> Iterator[None]:
    """Fixed proof nonces and one deck thread, for as long as the block runs."""
    import secrets

    from creepnet.protocol.deck import threads

    counter = 0

    def token_bytes(n: int | None = None) -> bytes:
        nonlocal counter
        size = 32 if n is None else n
        out = b""
        while len(out) < size:
            out += hashlib.sha256(f"creepnet/vectors/{label}/{counter}".encode()).digest()
            counter += 1
        return out[:size]

    saved_token, saved_threads = secrets.token_bytes, threads.MAX_THREADS
    secrets.token_bytes = token_bytes  # type: ignore[assignment]
    threads.MAX_THREADS = 1
    try:
        yield
    finally:
        secrets.token_bytes = saved_token  # type: ignore[assignment]
        threads.MAX_THREADS = saved_threads


def h(data: bytes) -> str:
    return data.hex()


def long_hex(data: bytes) -> dict[str, Any]:
    """A byte string as `hex`, or for a long and repetitive one as `hex_runs`: [hex, count]
    pairs whose repetitions, concatenated, are the bytes (README.md)."""
    if len(data) <= 4096:
        return {"hex": data.hex()}
    runs: list[list[Any]] = []
    i = 0
    while i < len(data):
        best = (1, 1)
        for period in range(1, 17):
            chunk = data[i : i + period]
            count = 1
            while data[i + count * period : i + (count + 1) * period] == chunk:
                count += 1
            if period * count > best[0] * best[1]:
                best = (period, count)
        period, count = best
        piece = data[i : i + period]
        if count == 1 and runs and runs[-1][1] == 1:
            runs[-1][0] += piece.hex()
        else:
            runs.append([piece.hex(), count])
        i += period * count
    assert b"".join(bytes.fromhex(x) * n for x, n in runs) == data
    return {"hex_runs": runs}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def seed_bytes(label: str) -> bytes:
    return hashlib.sha256(f"creepnet/vectors/{label}".encode()).digest()


# --- typed values: msgpack values in JSON (README.md "Typed values") ---------------------------


def typed(value: Any) -> Any:
    if value is None:
        return ["nil"]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, bytes):
        return ["bin", value.hex()]
    if isinstance(value, list):
        return ["array", [typed(v) for v in value]]
    if isinstance(value, dict):
        return ["map", [[k, typed(v)] for k, v in value.items()]]
    raise TypeError(type(value).__name__)


def untyped(value: Any) -> Any:
    tag = value[0]
    if tag == "nil":
        return None
    if tag == "bool":
        return value[1]
    if tag == "int":
        return int(value[1])
    if tag == "str":
        return value[1]
    if tag == "bin":
        return bytes.fromhex(value[1])
    if tag == "array":
        return [untyped(v) for v in value[1]]
    if tag == "map":
        return {k: untyped(v) for k, v in value[1]}
    raise ValueError(tag)


def framed(parts: list[tuple[str, Any]]) -> list[list[Any]]:
    """Deck frame parts as JSON: ["s", text] / ["i", "int"] / ["b", hex]."""
    out: list[list[Any]] = []
    for tag, value in parts:
        if tag == "s":
            out.append(["s", value])
        elif tag == "i":
            out.append(["i", str(value)])
        else:
            out.append(["b", value.hex()])
    return out


def unframed(parts: list[list[Any]]) -> list[Any]:
    return [
        p[1] if p[0] == "s" else int(p[1]) if p[0] == "i" else bytes.fromhex(p[1]) for p in parts
    ]


# --- primitives -----------------------------------------------------------------------------


def codec_vectors() -> dict[str, Any]:
    from creepnet.protocol import codec

    valid_values: list[tuple[str, Any]] = [
        ("nil", None),
        ("false", False),
        ("true", True),
    ]
    for n in (0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**64 - 1):
        valid_values.append((f"int {n}", n))
    for n in (-1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63)):
        valid_values.append((f"int {n}", n))
    for size in (0, 31, 32, 255, 256):
        valid_values.append((f"str of {size} bytes", "a" * size))
    valid_values.append(("str of 16384 bytes (the limit)", "a" * 16384))
    valid_values.append(("str, UTF-8 of non-ASCII", "é€😀"))
    for size in (0, 255, 256):
        valid_values.append((f"bin of {size} bytes", bytes(size)))
    valid_values += [
        ("array of 15", list(range(15))),
        ("array of 16", list(range(16))),
        ("map of 15", {f"k{i:02}": i for i in range(15)}),
        ("map of 16", {f"k{i:02}": i for i in range(16)}),
        ("map keys in UTF-8 byte order", {"B": 1, "a": 2, "b": 3, "é": 4, "😀": 5, "z": 6}),
        ("nesting of depth 16 (the limit)", _nested(16)),
        ("an event-like map", {"body": {}, "seq": 3, "type": "start", "v": 1}),
        ("str holding U+FFFF: valid UTF-8 (names refuse it, the codec does not)", "\uffff"),
        ("map of 256 pairs (the limit)", {f"k{i:03}": None for i in range(256)}),
    ]
    valid = []
    for name, value in valid_values:
        data = codec.encode(value)
        assert codec.decode(data) == value
        valid.append({"name": name, "value": typed(value), **long_hex(data)})
    rejected = []
    for name, data in _codec_rejections():
        try:
            codec.decode(data)
        except codec.CodecError:
            rejected.append({"name": name, **long_hex(data)})
        else:
            raise AssertionError(f"codec accepted {name}")
    # The item budget is enforced only on encodings longer than max_items bytes (codec.unpack):
    # this value has 131,073 items in 114,691 bytes and is accepted (docs/PROTOCOL.md §1).
    dense = b"\xdc\x40\x00" + (b"\x96" + b"\xc0" * 6) * 16384
    codec.decode(dense)
    accepted = [
        {
            "name": "131073 items in 114691 bytes: accepted, the item budget applies only "
            "to encodings longer than 131072 bytes",
            **long_hex(dense),
        }
    ]
    # The limits exactly (one over each is in `rejected`): 131,072 items in more than 131,072
    # bytes, a value of 1 MiB, an array of 16,384 elements.
    for name, data in (
        ("131072 items in 212993 bytes: the item budget, exactly", _items(131072)),
        ("a bin value of exactly 1 MiB (1048576 bytes with its header)", _bin32(1 << 20)),
        ("array of 16384 nils (the limit)", b"\xdc\x40\x00" + b"\xc0" * 16384),
    ):
        codec.decode(data)
        accepted.append({"name": name, **long_hex(data)})
    return {
        "about": "canonical msgpack (docs/PROTOCOL.md §1): encode `value` to `hex`, decode "
        "`hex` back to `value`; every `rejected` input must be refused by a strict decoder; "
        "every `accepted` input decoded without error",
        "valid": valid,
        "accepted": accepted,
        "rejected": rejected,
    }


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _codec_rejections() -> list[tuple[str, bytes]]:
    many = b"\xdc\x40\x00" + (b"\x98" + b"\xc0" * 8) * 16384  # 16384 arrays of 8 nils
    return [
        ("5 as uint8 (not minimal)", b"\xcc\x05"),
        ("200 as uint16", b"\xcd\x00\xc8"),
        ("5 as int8 (a non-negative integer with a signed type)", b"\xd0\x05"),
        ("-1 as int8", b"\xd0\xff"),
        ("-100 as int16", b"\xd1\xff\x9c"),
        ("300 as uint32", b"\xce\x00\x00\x01\x2c"),
        ("2**32 as uint64? no: 1 as uint64", b"\xcf" + (1).to_bytes(8, "big")),
        ("'a' as str8", b"\xd9\x01a"),
        ("empty str as str16", b"\xda\x00\x00"),
        ("3 bytes as bin16", b"\xc5\x00\x03abc"),
        ("array of 1 as array16", b"\xdc\x00\x01\xc0"),
        ("map of 1 as map16", b"\xde\x00\x01\xa1a\xc0"),
        ("map keys out of order", b"\x82\xa1b\x01\xa1a\x02"),
        ("duplicate map key", b"\x82\xa1a\x01\xa1a\x02"),
        ("integer map key", b"\x81\x01\x02"),
        ("bin map key", b"\x81\xc4\x01a\x02"),
        ("float32", b"\xca\x00\x00\x00\x00"),
        ("float64", b"\xcb" + bytes(8)),
        ("fixext1", b"\xd4\x01\x00"),
        ("timestamp ext", b"\xd6\xff\x00\x00\x00\x00"),
        ("the never-used byte 0xc1", b"\xc1"),
        ("trailing bytes", b"\x01\x02"),
        ("invalid UTF-8 in a str", b"\xa2\xc3\x28"),
        ("str of 16385 bytes (over 16 KiB)", b"\xda\x40\x01" + b"a" * 16385),
        ("array of 16385 elements", b"\xdc\x40\x01" + b"\xc0" * 16385),
        ("map of 257 pairs", b"\xde\x01\x01" + b"".join(_key(i) + b"\xc0" for i in range(257))),
        ("nesting of depth 17", b"\x91" * 16 + b"\x90"),
        ("163841 items in 147459 bytes", many),
        ("truncated value", b"\x92\x01"),
        ("empty input", b""),
        ("131073 items in 212995 bytes: one over the item budget", _items(131073)),
        ("a bin value of 1048577 bytes with its header: one over 1 MiB", _bin32((1 << 20) + 1)),
        ("a UTF-16 surrogate (U+D800) encoded in a str", b"\xa3\xed\xa0\x80"),
        ("an overlong UTF-8 encoding of NUL in a str", b"\xa2\xc0\x80"),
        ("a code point above U+10FFFF in a str", b"\xa4\xf4\x90\x80\x80"),
    ]


def _items(count: int) -> bytes:
    """An array of 16,384 arrays of 2-byte integers holding ``count`` items (131,072 or
    131,073: the first inner array is one element short for the first)."""
    inner = b"\x96" + b"\xcc\x80" * 6  # 7 items
    first = {131073: inner, 131072: b"\x95" + b"\xcc\x80" * 5}[count]
    return b"\xdc\x40\x00" + first + inner * 16383


def _bin32(total: int) -> bytes:
    """A bin32 value of ``total`` bytes, header included."""
    return b"\xc6" + (total - 5).to_bytes(4, "big") + bytes(total - 5)


def _key(i: int) -> bytes:
    text = f"k{i:03}".encode()
    return bytes([0xA0 | len(text)]) + text


def _lax_verifier_cases(seed: bytes, message: bytes) -> list[tuple[str, bytes, bytes, bytes]]:
    """Two signatures that satisfy the cofactorless equation [S]B = R + [k]A and still break
    the rule of docs/PROTOCOL.md §2: a lax verifier accepts them, a conforming one must not."""
    import nacl.bindings as nb
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    order = 2**252 + 27742317777372353535851937790883648493
    digest = bytearray(hashlib.sha512(seed).digest()[:32])  # RFC 8032 secret scalar a
    digest[0] &= 248
    digest[31] = (digest[31] & 127) | 64
    a = int.from_bytes(digest, "little")
    key = nb.crypto_scalarmult_ed25519_base_noclamp((a % order).to_bytes(32, "little"))

    def k_of(r_point: bytes, public: bytes) -> int:
        return int.from_bytes(hashlib.sha512(r_point + public + message).digest(), "little") % order

    # A mixed-order key A + T, T of order 8, and an R whose k is a multiple of 8, so [k]T = 0:
    # libsodium's crypto_sign_verify_detached accepts it (it refuses only small-order keys).
    torsion = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
    mixed = nb.crypto_core_ed25519_add(key, torsion)
    for counter in range(1000):
        label = f"creepnet/vectors/mixed-order-nonce/{counter}".encode()
        r = int.from_bytes(hashlib.sha512(label).digest(), "little") % order
        r_point = nb.crypto_scalarmult_ed25519_base_noclamp(r.to_bytes(32, "little"))
        if k_of(r_point, mixed) % 8 == 0:
            break
    s = (r + k_of(r_point, mixed) * a) % order
    on_mixed = r_point + s.to_bytes(32, "little")
    nb.crypto_sign_open(on_mixed + message, mixed)  # libsodium's check alone: accepted
    # R the identity point (small order) and S = k·a: OpenSSL's check accepts it.
    identity = (1).to_bytes(32, "little")
    small_r = identity + (k_of(identity, key) * a % order).to_bytes(32, "little")
    Ed25519PublicKey.from_public_bytes(key).verify(small_r, message)  # OpenSSL: accepted
    return [
        (
            "a mixed-order key (A + a point of order 8) and R with k a multiple of 8: the "
            "cofactorless equation holds and libsodium's verify_detached alone accepts it",
            mixed,
            message,
            on_mixed,
        ),
        (
            "R the identity point (small order), S = k·a: the cofactorless equation holds and "
            "OpenSSL accepts it",
            key,
            message,
            small_r,
        ),
    ]


def identity_vectors() -> dict[str, Any]:
    import nacl.bindings as nb

    from creepnet.protocol import codec
    from creepnet.protocol.event import SIGNING_DOMAIN, sign_event
    from creepnet.protocol.identity import Identity, fingerprint, verify_signature
    from creepnet.protocol.lobby import GAME_DOMAIN, JOIN_DOMAIN, derive_game_id

    keys = []
    for i in range(3):
        seed = seed_bytes(f"identity/{i}")
        ident = Identity.from_seed(seed)
        keys.append(
            {"seed": h(seed), "public": h(ident.public_key), "fingerprint": ident.fingerprint}
        )
    host = Identity.from_seed(seed_bytes("identity/0"))
    nonce = seed_bytes("nonce")[:16]
    game = derive_game_id(host.public_key, nonce)
    unsigned = {
        "v": 1,
        "game": game,
        "seq": 1,
        "prev": hashlib.sha256(b"previous").digest(),
        "author": host.public_key,
        "type": "start",
        "body": {},
    }
    event = sign_event(host, game=game, seq=1, prev=unsigned["prev"], type="start", body={})
    signed = SIGNING_DOMAIN + codec.encode(unsigned)
    assert signed == event.signed
    join_unsigned = {
        "game": game,
        "genesis": hashlib.sha256(b"genesis").digest(),
        "seat": 1,
        "key": Identity.from_seed(seed_bytes("identity/1")).public_key,
        "anchor": hashlib.sha256(b"anchor").digest(),
        "player": "p1",
    }
    joiner = Identity.from_seed(seed_bytes("identity/1"))
    join_signed = JOIN_DOMAIN + codec.encode(join_unsigned)
    join_sig = joiner.sign(join_signed)
    # Signature-rule cases (docs/PROTOCOL.md §2).
    message = b"creepnet vectors"
    good = host.sign(message)
    identity_point = (1).to_bytes(32, "little")
    s = (7).to_bytes(32, "little")
    forged_on_identity = nb.crypto_scalarmult_ed25519_base_noclamp(s) + s  # R = [s]B, S = s
    L = 2**252 + 27742317777372353535851937790883648493
    high_s = good[:32] + ((int.from_bytes(good[32:], "little") + L).to_bytes(32, "little"))
    cases = [
        ("a valid signature", host.public_key, message, good),
        ("the message changed", host.public_key, message + b"!", good),
        (
            "the identity point as key, R = [s]B, S = s (passes a cofactorless check that "
            "allows small-order keys)",
            identity_point,
            message,
            forged_on_identity,
        ),
        ("S + L instead of S (non-canonical S)", host.public_key, message, high_s),
        ("a key of the wrong length", host.public_key[:31], message, good),
    ]
    cases += _lax_verifier_cases(seed_bytes("identity/0"), message)
    signatures = []
    for name, key, msg, sig in cases:
        signatures.append(
            {
                "name": name,
                "key": h(key),
                "message": h(msg),
                "sig": h(sig),
                "valid": verify_signature(key, msg, sig),
            }
        )
    assert [c["valid"] for c in signatures] == [True, False, False, False, False, False, False]
    return {
        "about": "identities, the signature rule, fingerprints, game ids, event and join-request "
        "signing (docs/PROTOCOL.md §2, §3, §5.1)",
        "keys": keys,
        "fingerprint_domain": h(b"creepnet/fingerprint\0"),
        "signatures": signatures,
        "game_id": {
            "domain": h(GAME_DOMAIN),
            "host": h(host.public_key),
            "nonce": h(nonce),
            "input": h(GAME_DOMAIN + host.public_key + nonce),
            "game": h(game),
        },
        "event": {
            "seed": h(seed_bytes("identity/0")),
            "unsigned": typed(unsigned),
            "signed_bytes": h(signed),
            "sig": h(event.sig),
            "raw": h(event.raw),
            "id": h(event.id),
            "author_fingerprint": fingerprint(host.public_key),
        },
        "join_request": {
            "seed": h(seed_bytes("identity/1")),
            "unsigned": typed(join_unsigned),
            "signed_bytes": h(join_signed),
            "sig": h(join_sig),
            "map": typed({**join_unsigned, "sig": join_sig}),
            "bytes": h(codec.encode({**join_unsigned, "sig": join_sig})),
        },
    }


def onion_vectors() -> dict[str, Any]:
    from creepnet.protocol import onion

    game = seed_bytes("onion/game")[:16]
    secret = seed_bytes("onion/secret")
    length = 8
    chain = [onion.layer(game, secret, d) for d in range(length + 1)]
    pres = [seed_bytes(f"onion/pre/{i}") for i in range(3)]
    draws = []
    for d, bound in ((0, 2), (1, 6), (2, 7), (3, 95)):
        entropy = onion.draw_entropy(game, d, pres)
        draws.append(
            {
                "draw": d,
                "preimages": [h(p) for p in pres],
                "input": h(onion.DRAW_DOMAIN + game + d.to_bytes(8, "big") + b"".join(pres)),
                "entropy": h(entropy),
                "bound": bound,
                "value": onion.uniform(entropy, bound),
            }
        )
    # Rejection sampling: a bound just above 2**63 rejects about half of all words.
    bound = 2**63 + 1
    rejecting = []
    for c in range(200):
        entropy = hashlib.sha256(f"creepnet/vectors/onion/reject/{c}".encode()).digest()
        first = int.from_bytes(hashlib.sha256(entropy + bytes(4)).digest()[:8], "big")
        limit = (1 << 64) - (1 << 64) % bound
        if first >= limit:
            words = []
            for counter in range(2):
                block = hashlib.sha256(entropy + counter.to_bytes(4, "big")).digest()
                words += [h(block[k : k + 8]) for k in range(0, 32, 8)]
            rejecting.append(
                {
                    "entropy": h(entropy),
                    "bound": str(bound),
                    "limit": str(limit),
                    "words": words,
                    "value": str(onion.uniform(entropy, bound)),
                }
            )
            if len(rejecting) == 2:
                break
    return {
        "about": "hash-onion commit-reveal (docs/PROTOCOL.md §6): chain[d] = h^d(secret); a seat "
        "with onion length K commits chain[K] and reveals chain[K-1-d] for draw d",
        "step_domain": h(onion.ONION_DOMAIN),
        "draw_domain": h(onion.DRAW_DOMAIN),
        "game": h(game),
        "secret": h(secret),
        "length": length,
        "chain": [h(c) for c in chain],
        "anchor": h(onion.anchor(game, secret, length)),
        "draws": draws,
        "rejection_sampling": rejecting,
    }


def deck_vectors() -> dict[str, Any]:
    from creepnet.protocol.deck import group
    from creepnet.protocol.deck import keys as keys_mod
    from creepnet.protocol.deck.classproof import prove_class, verify_class
    from creepnet.protocol.deck.dleq import CHALLENGE_DOMAIN, proof_context, prove, verify
    from creepnet.protocol.deck.noneof import NoneOfRejected, prove_none_of, verify_none_of
    from creepnet.protocol.deck.shuffleproof import ShuffleRejected, prove_shuffle, verify_shuffle

    out: dict[str, Any] = {
        "about": "the encrypted deck's primitives (docs/DECKS.md, docs/PROTOCOL.md §5.3); "
        "points are 32-byte Ed25519 encodings, scalars 32-byte little-endian",
    }
    # frame
    frames = []
    for parts in (
        [("b", b"creepnet/deck/v1")],
        [("s", "deck:0"), ("i", 0), ("i", -1)],
        [("s", "λ"), ("b", b""), ("i", 2**63 - 1), ("i", -(2**63))],
    ):
        values = [v for _, v in parts]
        frames.append({"parts": framed(parts), "hex": h(group.frame(*values))})
    out["frame"] = frames
    # card points
    card_ids = [str(i) for i in range(135)]
    out["card_points"] = {
        "domain": h(group.CARD_DOMAIN),
        "input_of_card_7": h(group.CARD_DOMAIN + b"\x00" + b"7"),
        "hash_of_card_7": h(hashlib.sha256(group.CARD_DOMAIN + b"\x00" + b"7").digest()),
        "points": {card: h(group.card_point(card)) for card in card_ids},
    }
    out["generators"] = {
        "domain": h(group.GENERATOR_DOMAIN),
        "label": "shuffle",
        "input_of_index_1": h(group.frame(group.GENERATOR_DOMAIN, "shuffle", 1)),
        "points": [h(p) for p in group.generators("shuffle", 6)],
    }
    # HKDF derivations
    game = seed_bytes("deck/game")[:16]
    seat_key = bytes.fromhex(identity_key(0))
    secret = seed_bytes("deck/secret")
    dk = keys_mod.DeckKeys(game, seat_key, secret)
    info = group.frame(b"creepnet/deck/v1", game, seat_key, "lock", "deck:0", 3, 0)
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    okm = HKDF(hashes.SHA512(), 64, keys_mod.KDF_SALT, info).derive(secret)
    assert group.scalar_from_wide(okm) == dk.lock_key("deck:0", 3)
    perm_info = group.frame(b"creepnet/deck/v1", game, seat_key, "perm", "play", 1, 0)
    perm_okm = HKDF(hashes.SHA512(), 8160, keys_mod.KDF_SALT, perm_info).derive(secret)
    out["derivations"] = {
        "game": h(game),
        "seat_key": h(seat_key),
        "secret": h(secret),
        "salt": h(keys_mod.KDF_SALT),
        "commit_domain": h(keys_mod.COMMIT_DOMAIN),
        "commitment": h(dk.commitment),
        "example_scalar": {
            "label": framed([("s", "lock"), ("s", "deck:0"), ("i", 3), ("i", 0)]),
            "info": h(info),
            "okm": h(okm),
            "scalar": h(dk.lock_key("deck:0", 3)),
        },
        "layer": [
            {
                "family": "cards",
                "depth": d,
                "scalar": h(dk.layer("cards", d)),
                "commit": h(dk.layer_commit("cards", d)),
            }
            for d in (0, 1, 2)
        ],
        "lock": [
            {"pool": p, "position": j, "scalar": h(dk.lock_key(p, j))}
            for p, j in (("faceup", 0), ("deck:0", 0), ("deck:0", 47), ("discard:0", 5))
        ],
        "blind": [
            {"pool": p, "position": j, "transfer": t, "scalar": h(dk.blind_key(p, j, t))}
            for p, j, t in (("deck:1", 4, 0), ("deck:1", 4, 1))
        ],
        "permutation_stream": {
            "pool": "play",
            "shuffle_index": 1,
            "block": 0,
            "info": h(perm_info),
            "first_words": [int.from_bytes(perm_okm[k : k + 4], "big") for k in range(0, 40, 4)],
        },
        "permutations": [
            {"pool": p, "shuffle_index": i, "n": n, "perm": dk.permutation(p, i, n)}
            for p, i, n in (
                ("creeps", 0, 1),
                ("creeps", 0, 2),
                ("creeps", 0, 40),
                ("play", 1, 95),
                ("deck:1", 2, 10),
                ("discard:0", 0, 7),
            )
        ],
    }
    # DLEQ, per use
    ctx_args = (game, 9, seat_key)
    m = group.card_point("3")
    layer = dk.layer("cards", 1)
    layer_commit = dk.layer_commit("cards", 1)
    cin = group.mul(layer, m)  # a point carrying the seat's layer
    b = dk.lock_key("deck:0", 2)
    x = group.scalar_mul(b, group.scalar_invert(layer))
    lock_out = group.mul(x, cin)
    t = dk.blind_key("deck:0", 2, 0)
    core = group.mul(b, m)
    q1 = group.mul(t, core)
    q2 = group.mul(group.scalar_invert(b), q1)
    uses = [
        ("open", "deck:0", 2, layer, group.BASE, layer_commit, m, cin),
        ("lock", "deck:0", 2, x, cin, lock_out, layer_commit, group.mul_base(b)),
        ("blind", "deck:0", 2, t, group.BASE, group.mul_base(t), core, q1),
        ("unblind", "deck:0", 2, b, group.BASE, group.mul_base(b), q2, q1),
    ]
    dleqs = []
    for op, pool, j, witness, g1, h1, g2, h2 in uses:
        ctx = proof_context(*ctx_args, op, pool, j)
        proof = prove(witness, g1, h1, g2, h2, ctx)
        assert verify(proof, g1, h1, g2, h2, ctx)
        r1 = group.sub(
            group.mul_base(proof[32:]) if g1 == group.BASE else group.mul(proof[32:], g1),
            group.mul(proof[:32], h1),
        )
        r2 = group.sub(group.mul(proof[32:], g2), group.mul(proof[:32], h2))
        challenge_input = group.frame(CHALLENGE_DOMAIN, ctx, g1, h1, g2, h2, r1, r2)
        bad = proof[:32] + group.scalar_add(proof[32:], group.ONE)
        dleqs.append(
            {
                "op": op,
                "game": h(game),
                "seq": 9,
                "author": h(seat_key),
                "pool": pool,
                "position": j,
                "context": h(ctx),
                "g1": h(g1),
                "h1": h(h1),
                "g2": h(g2),
                "h2": h(h2),
                "proof": h(proof),
                "r1": h(r1),
                "r2": h(r2),
                "challenge_input": h(challenge_input),
                "valid": True,
                "tampered_proof": h(bad),
            }
        )
        assert not verify(bad, g1, h1, g2, h2, ctx)
    out["dleq"] = {"domain": h(CHALLENGE_DOMAIN), "proofs": dleqs}
    # Shuffle proof: seat at depth 1 -> 2 of family "cards" over 5 points.
    n = 5
    inputs = [group.mul(layer, group.card_point(str(i))) for i in range(n)]
    step = dk.layer_step("cards", 2)
    perm = dk.permutation("deck:0", 1, n)
    outputs = [group.mul(step, inputs[i]) for i in perm]
    commit = dk.layer_commit("cards", 2)
    ctx = proof_context(game, 12, seat_key, "shuffle", "deck:0", 1)
    sproof = prove_shuffle(inputs, outputs, perm, step, layer_commit, layer, commit, ctx)
    verify_shuffle(sproof, inputs, outputs, layer_commit, commit, ctx)
    swapped = [outputs[1], outputs[0], *outputs[2:]]
    try:
        verify_shuffle(sproof, inputs, swapped, layer_commit, commit, ctx)
        raise AssertionError("a swapped output verified")
    except ShuffleRejected:
        pass
    from creepnet.protocol.deck.shuffleproof import _chain_weights, _challenges

    seed, e = _challenges(ctx, layer_commit, commit, inputs, outputs, sproof["perm"])
    chain_seed, weights = _chain_weights(seed, sproof["chain"])
    v = int.from_bytes(
        hashlib.sha512(
            group.frame(chain_seed, "v", *(sproof[k] for k in (
                "t_rows", "t_perm", "t_chain", "t_chain_end", "t_map", "t_layer")))
        ).digest(),
        "little",
    ) % group.L  # fmt: skip
    out["shuffle"] = {
        "challenges": {
            "seed": h(seed),
            "e": [h(group.as_scalar(x)) for x in e],
            "chain_seed": h(chain_seed),
            "lambda": [h(group.as_scalar(x)) for x in weights],
            "v": h(group.as_scalar(v)),
        },
        "context": h(ctx),
        "context_parts": {
            "game": h(game),
            "seq": 12,
            "author": h(seat_key),
            "op": "shuffle",
            "pool": "deck:0",
            "shuffle_index": 1,
        },
        "base": h(layer_commit),
        "commit": h(commit),
        "inputs": [h(p) for p in inputs],
        "outputs": [h(p) for p in outputs],
        "perm": perm,
        "proof": {k: [h(x) for x in v] if isinstance(v, list) else h(v) for k, v in sproof.items()},
        "valid": True,
        "invalid_outputs": [h(p) for p in swapped],
    }
    # None-of and class proofs for the card "3" held under key b.
    holder = group.mul_base(b)
    points = {c: group.card_point(c) for c in card_ids}
    excluded = ["0", "1", "2", "4"]
    nctx = proof_context(game, 20, seat_key, "none_of", "deck:0", 2)
    nproof = prove_none_of(b, "3", holder, core, points, excluded, nctx)
    verify_none_of(nproof, holder, core, points, excluded, nctx)
    try:
        verify_none_of(nproof, holder, core, points, ["0", "1", "4", "2"], nctx)
        raise AssertionError("a reordered set verified")
    except NoneOfRejected:
        pass
    empty_proof = prove_none_of(b, "3", holder, core, points, [], nctx)
    verify_none_of(empty_proof, holder, core, points, [], nctx)
    out["none_of"] = {
        "domain": h(b"creepnet/deck/none-of/v1"),
        "context": h(nctx),
        "commit": h(holder),
        "core": h(core),
        "card": "3",
        "key": h(b),
        "cases": [
            {"excluded": excluded, "proof": h(nproof), "valid": True},
            {"excluded": ["0", "1", "4", "2"], "proof": h(nproof), "valid": False},
            {"excluded": [], "proof": h(empty_proof), "valid": True},
            {"excluded": ["3"], "proof": h(nproof[:96] + nproof[96:128]), "valid": False},
        ],
    }
    allowed = ["2", "3", "5"]
    cctx = proof_context(game, 21, seat_key, "class", "deck:0", 2)
    cproof = prove_class(b, "3", holder, core, points, allowed, cctx)
    assert verify_class(cproof, holder, core, points, allowed, cctx)
    assert not verify_class(cproof, holder, core, points, ["2", "5", "3"], cctx)
    out["class"] = {
        "domain": h(b"creepnet/deck/class/v1"),
        "context": h(cctx),
        "commit": h(holder),
        "core": h(core),
        "card": "3",
        "cases": [
            {"allowed": allowed, "proof": [h(p) for p in cproof], "valid": True},
            {"allowed": ["2", "5", "3"], "proof": [h(p) for p in cproof], "valid": False},
        ],
    }
    # Appended: its own nonce stream, so that the vectors generated after it stay as they were.
    with deterministic("deck/bookkeeping"):
        out["bookkeeping"] = deck_bookkeeping_vector()
    return out


def face_up_snapshot(state: Any) -> dict[str, Any]:
    """What DECKS.md "Face up, exactly" keeps: per family its face-up cards (sorted), per pool
    its face-up positions, per-seat depths and how many seats have locked it."""
    return {
        "families": {f: sorted(cards, key=int) for f, cards in state.public_cards.items()},
        "pools": {
            name: {
                "family": pool.family,
                "depth": list(pool.depth),
                "locks": pool.locks,
                "face_up": {str(j): card for j, card in sorted(pool.public.items())},
            }
            for name, pool in state.pools.items()
        },
    }


def deck_bookkeeping_vector() -> dict[str, Any]:
    """DECKS.md "Face up, exactly" and the lock's depth rule, as a run of deck messages: a
    shuffle turns every position face down (a card opened before may be opened again after),
    and a pool split from a shuffled one is locked by seats that never shuffled it."""
    from creepnet.protocol.deck.group import mul, scalar_invert, scalar_product
    from creepnet.protocol.deck.keys import DeckKeys
    from creepnet.protocol.deck.state import DeckState
    from creepnet.protocol.testing.decks import DeckHarness

    game = seed_bytes("deck/bookkeeping/game")[:16]
    seat_keys = [seed_bytes(f"deck/bookkeeping/seat/{s}") for s in range(2)]
    secrets_ = [seed_bytes(f"deck/bookkeeping/secret/{s}") for s in range(2)]
    cards = [str(i) for i in range(6)]
    harness = DeckHarness(
        2, cards, game_id=game, seat_keys=seat_keys, deck_secrets=secrets_, shared_state=True
    )
    harness.create("d", cards)
    harness.shuffle("d")
    first = harness.open("d", 0)
    harness.shuffle("d", [0])
    # where the opened card went: strip both seats' layers (the generator knows the secrets)
    keys = [DeckKeys(game, seat_keys[s], secrets_[s]) for s in range(2)]
    pool = harness.state.pools["d"]
    total = scalar_product(keys[s].layer("d", pool.depth[s]) for s in range(2))
    plain = [harness.state.table.decode(mul(scalar_invert(total), p)) for p in pool.points]
    again = harness.open("d", plain.index(first))
    assert again == first
    harness.split("d", ["a", "b"], [3, 3])
    harness.lock("a")
    replica = DeckState(game, seat_keys, cards)  # what a replica keeps after each message
    snapshots = []
    for seat, seq, message in harness.log:
        replica.apply(seat, seq, message)
        snapshots.append(face_up_snapshot(replica))
    return {
        "about": "DECKS.md 'Face up, exactly' and the lock's depth rule: a run of deck "
        "messages, each accepted, with what a replica keeps after it.  Create makes every "
        "card face up; a shuffle turns the pool face down; card "
        f"{first!r} is opened, the pool shuffled again, and the same card opened again; pool "
        "'a', split from 'd', is locked by both seats although only its parent was shuffled",
        "game": h(game),
        "seat_keys": [h(k) for k in seat_keys],
        "cards": cards,
        "opened_twice": first,
        "messages": [
            {"seat": seat, "seq": seq, "message": typed(message), "after": after}
            for (seat, seq, message), after in zip(harness.log, snapshots, strict=True)
        ],
    }


# --- seat retirement and key escrow (docs/PROTOCOL.md §5.5, docs/ESCROW.md) -----------------


def _dleq_case(witness: bytes, g1: bytes, h1: bytes, g2: bytes, h2: bytes, ctx: bytes) -> dict:
    """A Chaum-Pedersen proof with the values an implementation recomputes to check it."""
    from creepnet.protocol.deck import group
    from creepnet.protocol.deck.dleq import CHALLENGE_DOMAIN, prove, verify

    proof = prove(witness, g1, h1, g2, h2, ctx)
    assert verify(proof, g1, h1, g2, h2, ctx)
    r1 = group.sub(group.mul(proof[32:], g1), group.mul(proof[:32], h1))
    r2 = group.sub(group.mul(proof[32:], g2), group.mul(proof[:32], h2))
    challenge_input = group.frame(CHALLENGE_DOMAIN, ctx, g1, h1, g2, h2, r1, r2)
    return {"context": h(ctx), "g1": h(g1), "h1": h(h1), "g2": h(g2), "h2": h(h2),
            "proof": h(proof), "r1": h(r1), "r2": h(r2),
            "challenge_input": h(challenge_input)}  # fmt: skip


def retire_vectors() -> dict[str, Any]:
    """Retirement votes, objections and leave notices: the exact signed bytes and signatures."""
    from creepnet.protocol import retirement
    from creepnet.protocol.identity import Identity

    game = bytes(range(16))
    prev = hashlib.sha256(b"creepnet/vectors/retire/prev").digest()
    ids = [Identity.from_seed(seed_bytes(f"retire/{s}")) for s in range(4)]
    where = retirement.Position(game, 41, prev, 2)
    votes: list[dict[str, Any]] = []
    signed: list[list[Any]] = []
    for voter in (0, 1, 3):
        message = where.vote_message(voter)
        vote = retirement.vote(ids[voter], where, voter)
        assert retirement.check_vote(where, [i.public_key for i in ids], vote) == voter
        signed.insert(0, vote)  # given in any order: retire_body sorts them
        votes.append({"voter": voter, "key": h(ids[voter].public_key), "message": h(message),
                      "sig": h(vote[1])})  # fmt: skip
    elsewhere = retirement.Position(game, 42, prev, 2)
    event_id = hashlib.sha256(b"creepnet/vectors/retire/late-event").digest()
    objection = where.objection_message(1, event_id)
    leave = retirement.frame(retirement.LEAVE_DOMAIN, game, 2)
    leave_sig = retirement.leave_notice(ids[2], game, 2)
    keys = [i.public_key for i in ids]
    assert retirement.check_leave(game, keys, 2, leave_sig)
    assert not retirement.check_leave(game, keys, 1, leave_sig)
    return {
        "about": "seat retirement (docs/PROTOCOL.md §5.5): a vote is the Ed25519 signature "
        "(RFC 8032, of the message bytes themselves) of frame(domain, game, S, P, X, V); "
        "frame as in DECKS.md (tag b/i, 4-byte big-endian length, data; integers 8-byte "
        "signed big-endian)",
        "keys": [{"seed": h(seed_bytes(f"retire/{s}")), "public": h(ids[s].public_key)}
                 for s in range(4)],  # fmt: skip
        "position": {"game": h(game), "seq": where.seq, "prev": h(prev), "seat": where.seat},
        "vote": {"domain": h(retirement.VOTE_DOMAIN), "votes": votes,
                 "retire_body": typed(retirement.retire_body(where, signed)),
                 "wrong_position": {"seq": elsewhere.seq, "voter": 0,
                                    "message": h(elsewhere.vote_message(0)),
                                    "sig": h(retirement.vote(ids[0], elsewhere, 0)[1])}},
        "objection": {"domain": h(retirement.OBJECTION_DOMAIN), "objector": 1,
                      "event_id": h(event_id), "message": h(objection),
                      "sig": h(retirement.objection(ids[1], where, 1, event_id))},
        "leave": {"domain": h(retirement.LEAVE_DOMAIN), "seat": 2, "message": h(leave),
                  "sig": h(leave_sig)},
    }  # fmt: skip


def escrow_vectors() -> dict[str, Any]:
    """ESCROW.md's test vector with every intermediate value, a recovery, complaints (one by the
    implied share's recipient), and bundles that must fail the public check."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from creepnet.protocol.deck import escrow, group
    from creepnet.protocol.deck.errors import DeckError
    from creepnet.protocol.deck.keys import DeckKeys

    game = bytes(range(16))
    seat_keys = [bytes([s]) * 32 for s in range(3)]
    secrets_ = [bytes([0x10 + s]) * 32 for s in range(3)]
    deck = [DeckKeys(game, seat_keys[s], secrets_[s]) for s in range(3)]
    mine = [escrow.EscrowKeys(k, s) for s, k in enumerate(deck)]
    published = [m.published() for m in mine]
    checked = [escrow.check_escrow_keys(published[s], s, game, seat_keys[s]) for s in range(3)]
    table = escrow.directory(game, seat_keys, checked)
    keys_out = []
    for s in range(3):
        entry: dict[str, Any] = {"seat": s, "seat_key": h(seat_keys[s]),
                                 "deck_secret": h(secrets_[s])}  # fmt: skip
        for i, role in enumerate(("deal", "receive")):
            point = published[s]["keys"][i]
            ctx = escrow._possession_context(game, seat_keys[s], role)
            assert escrow.dleq.verify(published[s]["proofs"][i], group.BASE, point, group.BASE,
                                      point, ctx)  # fmt: skip
            entry[role] = {"scalar": h(mine[s].deal if i == 0 else mine[s].receive),
                           "point": h(point), "context": h(ctx),
                           "proof": h(published[s]["proofs"][i])}  # fmt: skip
        keys_out.append(entry)
    what = escrow.ScalarId("lock", "deck:0", 5)
    a = deck[1].lock_key("deck:0", 5)
    escrowed = escrow.Escrowed(1, what, 3, (0, 2), group.mul_base(a))
    bundle = escrow.make_bundle(table, mine[1], escrowed, a)
    shares = [escrow.open_share(table, mine[r], escrowed, bundle) for r in (0, 2)]
    first = deck[1].escrow_shares(*escrowed.labels(), escrowed.recipients)
    assert list(first) == shares[:1]
    per_share = []
    for i, r in enumerate((0, 2)):
        channel = mine[1].channel_to(table, r)
        assert channel == mine[r].channel_from(table, 1)
        info = escrow.frame(game, seat_keys[1], seat_keys[r], table.deal_keys[1],
                            table.receive_keys[r], *escrowed.labels())  # fmt: skip
        okm = HKDF(hashes.SHA512(), 44, escrow.KEY_SALT, info).derive(channel)
        aad = escrow.frame(escrow.AAD_DOMAIN, escrowed.commit, *bundle.commits)
        commit = escrow.share_commit(escrowed, bundle, i)  # S_2 = K - S_1: implied
        assert commit == group.mul_base(shares[i])
        per_share.append(
            {
                "recipient": r,
                "share": h(shares[i]),
                "commit": h(commit),
                "commit_published": i < len(bundle.commits),
                "channel": h(channel),
                "hkdf_info": h(info),
                "key": h(okm[:32]),
                "nonce": h(okm[32:]),
                "aad": h(aad),
                "box": h(bundle.boxes[i]),
            }
        )
    assert escrow.combine(escrowed, {0: shares[0], 2: shares[1]}) == a

    def fails(check: Callable[[], Any]) -> dict[str, Any]:
        try:
            check()
        except DeckError as err:
            return {"valid": False, "seat": err.seat, "operation": err.operation,
                    "position": err.position, "reason": err.message}  # fmt: skip
        return {"valid": True}

    # recovery shares: every recipient's, then a wrong one of seat 2
    off = group.scalar_add(shares[1], group.ONE)
    recovery = []
    for r, s in ((0, shares[0]), (2, shares[1]), (2, off), (2, shares[0])):
        verdict = fails(functools.partial(escrow.check_recovery_share, escrowed, bundle, r, s))
        recovery.append({"recipient": r, "share": h(s), **verdict})
    # bundles that fail the public check (the shape: with S_m implied there is nothing else)
    implied = escrow.share_commit(escrowed, bundle, 1)
    bad_bundles = []
    for name, commits, boxes in (
        ("S_2 published too: only S_1 .. S_{m-1} are", [bundle.commits[0], implied],
         list(bundle.boxes)),
        ("no commitment", [], list(bundle.boxes)),
        ("box 2 missing", list(bundle.commits), list(bundle.boxes[:1])),
        ("S_1 of 31 bytes", [bundle.commits[0][:31]], list(bundle.boxes)),
    ):  # fmt: skip
        value = {"commits": commits, "boxes": boxes}
        bad_bundles.append({"name": name, "bundle": typed(value),
                            **fails(functools.partial(escrow.check_bundle, escrowed,
                                                      value))})  # fmt: skip
    assert all(not b["valid"] for b in bad_bundles)
    # complaints by seat 0: false on the honest bundle; upheld on one whose box 0 is broken; by
    # seat 2 (the implied share's recipient) on a bundle whose S_1 is another point
    other = group.mul_base(deck[1].lock_key("deck:0", 6))
    complaint = escrow.make_complaint(table, mine[0], escrowed)
    ctx = escrow._complaint_context(table, escrowed, 0)
    dleq_case = _dleq_case(mine[0].receive, group.BASE, table.receive_keys[0],
                           table.deal_keys[1], complaint["point"], ctx)  # fmt: skip
    broken = escrow.Bundle(bundle.commits, (bundle.boxes[0][:-1] + bytes([bundle.boxes[0][-1] ^ 1]),
                                            bundle.boxes[1]))  # fmt: skip
    conviction = escrow.judge_complaint(table, escrowed, broken, 0, complaint)
    assert conviction.dealer == 1
    false = fails(lambda: escrow.judge_complaint(table, escrowed, bundle, 0, complaint))
    assert not false["valid"]
    aad_other = escrow.frame(escrow.AAD_DOMAIN, escrowed.commit, other)
    resealed = []
    for i, r in enumerate((0, 2)):
        cipher, nonce = escrow._cipher(table, escrowed, r, mine[1].channel_to(table, r))
        resealed.append(cipher.encrypt(nonce, shares[i], aad_other))
    shifted = escrow.Bundle((other,), tuple(resealed))
    assert escrow.check_bundle(escrowed, shifted.message()) == shifted  # the shape is right
    complaint2 = escrow.make_complaint(table, mine[2], escrowed)
    conviction2 = escrow.judge_complaint(table, escrowed, shifted, 2, complaint2)
    assert conviction2.dealer == 1
    return {
        "about": "key escrow (docs/ESCROW.md): ESCROW.md's test vector with its intermediate "
        "values, recovery shares, bundles failing the public check, and complaints",
        "game": h(game),
        "seats": keys_out,
        "escrow": {
            "dealer": 1,
            "scalar": ["lock", "deck:0", 5],
            "epoch": 3,
            "recipients": [0, 2],
            "scalar_value": h(a),
            "K": h(escrowed.commit),
            "shares": per_share,
            "bundle": typed(bundle.message()),
        },  # fmt: skip
        "recovery": recovery,
        "recovered": h(a),
        "bad_bundles": bad_bundles,
        "complaint": {
            "complainer": 0,
            "dealer": 1,
            "point": h(complaint["point"]),
            "dleq": dleq_case,
            "on_honest_bundle": false,
            "broken_box_0": h(broken.boxes[0]),
            "on_broken_bundle": {"convicted": conviction.dealer, "reason": conviction.reason},
            "other_S_1": {
                "bundle": typed(shifted.message()),
                "implied_S_2": h(escrow.share_commit(escrowed, shifted, 1) or b""),
                "complainer": 2,
                "point": h(complaint2["point"]),
                "proof": h(complaint2["proof"]),
                "convicted": conviction2.dealer,
                "reason": conviction2.reason,
            },
        },  # fmt: skip
    }


def identity_key(i: int) -> str:
    from creepnet.protocol.identity import Identity

    return Identity.from_seed(seed_bytes(f"identity/{i}")).public_key.hex()


# --- game logs ----------------------------------------------------------------------------------


class Game:
    """One game played by the seats' own session code (protocol/testing/sessions.py), event by
    event, so a vector can stop anywhere and append a crafted event instead of the honest one."""

    def __init__(
        self, kind: str, seats: int = 2, options: dict[str, Any] | None = None, seed: int = 0,
        onion_length: int = 64,
    ) -> None:  # fmt: skip
        from creepnet.protocol.testing.sessions import SessionHarness

        self.kind = kind
        self.table = SessionHarness(
            seats=seats, kind=kind, options=options or {}, seed=seed, onion_length=onion_length
        )

    @property
    def spectator(self) -> Any:
        return self.table.spectator

    def raw(self) -> bytes:
        return self.spectator.log.to_bytes()

    def sign(self, seat: int, type_: str, body: dict[str, Any], **envelope: Any) -> Any:
        """An event by ``seat`` for the next position (``envelope`` overrides game/seq/prev)."""
        from creepnet.protocol.event import sign_event

        log = self.spectator.log
        fields = {"game": self.spectator.game, "seq": len(log), "prev": log.head, **envelope}
        return sign_event(self.table.identities[seat], type=type_, body=body, **fields)

    def push(self, event: Any) -> None:
        for _, session in self.table.everyone:
            receipt = session.receive(event.raw)
            assert receipt.status == "accepted", (receipt.status, receipt.rejections)

    def owed_or_decision(self, choose: Callable[[Game, int], str]) -> tuple[int, str, dict]:
        """The seat entitled next and the event it honestly writes."""
        from creepnet.protocol import onion

        turn = self.spectator.expected()
        assert turn is not None, "the game is over"
        seat = turn.seat
        session = self.table.sessions[seat]
        if "start" in turn.types:
            return seat, "start", {}
        if "reveal" in turn.types:
            pre = onion.preimage(
                session.game, session.secrets.onion_seed, session.onion_length, session.draws
            )
            return seat, "reveal", {"draw": session.draws, "pre": pre}
        if turn.automatic:
            return seat, *session.private.owed(session.game_state, len(session.log))
        type_, body = session.rules.action(session.game_state, seat, choose(self, seat))
        if session.private is not None:
            body = session.private.complete(session.game_state, len(session.log), type_, body)
        return seat, type_, body

    def step(self, choose: Callable[[Game, int], str]) -> tuple[int, str, dict]:
        seat, type_, body = self.owed_or_decision(choose)
        self.push(self.sign(seat, type_, body))
        return seat, type_, body

    def run(self, choose: Callable[[Game, int], str], until: Callable[[Game], bool]) -> None:
        while not until(self):
            self.step(choose)

    @property
    def over(self) -> bool:
        return self.spectator.finished or self.spectator.expected() is None


def turn_record(session: Any, event_type: str) -> dict[str, Any]:
    """Who was entitled to the next event and what the game waited for (README.md)."""
    from creepnet.protocol.rules import NeedRandom

    if not session.log.events:
        return {"seat": 0, "types": ["genesis"]}
    turn = session.expected()
    record: dict[str, Any] = {"seat": turn.seat, "types": sorted(turn.types)}
    if session.started:
        step = session.rules.next(session.game_state)
        if isinstance(step, NeedRandom):
            record["draw"] = session.draws
            record["bound"] = step.bound
        if session.kind == "racer":
            record.update(racer_step(session.game_state))
    return record


def racer_step(game: Any) -> dict[str, Any]:
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import DeckStep, ShowDrawn, next_step

    step = next_step(game)
    if isinstance(step, DeckStep):
        out: dict[str, Any] = {"deck": step.op}
        if step.pool is not None:
            out["pool"] = step.pool
        if step.op in ("release", "blind", "unblind"):
            out["positions"] = list(step.positions)
        if step.op == "release":
            out["to"] = step.to
        if step.op == "recover":
            out["dealer"] = step.to
            out["scalars"] = [[x.kind, x.name, x.index] for x in step.scalars]
        if step.by is not None:  # the table's step for a retired seat, signed by `seat`
            out["retired"] = step.seat
        return out
    if isinstance(step, ShowDrawn):
        return {"show": step.slot}
    if isinstance(step, racer.Decide):
        return {"decide": step.topic}
    if isinstance(step, racer.NeedDie):
        return {"die": step.purpose, "for": step.seat}
    if isinstance(step, racer.NeedPick):
        return {"pick": {"giver": step.giver, "taker": step.taker, "size": step.size}}
    return {}


@functools.cache
def verified(data: bytes) -> Any:
    """`verify_file_bytes(data)`, once per process: a pure function of the bytes, and the dearest
    step here (every proof checked again), so tests/vectors/test_vectors.py's verdict checks
    share it with the generator instead of verifying each log a second time.  Read-only."""
    from creepnet.protocol.verify import verify_file_bytes

    return verify_file_bytes(data)


def verdict_of(data: bytes) -> dict[str, Any]:
    """The expected verdict of a log file: what `creepnet verify --json` decides."""
    verdict = verified(data)
    out: dict[str, Any] = {"valid": verdict.valid, "events": verdict.events}
    if verdict.error is not None:
        error = verdict.error
        out["error"] = {
            "kind": error.kind,
            "seq": error.seq,
            "author": error.author.hex() if error.author else None,
            "reason": error.reason,
        }
        return out
    out["finished"] = verdict.finished
    out["outcome"] = verdict.outcome
    out["notes"] = list(verdict.notes)
    return out


def result_of(session: Any) -> dict[str, Any]:
    """Winner and reason of a valid log's result, or whom an unfinished one waits for."""
    result = session.result
    if result is None:
        waiting = session.waiting_for()
        out: dict[str, Any] = {
            "finished": False,
            "exhausted": session.exhausted(),
            "waiting_for": None if waiting is None else waiting.seat,
        }
        if session.abandoned is not None:
            claim = session.abandoned
            out["abandoned"] = {"seat": claim.seat, "claimant": claim.claimant, "seq": claim.seq}
        return out
    return {"finished": True, "winner": result.winner, "reason": result.reason,
            "culprit": result.culprit}  # fmt: skip


def completed_draw(
    session: Any, event: Any, draw: int, before: Any, reveals: list[bytes], record: dict
) -> dict[str, Any]:
    """Draw ``draw``, completed by ``event``, with the value the session used: the hash of the
    preimages of the seats playing when it completed (PROTOCOL.md §5.5).  A ``retire`` completes
    the draw under way with the preimages already in, for what the game asks once the seat is out
    (``value``); if the game then asks for no draw, the draw is spent unused (``value`` null)."""
    from creepnet.protocol.reveals import draw_value
    from creepnet.protocol.rules import NeedRandom

    if event.type == "reveal":
        reveals = [*reveals, event.body["pre"]]
        step = session.rules.next(before)
    else:
        step = session.rules.next(session.rules.retire(before, record["seat"]))
        if not isinstance(step, NeedRandom):  # spent unused: what it was for left with the seat
            spent = session.rules.next(before)
            return {"draw": draw, "bound": spent.bound, "value": None, "purpose": spent.purpose,
                    "completed_at": event.seq}  # fmt: skip
    assert isinstance(step, NeedRandom)
    value = draw_value(session.game, draw, reveals, step.bound)
    return {"draw": draw, "bound": step.bound, "value": value, "purpose": step.purpose,
            "completed_at": event.seq}  # fmt: skip


@functools.cache
def annotate(data: bytes) -> tuple[Any, dict[str, Any]]:
    """Per event: its type, who was entitled and to what; per random draw: its value.  Returns
    the session after the last event that was accepted, too (once per process, as `verified`:
    callers only read the session and the notes)."""
    from creepnet.engine import racer
    from creepnet.protocol.log import Rejection, iter_log, parse_or_reject
    from creepnet.protocol.session import Session

    session = Session()
    turns, draws = [], []
    try:
        for raw in iter_log(data):
            event = parse_or_reject(raw, len(session.log))
            record = {"seq": event.seq, "type": event.type, **turn_record(session, event.type)}
            draw, before, reveals = session.draws, session.game_state, list(session.reveals)
            session.accept_event(event)
            turns.append(record)
            if session.draws > draw:  # a draw completed: by its last reveal, or by a `retire`
                draws.append(completed_draw(session, event, draw, before, reveals, record))
    except Rejection:
        pass
    out: dict[str, Any] = {"turns": turns, "draws": draws}
    if session.kind == "racer" and session.started:
        game = session.game_state
        out["slots"] = {str(slot): [pool, j] for slot, (pool, j) in sorted(game.where.items())}
        if game.cards is not None:  # the live slots only: a given-up slot keeps its old map
            live = {slot for _, slot in racer.locations(game.state)}
            out["cards"] = {str(s): card for s, card in sorted(game.cards.items()) if s in live}
    return session, out


def log_vector(
    name: str, about: str, data: bytes, base: tuple[str, int, bytes] | None = None,
    annotated: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """A log vector: the file's bytes (whole, or a prefix of a base log plus appended bytes)."""
    vector: dict[str, Any] = {"name": name, "about": about}
    if base is None:
        vector["log"] = b64(data)
    else:
        base_name, events, appended = base
        vector["base"] = base_name
        vector["prefix_events"] = events
        vector["append"] = b64(appended)
    vector["expect"] = verdict_of(data)
    if verified(data).kind == "equivocation proof":  # a proof file: no game, no result
        return vector
    if vector["expect"]["valid"] or annotated:
        session, notes = annotate(data)
        vector["expect"]["result"] = result_of(session)
        if annotated:
            vector.update(notes)
    return vector


def honest_vector(bases: dict[str, bytes], name: str, about: str, data: bytes) -> dict[str, Any]:
    """A whole honest log, kept once in ``bases`` (fault vectors cut prefixes of it)."""
    bases[name] = data
    return log_vector(name, about, data, (name, len(events_of(data)), b""), annotated=True)


def events_of(data: bytes) -> list[bytes]:
    from creepnet.protocol.log import iter_log

    return list(iter_log(data))


# --- Creeper logs -------------------------------------------------------------------------------


def creeper_chooser(
    script: list[str] | None = None, bot: str = "greedy"
) -> Callable[[Game, int], str]:
    """Decisions from ``script`` first ({move} is the bot's move), then the bot's moves."""
    from creepnet.protocol.games import get_game

    bots: dict[int, Any] = {}
    queue = list(script or [])

    def choose(game: Game, seat: int) -> str:
        if seat not in bots:
            bots[seat] = get_game("creeper").make_bot(bot, seat)
        session = game.table.sessions[seat]
        move = bots[seat].choose(session.local_view(), seat)
        if queue:
            return queue.pop(0).format(move=move)
        return move

    return choose


def search_versus_random() -> Callable[[Game, int], str]:
    """Seat 0 searches (a small budget), seat 1 moves at random: a quick connection."""
    from creepnet.engine import creeper
    from creepnet.engine.creeper.bots import make_bot

    bots = {0: make_bot("search", 0, nodes=300), 1: make_bot("random", 1)}

    def choose(game: Game, seat: int) -> str:
        state = game.table.sessions[seat].local_view().state
        return creeper.format_move(bots[seat].choose(state))

    return choose


def creeper_logs() -> dict[str, Any]:
    from creepnet.protocol import codec
    from creepnet.protocol.log import EquivocationProof

    vectors: list[dict[str, Any]] = []
    bases: dict[str, bytes] = {}

    def play(script: list[str] | None, until: Callable[[Game], bool], **kw: Any) -> Game:
        game = Game("creeper", **kw)
        game.run(creeper_chooser(script, kw.pop("bot", "greedy")), until)
        return game

    def plies(n: int) -> Callable[[Game], bool]:
        return lambda g: g.over or sum(e.type == "move" for e in g.spectator.log.events) >= n

    # Honest logs.
    offers = play(
        ["{move} draw", "decline", "{move}", "{move} draw", "{move}", "{move}", "resign"],
        lambda g: g.over,
        seed=1,
    )
    vectors.append(
        honest_vector(
            bases,
            "creeper-resign",
            "a draw offer declined by `decline`, another declined by a move, then a resignation",
            offers.raw(),
        )
    )
    agreed = play(["{move}", "{move} draw", "accept"], lambda g: g.over, seed=2)
    vectors.append(
        honest_vector(
            bases, "creeper-agreement", "a draw offered with a move and accepted", agreed.raw()
        )
    )
    limited = play(None, lambda g: g.over, seed=3, options={"max_plies": 6})
    vectors.append(
        honest_vector(
            bases, "creeper-move-limit", "max_plies 6: drawn at the move limit", limited.raw()
        )
    )
    won = Game("creeper", seed=4, options={"max_plies": 200})
    won.run(search_versus_random(), lambda g: g.over)
    assert won.spectator.result.reason == "connection"
    vectors.append(
        honest_vector(
            bases,
            "creeper-connection",
            "a searching bot against a random one: a win by connection",
            won.raw(),
        )
    )
    unfinished = play(None, plies(3), seed=5)
    vectors.append(
        honest_vector(
            bases, "creeper-unfinished", "three moves: valid, unfinished, waiting", unfinished.raw()
        )
    )

    # Faults, each a prefix of a base log plus crafted bytes.
    def fault(name: str, about: str, game: Game, appended: bytes, base: str) -> None:
        data = game.raw() + appended
        vectors.append(log_vector(name, about, data, (base, len(game.spectator.log), appended)))

    vectors.extend(creeper_abandon_vectors(unfinished))

    g = play(None, plies(2), seed=5)  # a prefix of creeper-unfinished
    assert bases["creeper-unfinished"].startswith(g.raw())
    turn = g.spectator.expected()
    mover, other = turn.seat, 1 - turn.seat
    good = g.sign(mover, *g.owed_or_decision(creeper_chooser())[1:])
    fault(
        "creeper-wrong-author",
        "a legal-looking move by the seat not to move",
        g,
        g.sign(other, "move", {"move": "a2-b3"}).raw,
        "creeper-unfinished",
    )
    fault(
        "creeper-wrong-type",
        "`accept` with no draw offer standing",
        g,
        g.sign(mover, "accept", {}).raw,
        "creeper-unfinished",
    )
    fault(
        "creeper-illegal-move",
        "a move the rules forbid",
        g,
        g.sign(mover, "move", {"move": "d4-d5"}).raw,
        "creeper-unfinished",
    )
    fault(
        "creeper-draw-false",
        "`draw: false` is not allowed (only true, or absent)",
        g,
        g.sign(mover, "move", {"move": good.body["move"], "draw": False}).raw,
        "creeper-unfinished",
    )
    fault(
        "creeper-extra-key",
        "a move body with a key the type does not have",
        g,
        g.sign(mover, "move", {"move": good.body["move"], "x": 1}).raw,
        "creeper-unfinished",
    )
    upper = good.body["move"].upper()
    fault(
        "creeper-non-canonical-move",
        "a move in capitals (not the canonical notation)",
        g,
        g.sign(mover, "move", {"move": upper}).raw,
        "creeper-unfinished",
    )
    bad_sig = _flip_signature_bit(good.raw)
    fault(
        "creeper-bad-signature",
        "the next honest event with one signature bit flipped",
        g,
        bad_sig,
        "creeper-unfinished",
    )
    fault(
        "creeper-wrong-seq",
        "the next honest move signed with seq + 5",
        g,
        g.sign(mover, "move", good.body, seq=len(g.spectator.log) + 5).raw,
        "creeper-unfinished",
    )
    fault(
        "creeper-wrong-prev",
        "the next honest move with a prev that is not the last id",
        g,
        g.sign(mover, "move", good.body, prev=bytes(32)).raw,
        "creeper-unfinished",
    )
    fault(
        "creeper-other-game",
        "the next honest move signed for another game id",
        g,
        g.sign(mover, "move", good.body, game=bytes(16)).raw,
        "creeper-unfinished",
    )
    fault(
        "creeper-non-canonical-event",
        "the next honest move re-encoded with seq as uint16",
        g,
        _widen_seq(good.raw),
        "creeper-unfinished",
    )
    fault(
        "creeper-bad-envelope",
        "a canonical map without `sig`",
        g,
        codec.encode({k: v for k, v in codec.decode(good.raw).items() if k != "sig"}),
        "creeper-unfinished",
    )
    fault(
        "creeper-torn-tail",
        "the next honest event cut short by 10 bytes",
        g,
        good.raw[:-10],
        "creeper-unfinished",
    )
    fault("creeper-framing", "a 0xc1 byte after the last event", g, b"\xc1", "creeper-unfinished")
    fault(
        "creeper-first-fault-wins",
        "a bad signature followed by broken framing: the signature is reported (file order)",
        g,
        bad_sig + b"\xc1",
        "creeper-unfinished",
    )
    for name, tail in (
        ("torn-structure", b"\x92\xa1a"),
        ("torn-would-be-non-canonical", b"\xcc"),
        ("torn-would-be-too-long", b"\xda\xff\xff" + b"a" * 10),
        ("torn-would-be-invalid-utf8", b"\xa3\xff"),
        ("torn-would-be-float", b"\xcb\x00"),
        ("malformed-c1-inside-incomplete", b"\x93\x01\xc1"),
        ("torn-1024-open-arrays", b"\x91" * 1024),
        ("malformed-1025-open-arrays", b"\x91" * 1025),
        # An empty container opens one too: 1,024 open two-element arrays, then `[]` (with a nil
        # instead, the file just ends inside them: torn).
        ("malformed-1024-open-arrays-and-an-empty-one", b"\x92" * 1024 + b"\x90"),
        ("torn-1024-open-arrays-and-a-nil", b"\x92" * 1024 + b"\xc0"),
    ):
        fault(
            f"creeper-{name}",
            "framing of a value that runs past the end of the file "
            "(README.md: torn tail or malformed)",
            g,
            tail,
            "creeper-unfinished",
        )

    # Lobby and randomness faults, on a fresh game.
    lobby = Game("creeper", seed=6)
    raws = events_of(lobby.raw())  # genesis and seat; start is owed next
    genesis = raws[0]
    vectors.append(
        honest_vector(bases, "creeper-lobby", "genesis and seat: waiting for `start`", lobby.raw())
    )
    host_key = lobby.table.identities[0]
    from creepnet.protocol.event import sign_event

    def genesis_with(**changes: Any) -> bytes:
        body = {**codec.decode(genesis)["body"], **changes}
        game_id = changes.pop("_game", lobby.spectator.game)
        body.pop("_game", None)
        return sign_event(host_key, game=game_id, seq=0, prev=bytes(32), type="genesis",
                          body=body).raw  # fmt: skip

    for name, raw in (
        (
            "genesis-type",
            sign_event(
                host_key, game=lobby.spectator.game, seq=0, prev=bytes(32), type="start", body={}
            ).raw,
        ),
        ("genesis-game-id", genesis_with(_game=bytes(16))),
        ("genesis-kind", genesis_with(kind="chess")),
        ("genesis-seats", genesis_with(seats=3)),
        ("genesis-onion", genesis_with(onion=0)),
        ("genesis-options", genesis_with(options={"max_plies": 0})),
        ("genesis-name", genesis_with(name="bad\u200bname")),
        ("genesis-player", genesis_with(player="")),
    ):
        vectors.append(log_vector(f"creeper-{name}", "a bad genesis", raw))
    for name, options in (
        ("creeper-genesis-options-unknown", {"turn_limit": 5}),
        ("creeper-genesis-options-escrow", {"escrow": 1}),
        ("creeper-genesis-retire-after-zero", {"retire_after": 0}),
    ):
        vectors.append(log_vector(name, f"a Creeper genesis with options {options}",
                                  genesis_with(options=options)))  # fmt: skip
    vectors.append(log_vector("creeper-genesis-retire-after", "a Creeper genesis with options "
                              "{'retire_after': 30}: valid (every game's option)",
                              genesis_with(options={"retire_after": 30})))  # fmt: skip
    body0 = codec.decode(genesis)["body"]
    for name, about, envelope in (
        ("creeper-genesis-seq", "a genesis whose seq is 1 (position 0)", {"seq": 1}),
        ("creeper-genesis-prev", "a genesis whose prev is not 32 zero bytes",
         {"prev": bytes(31) + b"\x01"}),
    ):  # fmt: skip
        fields = {"game": lobby.spectator.game, "seq": 0, "prev": bytes(32), **envelope}
        raw = sign_event(host_key, type="genesis", body=body0, **fields).raw
        vectors.append(log_vector(name, about, raw))
    vectors.append(log_vector("empty", "an empty file", b""))
    start = lobby.sign(0, "start", {})
    bad_seat = lobby.sign(1, "start", {})
    fault(
        "creeper-start-by-guest",
        "`start` signed by seat 1, not the host",
        lobby,
        bad_seat.raw,
        "creeper-lobby",
    )
    fault(
        "creeper-start-body",
        "`start` with a non-empty body",
        lobby,
        lobby.sign(0, "start", {"x": 1}).raw,
        "creeper-lobby",
    )
    for author, type_, body in (
        (0, "retire", {"seat": 1, "votes": []}),
        (0, "abandon", {"seat": 1}),
        (1, "abandon", {"seat": 0}),
    ):
        fault(
            f"creeper-{type_}-before-start-by-seat-{author}",
            f"`{type_}` by seat {author} in the lobby, where only the host's `start` may come",
            lobby,
            lobby.sign(author, type_, body).raw,
            "creeper-lobby",
        )  # fmt: skip
    lobby.push(start)
    reveal0 = lobby.owed_or_decision(creeper_chooser())
    assert reveal0[1] == "reveal"
    body = dict(reveal0[2])
    fault(
        "creeper-bad-preimage",
        "a reveal whose preimage does not hash to the anchor",
        lobby,
        lobby.sign(0, "reveal", {**body, "pre": bytes(32)}).raw,
        "creeper-lobby+start",
    )
    fault(
        "creeper-reveal-draw-true",
        "a reveal for draw `true` (not the integer 0)",
        lobby,
        lobby.sign(0, "reveal", {**body, "draw": True}).raw,
        "creeper-lobby+start",
    )
    fault(
        "creeper-reveal-out-of-order",
        "seat 1 reveals before seat 0",
        lobby,
        lobby.sign(1, "reveal", body).raw,
        "creeper-lobby+start",
    )
    bases["creeper-lobby+start"] = lobby.raw()

    # A seat event whose join request names the wrong seat, on a fresh lobby.
    fresh = Game("creeper", seed=7)
    first = events_of(fresh.raw())
    request = codec.decode(first[1])["body"]["join"]
    from creepnet.protocol.lobby import JoinRequest

    joiner = fresh.table.identities[1]
    forged = JoinRequest.create(
        joiner, fresh.table.secrets[1], game=request["game"], genesis=request["genesis"],
        seat=2, player="p1", onion_length=64,
    )  # fmt: skip
    seat_event = sign_event(host_key_of(fresh), game=fresh.spectator.game, seq=1,
                            prev=_event_id(first[0]), type="seat",
                            body={"join": forged.to_map()})  # fmt: skip
    vectors.append(
        log_vector(
            "creeper-join-wrong-seat",
            "the host seats a join request for seat 2 at seat 1",
            first[0] + seat_event.raw,
        )
    )

    # After the end: an event after a resignation.
    ended = events_of(bases["creeper-resign"])
    last_author = codec.decode(ended[-1])["author"]
    winner_seat = 0 if offers.table.identities[0].public_key != last_author else 1
    after = offers.sign(1 - winner_seat, "move", {"move": "a2-b3"})
    fault(
        "creeper-after-the-end", "a move after the resignation", offers, after.raw, "creeper-resign"
    )

    # Equivocation proof files.
    twin = g.sign(mover, "resign", {})
    proof = EquivocationProof(good.raw, twin.raw).to_bytes()
    vectors.append(
        log_vector(
            "equivocation-proof",
            "a file holding an equivocation proof: two events by one author at one position",
            proof,
        )
    )
    same = EquivocationProof(good.raw, good.raw).to_bytes()
    vectors.append(
        log_vector(
            "equivocation-proof-identical",
            "a proof file whose two events are identical: not a proof",
            same,
        )
    )
    fault(
        "creeper-torn-ext32-greatest-length",
        "an array holding an ext32 of length 2^32 - 1, then 0xc1: the file ends inside the "
        "ext's data (the 0xc1 is data, not a type byte), a torn tail; msgpack-python's C skip "
        "reads that length wrapped to an empty ext (PROTOCOL.md §4)",
        g,
        b"\x92\xc9\xff\xff\xff\xff\x01\xc1",
        "creeper-unfinished",
    )
    vectors.append(log_vector("creeper-genesis-options-max-plies-nil", "a Creeper genesis with "
                              "options {'max_plies': nil}: refused (a positive integer when "
                              "present; nil is not 'no limit')",
                              genesis_with(options={"max_plies": None})))  # fmt: skip
    about = ("Creeper logs and equivocation-proof files (docs/PROTOCOL.md §4, §5.2, §8): each "
             "vector's file is `log`, or the first `prefix_events` events of `bases[base]` then "
             "`append`; `expect` is the verdict (vectors/README.md)")  # fmt: skip
    return {"about": about, "bases": {n: b64(d) for n, d in bases.items()}, "logs": vectors}


def creeper_abandon_vectors(game: Game) -> list[dict[str, Any]]:
    """After creeper-unfinished: the seat not waited on claims an abandonment (valid, unfinished),
    and the checks of ``abandon`` (and of ``retire`` with two seats)."""
    from creepnet.protocol import retirement

    spec = game.spectator
    waiting = spec.waiting_for()
    assert waiting is not None
    x = waiting.seat
    y = 1 - x
    n = len(spec.log)
    claim = game.sign(y, "abandon", {"seat": x})
    where = retirement.Position(spec.game, n, spec.log.head, x)
    vote = retirement.vote(game.table.identities[y], where, y)
    crafted = [
        ("creeper-abandon-by-x", f"seat {x}, the seat waited on, claims its own abandonment",
         game.sign(x, "abandon", {"seat": x}).raw),
        ("creeper-abandon-wrong-seat", f"seat {y} claims an abandonment by seat {y}",
         game.sign(y, "abandon", {"seat": y}).raw),
        ("creeper-abandon-extra-field", "an abandon body with a field it does not have",
         game.sign(y, "abandon", {"seat": x, "votes": []}).raw),
        ("creeper-retire-two-seats", f"seat {y} retires seat {x} with its vote: two seats "
         "cannot retire, only abandon", game.sign(y, "retire", {"seat": x, "votes": [vote]}).raw),
    ]  # fmt: skip
    base = ("creeper-unfinished", n)
    vectors = [
        log_vector(
            "creeper-abandoned",
            f"creeper-unfinished, then seat {y} claims that seat {x} abandoned the game: "
            "valid, unfinished",
            game.raw() + claim.raw,
            (*base, claim.raw),
            annotated=True,
        )
    ]
    for name, about, raw in crafted:
        vectors.append(log_vector(name, about, game.raw() + raw, (*base, raw)))
    game.push(claim)
    after = game.sign(x, "move", {"move": "a1"}).raw
    vectors.append(
        log_vector(
            "creeper-after-abandon",
            f"an event of seat {x} after the abandonment",
            game.raw() + after,
            (*base, claim.raw + after),
        )
    )
    return vectors


def _flip_signature_bit(raw: bytes) -> bytes:
    at = raw.rfind(b"\xa3sig\xc4\x40") + 6
    return raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :]


def host_key_of(game: Game) -> Any:
    return game.table.identities[0]


def _event_id(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


def _widen_seq(raw: bytes) -> bytes:
    """The same event with its seq written as uint16 (not canonical; the signature still holds
    over the canonical bytes, but the file bytes are not canonical)."""
    from creepnet.protocol import codec

    value = codec.decode(raw)
    seq = value["seq"]
    canonical_seq = codec.encode(seq)
    wide = b"\xcd" + seq.to_bytes(2, "big")
    marker = b"\xa3seq" + canonical_seq
    assert raw.count(marker) == 1
    return raw.replace(marker, b"\xa3seq" + wide)


# --- Creepy Racer logs --------------------------------------------------------------------------


class RacerPolicy:
    """Decisions that try every kind of action at least once, then keep the game going (pass,
    decline, stop) so that a draw deck runs dry and the discard pile is redealt; or, with
    ``aggressive``, attack and play Calamities until one seat is out.  The generator may look at
    every hand (it plays all seats); the events are still each seat's own honest ones."""

    ORDER = (
        "play-good-fortune", "play-calamity", "force-hostage", "ask-hostage", "declare-attack",
    )  # fmt: skip

    def __init__(self, aggressive: bool = False, seed: int = 0) -> None:
        self.used: set[str] = set()
        self.declared: set[tuple[int, int]] = set()  # (seat, turn) of every declaration
        self.aggressive = aggressive
        self.rng = random.Random(seed)

    @staticmethod
    def key(action: Any) -> str:
        from creepnet.engine import racer

        if isinstance(action, racer.Launch):
            return "launch-hero" if action.slot is not None else "launch"
        return racer.format_action(action).split()[0]

    def __call__(self, game: Game, seat: int) -> str:
        from creepnet.engine import racer

        view = game.table.sessions[seat].local_view()
        action = self.pick(game, view)
        self.used.add(self.key(action))
        if (
            isinstance(action, racer.PlayHero)
            and view.state.card(action.slot).hero.value == "Modifier"
        ):
            self.used.add("modifier")
        return racer.format_action(action)

    def pick(self, game: Game, view: Any) -> Any:

        legal, state = view.legal, view.state
        by_key: dict[str, list[Any]] = {}
        for action in legal:
            by_key.setdefault(self.key(action), []).append(action)
        stage = state.stage
        attack_goals = {"launch", "launch-hero", "withdraw", "add-attacker", "play-hero",
                        "stop-heroes", "modifier"}  # fmt: skip
        if type(stage).__name__ == "Moves":
            if self.aggressive:
                for name in ("declare-attack", "play-calamity"):
                    if name in by_key:
                        return self.rng.choice(by_key[name])
                return by_key["pass"][0]
            turn = (state.turn.seat, state.turn.number)
            for name in self.ORDER:
                if name not in by_key:
                    continue
                if name == "declare-attack":
                    if attack_goals <= self.used or turn in self.declared:
                        continue
                    self.declared.add(turn)
                    return by_key[name][0]
                if name == "ask-hostage" and "refuse-hostage" not in self.used:
                    return by_key[name][0]
                if name == "play-calamity":
                    choice = self.calamity(game, state, by_key[name])
                    if choice is not None:
                        return choice
                    continue
                if name in self.used:
                    continue
                return by_key[name][0]
            return by_key["pass"][0]
        if type(stage).__name__ == "Declaring":
            if not stage.attackers:
                if "withdraw" not in self.used and {"launch", "launch-hero"} <= self.used:
                    return by_key["withdraw"][0]
                if "add-attacker" in by_key:
                    return by_key["add-attacker"][0]
                return by_key["withdraw"][0]
            for name in ("launch-hero", "launch"):
                if name in by_key and (name not in self.used or self.aggressive):
                    return by_key[name][0]
            if "add-attacker" in by_key:
                return by_key["add-attacker"][0]
            return by_key.get("launch", by_key["withdraw"])[0]
        if type(stage).__name__ == "Exchange":
            heroes = by_key.get("play-hero", [])
            if heroes and ("play-hero" not in self.used or "modifier" not in self.used):
                modifiers = [a for a in heroes if state.card(a.slot).hero.value == "Modifier"]
                return (modifiers or heroes)[0]
            return by_key["stop-heroes"][0]
        if type(stage).__name__ == "React":
            if "play-monster" in by_key and "play-monster" not in self.used:
                return by_key["play-monster"][0]
            return by_key["decline-monster"][0]
        if type(stage).__name__ == "HostageAnswer":
            if "accept-hostage" in self.used and "refuse-hostage" not in self.used:
                return by_key["refuse-hostage"][0]
            return by_key["accept-hostage"][0]
        return legal[0]  # Discarding: the lowest slot

    def calamity(self, game: Game, state: Any, options: list[Any]) -> Any:
        """A Calamity that lets the target answer with its Monster while that is untried, else
        one that kills nobody, while Calamity-related actions are untried."""
        wanted = {"play-calamity", "play-monster", "decline-monster", "play-good-fortune"}
        if wanted <= self.used:
            return None
        for action in options:
            owner, creep = state.find_creep(action.target)
            family = state.catalogue[action.card].family
            hand = game.table.sessions[owner].local_view().state
            holds_monster = any(
                hand.card(s) is not None and hand.card(s).kind.value == "monster"
                and hand.card(s).family == family
                for s in hand.players[owner].hand
            )  # fmt: skip
            if holds_monster and "play-monster" not in self.used:
                return action
        safe = [a for a in options if state.strength(state.find_creep(a.target)[1]) > 1]
        return safe[0] if safe else None


def racer_logs() -> dict[str, Any]:
    vectors: list[dict[str, Any]] = []
    bases: dict[str, bytes] = {}
    long, faults = racer_long_game()
    vectors.append(
        honest_vector(
            bases,
            "racer-long",
            "2 seats, 4 Creeps each (2 face up), turn limit 52: every seat "
            "action, a legacy class proof, Hostage transfers, a redealt discard pile, drawn at the "
            "limit",
            long.raw(),
        )
    )
    for name, about, events, appended in faults:
        data = long.raw()[: len(b"".join(events_of(long.raw())[:events]))] + appended
        vectors.append(log_vector(name, about, data, ("racer-long", events, appended)))
    after = long.sign(0, "act", {"action": "pass"})
    vectors.append(
        log_vector(
            "racer-after-the-end",
            "an act after the last deck reveal",
            long.raw() + after.raw,
            ("racer-long", len(long.spectator.log), after.raw),
        )
    )
    won = racer_won_game()
    vectors.append(
        honest_vector(
            bases, "racer-won", "2 seats, 1 Creep each: played until one seat is out", won.raw()
        )
    )
    three = Game(
        "racer", seats=3, options={"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 4},
        seed=17, onion_length=64,
    )  # fmt: skip
    three.run(RacerPolicy(seed=17), lambda g: g.over)
    vectors.append(honest_vector(bases, "racer-three-seats", "3 seats, 2 Creeps each (1 face "
                                 "up), turn limit 4: every step taken by several seats in "
                                 "seat order", three.raw()))  # fmt: skip
    vectors.append(retire_without_escrow(three))
    vectors.append(racer_audit_vector(bases))
    vectors.extend(racer_exhausted_vectors(bases))
    vectors.extend(racer_option_vectors())
    vectors.extend(racer_escrow_vectors(bases))
    vectors.extend(racer_refresh_vectors(bases))
    vectors.extend(racer_midplay_vectors(bases))
    vectors.append(racer_setup_retire_vector(bases))
    vectors.extend(racer_release_ahead_vectors(bases))  # last: the earlier proofs' nonces stay
    vectors.extend(racer_release_ahead_retire_vectors(bases))
    vectors.extend(racer_reshuffle_retire_vectors(bases))
    vectors.extend(racer_start_roll_retire_vectors(bases))
    vectors.append(racer_last_revealer_retire_vector(bases))
    vectors.extend(racer_withdrawal_vectors(bases))
    vectors.extend(racer_last_rival_retire_vectors(bases))
    vectors.append(racer_withdrawals_next_turn_vector(bases))
    vectors.extend(racer_retired_forced_hostage_vectors(bases))
    vectors.extend(racer_table_keys_vectors(bases))
    about = ("Creepy Racer logs (docs/PROTOCOL.md §5.3, §5.5, docs/spec-racer.md, docs/ESCROW.md): "
             "each vector's file is `log`, or the first `prefix_events` events of `bases[base]` "
             "then `append`; `expect` is the verdict; honest logs add `turns`, `draws`, `slots` "
             "and `cards` (vectors/README.md)")  # fmt: skip
    return {"about": about, "bases": {n: b64(d) for n, d in bases.items()}, "logs": vectors}


def _tweak_scalar(scalar: bytes) -> bytes:
    from creepnet.protocol.deck.group import L

    return ((int.from_bytes(scalar, "little") + 1) % L or 1).to_bytes(32, "little")


def _with_text(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {**body, "action": text}


def racer_long_game() -> tuple[Game, list[tuple[str, str, int, bytes]]]:
    """The long game, and crafted faults recorded at the first position each applies to."""
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import ShowDrawn, may_be, next_step, not_a_creep

    long = Game("racer", options={"creeps_per_player": 4, "face_up_creeps": 2,
                                  "turn_limit": 52}, seed=11, onion_length=400)  # fmt: skip
    policy = RacerPolicy(seed=11)
    spec = long.spectator
    Fault = tuple[str, str, Callable[..., bool], Callable[..., Any]]

    def deck(op: str, extra: Callable[[dict], bool] = lambda b: True) -> Callable[..., bool]:
        return lambda seat, t, b: t == "deck" and b["op"] == op and extra(b)

    def act(prefix: str, extra: Callable[[dict], bool] = lambda b: True) -> Callable[..., bool]:
        return lambda seat, t, b: t == "act" and b["action"].startswith(prefix) and extra(b)

    def other(seat: int) -> int:
        return 1 - seat

    def flip_last(data: bytes) -> bytes:
        return data[:-1] + bytes([data[-1] ^ 1])

    def other_card(text: str) -> str:
        words = text.split()
        card = int(words[2].split("=")[1])
        kind = racer.STANDARD_CATALOGUE[card].kind
        swap = card + 1 if racer.STANDARD_CATALOGUE[card + 1].kind is kind else card - 1
        words[2] = f"card={swap}"
        return " ".join(words)

    def first_in_hand(seat: int) -> int:
        return (*spec.game_state.state.players[seat].hand, 0)[0]

    def first_hero() -> int:
        return next(c.id for c in racer.STANDARD_CATALOGUE if c.kind.value == "hero")

    def keep_a_creep(seat: int, t: str, b: dict) -> Any:
        slot = int(b["action"].split()[1].split("=")[1])
        needed = not_a_creep(spec.game_state, slot)
        size = 96 + 32 * len(needed[2])
        return long.sign(seat, "act", {"action": f"keep-drawn slot={slot}", "proof": bytes(size)})

    def place_a_non_creep(seat: int, t: str, b: dict) -> Any:
        slot = int(b["action"].split()[1].split("=")[1])
        session = long.table.sessions[seat]
        card = session.private.card(session.game_state, slot)
        body = session.private._shown(session.game_state, racer.PlaceCreep(slot, card))
        return long.sign(seat, "act", body)

    faults: list[Fault] = [
        (
            "racer-launch-shown-without-slot",
            "where `launch slot=- card=-` (no Hero) is legal, `launch slot=- card=N` with a "
            "`key`: a Hero card shown without the slot it is in",
            act("launch slot=- card=-"),
            lambda s, t, b: long.sign(
                s, t, {"action": f"launch slot=- card={first_hero()}", "key": seed_bytes("key")}
            ),
        ),
        (
            "racer-launch-slot-without-card",
            "where `launch slot=- card=-` (no Hero) is legal, `launch slot=S card=-` naming a "
            "slot of the attacker's hand and no card",
            act("launch slot=- card=-"),
            lambda s, t, b: long.sign(s, t, {"action": f"launch slot={first_in_hand(s)} card=-"}),
        ),
        (
            "racer-join-wrong-seat",
            "seat 1 sends its deck join while seat 0 owes one",
            deck("join"),
            lambda s, t, b: long.sign(other(s), t, b),
        ),
        (
            "racer-join-short-commit",
            "a deck join whose commitment is 31 bytes",
            deck("join"),
            lambda s, t, b: long.sign(s, t, {**b, "commit": b["commit"][:31]}),
        ),
        (
            "racer-shuffle-bad-proof",
            "the first shuffle with k_rows changed",
            deck("shuffle"),
            lambda s, t, b: long.sign(
                s, t, {**b, "proof": {**b["proof"], "k_rows": _tweak_scalar(b["proof"]["k_rows"])}}
            ),
        ),
        (
            "racer-shuffle-wrong-pool",
            "a shuffle of `play` while `creeps` is owed",
            deck("shuffle", lambda b: b["pool"] == "creeps"),
            lambda s, t, b: long.sign(s, t, {**b, "pool": "play"}),
        ),
        (
            "racer-shuffle-extra-field",
            "a shuffle body with a field its op does not have",
            deck("shuffle"),
            lambda s, t, b: long.sign(s, t, {**b, "position": 0}),
        ),
        (
            "racer-lock-bad-proof",
            "the first lock with the proof of position 0 changed",
            deck("lock"),
            lambda s, t, b: long.sign(
                s,
                t,
                {
                    **b,
                    "proofs": [
                        b["proofs"][0][:32] + _tweak_scalar(b["proofs"][0][32:]),
                        *b["proofs"][1:],
                    ],
                },
            ),
        ),
        (
            "racer-public-release-bad-key",
            "a public release (face-up Creeps) with a wrong key",
            deck("release", lambda b: b["to"] == -1),
            lambda s, t, b: long.sign(
                s, t, {**b, "keys": [_tweak_scalar(b["keys"][0]), *b["keys"][1:]]}
            ),
        ),
        (
            "racer-release-wrong-recipient",
            "a private release addressed to everyone",
            deck("release", lambda b: b["to"] != -1),
            lambda s, t, b: long.sign(s, t, {**b, "to": -1}),
        ),
        (
            "racer-release-wrong-position",
            "a private release of another position",
            deck("release", lambda b: b["to"] != -1),
            lambda s, t, b: long.sign(s, t, {**b, "positions": [b["positions"][0] + 1]}),
        ),
        (
            "racer-release-by-wrong-seat",
            "a private release signed by the drawer itself",
            deck("release", lambda b: b["to"] != -1),
            lambda s, t, b: long.sign(b["to"], t, b),
        ),
        (
            "racer-show-wrong-seat",
            "a drawn card shown by the seat that did not draw it",
            act("keep-drawn", lambda b: "proof" in b and isinstance(b["proof"], bytes)),
            lambda s, t, b: long.sign(other(s), t, b),
        ),
        (
            "racer-show-as-deck",
            "a deck event where the drawer owes an act",
            act("keep-drawn"),
            lambda s, t, b: long.sign(s, "deck", {"op": "reveal", "secret": bytes(32)}),
        ),
        (
            "racer-keep-without-proof",
            "a kept card of the dealt family with no none-of proof",
            act("keep-drawn", lambda b: "proof" in b),
            lambda s, t, b: long.sign(s, t, {"action": b["action"]}),
        ),
        (
            "racer-keep-bad-proof",
            "a kept card whose none-of proof has one byte changed",
            act("keep-drawn", lambda b: isinstance(b.get("proof"), bytes)),
            lambda s, t, b: long.sign(
                s, t, {**b, "proof": b["proof"][:5] + bytes([b["proof"][5] ^ 1]) + b["proof"][6:]}
            ),
        ),
        (
            "racer-keep-a-creep",
            "a drawn Creep kept in hand (its proof cannot verify)",
            act("place-creep"),
            keep_a_creep,
        ),
        (
            "racer-place-a-non-creep",
            "a drawn card that is no Creep placed in the line",
            act("keep-drawn", lambda b: "proof" in b),
            place_a_non_creep,
        ),
        (
            "racer-proof-on-discard-card",
            "a card drawn from a redealt discard pile kept with a proof it must not carry",
            act("keep-drawn", lambda b: "proof" not in b),
            lambda s, t, b: long.sign(s, t, {**b, "proof": bytes(96)}),
        ),
        (
            "racer-act-out-of-turn",
            "a pass by the seat that is not deciding",
            act("pass"),
            lambda s, t, b: long.sign(other(s), t, b),
        ),
        (
            "racer-act-unknown-action",
            "an action text naming no action",
            act("pass"),
            lambda s, t, b: long.sign(s, t, {"action": "fold"}),
        ),
        (
            "racer-act-not-canonical",
            "a pass written with a field it does not have",
            act("pass"),
            lambda s, t, b: long.sign(s, t, {"action": "pass slot=1"}),
        ),
        (
            "racer-act-extra-key",
            "a pass with a `key`",
            act("pass"),
            lambda s, t, b: long.sign(s, t, {**b, "key": bytes(32)}),
        ),
        (
            "racer-discard-not-due",
            "a discard while the seat is to move",
            act("pass"),
            lambda s, t, b: long.sign(s, t, {"action": "discard slot=0 card=40"}),
        ),
        (
            "racer-play-wrong-card",
            "a Calamity played under the id of another copy",
            act("play-calamity"),
            lambda s, t, b: long.sign(s, t, _with_text(b, other_card(b["action"]))),
        ),
        (
            "racer-play-wrong-key",
            "a Calamity played with a key that is not the holder's",
            act("play-calamity"),
            lambda s, t, b: long.sign(s, t, {**b, "key": _tweak_scalar(b["key"])}),
        ),
        (
            "racer-play-without-key",
            "a Calamity played without its key",
            act("play-calamity"),
            lambda s, t, b: long.sign(s, t, {"action": b["action"]}),
        ),
        (
            "racer-blind-by-wrong-seat",
            "the Hostage card's blind signed by its holder",
            deck("blind"),
            lambda s, t, b: long.sign(other(s), t, b),
        ),
        (
            "racer-blind-bad-proof",
            "a blind whose DLEQ proof is changed",
            deck("blind"),
            lambda s, t, b: long.sign(
                s, t, {**b, "proof": b["proof"][:32] + _tweak_scalar(b["proof"][32:])}
            ),
        ),
        (
            "racer-unblind-bad-proof",
            "an unblind whose DLEQ proof is changed",
            deck("unblind"),
            lambda s, t, b: long.sign(
                s, t, {**b, "proof": b["proof"][:32] + _tweak_scalar(b["proof"][32:])}
            ),
        ),
        (
            "racer-bad-die-reveal",
            "a reveal for a die whose preimage is wrong",
            lambda s, t, b: t == "reveal" and spec.started,
            lambda s, t, b: long.sign(s, t, {**b, "pre": flip_last(b["pre"])}),
        ),
        (
            "racer-reveal-wrong-secret",
            "the end-of-game deck reveal with a wrong secret",
            deck("reveal"),
            lambda s, t, b: long.sign(s, t, {**b, "secret": flip_last(b["secret"])}),
        ),
        (
            "racer-reveal-out-of-order",
            "seat 1's end-of-game reveal before seat 0's",
            deck("reveal"),
            lambda s, t, b: long.sign(
                other(s), t, {"op": "reveal", "secret": long.table.secrets[other(s)].deck_secret}
            ),
        ),
    ]
    faults.append(
        (
            "racer-keep-spaced-text",
            "the honest kept card with its action text written with two spaces: one spelling only",
            act("keep-drawn", lambda b: isinstance(b.get("proof"), bytes)),
            lambda s, t, b: long.sign(s, t, _with_text(b, b["action"].replace(" ", "  "))),
        )
    )
    recorded: list[tuple[str, str, int, bytes]] = []
    legacy_done = False
    while not long.over:
        step = next_step(spec.game_state) if spec.started else None
        if not legacy_done and isinstance(step, ShowDrawn) and spec.game_state.state.turn:
            # Once, the kept card is proven with the OR-proof older logs carry (a `class` list).
            session = long.table.sessions[step.seat]
            game = session.game_state
            card = session.private.card(game, step.slot)
            needed = not_a_creep(game, step.slot)
            if needed is not None and racer.STANDARD_CATALOGUE[card].kind.value != "creep":
                pool, position, _ = needed
                me = session.private._me(game)
                proof = me.prove_class(len(session.log), pool, position, may_be(game))["proof"]
                text = racer.format_action(racer.KeepDrawn(step.slot))
                bad = [proof[0][:32] + _tweak_scalar(proof[0][32:]), *proof[1:]]
                recorded.append(
                    (
                        "racer-class-proof-bad",
                        "a legacy class (OR-) proof for a kept card, one response changed",
                        len(spec.log),
                        long.sign(step.seat, "act", {"action": text, "proof": bad}).raw,
                    )
                )
                long.push(long.sign(step.seat, "act", {"action": text, "proof": proof}))
                legacy_done = True
                continue
        seat, type_, body = long.owed_or_decision(policy)
        for fault in list(faults):
            name, about, when, make = fault
            if when(seat, type_, body):
                event = make(seat, type_, body)
                recorded.append((name, about, len(spec.log), event.raw))
                faults.remove(fault)
        long.push(long.sign(seat, type_, body))
    assert not faults, [f[0] for f in faults]
    return long, recorded


def racer_release_ahead_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """A 3-seat game made with ``release_ahead`` (docs/spec-racer.md §8): each private draw's
    releasers release, one event each, every card the drawer is sure to draw in the stage; and,
    at the first turn's release of two cards whose drawer's next card is in the same pool, a
    release of one position fewer and one of one position more (real keys: only the schedule
    refuses them)."""
    from creepnet.protocol.games.racer.schedule import DeckStep, next_step

    options = {"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 4, "release_ahead": 1}
    game = Game("racer", seats=3, options=options, seed=18, onion_length=64)
    policy, spec = RacerPolicy(seed=18), game.spectator
    crafted: list[tuple[str, str, int, bytes]] = []
    while not game.over:
        step = next_step(spec.game_state) if spec.started else None
        if (
            not crafted
            and isinstance(step, DeckStep)
            and spec.game_state.state.turn is not None
            and step.op == "release"
            and step.to not in (None, -1)
            and len(step.positions) == 2
        ):
            assert step.to is not None and step.pool is not None
            beyond = spec.game_state.state.players[step.to].deck[1:2]
            if beyond and spec.game_state.where[beyond[0]][0] == step.pool:
                session = game.table.sessions[step.seat]
                me = session.private._me(session.game_state)
                more = [*step.positions, spec.game_state.where[beyond[0]][1]]
                for name, positions, what in (
                    ("racer-release-ahead-one-fewer", [step.positions[0]], "the drawn card only"),
                    ("racer-release-ahead-one-more", more, "the drawer's next card too"),
                ):
                    event = game.sign(step.seat, "deck", me.release(step.pool, positions, step.to))
                    about = (f"racer-release-ahead where seat {step.seat} owes the release of "
                             f"{step.pool}{list(step.positions)} to seat {step.to} (a turn's two "
                             f"draws): its release of {positions}, {what}, with valid keys "
                             "(illegal)")  # fmt: skip
                    crafted.append((name, about, len(spec.log), event.raw))
        game.step(policy)
    assert crafted, "no turn's release of two cards"
    data = game.raw()
    out = [
        honest_vector(
            bases,
            "racer-release-ahead",
            "3 seats, 2 Creeps each (1 face up), turn limit 4, option release_ahead: every "
            "private draw's releasers release the stage's certain draws in one event each (the "
            "opening hands 5 at once, a turn's 2)",
            data,
        )
    ]
    for name, about, events, appended in crafted:
        cut = b"".join(events_of(data)[:events]) + appended
        out.append(log_vector(name, about, cut, ("racer-release-ahead", events, appended)))
    return out


RELEASE_AHEAD_STOPS = {
    "releaser": "as the second releaser of a drawer's two certain draws, the first releaser "
    "having released both: the table's release for it (with its recovered lock keys) is the "
    "same list",
    "drawer": "as the drawer of two certain draws, both released to it, when it owes the "
    "`keep-drawn` or `place-creep` of the first: its turn passes, nothing of its deck is "
    "recovered (it leaves play hidden)",
}


def release_ahead_stop(game: Game) -> tuple[str, int] | None:
    """Where a table with ``release_ahead`` waits on a seat in the middle of certain draws
    (RELEASE_AHEAD_STOPS), and that seat."""
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import DeckStep, ShowDrawn, next_step

    spec = game.spectator
    if not spec.started or spec.finished or spec.game_state.state.turn is None:
        return None
    table = spec.game_state
    step = next_step(table)
    if len(racer.certain_draws(table.state)) < 2:
        return None
    if isinstance(step, ShowDrawn):
        return "drawer", step.seat
    if isinstance(step, DeckStep) and step.op == "release" and step.by is None:
        name, j = table.where[table.state.stage.drawn]
        if len(step.positions) >= 2 and table.deck.pools[name].slots[j].released:
            return "releaser", step.seat
    return None


def racer_release_ahead_retire_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow and ``release_ahead``, played honestly to the end (the base); forked
    where the table first waits on a seat in each situation of RELEASE_AHEAD_STOPS, where that
    seat is retired and the other two finish (docs/spec-racer.md §8 "Certain draws")."""

    options = {"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 4, "escrow": 1,
               "release_ahead": 1}  # fmt: skip
    game = Game("racer", seats=3, options=options, seed=19, onion_length=64)
    forks = play_forking(game, RacerPolicy(seed=19), release_ahead_stop, RELEASE_AHEAD_STOPS)
    name = "racer-release-ahead-escrow"
    base = honest_vector(bases, name, "3 seats with escrow and release_ahead, 2 Creeps each (1 "
                         "face up), turn limit 4, played to the end: the base of the "
                         "racer-release-ahead-retire-* vectors", game.raw())  # fmt: skip
    return [base, *fork_vectors(name, forks, {
        situation: (f"racer-release-ahead-retire-{situation}",
                    f"{what}; the two others finish, and its cards decode from its escrow")
        for situation, what in RELEASE_AHEAD_STOPS.items()
    })]  # fmt: skip


def play_forking(
    game: Game,
    policy: RacerPolicy,
    stop: Callable[[Game], tuple[str, int] | None],
    situations: Mapping[str, str],
) -> list[tuple[str, int, int, bytes]]:
    """Play ``game`` to the end; the first time ``stop`` names each of ``situations`` (and the
    seat the table waits on), a ``retired_fork`` there: (situation, seat, seq, the fork's log)."""
    forks: list[tuple[str, int, int, bytes]] = []
    while not game.over:
        found = stop(game)
        if found is not None and found[0] not in {f[0] for f in forks}:
            situation, seat = found
            forks.append((situation, seat, *retired_fork(game, policy, seat)))
        game.step(policy)
    missing = set(situations) - {f[0] for f in forks}
    assert not missing, missing
    return forks


def fork_vectors(
    base: str, forks: list[tuple[str, int, int, bytes]], named: Mapping[str, tuple[str, str]]
) -> list[dict[str, Any]]:
    """The annotated vectors of ``play_forking``'s forks of the base vector ``base``: by
    situation, the vector's name and what happens after the seat is retired."""
    out = []
    for situation, seat, events, data in forks:
        appended = data[len(b"".join(events_of(data)[:events])) :]
        name, what = named[situation]
        about = f"{base} until seat {seat} is retired {what}"
        out.append(log_vector(name, about, data, (base, events, appended), annotated=True))
    return out


def racer_last_revealer_retire_vector(bases: dict[str, bytes]) -> dict[str, Any]:
    """racer-escrow-play replayed to the first draw in play whose last reveal is owed by the
    last remaining seat, every other seat having revealed; that seat is retired there.  The
    table owes the recoveries of its keys first, so the game asks for no draw next: the draw is
    spent unused, not completed with the two preimages in, and nobody skips a layer
    (PROTOCOL.md §5.5: the next step alone decides)."""
    from creepnet.protocol.event import parse_event
    from creepnet.protocol.rules import NeedRandom

    name = "racer-escrow-play"
    raws = events_of(bases[name])
    game = Game("racer", seats=3, options={"creeps_per_player": 2, "face_up_creeps": 1,
                "turn_limit": 6, "escrow": 1}, seed=1, onion_length=128)  # fmt: skip
    assert b"".join(raws[: len(game.spectator.log)]) == game.raw()
    for raw in raws[len(game.spectator.log) :]:
        spec = game.spectator
        if (
            spec.started
            and spec.game_state.state.turn is not None
            and isinstance(spec.rules.next(spec.game_state), NeedRandom)
            and len(spec.reveals) == len(spec.remaining) - 1 > 0
        ):
            break
        game.push(parse_event(raw))
    else:
        raise AssertionError("no draw in play whose last reveal is owed")
    seat, draws = game.spectator.expected().seat, game.spectator.draws
    events = vote_out(game, seat)
    assert game.spectator.draws == draws + 1 and not game.spectator.skipped  # spent, none skip
    game.run(RacerPolicy(seed=1), lambda g: g.over)
    data = game.raw()
    appended = data[len(b"".join(raws[:events])) :]
    about = (
        f"{name} until seat {seat}, the last to reveal for a Hostage pick (the two others have "
        "revealed), is retired: its keys are recovered first, so the game asks for no draw next "
        "and the draw is spent unused (`value` null), not completed with the two preimages in; "
        "nobody skips a layer (PROTOCOL.md §5.5)"
    )
    return log_vector("racer-retire-at-draw-spent-last", about, data, (name, events, appended),
                      annotated=True)  # fmt: skip


def racer_withdrawal_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """A table with ``withdrawals_per_turn`` 2 (docs/spec-racer.md §2, §5.4), played honestly
    to the first move where a seat may declare an attack; that seat declares and withdraws
    twice (the base, valid), then declares a third time: illegal, the turn's withdrawals are
    spent.  Also the option's genesis refused at 0."""
    from creepnet.engine import racer
    from creepnet.protocol import codec
    from creepnet.protocol.event import sign_event

    options = {"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 6}
    game = Game("racer", options={**options, "withdrawals_per_turn": 2}, seed=29)
    policy = RacerPolicy(seed=29)

    def declarations(g: Game) -> list[Any]:
        spec = g.spectator
        if not spec.started or spec.expected() is None or spec.expected().automatic:
            return []
        state = spec.engine_state
        if racer.pending(state) != racer.Decide(spec.expected().seat, "move"):
            return []
        return [a for a in racer.legal_actions(state) if isinstance(a, racer.DeclareAttack)]

    game.run(policy, lambda g: bool(declarations(g)) or g.over)
    assert not game.over, "no move with an attack to declare"
    seat, target = game.spectator.expected().seat, declarations(game)[0].target
    declare = f"declare-attack target={target}"
    for _ in range(2):
        game.step(lambda g, s: declare)
        game.step(lambda g, s: "withdraw")
    name = "racer-withdrawals-spent"
    base = honest_vector(bases, name + "-base", f"withdrawals_per_turn 2: seat {seat} declares "
                         "an attack and withdraws it twice in one turn, as the option allows; "
                         "valid, unfinished", game.raw())  # fmt: skip
    third = game.sign(seat, "act", {"action": declare})
    spent = log_vector(
        name,
        "a third declaration in the turn: its 2 withdrawals are spent (illegal; "
        "docs/spec-racer.md §5.4)",
        game.raw() + third.raw,
        (name + "-base", len(game.spectator.log), third.raw),
    )
    genesis = events_of(game.raw())[0]
    body = {**codec.decode(genesis)["body"], "options": {**options, "withdrawals_per_turn": 0}}
    raw = sign_event(game.table.identities[0], game=game.spectator.game, seq=0,
                     prev=bytes(32), type="genesis", body=body).raw  # fmt: skip
    zero = log_vector("racer-option-withdrawals-zero", "a genesis with withdrawals_per_turn 0",
                      raw)  # fmt: skip
    return [base, spent, zero]


def racer_withdrawals_next_turn_vector(bases: dict[str, bytes]) -> dict[str, Any]:
    """withdrawals_per_turn 1 (docs/spec-racer.md §2, §5.4): a seat declares and withdraws once
    (its turn's one withdrawal spent), passes, and at its next turn declares again, valid: the
    count starts at 0 with each turn, it is not the game's."""
    from creepnet.engine import racer

    options = {"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 8,
               "withdrawals_per_turn": 1}  # fmt: skip
    game = Game("racer", options=options, seed=31)
    policy = RacerPolicy(seed=31)

    def declarable(g: Game, seat: int | None = None) -> list[Any]:
        state = racer_move_state(g)
        if state is None or seat is not None and racer.pending(state).seat != seat:
            return []
        return [a for a in racer.legal_actions(state) if isinstance(a, racer.DeclareAttack)]

    game.run(policy, lambda g: bool(declarable(g)) or g.over)
    assert not game.over, "no move with an attack to declare"
    seat = game.spectator.expected().seat
    first = game.spectator.engine_state.turn.number
    declare = f"declare-attack target={declarable(game)[0].target}"
    game.step(lambda g, s: declare)
    game.step(lambda g, s: "withdraw")
    assert not declarable(game), "the turn's one withdrawal is spent"
    game.step(lambda g, s: "pass")

    def passive(g: Game, s: int) -> str:  # no attack until the seat's next turn
        view = g.table.sessions[s].local_view()
        return "pass" if racer.Pass() in view.legal else policy(g, s)

    game.run(passive, lambda g: bool(declarable(g, seat)) or g.over)
    assert not game.over, "the seat never could declare again"
    turn = game.spectator.engine_state.turn.number
    assert turn > first
    game.step(lambda g, s: f"declare-attack target={declarable(g)[0].target}")
    return honest_vector(bases, "racer-withdrawals-next-turn", f"withdrawals_per_turn 1: seat "
                         f"{seat} declares and withdraws at turn {first} (its one withdrawal "
                         f"spent), passes, and declares again at turn {turn}: valid, the count "
                         "is per turn; unfinished", game.raw())  # fmt: skip


def racer_move_state(g: Game) -> Any | None:
    """The engine state where the game waits on a seat's move (a decision, not a step its node
    answers by itself), else None."""
    from creepnet.engine import racer

    spec = g.spectator
    if not spec.started or spec.expected() is None or spec.expected().automatic:
        return None
    request = racer.pending(spec.engine_state)
    is_move = isinstance(request, racer.Decide) and request.topic == "move"
    return spec.engine_state if is_move else None


def racer_retired_forced_hostage_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow: seat A forces a Hostage Exchange on seat X; X, owing the `unblind`
    of the first card (the one it gives), is retired: the exchange is cancelled, nothing changed
    hands and A's move is not spent (docs/spec-racer.md §5.9), but its forced exchange stays
    used (§5.4): the base ends at A's move, and A's `force-hostage` of the third seat is
    illegal."""
    from creepnet.engine import racer

    options = {"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 8, "escrow": 1,
               "withdrawals_per_turn": 3}  # fmt: skip
    game = Game("racer", seats=3, options=options, seed=37, onion_length=128)
    policy = RacerPolicy(seed=37)

    def forcible(g: Game) -> list[int]:
        state = racer_move_state(g)
        if state is None:
            return []
        return [a.seat for a in racer.legal_actions(state) if isinstance(a, racer.ForceHostage)]

    game.run(policy, lambda g: len(forcible(g)) == 2 or g.over)
    assert not game.over, "no move where two seats could be forced"
    asker = game.spectator.expected().seat
    target, other = forcible(game)
    game.step(lambda g, s: f"force-hostage seat={target}")

    game.run(policy, lambda g: owes(g, target, "unblind") or g.over)
    assert not game.over
    vote_out(game, target)

    game.run(policy, lambda g: racer_move_state(g) is not None or g.over)
    spec = game.spectator
    assert spec.expected().seat == asker and forcible(game) == []  # its force is used
    state = spec.engine_state
    assert state.players[other].hand and state.players[asker].hand
    name = "racer-retire-forced-hostage"
    base = honest_vector(bases, name + "-base", f"3 seats with escrow: seat {asker} forces a "
                         f"Hostage Exchange on seat {target}, which is retired owing the "
                         "`unblind` of the first card: the exchange is cancelled, the move not "
                         f"spent; the log ends at seat {asker}'s move; valid, unfinished",
                         game.raw())  # fmt: skip
    again = game.sign(asker, "act", {"action": f"force-hostage seat={other}"})
    spent = log_vector(
        name,
        f"seat {asker} forces a Hostage Exchange again, on seat {other}: its forced exchange "
        "stays used though a retirement cancelled it (illegal; docs/spec-racer.md §5.4, §5.9)",
        game.raw() + again.raw,
        (name + "-base", len(spec.log), again.raw),
    )
    return [base, spent]


def racer_table_keys_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow: seat 1 is retired when it owes its first shuffle (in the set-up);
    the table's steps for it must use the table's keys (PROTOCOL.md §5.5 step 3): its first
    shuffle with a layer, and its first lock with keys, that only their signer knows."""
    from creepnet.protocol.deck import escrowing
    from creepnet.protocol.deck.group import scalar_from_wide
    from creepnet.protocol.games.racer.schedule import DeckStep, next_step

    options = {"creeps_per_player": 1, "face_up_creeps": 1, "turn_limit": 1, "escrow": 1}
    game = Game("racer", seats=3, options=options, seed=41, onion_length=64)
    policy = RacerPolicy(seed=41)
    game.run(policy, lambda g: owes(g, 1, "shuffle"))
    vote_out(game, 1)
    spec = game.spectator
    public = escrowing.RetiredSeatKeys._scalar
    faults: dict[str, tuple[int, bytes]] = {}
    while not game.over:
        step = next_step(spec.game_state)
        table_made = isinstance(step, DeckStep) and step.seat == 1 and step.by is not None
        if table_made and step.op in ("shuffle", "lock") and step.op not in faults:
            secret = "layer" if step.op == "shuffle" else "lock"

            def known_to_the_signer(keys: Any, *label: str | int, secret: str = secret) -> bytes:
                if label[0] != secret:
                    return public(keys, *label)
                digest = hashlib.sha512(repr(label).encode() + b"vectors/table-keys").digest()
                return scalar_from_wide(digest)

            escrowing.RetiredSeatKeys._scalar = known_to_the_signer  # type: ignore[method-assign]
            try:
                seat, type_, body = game.owed_or_decision(policy)
            finally:
                escrowing.RetiredSeatKeys._scalar = public  # type: ignore[method-assign]
            faults[step.op] = (len(spec.log), game.sign(seat, type_, body).raw)
        game.step(policy)
    assert set(faults) == {"shuffle", "lock"}
    name = "racer-retire-table-keys"
    out = [
        honest_vector(
            bases,
            name,
            "3 seats with escrow, 1 Creep each, turn limit 1; seat 1 "
            "is retired when it owes its first shuffle (in the set-up); seat 0 makes "
            "its shuffles, locks and releases with the table's keys, and they finish",
            game.raw(),
        )  # fmt: skip
    ]
    data = game.raw()
    what = {"shuffle": "a new layer", "lock": "lock keys"}
    for op, (events, appended) in faults.items():
        about = (
            f"seat 0's first {op} for retired seat 1 with {what[op]} only seat 0 knows "
            "(its proofs hold): not the table's keys, illegal (PROTOCOL.md §5.5 step 3)"
        )
        cut = data[: len(b"".join(events_of(data)[:events]))] + appended
        out.append(log_vector(f"{name}-secret-{op}", about, cut, (name, events, appended)))
    return out


def owes(game: Game, seat: int, op: str) -> bool:
    """Whether ``seat`` owes a deck ``op`` next."""
    from creepnet.protocol.games.racer.schedule import DeckStep, next_step

    state = game.spectator.game_state
    if state is None:  # not started yet
        return False
    step = next_step(state)
    return isinstance(step, DeckStep) and step.seat == seat and step.op == op and step.by is None


LAST_TURN = 5  # racer-last-turn-escrow's turn limit: seat 1's turn 5 is its last


def last_rival_stop(game: Game) -> tuple[str, int] | None:
    """Where the table waits on the turn seat X for a move of the game's last turn, with one
    other seat still in (the third is out): retiring X leaves one seat active."""
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import next_step

    spec = game.spectator
    if not spec.started or spec.finished:
        return None
    state = spec.game_state.state
    turn = state.turn
    if (
        turn is not None
        and turn.number == LAST_TURN
        and len(state.active_seats()) == 2
        and next_step(spec.game_state) == racer.Decide(turn.seat, "move")
    ):
        return "last-rival", turn.seat
    return None


def racer_last_rival_retire_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow, 1 Creep each, turn limit 5, played honestly to the end (a draw at
    the limit: the base); forked at the last turn's first move, seat 0 out, where the turn's
    seat is retired: its turn passes into a turn past the limit, but one seat is left active, so
    that seat wins (docs/spec-racer.md §5.9); the recoveries of the retired seat's keys come
    before the two remaining seats' reveals all the same (PROTOCOL.md §5.5)."""
    options = {"creeps_per_player": 1, "face_up_creeps": 1, "turn_limit": LAST_TURN,
               "escrow": 1, "withdrawals_per_turn": 3}  # fmt: skip
    game = Game("racer", seats=3, options=options, seed=0, onion_length=128)
    situations = {"last-rival": ""}
    forks = play_forking(game, RacerPolicy(seed=0), last_rival_stop, situations)
    name = "racer-last-turn-escrow"
    base = honest_vector(bases, name, f"3 seats with escrow, 1 Creep each, turn limit "
                         f"{LAST_TURN}, withdrawals_per_turn 3, played to the end: seat 0 is out "
                         "before the last turn; the base of racer-retire-last-rival-at-turn-limit",
                         game.raw())  # fmt: skip
    what = ("at the first move of the last turn (its own), with one other seat still in: its "
            "turn passes into a turn past the limit, yet the one seat left active wins, not a "
            "draw (docs/spec-racer.md §5.9); the recoveries of its keys are still owed before the "
            "two remaining seats' end-of-game reveals (PROTOCOL.md §5.5: X's list is empty only "
            "for a retire at the reveals)")  # fmt: skip
    return [base, *fork_vectors(name, forks, {
        "last-rival": ("racer-retire-last-rival-at-turn-limit", what)})]  # fmt: skip


def racer_start_roll_retire_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow, turn limit 2 (the base); forked where seat 1 owes its reveal for
    the roll to start, seat 0 having revealed: retired, it leaves the contenders, the draw under
    way is spent, the table recovers its lock keys of the other seats' draw pools first (the
    Deck Shift has fixed them), and the two others roll again and finish (spec-racer.md §5.9,
    PROTOCOL.md §5.5)."""
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import next_step

    options = {"creeps_per_player": 1, "face_up_creeps": 1, "turn_limit": 2, "escrow": 1,
               "release_ahead": 1}  # fmt: skip
    game = Game("racer", seats=3, options=options, seed=22, onion_length=64)
    policy = RacerPolicy(seed=22)
    fork = None
    while not game.over:
        spec = game.spectator
        step = next_step(spec.game_state) if spec.started and not spec.finished else None
        if (
            fork is None
            and isinstance(step, racer.NeedDie)
            and step.purpose == "start"
            and len(spec.reveals) == 1
        ):
            seat = spec.expected().seat
            fork = (seat, *retired_fork(game, policy, seat))
        game.step(policy)
    assert fork is not None, "no roll to start with a reveal made"
    name = "racer-start-roll-escrow"
    out = [honest_vector(bases, name, "3 seats with escrow and release_ahead, 1 Creep each, "
                         "turn limit 2, played to the end: the base of "
                         "racer-retire-at-start-roll", game.raw())]  # fmt: skip
    seat, events, data = fork
    appended = data[len(b"".join(events_of(data)[:events])) :]
    about = (f"{name} until seat {seat} is retired when it owes its reveal for the roll to "
             "start, the seat before it having revealed: it leaves the contenders, the draw is "
             "spent, its lock keys of the other seats' draw pools are recovered first, and the "
             "two others finish")  # fmt: skip
    out.append(log_vector("racer-retire-at-start-roll", about, data,
                          (name, events, appended), annotated=True))  # fmt: skip
    return out


def racer_reshuffle_retire_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow, played honestly through a reshuffle of the discard pile (a draw
    deck runs dry at turn 40, every seat still in) to the end (the base); forked where the table
    waits on a seat in each situation of RESHUFFLE_STOPS, where that seat is retired: the pool
    is voided and the reshuffle, when one is needed again, is ``discard:K+1`` (PROTOCOL.md
    §5.5)."""
    from creepnet.protocol.event import parse_event

    options = {"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 42, "escrow": 1,
               "release_ahead": 1}  # fmt: skip
    game = Game("racer", seats=3, options=options, seed=31, onion_length=128)
    forks = play_forking(game, RacerPolicy(seed=31), reshuffle_stop, RESHUFFLE_STOPS)
    for _, _, seq, data in forks:  # the reshuffle started afresh in the fork
        bodies = [parse_event(raw).body for raw in events_of(data)]
        pools = {b["pool"] for b in bodies[:seq] if str(b.get("pool")).startswith("discard:")}
        assert any(b.get("pool") == f"discard:{len(pools)}" for b in bodies[seq:]), pools
    name = "racer-reshuffle-escrow"
    base = honest_vector(bases, name, "3 seats with escrow and release_ahead, 2 Creeps each (1 "
                         "face up), turn limit 42, played to the end through a reshuffle of the "
                         "discard pile (a draw deck ran dry at turn 40): the base of "
                         "racer-retire-during-reshuffle and -reshuffle-lock",
                         game.raw())  # fmt: skip
    return [base, *fork_vectors(name, forks, {
        "shuffler": ("racer-retire-during-reshuffle", RESHUFFLE_STOPS["shuffler"]),
        "drawer": ("racer-retire-at-reshuffle-lock", RESHUFFLE_STOPS["drawer"]),
    })]  # fmt: skip


def reshuffle_stop(game: Game) -> tuple[str, int] | None:
    """Where the table waits on a seat in a situation of RESHUFFLE_STOPS, and that seat."""
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import next_step

    spec = game.spectator
    request = racer.pending(spec.game_state.state) if spec.started else None
    if not isinstance(request, racer.NeedShuffle) or request.pool != "discard":
        return None
    step, state = next_step(spec.game_state), spec.game_state.state
    pools = [p for n, p in spec.game_state.deck.pools.items() if n.startswith("discard:")]
    if step.op == "shuffle" and pools[-1].shuffles == 1:
        return "shuffler", spec.expected().seat
    if step.op == "lock" and step.seat == state.turn.seat:
        return "drawer", spec.expected().seat
    return None


RESHUFFLE_STOPS = {
    "shuffler": "when it owes the second shuffle of the reshuffle: the pool is voided (never "
    "used again, nothing of it recovered), the reshuffle starts afresh as discard:K+1 for the "
    "drawer, and the two others finish",
    "drawer": "as the drawer whose deck ran dry, when it owes its lock of the reshuffle: the "
    "pool is voided, its turn passes, and the next reshuffle is discard:K+1",
}


def retire_without_escrow(three: Game) -> dict[str, Any]:
    """racer-three-seats (no `escrow` option) until its first decision, then a `retire` of the
    seat to decide with every vote valid: the table cannot act for a seat, so it ends abandoned."""
    from creepnet.protocol import retirement

    data = three.raw()
    raws = events_of(data)
    turns = annotate(data)[1]["turns"]
    at = next(t for t in turns if t["type"] == "act" and "decide" in t)
    seq, seat = at["seq"], at["seat"]
    where = retirement.Position(three.spectator.game, seq, _event_id(raws[seq - 1]), seat)
    voters = [v for v in range(3) if v != seat]
    votes = [retirement.vote(three.table.identities[v], where, v) for v in voters]
    body = retirement.retire_body(where, votes)
    event = three.sign(voters[0], "retire", body, seq=seq, prev=where.prev)
    about = (f"racer-three-seats (no escrow) until seat {seat}'s first decision, then its "
             "`retire` with every vote valid: a table without escrow cannot play on without a "
             "seat, so the game ends abandoned by it (valid, unfinished)")  # fmt: skip
    cut = b"".join(raws[:seq]) + event.raw
    return log_vector("racer-retire-without-escrow", about, cut, ("racer-three-seats", seq,
                      event.raw))  # fmt: skip


def racer_escrow_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow: seat 1 stops when it owes its first lock, seats 0 and 2 vote it out,
    recover its keys and finish; faults of every retirement and escrow check."""
    from creepnet.protocol import retirement
    from creepnet.protocol.deck import group

    options = {"creeps_per_player": 1, "face_up_creeps": 1, "turn_limit": 1, "escrow": 1}
    game = Game("racer", seats=3, options=options, seed=21, onion_length=64)
    policy = RacerPolicy(seed=21)
    spec = game.spectator
    recorded: list[tuple[str, str, int, bytes]] = []

    def record(name: str, about: str, event: Any) -> None:
        recorded.append((name, about, len(spec.log), event.raw))

    bundle_done = recover_done = False
    while True:
        seat, type_, body = game.owed_or_decision(policy)
        if seat == 1 and type_ == "deck" and body["op"] == "lock":
            break
        if seat == 1 and type_ == "deck" and body["op"] == "join":
            early = retirement.Position(spec.game, len(spec.log), spec.log.head, 1)
            votes = [retirement.vote(game.table.identities[v], early, v) for v in (0, 2)]
            about = ("a retire of seat 1 while it owes its deck join, every vote valid: "
                     "none of its keys is escrowed, the table could never act for it, so the game "
                     "ends abandoned by seat 1 (valid, unfinished)")  # fmt: skip
            record("racer-retire-before-deck-join", about,
                   game.sign(0, "retire", retirement.retire_body(early, votes)))  # fmt: skip
        if not bundle_done and type_ == "deck" and body["op"] == "lock" and body.get("escrow"):
            first = body["escrow"][0]
            bad = {**first, "commits": [first["commits"][0], another_point("vectors/escrow")]}
            forged = game.sign(seat, type_, {**body, "escrow": [bad, *body["escrow"][1:]]})
            about = ("a lock whose first escrow bundle publishes two share commitments (with "
                     "two recipients only S_1 is published: S_2 is implied)")  # fmt: skip
            record("racer-escrow-shape", about, forged)
            bundle_done = True
            game.push(game.sign(seat, type_, body))
            victim = (seat + 1) % 3  # the next to lock, and the first recipient of seat's escrow
            about = (f"seat {victim}'s complaint, in place of its lock, about seat {seat}'s "
                     "honest share of its lock key of position 0: false, refused")  # fmt: skip
            record("racer-complain-false", about, complaint(game, victim, seat, body["pool"]))
            record_upheld(game, seat, victim, body, recorded)
            continue
        game.push(game.sign(seat, type_, body))
    where = retirement.Position(spec.game, len(spec.log), spec.log.head, 1)
    ids = game.table.identities
    good = [retirement.vote(ids[v], where, v) for v in (0, 2)]
    body_of = retirement.retire_body
    later = replace_position(where, seq=where.seq + 1)
    branch = replace_position(where, prev=bytes(32))
    forged = [
        ("racer-retire-vote-missing", "a retire of seat 1 with seat 2's vote missing",
         0, body_of(where, good[:1])),
        ("racer-retire-vote-by-x", "a retire whose votes include one by seat 1 itself",
         0, body_of(where, [*good, [1, ids[1].sign(where.vote_message(1))]])),
        ("racer-retire-vote-non-seat", "a retire whose votes include one by seat 7 (no seat)",
         0, body_of(where, [*good, [7, bytes(64)]])),
        ("racer-retire-vote-other-seq", "a retire whose votes were signed for seq S+1",
         0, body_of(where, [retirement.vote(ids[v], later, v) for v in (0, 2)])),
        ("racer-retire-vote-other-prev", "a retire whose votes were signed for another prev",
         0, body_of(where, [retirement.vote(ids[v], branch, v) for v in (0, 2)])),
        ("racer-retire-vote-twice", "a retire with seat 0's vote twice",
         0, {"seat": 1, "votes": [good[0], good[0], good[1]]}),
        ("racer-retire-wrong-author", "a retire with both votes, appended by seat 2 (the author "
         "is the lowest remaining seat other than X: seat 0)", 2, body_of(where, good)),
    ]  # fmt: skip
    for name, about, author, body in forged:
        record(name, about, game.sign(author, "retire", body))
    record("racer-abandon-three-seats", "seat 0 claims an abandonment by seat 1 with three "
           "seats playing (it must be retired)", game.sign(0, "abandon", {"seat": 1}))  # fmt: skip
    game.push(game.sign(0, "retire", body_of(where, good)))
    while not game.over:
        seat, type_, body = game.owed_or_decision(policy)
        if not recover_done and type_ == "deck" and body["op"] == "recover":
            given = body["shares"]
            off = [group.scalar_add(given[0], group.ONE), *given[1:]]
            record("racer-recover-bad-share", f"seat {seat}'s recover with its first share off "
                   "by one", game.sign(seat, type_, {**body, "shares": off}))  # fmt: skip
            recover_done = True
        game.push(game.sign(seat, type_, body))
    assert bundle_done and recover_done
    name = "racer-escrow-retire"
    vectors = [
        honest_vector(
            bases, name, "3 seats with "
            "escrow, 1 Creep each, turn limit 1; seat 1 stops when it owes its first lock (in the "
            "set-up), seats 0 and 2 vote it out (`retire`), recover its keys (`recover`), seat 0 "
            "makes its shuffles, locks and releases for it, and they finish",
            game.raw(),
        )
    ]  # fmt: skip
    data = game.raw()
    for fault, about, events, appended in recorded:
        cut = data[: len(b"".join(events_of(data)[:events]))] + appended
        vectors.append(log_vector(fault, about, cut, (name, events, appended)))
    return vectors


def racer_refresh_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """4 seats with escrow: seat 3 is retired when it owes its first lock; with three left, each
    re-deals (``refresh``) its escrows seat 3 held a share of."""
    from creepnet.protocol import retirement

    options = {"creeps_per_player": 1, "face_up_creeps": 1, "turn_limit": 1, "escrow": 1}
    game = Game("racer", seats=4, options=options, seed=22, onion_length=64)
    policy = RacerPolicy(seed=22)
    spec = game.spectator
    while True:
        seat, type_, body = game.owed_or_decision(policy)
        if seat == 3 and type_ == "deck" and body["op"] == "lock":
            break
        game.push(game.sign(seat, type_, body))
    where = retirement.Position(spec.game, len(spec.log), spec.log.head, 3)
    votes = [retirement.vote(game.table.identities[v], where, v) for v in (0, 1, 2)]
    game.push(game.sign(0, "retire", retirement.retire_body(where, votes)))
    fault = second = None
    during: dict[str, tuple[int, bytes]] = {}  # seat 1 retired owing its recover, its refresh
    while not game.over:
        seat, type_, body = game.owed_or_decision(policy)
        private = type_ == "deck" and body["op"] == "release" and body["to"] != -1
        if second is None and seat == 2 and private:  # a private draw: after the roll to start
            second = retired_fork(game, policy, 2)  # seat 3 gone: a second departure
        op = body.get("op") if type_ == "deck" else None
        if seat == 1 and op in ("recover", "refresh") and op not in during:
            during[op] = retired_fork(game, policy, 1)
        if fault is None and type_ == "deck" and body["op"] == "refresh":
            first = body["escrow"][0]
            bad = {**first, "commits": [*first["commits"], another_point("refresh")]}
            event = game.sign(seat, type_, {**body, "escrow": [bad, *body["escrow"][1:]]})
            fault = (len(spec.log), event.raw)
        game.push(game.sign(seat, type_, body))
    assert fault is not None
    name = "racer-escrow-refresh"
    honest = honest_vector(
        bases, name, "4 seats with escrow, 1 "
        "Creep each, turn limit 1; seat 3 is retired when it owes its first lock; seats 0-2 "
        "recover its keys, each re-deals its escrows among the three left (`refresh`), and they "
        "finish", game.raw(),
    )  # fmt: skip
    events, appended = fault
    data = game.raw()
    cut = data[: len(b"".join(events_of(data)[:events]))] + appended
    about = "a refresh whose first bundle publishes its implied share commitment S_m too"
    out = [honest, log_vector("racer-refresh-bad-bundle", about, cut, (name, events, appended))]
    assert second is not None
    events, data = second
    appended = data[len(b"".join(events_of(data)[:events])) :]
    about = (f"{name} until seat 2 owes its first private release (a draw, after the roll to "
             "start): it is retired too, seats 0 and 1 recover its keys from its refreshed "
             "escrow (epoch 1), make its steps and finish; two left: no refresh")  # fmt: skip
    out.append(log_vector("racer-retire-second-departure", about, data,
                          (name, events, appended), annotated=True))  # fmt: skip
    owing = {
        "recover": "its `recover` of seat 3's keys (seat 0's is in): seat 3's scalars can "
        "never be recovered without seat 1's shares",
        "refresh": "its `refresh` (the recoveries are in): its newest escrows still name seat "
        "3, so none of its own scalars could be recovered",
    }
    for op, why in owing.items():
        events, data = during[op]
        appended = data[len(b"".join(events_of(data)[:events])) :]
        about = (
            f"{name} until seat 1 owes {why}; seat 1 is retired too, and that `retire` ends "
            "the game abandoned by seat 1, claimed by seat 0 (valid, unfinished)"
        )
        out.append(log_vector(f"racer-retire-during-{op}", about, data,
                              (name, events, appended), annotated=True))  # fmt: skip
    return out


def vote_out(game: Game, seat: int) -> int:
    """Every other remaining seat votes ``seat`` out where the table waits now, and the lowest
    of them appends the ``retire``; the position's ``seq``."""
    from creepnet.protocol import retirement

    spec = game.spectator
    where = retirement.Position(spec.game, len(spec.log), spec.log.head, seat)
    voters = [v for v in spec.remaining if v != seat]
    votes = [retirement.vote(game.table.identities[v], where, v) for v in voters]
    game.push(game.sign(voters[0], "retire", retirement.retire_body(where, votes)))
    return where.seq


def retired_fork(game: Game, policy: RacerPolicy, seat: int) -> tuple[int, bytes]:
    """A copy of the table where ``seat`` is voted out now and the others play to the end (or
    the game ends there): the retirement's ``seq`` and the copy's log."""
    fork, fork_policy = forked((game, policy))
    seq = vote_out(fork, seat)
    fork.run(fork_policy, lambda g: g.over)
    return seq, fork.raw()


def forked(value: Any) -> Any:
    """A deep copy of a game and its policy that goes on exactly as the original would (the
    engine's frozen states hold read-only maps, which ``copy.deepcopy`` alone cannot copy)."""
    import copy
    import copyreg
    from types import MappingProxyType

    copyreg.pickle(MappingProxyType, lambda m: (MappingProxyType, (dict(m),)))
    try:
        return copy.deepcopy(value)
    finally:
        copyreg.dispatch_table.pop(MappingProxyType, None)


def retirement_stop(game: Game) -> tuple[str, int] | None:
    """Which situation of a retirement the table is in, if one of those the vectors retire a
    seat in (docs/spec-racer.md §5.9), and the seat X it waits on."""
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import DeckStep, next_step
    from creepnet.protocol.rules import NeedRandom

    spec = game.spectator
    if not spec.started or spec.finished:
        return None
    table = spec.game_state
    turn, seat = table.state.turn, spec.expected().seat
    step = next_step(table)
    if isinstance(step, racer.NeedDie) and step.purpose == "deck-shift":
        last = len(spec.reveals) == len(spec.remaining) - 1
        return ("deck-shift", seat) if last else None
    if isinstance(step, racer.Decide):
        if step.topic == "move" and turn.number >= 2:
            return "turn", seat
        if step.topic in ("react", "hostage") or (step.topic == "hero" and seat != turn.seat):
            return {"hero": "exchange", "react": "react", "hostage": "hostage-answer"}[
                step.topic
            ], seat
    if isinstance(step, racer.Decide) and step.topic == "attack" and table.state.stage.attackers:
        return "declaring", seat
    if isinstance(step, DeckStep) and step.op == "reveal" and step.by is None:
        return "game-over-reveal", seat
    if isinstance(step, DeckStep) and step.op in ("blind", "unblind") and step.by is None:
        card = "first" if len(table.state.stage.to_learn) == 2 else "second"
        return f"hostage-{step.op}-{card}", seat
    drawing = isinstance(spec.rules.next(table), NeedRandom) and turn is not None
    if drawing and 0 < len(spec.reveals) < len(spec.remaining) - 1:  # seats before and after X
        return "draw-spent", seat
    return None


AT_THE_DECK_SHIFT = (
    "in the set-up, when it owes the last reveal of the Deck Shift die (nothing of it is to "
    "recover yet: its layer on `box` is never needed, its draw pools' lock keys wait for the roll "
    "to start; so the `retire` completes the draw with the two others' preimages); the engine "
    "takes it out at the roll to start, where the table recovers its lock keys of the other "
    "seats' draw pools"
)

RETIREMENT_STOPS = {
    "turn": "at its own turn (a move to decide): its turn passes",
    "exchange": "as the defender of an attack, when it is to play a Hero or stop: the attack "
    "ends, the Heroes played go to the discard pile, the attacker's move is finished",
    "react": "when it may answer a Calamity with its Monster: the Calamity's move is finished",
    "hostage-answer": "when it must accept or refuse a Hostage Exchange: the exchange ends and "
    "the asker's move is not spent",
    "hostage-blind-first": "at its own turn, in the hand-over of a Hostage Exchange it asked "
    "for, when it owes the `blind` of the first card (the one it takes): the exchange is "
    "cancelled, both cards stay with their givers, its turn passes",
    "hostage-unblind-first": "as the target of a Hostage hand-over, when it owes the `unblind` "
    "of the first card (the one it gives): the exchange is cancelled before any card changed "
    "hands, the asker's move is not spent",
    "hostage-blind-second": "as the target of a Hostage hand-over, when it owes the `blind` of "
    "the second card (the one it takes): the first card stays with the asker, the second goes "
    "back to the asker's hand, the asker's move is finished",
    "draw-spent": "when it owes its reveal for a Hostage pick, the seat before it having "
    "revealed: the draw is spent unused (the recoveries come first), and the seat after it "
    "skips that layer of its onion",
    "declaring": "at its own turn, after `declare-attack` and `add-attacker`, when it is to "
    "launch, add an attacker or withdraw: its turn passes, the declaration with it",
    "game-over-reveal": "when it owes its end-of-game deck `reveal`: the winner is fixed, "
    "nothing is recovered, the other seats reveal and the audit opens its escrow",
}


def racer_midplay_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    """3 seats with escrow, played honestly to the end (the base); forked at the first time the
    table waits on a seat in each situation of RETIREMENT_STOPS, where the seat is retired and
    the other two finish.  Every retired seat's cards decode at the audit, its hand and draw deck
    from the sums of its escrow shares (docs/ESCROW.md step 4)."""

    options = {"creeps_per_player": 2, "face_up_creeps": 1, "turn_limit": 6, "escrow": 1}
    game = Game("racer", seats=3, options=options, seed=1, onion_length=128)
    policy = RacerPolicy(seed=1)
    forks: list[tuple[str, int, int, bytes]] = []
    abandoned = ("", b"")
    while not game.over:
        stop = retirement_stop(game)
        if (
            stop is not None
            and stop[0] in RETIREMENT_STOPS
            and stop[0] not in {f[0] for f in forks}
        ):
            situation, seat = stop
            fork, fork_policy = forked((game, policy))
            seq = vote_out(fork, seat)
            if situation == "turn":
                abandoned = abandon_at_first_decision(forked((fork, fork_policy)))
            fork.run(fork_policy, lambda g: g.over)
            forks.append((situation, seat, seq, fork.raw()))
        game.step(policy)
    name = "racer-escrow-play"
    out = [honest_vector(bases, name, "3 seats with escrow, 2 Creeps each (1 face up), turn "
                         "limit 6, played to the end: the base of the racer-retire-at-* "
                         "vectors", game.raw())]  # fmt: skip
    missing = set(RETIREMENT_STOPS) - {f[0] for f in forks}
    assert not missing, missing
    for situation, seat, events, data in forks:
        appended = data[len(b"".join(events_of(data)[:events])) :]
        about = (
            f"{name} until seat {seat} is retired {RETIREMENT_STOPS[situation]}; the two "
            "others finish, and its cards decode from its escrow"
        )
        out.append(log_vector(f"racer-retire-at-{situation}", about, data,
                              (name, events, appended), annotated=True))  # fmt: skip
        if situation == "turn":
            claim, data = abandoned
            assert data
            about = (f"racer-retire-at-turn up to the first decision after the recoveries: "
                     f"two seats are left, {claim}")  # fmt: skip
            appended = data[len(b"".join(events_of(data)[:events])) :]
            out.append(log_vector("racer-abandon-after-retirement", about, data,
                                  (name, events, appended)))  # fmt: skip
    return out


def abandon_at_first_decision(table: tuple[Game, RacerPolicy]) -> tuple[str, bytes]:
    """Two seats left after a retirement: play to the first decision, then the other seat's
    ``abandon`` of the seat to decide (PROTOCOL.md §5.5: a Racer game down to two seats)."""
    from creepnet.engine import racer
    from creepnet.protocol.games.racer.schedule import next_step

    game, policy = table
    while not isinstance(next_step(game.spectator.game_state), racer.Decide):
        game.step(policy)
    spec = game.spectator
    seat = spec.expected().seat
    (other,) = [s for s in spec.remaining if s != seat]
    game.push(game.sign(other, "abandon", {"seat": seat}))
    return f"seat {other} claims seat {seat}'s abandonment", game.raw()


def racer_setup_retire_vector(bases: dict[str, bytes]) -> dict[str, Any]:
    """3 seats with escrow and no face-down Creep (every draw pool is a `play:S` under its own
    name): a seat is retired in the set-up after its locks of every draw pool, at the Deck Shift;
    none of its draw pools' lock keys is recovered before the roll to start, the others' then."""

    options = {"creeps_per_player": 1, "face_up_creeps": 1, "turn_limit": 1, "escrow": 1}
    game = Game("racer", seats=3, options=options, seed=23, onion_length=64)
    policy = RacerPolicy(seed=23)
    while (stop := retirement_stop(game)) is None or stop[0] != "deck-shift":
        game.step(policy)
    seat = stop[1]
    vote_out(game, seat)
    game.run(policy, lambda g: g.over)
    about = (f"3 seats with escrow, 1 Creep each (face up: every draw pool is a `play:S` under "
             f"its own name), turn limit 1; seat {seat} is retired {AT_THE_DECK_SHIFT}"
             "; the two others finish")  # fmt: skip
    return honest_vector(bases, "racer-retire-set-up-own-pools", about, game.raw())


def another_point(label: str) -> bytes:
    """A valid group point nobody knows a relation of: to replace a share commitment."""
    from creepnet.protocol.deck import group

    return group.mul_base(group.scalar_from_wide(hashlib.sha512(label.encode()).digest()))


def complaint(game: Game, seat: int, dealer: int, pool: str) -> Any:
    """``seat``'s signed ``complain`` deck event about ``dealer``'s escrow of ``pool``'s key 0."""
    from creepnet.protocol.deck.escrow import ScalarId
    from creepnet.protocol.deck.escrowing import complaint_message

    session = game.table.sessions[seat]
    state = session.game_state
    keys = session.private._me(state).keys
    body = complaint_message(state.deck, keys, seat, dealer, ScalarId("lock", pool, 0))
    return game.sign(seat, "deck", body)


def record_upheld(
    game: Game, seat: int, victim: int, body: dict, recorded: list[tuple[str, str, int, bytes]]
) -> None:
    """``seat``'s lock with its escrow of position 0 to ``victim`` broken (the box's first byte
    flipped: the bundle passes the public check), then ``victim``'s complaint, made by its own
    private side in place of its lock: upheld, the game ends void naming ``seat``."""
    from creepnet.protocol.session import Session

    first = body["escrow"][0]
    box = first["boxes"][0]
    broken = {**first, "boxes": [bytes([box[0] ^ 1]) + box[1:], *first["boxes"][1:]]}
    spec = game.spectator
    before = spec.log.events[:-1]  # the honest lock is already in: the broken one replaces it
    lock = game.sign(
        seat, "deck", {**body, "escrow": [broken, *body["escrow"][1:]]},
        seq=len(before), prev=before[-1].id,
    )  # fmt: skip
    raws = [e.raw for e in before] + [lock.raw]
    table = game.table
    mine = Session.from_log(raws, table.identities[victim], table.secrets[victim])
    type_, filed = mine.private.owed(mine.game_state, len(mine.log))
    assert type_ == "deck" and filed["op"] == "complain", filed["op"]
    complained = game.sign(victim, type_, filed, seq=len(raws), prev=lock.id)
    about = (f"seat {seat}'s lock whose escrow of position 0 to seat {victim} does not open (the "
             f"box's first byte flipped), then seat {victim}'s complaint in place of its lock: "
             f"upheld, the game ends void naming seat {seat}")  # fmt: skip
    recorded.append(("racer-complain-upheld", about, len(before), lock.raw + complained.raw))


def replace_position(position: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(position, **changes)


def racer_won_game() -> Game:
    for seed in range(20, 40):
        game = Game("racer", options={"creeps_per_player": 1, "face_up_creeps": 1,
                                      "turn_limit": 40}, seed=seed, onion_length=200)  # fmt: skip
        game.run(RacerPolicy(aggressive=True, seed=seed), lambda g: g.over)
        if game.spectator.result.winner is not None:
            return game
    raise AssertionError("no seed gave a winner")


def racer_audit_vector(bases: dict[str, bytes]) -> dict[str, Any]:
    """Seat 1 shuffles `creeps` by a valid, proven permutation that is not the one its secret
    derives: every check passes during play, the audit names it."""
    from creepnet.protocol.deck.group import mul
    from creepnet.protocol.deck.ops import _layer_base, _shuffle_context
    from creepnet.protocol.deck.shuffleproof import prove_shuffle

    game = Game("racer", options={"creeps_per_player": 1, "face_up_creeps": 1, "turn_limit": 1},
                seed=13, onion_length=64)  # fmt: skip
    spec = game.spectator
    done = False
    while not game.over:
        seat, type_, body = game.owed_or_decision(RacerPolicy())
        if not done and type_ == "deck" and body["op"] == "shuffle" and seat == 1:
            session = game.table.sessions[1]
            deck = session.game_state.deck
            keys = session.private._me(session.game_state).keys
            pool = deck.pools[body["pool"]]
            depth = pool.depth[1] + 1
            step = keys.layer_step(pool.family, depth)
            perm = list(reversed(keys.permutation(pool.name, pool.shuffles, len(pool.points))))
            points = [mul(step, pool.points[i]) for i in perm]
            base = _layer_base(deck, 1, pool.family, depth - 1)
            ctx = _shuffle_context(deck, len(spec.log), 1, pool)
            base_log = keys.layer(pool.family, depth - 1)
            proof = prove_shuffle(
                pool.points, points, perm, step, base, base_log, body["commit"], ctx
            )
            body = {**body, "points": points, "proof": proof}
            done = True
        game.push(game.sign(seat, type_, body))
    return honest_vector(
        bases,
        "racer-audit",
        "seat 1 shuffled `creeps` by a proven permutation "
        "its secret does not derive; turn limit 1; the audit voids the game",
        game.raw(),
    )


def racer_exhausted_vectors(bases: dict[str, bytes]) -> list[dict[str, Any]]:
    game = Game("racer", options={"creeps_per_player": 1, "face_up_creeps": 1}, seed=14,
                onion_length=1)  # fmt: skip
    while game.spectator.expected() is not None:
        game.step(RacerPolicy())
    stuck = honest_vector(
        bases,
        "racer-exhausted",
        "onion length 1: the Deck Shift die spends "
        "it, the roll to start cannot be drawn: valid, unfinished, stuck",
        game.raw(),
    )
    more = game.sign(0, "reveal", {"draw": 1, "pre": bytes(32)})
    after = log_vector(
        "racer-after-exhaustion",
        "a reveal after the randomness ran out",
        game.raw() + more.raw,
        ("racer-exhausted", len(game.spectator.log), more.raw),
    )
    return [stuck, after]


def racer_option_vectors() -> list[dict[str, Any]]:
    from creepnet.protocol.event import sign_event

    out = []
    for name, options in (
        ("racer-option-unknown", {"hand_limit": 5}),
        ("racer-option-zero", {"turn_limit": 0}),
        ("racer-option-bool", {"turn_limit": True}),
        ("racer-option-too-big", {"turn_limit": 10001}),
        ("racer-option-face-up-over-creeps", {"creeps_per_player": 2, "face_up_creeps": 3}),
        ("racer-option-too-many-creeps", {"creeps_per_player": 21}),
        ("racer-option-retire-after", {"retire_after": 30}),
        ("racer-option-retire-after-zero", {"retire_after": 0}),
        ("racer-option-retire-after-too-big", {"retire_after": 86401}),
        ("racer-option-retire-after-bool", {"retire_after": True}),
        ("racer-option-escrow-value-2", {"escrow": 2}),
        ("racer-option-escrow-two-seats", {"escrow": 1}),
        ("racer-option-release-ahead-value-2", {"release_ahead": 2}),
    ):
        game = Game("racer", options={}, seed=15)  # 2 seats
        genesis = events_of(game.raw())[0]
        from creepnet.protocol import codec

        body = {**codec.decode(genesis)["body"], "options": options}
        raw = sign_event(game.table.identities[0], game=game.spectator.game, seq=0,
                         prev=bytes(32), type="genesis", body=body).raw  # fmt: skip
        out.append(log_vector(name, f"a genesis with options {options}", raw))
    four = Game("racer", seats=4, options={}, seed=16)
    genesis = events_of(four.raw())[0]
    body = {**codec.decode(genesis)["body"], "options": {"creeps_per_player": 11}}
    raw = sign_event(four.table.identities[0], game=four.spectator.game, seq=0,
                     prev=bytes(32), type="genesis", body=body).raw  # fmt: skip
    out.append(
        log_vector(
            "racer-start-too-many-creeps",
            "4 seats x 11 Creeps: 44 Creeps are more than the 40 there are, so the genesis "
            "is refused (options are checked for the genesis's own seat count)",
            raw,
        )
    )
    return out


# --- files -------------------------------------------------------------------------------------


def build() -> dict[str, str]:
    """Every vector file's name and exact text."""
    files: dict[str, Any] = {}
    with deterministic("primitives"):
        files["codec.json"] = codec_vectors()
        files["identity.json"] = identity_vectors()
        files["onion.json"] = onion_vectors()
        files["deck.json"] = deck_vectors()
        files["retire.json"] = retire_vectors()
        files["escrow.json"] = escrow_vectors()
    with deterministic("creeper"):
        files["creeper.json"] = creeper_logs()
    with deterministic("racer"):
        files["racer.json"] = racer_logs()
    return {
        name: json.dumps({"format": FORMAT, **content}, indent=1, ensure_ascii=False) + "\n"
        for name, content in files.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the files")
    args = parser.parse_args(argv)
    changed = []
    for name, text in build().items():
        path = HERE / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            changed.append(name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if changed:
        print(("differs: " if args.check else "wrote: ") + ", ".join(changed))
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
