"""Ed25519 through our identity layer: RFC 8032 vectors, key files, fingerprints."""

import os
import stat

import pytest

from creepnet.node.storage import IdentityError, load_identity, load_or_create_identity
from creepnet.protocol.identity import Identity, fingerprint, verify_signature

# RFC 8032 section 7.1, tests 1, 2, 3 and SHA(abc).
RFC8032_VECTORS = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
    (
        "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
        "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
    ),
]


@pytest.mark.parametrize("secret, public, message, signature", RFC8032_VECTORS)
def test_rfc8032_vectors(secret, public, message, signature):
    identity = Identity.from_seed(bytes.fromhex(secret))
    assert identity.public_key.hex() == public
    assert identity.sign(bytes.fromhex(message)).hex() == signature
    assert verify_signature(bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature))


@pytest.mark.parametrize("secret, public, message, signature", RFC8032_VECTORS)
def test_rfc8032_signature_fails_on_any_change(secret, public, message, signature):
    sig = bytearray(bytes.fromhex(signature))
    sig[0] ^= 1
    assert not verify_signature(bytes.fromhex(public), bytes.fromhex(message), bytes(sig))
    assert not verify_signature(
        bytes.fromhex(public), bytes.fromhex(message) + b"\0", bytes.fromhex(signature)
    )


def test_malformed_keys_and_signatures_are_invalid_not_errors():
    assert not verify_signature(b"\x00" * 31, b"m", b"\x00" * 64)
    assert not verify_signature(b"\x00" * 32, b"m", b"\x00" * 63)
    assert not verify_signature(b"\xff" * 32, b"m", b"\x00" * 64)


def test_fingerprint_is_short_stable_and_distinct():
    a, b = Identity.generate(), Identity.generate()
    assert len(a.fingerprint) == 9 and a.fingerprint[4] == "-"
    assert a.fingerprint == fingerprint(a.public_key)
    assert a.fingerprint != b.fingerprint


def test_key_file_created_private_and_reloaded(tmp_path):
    identity, created = load_or_create_identity(tmp_path)
    assert created
    mode = stat.S_IMODE(os.stat(tmp_path / "identity.key").st_mode)
    assert mode == 0o600
    again, created_again = load_or_create_identity(tmp_path)
    assert not created_again and again.public_key == identity.public_key


def test_key_file_readable_by_others_is_refused(tmp_path):
    load_or_create_identity(tmp_path)
    os.chmod(tmp_path / "identity.key", 0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_identity(tmp_path)


def test_corrupt_or_missing_key_file_gives_clear_error(tmp_path):
    with pytest.raises(IdentityError, match="creepnet id"):
        load_identity(tmp_path)
    path = tmp_path / "identity.key"
    path.write_bytes(b"junk")
    os.chmod(path, 0o600)
    with pytest.raises(IdentityError, match="not a creepnet identity"):
        load_identity(tmp_path)
