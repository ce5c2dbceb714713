"""The home folder: durable appends, reload, torn tails dropped, a full disk reported cleanly."""

import errno
import os
import stat

import pytest

from creepnet.node import storage
from creepnet.node.storage import Home, StorageError
from creepnet.protocol.event import sign_event
from creepnet.protocol.identity import Identity
from creepnet.protocol.log import EventLog, load_log

ALICE = Identity.from_seed(b"\x05" * 32)
GAME = b"\x42" * 16


def chain(length: int) -> list[bytes]:
    log = EventLog()
    for seq in range(length):
        log.append(
            sign_event(ALICE, game=GAME, seq=seq, prev=log.head, type="note", body={"n": seq})
        )
    return [event.raw for event in log.events]


def test_append_fsyncs_and_reloads(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(storage.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    raws = chain(5)
    store = Home(tmp_path).game(GAME)
    for raw in raws:
        store.append([raw])
    assert len(synced) == 5
    assert Home(tmp_path).stored_games() == [GAME]
    again = Home(tmp_path).game(GAME)
    assert again.load() == raws
    again.append(chain(6)[5:])
    assert len(load_log(store.log_path.read_bytes())) == 6


def test_torn_tail_is_dropped_and_appends_continue(tmp_path):
    raws = chain(4)
    store = Home(tmp_path).game(GAME)
    store.append(raws[:3])
    with open(store.log_path, "ab") as handle:  # a crash in the middle of the 4th append
        handle.write(raws[3][:17])
    reloaded = Home(tmp_path).game(GAME)
    assert reloaded.load() == raws[:3]
    assert reloaded.dropped_tail == 17
    assert store.log_path.stat().st_size == sum(map(len, raws[:3]))
    reloaded.append([raws[3]])
    assert Home(tmp_path).game(GAME).load() == raws


def test_disk_full_gives_a_clear_error_and_keeps_the_log(tmp_path, monkeypatch):
    raws = chain(3)
    store = Home(tmp_path).game(GAME)
    store.append(raws[:2])

    def half_then_enospc(fd, data):
        os.write(fd, bytes(data)[:10])  # part of the event reaches the disk, then it is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(storage, "_write_all", half_then_enospc)
    with pytest.raises(StorageError, match="disk full"):
        store.append([raws[2]])
    monkeypatch.undo()
    assert store.log_path.read_bytes() == b"".join(raws[:2])
    store.append([raws[2]])  # space came back: the log goes on where it was
    assert Home(tmp_path).game(GAME).load() == raws


def test_secrets_are_private(tmp_path):
    store = Home(tmp_path).game(GAME)
    store.save_secrets(b"seat secret")
    assert store.load_secrets() == b"seat secret"
    assert stat.S_IMODE(store.secrets_path.stat().st_mode) == 0o600
    store.save_peers(["127.0.0.1:4000"])
    assert store.load_peers() == ["127.0.0.1:4000"]


def test_identity_is_created_once(tmp_path):
    first = Home(tmp_path / "h").identity()
    assert Home(tmp_path / "h").identity().public_key == first.public_key


def test_seats_kept_for_a_rematch_are_stored_privately_and_read_back(tmp_path):
    store = Home(tmp_path).game(GAME)
    assert store.load_reserved() == frozenset()  # none stored: open to anyone
    keys = frozenset({ALICE.public_key, b"\x07" * 32})
    store.save_reserved(keys)
    assert store.load_reserved() == keys
    assert stat.S_IMODE(os.stat(store.reserved_path).st_mode) == 0o600
    assert not store.reserved_path.with_name("reserved.tmp").exists()  # written atomically
    with open(store.reserved_path, "a") as handle:
        handle.write("not-a-key\nabcd\n")  # a hand edit: what is not a key is skipped
    assert store.load_reserved() == keys


def test_a_short_write_on_a_filling_disk_never_replaces_a_file_with_part_of_it(
    tmp_path, monkeypatch
):
    """A write to a filling disk may store part of what it was given and return the count
    (the next one fails with ENOSPC); the seat secrets were written with one `os.write`, so
    the half that got through replaced the whole file: the seat could never reveal again."""
    store = Home(tmp_path).game(GAME)
    store.save_secrets(b"old secret")
    real_write = os.write
    calls = []

    def filling(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data)[:4])  # part of it: the disk is filling up
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(storage.os, "write", filling)
    with pytest.raises(StorageError, match="disk full"):
        store.save_secrets(b"the new seat secret")
    monkeypatch.undo()
    assert store.load_secrets() == b"old secret"  # untouched: the new one never replaced it
    assert not store.secrets_path.with_name("secrets.tmp").exists()

    calls.clear()
    monkeypatch.setattr(
        storage.os, "write", lambda fd, data: real_write(fd, bytes(data)[:4])
    )  # short writes that all succeed: the loop writes everything
    store.save_secrets(b"the new seat secret")
    monkeypatch.undo()
    assert store.load_secrets() == b"the new seat secret"
