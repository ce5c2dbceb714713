"""Disconnects, restarts, torn tails, full disks: catch-up resumes, nothing acknowledged is lost."""

import errno
import os
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from conftest import CATCHING_UP, FAST, finish, next_update, play_until_stored, seated_pair

from creepnet.node import messages, storage, updates
from creepnet.node.bot import run_bot
from creepnet.node.node import Node
from creepnet.node.storage import StorageError

OPTIONS = {"max_plies": 50}


async def test_dropped_connection_is_redialled_and_caught_up(tmp_path):
    with trio.fail_after(30):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST) as alice,
            Node.open(tmp_path / "bob", timeouts=FAST) as bob,
            bob.updates() as news,
        ):
            game = await alice.host_game("creeper", player="alice", options=OPTIONS)
            await bob.join(alice.address, player="bob")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(finish, game, alice, bob)
                await alice.wait_for(game, lambda rt: rt.stored >= 12)
                alice.peers[bob.identity.public_key].close("test: cable pulled")
                await next_update(news, lambda u: u.kind == updates.PEER_DISCONNECTED)
                await next_update(news, lambda u: u.kind == updates.PEER_CONNECTED)
            assert alice.session(game).finished
            assert alice.session(game).log.to_bytes() == bob.home.game(game).log_path.read_bytes()


async def test_restarted_player_and_spectator_resume_from_disk(tmp_path):
    with trio.fail_after(40):
        async with Node.open(tmp_path / "alice", timeouts=FAST) as alice:
            game = await alice.host_game("creeper", player="alice", options=OPTIONS)
            async with trio.open_nursery() as outer:
                # bob and carol run in a scope we cancel: the task-level kill -9
                async with trio.open_nursery() as doomed:

                    async def bob_then_die():
                        async with Node.open(tmp_path / "bob", timeouts=FAST) as bob:
                            await bob.join(alice.address, player="bob")
                            await run_bot(bob, game, "random", 2)

                    async def carol_then_die():
                        async with Node.open(tmp_path / "carol", timeouts=FAST) as carol:
                            await carol.watch(alice.address)
                            await trio.sleep_forever()

                    doomed.start_soon(bob_then_die)
                    doomed.start_soon(carol_then_die)
                    outer.start_soon(run_bot, alice, game, "random", 1)
                    await alice.wait_for(game, lambda rt: rt.stored >= 14)
                    doomed.cancel_scope.cancel()
                bob_log = tmp_path / "bob" / "games" / game.hex() / "log"
                acknowledged = bob_log.read_bytes()
                # a crash in the middle of an append
                bob_log.write_bytes(acknowledged + alice.session(game).log.events[-1].raw[:9])
                async with (
                    Node.open(tmp_path / "bob", timeouts=FAST) as bob,
                    Node.open(tmp_path / "carol", timeouts=FAST) as carol,
                ):
                    # Nothing stored was lost and the tear is gone (bob may already have caught
                    # up a move or two from alice: the redial starts as soon as it has loaded).
                    assert bob.session(game).log.to_bytes().startswith(acknowledged)
                    assert bob.session(game).local_seat is not None
                    await run_bot(bob, game, "random", 3)
                    final = (await alice.wait_for(game, lambda rt: rt.session.finished)).session
                    await carol.wait_for(game, lambda rt: rt.stored == len(final.log))
                    assert final.finished
                    for node in (bob, carol):
                        assert node.home.game(game).log_path.read_bytes() == final.log.to_bytes()


async def test_restarted_host_is_redialled(tmp_path):
    with trio.fail_after(40):
        async with Node.open(tmp_path / "bob", timeouts=FAST) as bob:
            async with Node.open(tmp_path / "alice", timeouts=FAST) as alice:
                port = alice.port
                game = await alice.host_game("creeper", player="alice", options=OPTIONS)
                await bob.join(alice.address, player="bob")
                await play_until_stored(game, alice, bob, 10)
            async with Node.open(tmp_path / "alice", timeouts=FAST, port=port) as alice:
                await finish(game, alice, bob)
                assert alice.session(game).finished
                await bob.wait_for(game, lambda rt: rt.session.finished)
                assert alice.session(game).log.to_bytes() == bob.session(game).log.to_bytes()


async def alice_to_move(alice: Node, bob: Node, game: bytes) -> None:
    """Colours drawn and, if bob moves first, one move by bob: alice is to move."""
    from creepnet.engine import creeper
    from creepnet.engine.creeper.bots import make_bot

    await alice.wait_for(
        game,
        lambda rt: (
            rt.session.waiting_for() is not None
            and rt.session.started
            and rt.session.engine_state is not None
            and rt.session.waiting_for().what.endswith("to move")
        ),
    )
    if alice.session(game).my_turn() is None:
        await bob.wait_for(game, lambda rt: rt.session.my_turn() is not None)
        move = make_bot("random").choose(bob.session(game).engine_state)
        await bob.play(game, creeper.format_move(move))
        await alice.wait_for(game, lambda rt: rt.session.my_turn() is not None)


async def play_on_a_full_disk(alice: Node, bob: Node, game: bytes, monkeypatch, news) -> bytes:
    """Alice moves while every write fails with ENOSPC; returns the log as it was before."""
    from creepnet.engine import creeper
    from creepnet.engine.creeper.bots import make_bot

    session = alice.session(game)
    log_path = alice.home.game(game).log_path
    before = log_path.read_bytes()

    def disk_full(fd, data):
        os.write(fd, bytes(data)[:5])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(storage, "_write_all", disk_full)
    move = creeper.format_move(make_bot("random").choose(session.engine_state))
    with pytest.raises(StorageError, match="disk full"):
        await alice.play(game, move)
    error = await next_update(news, lambda u: u.kind == updates.STORAGE_ERROR)
    assert "disk full" in error.text
    assert log_path.read_bytes() == before  # intact, no half event
    assert len(bob.session(game).log) == len(session.log) - 1  # and nothing was sent
    return before


@asynccontextmanager
async def full_disk_game(tmp_path, monkeypatch, alice_timeouts=FAST):
    """Alice and bob in a game where alice's move hit ENOSPC; the disk still fails on entry."""
    async with (
        Node.open(tmp_path / "alice", timeouts=alice_timeouts) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
        alice.updates() as news,
    ):
        game = await alice.host_game("creeper", player="alice", options=OPTIONS)
        await bob.join(alice.address, player="bob")
        await alice_to_move(alice, bob, game)
        await play_on_a_full_disk(alice, bob, game, monkeypatch, news)
        yield alice, bob, game, news


async def finished_identically(alice: Node, bob: Node, game: bytes) -> None:
    session = alice.session(game)
    await bob.wait_for(game, lambda rt: len(rt.session.log) == len(session.log))
    await finish(game, alice, bob)
    log_path = alice.home.game(game).log_path
    assert log_path.read_bytes() == bob.session(game).log.to_bytes()


async def test_full_disk_holds_the_move_back_until_it_is_stored(tmp_path, monkeypatch):
    slow_retry = replace(FAST, retry=3600.0)  # only flush() may store here
    with trio.fail_after(30):
        async with full_disk_game(tmp_path, monkeypatch, slow_retry) as (alice, bob, game, _):
            monkeypatch.undo()
            assert await alice.flush(game)
            await finished_identically(alice, bob, game)


async def test_the_game_resumes_by_itself_when_the_disk_frees_up(tmp_path, monkeypatch):
    with trio.fail_after(30):
        async with full_disk_game(tmp_path, monkeypatch) as (alice, bob, game, news):
            monkeypatch.undo()  # space is freed; nobody calls flush()
            await next_update(news, lambda u: u.kind == updates.STORAGE_OK)
            await finished_identically(alice, bob, game)


BOB_PROCESS = """
import sys, pathlib, trio
from creepnet.node import Node, Timeouts, run_bot
async def main():
    timeouts = Timeouts(connect=2, handshake=2, ping=0.5, idle=3, send=2, retry=0.05)
    async with Node.open(pathlib.Path(sys.argv[1]), timeouts=timeouts) as bob:
        game = await bob.join(sys.argv[2], player="bob")
        await run_bot(bob, game, "random", 7)
        await trio.sleep_forever()
trio.run(main)
"""


async def test_kill_9_loses_nothing_acknowledged(tmp_path):
    import sys

    with trio.fail_after(40):
        async with Node.open(tmp_path / "alice", timeouts=FAST) as alice:
            game = await alice.host_game("creeper", player="alice", options=OPTIONS)
            process = await trio.lowlevel.open_process(
                [sys.executable, "-c", BOB_PROCESS, str(tmp_path / "bob"), alice.address]
            )
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(run_bot, alice, game, "random", 1)
                    await alice.wait_for(game, lambda rt: rt.stored >= 16)
                    process.kill()  # SIGKILL, whatever bob was doing
                    await process.wait()
                    nursery.cancel_scope.cancel()
            finally:
                process.kill()
            # Read bob's disk as the kill left it (before any catch-up can hide a loss).
            from creepnet.protocol.log import split_log

            on_disk = split_log((tmp_path / "bob" / "games" / game.hex() / "log").read_bytes())
            async with Node.open(tmp_path / "bob", timeouts=FAST) as bob:
                # everything bob ever sent (alice has it) was on bob's disk first
                bob_key = bob.identity.public_key
                sent = [e for e in alice.session(game).log.events if e.author == bob_key]
                assert sent and all(on_disk.items[e.seq] == e.raw for e in sent)
                assert sent[-1].seq < len(on_disk.items)
                await finish(game, alice, bob)
                assert alice.session(game).log.to_bytes() == bob.session(game).log.to_bytes()


async def test_a_long_catch_up_on_a_slow_disk_is_not_cut_off_while_it_progresses(
    tmp_path, monkeypatch
):
    """`watch` of a long game: every event stored takes a while (a slow disk), so the whole
    catch-up takes far longer than the handshake timeout; it goes on because each event comes
    within it."""
    quick = replace(FAST, handshake=0.5)
    async with seated_pair(tmp_path / "a", tmp_path / "b", "long", max_plies=12) as (a, b, game):
        with trio.fail_after(60):
            await finish(game, a, b)
        monkeypatch.setattr(messages, "MAX_BATCH", 1)  # one event per batch: many steps
        async with Node.open(tmp_path / "late", timeouts=quick) as late:
            settle = late._ledger.settle

            async def slow_settle(*args, **kwargs):
                await trio.sleep(quick.handshake / 5)  # the slow disk, not synchronisation
                await settle(*args, **kwargs)

            monkeypatch.setattr(late._ledger, "settle", slow_settle)
            with trio.fail_after(60):
                await late.watch(a.address, game)
            assert late.games[game].stored == len(a.session(game).log) > 10


async def test_a_damaged_secrets_file_costs_its_own_seat_not_the_home(tmp_path, caplog):
    """A truncated seat-secrets file (a disk that filled mid-write, a bad sector) made
    Node.open raise CodecError: no game of the home could be opened any more."""
    home = tmp_path / "alice"
    async with Node.open(home, timeouts=FAST) as alice:
        damaged = await alice.host_game("creeper", "friday", player="alice")
        intact = await alice.host_game("creeper", "saturday", player="alice")
    secrets = alice.games[damaged].store.secrets_path
    cut = secrets.read_bytes()[:10]
    secrets.write_bytes(cut)
    async with Node.open(home, timeouts=FAST) as alice:
        assert set(alice.games) == {damaged, intact}  # every game is there, replayed
        assert alice.session(intact).local_seat == 0
        assert alice.session(damaged).local_seat is None  # cannot act without its secrets
        assert len(alice.session(damaged).log) == len(alice.session(intact).log)
    assert secrets.read_bytes() == cut  # kept for whoever can mend it, never overwritten
    assert "friday" in caplog.text or damaged.hex()[:8] in caplog.text
    assert "seat secrets" in caplog.text


@pytest.mark.parametrize("unreadable", ["log", "secrets", "port"])
async def test_a_file_the_disk_cannot_read_costs_its_own_game_not_the_home(
    tmp_path, monkeypatch, caplog, unreadable
):
    """A failing disk (EIO on a bad sector) under one game's log, seat secrets or port file
    made Node.open raise OSError: no game of the home could be opened any more.  Now that
    game alone stays shut (its log), is followed without its seat (its secrets, as when they
    are damaged), or is served on the node's port (a lost port is only a hint)."""
    home = tmp_path / "alice"
    async with Node.open(home, timeouts=FAST) as alice:
        failing = await alice.host_game("creeper", "friday", player="alice")
        intact = await alice.host_game("creeper", "saturday", player="alice")
    bad = home / "games" / failing.hex() / unreadable
    assert bad.exists()
    read_bytes, read_text = Path.read_bytes, Path.read_text

    def eio(path):
        if path == bad:
            raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Path, "read_bytes", lambda p: eio(p) or read_bytes(p))
    monkeypatch.setattr(Path, "read_text", lambda p, *a, **k: eio(p) or read_text(p, *a, **k))
    async with Node.open(home, timeouts=FAST) as alice:
        assert intact in alice.games and alice.session(intact).local_seat == 0
        if unreadable == "log":
            assert failing not in alice.games
        else:
            seat = alice.session(failing).local_seat
            assert seat == (None if unreadable == "secrets" else 0)
    if unreadable != "port":
        assert "Input/output error" in caplog.text and failing.hex()[:8] in caplog.text


async def test_a_damaged_log_is_cut_back_and_what_is_cut_is_kept(tmp_path, caplog):
    """A stored event that no longer verifies (a flipped bit) cuts the log back to the events
    before it, and the events after it were deleted for good — events we had told our peers
    we stored.  They go to `log.cut` first, byte for byte."""
    async with (
        Node.open(tmp_path / "alice", timeouts=FAST) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
    ):
        game = await alice.host_game("creeper", player="alice", options=OPTIONS)
        await bob.join(alice.address, player="bob")
        await play_until_stored(game, alice, bob, 10)
    store = alice.home.game(game)
    events = alice.session(game).log.events[: alice.games[game].stored]
    whole = store.log_path.read_bytes()
    damaged = events[6]
    start = sum(len(event.raw) for event in events[:6])
    at = start + damaged.raw.index(damaged.sig) + 5
    store.log_path.write_bytes(whole[:at] + bytes([whole[at] ^ 1]) + whole[at + 1 :])
    async with Node.open(tmp_path / "alice", timeouts=FAST) as alice:
        assert len(alice.session(game).log) == 6
    assert store.log_path.read_bytes() == whole[:start]
    kept = store.folder / "log.cut"
    assert len(kept.read_bytes()) == len(whole) - start  # the damaged event and all after it
    assert kept.read_bytes()[len(damaged.raw) :] == whole[start + len(damaged.raw) :]
    assert "log.cut" in caplog.text


async def test_a_log_damaged_where_an_event_starts_is_cut_back_too(tmp_path, caplog):
    """A damaged byte where an event starts (0xc1, which no msgpack value may hold) broke the
    framing of the whole file: its split raised Rejection out of Node.open, and no game of the
    home opened any more.  It is cut back to the events before it, as a bad event is."""
    async with (
        Node.open(tmp_path / "alice", timeouts=FAST) as alice,
        Node.open(tmp_path / "bob", timeouts=FAST) as bob,
    ):
        game = await alice.host_game("creeper", player="alice", options=OPTIONS)
        intact = await alice.host_game("creeper", "saturday", player="alice")
        await bob.join(alice.address, game, player="bob")
        await play_until_stored(game, alice, bob, 10)
    store = alice.home.game(game)
    events = alice.session(game).log.events[: alice.games[game].stored]
    whole = store.log_path.read_bytes()
    start = sum(len(event.raw) for event in events[:6])
    damaged = whole[:start] + b"\xc1" + whole[start + 1 :]
    store.log_path.write_bytes(damaged)
    async with Node.open(tmp_path / "alice", timeouts=FAST) as alice:
        assert intact in alice.games and alice.session(intact).local_seat == 0
        assert len(alice.session(game).log) == 6
    assert store.log_path.read_bytes() == whole[:start]
    assert (store.folder / "log.cut").read_bytes() == damaged[start:]
    assert "log.cut" in caplog.text


async def test_a_disk_full_before_a_watched_games_log_exists_is_a_storage_error_not_a_fault(
    tmp_path, monkeypatch
):
    """Carol's disk is full before she watches: the game's folder can be made but no file in
    it (no inode, no block).  Creating the log file raised a bare OSError out of the append:
    each batch the host sent her ran into it, the host was dropped as an internal fault and
    nothing retried the append.  Now it is a storage error like a failed write: reported,
    retried, and the watch completes once the disk frees up."""
    carol_home = tmp_path / "carol"
    real_open = os.open

    def full_for_carol(path, *args, **kwargs):
        if str(path).startswith(str(carol_home / "games")):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, *args, **kwargs)

    with trio.fail_after(60):
        async with (
            Node.open(tmp_path / "alice", timeouts=FAST) as alice,
            Node.open(carol_home, timeouts=CATCHING_UP) as carol,
            carol.updates() as news,
        ):
            game = await alice.host_game("creeper", player="alice", options=OPTIONS)
            monkeypatch.setattr(storage.os, "open", full_for_carol)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(carol.watch, alice.address, game)
                log = f"{carol.home.game(game).log_path};"  # not the `peers` file's error

                def on_the_log_or_a_fault(update) -> bool:
                    if update.kind == updates.STORAGE_ERROR:
                        return log in update.text
                    return update.kind == updates.ERROR and "fault" in (update.data or {})

                failure = await next_update(news, on_the_log_or_a_fault, seconds=30)
                assert failure.kind == updates.STORAGE_ERROR, failure.text
                assert "disk full" in failure.text
                monkeypatch.undo()  # space is freed: the retry stores the log, the watch ends
            assert carol.home.game(game).log_path.read_bytes() == (
                alice.home.game(game).log_path.read_bytes()
            )
            assert alice.fingerprint in {p.fingerprint for p in carol.connections.peers.values()}
