"""The home folder: identity key, and per game an append-only log, the seat secrets and peers.

Layout::

    <home>/identity.key                   Ed25519 seed, 0600
    <home>/games/<game-id-hex>/log        the events' canonical bytes in order, append-only
    <home>/games/<game-id-hex>/secrets    this seat's SeatSecrets, 0600
    <home>/games/<game-id-hex>/peers      addresses to redial on restart, one per line
    <home>/games/<game-id-hex>/port       the TCP port we last served this game on (host only)
    <home>/games/<game-id-hex>/reserved   keys its free seats are kept for (a rematch; host only),
                                          one hex key per line
    <home>/games/<game-id-hex>/log.cut    events cut off the log when its replay found one invalid

An event counts as stored (and may be gossiped or acknowledged) only after write + flush +
fsync returned.  A failed append cuts the file back to its previous length, so a full disk
never leaves half an event behind; if even that fails, the torn tail is dropped on reload.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from creepnet.node.transport import is_port
from creepnet.protocol.identity import Identity
from creepnet.protocol.log import Rejection, iter_log, split_log

GAMES = "games"
LOG = "log"
CUT = "log.cut"  # events cut off a log whose replay found one invalid, kept as they were
SECRETS = "secrets"
PEERS = "peers"
PORT = "port"
RESERVED = "reserved"
KEY_BYTES = 32  # an Ed25519 public key
KEY_FILE = "identity.key"
_KEY_FILE_MAGIC = b"creepnet-ed25519-seed-v1\n"


class StorageError(Exception):
    """The disk refused a write; the message says which file and why."""


class IdentityError(Exception):
    """The key file is missing, unreadable, malformed or unsafely shared."""


def _write_all(fd: int, data: bytes) -> None:
    """os.write may write less than asked; loop (a separate function so tests can fail it)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _events_before(data: bytes) -> list[bytes]:
    """The complete events of log-file bytes before the first that breaks the framing."""
    events: list[bytes] = []
    with contextlib.suppress(Rejection):
        events.extend(iter_log(data))
    return events


class GameStore:
    """One game's folder.  Not thread-safe: the node serialises appends per game."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log_path = folder / LOG
        self.cut_path = folder / CUT
        self.secrets_path = folder / SECRETS
        self.peers_path = folder / PEERS
        self.port_path = folder / PORT
        self.reserved_path = folder / RESERVED
        self._size: int | None = None  # bytes of valid, stored events
        self.dropped_tail = 0
        self.broken: Rejection | None = None  # where a damaged byte broke the file's framing

    @property
    def game_hex(self) -> str:
        return self.folder.name

    def load(self) -> list[bytes]:
        """The stored events' bytes; a torn tail is cut off the file (and counted)."""
        try:
            data = self.log_path.read_bytes()
        except FileNotFoundError:
            self._size = 0
            return []
        try:
            log_file = split_log(data)
        except Rejection as fault:
            # A damaged byte broke the framing, not an append cut short: the events before it
            # go to the replay, and the caller cuts the rest off into log.cut (truncate_events).
            self.broken, self._size = fault, len(data)
            return _events_before(data)
        valid = len(data) - len(log_file.torn_tail)
        if log_file.torn:
            # A crash mid-append: the partial event was never acknowledged, so dropping it loses
            # nothing anyone was told.  Cut the file so later appends follow the valid prefix.
            with open(self.log_path, "r+b") as handle:
                handle.truncate(valid)
                handle.flush()
                os.fsync(handle.fileno())
            self.dropped_tail = len(log_file.torn_tail)
        self._size = valid
        return log_file.items

    def truncate_events(self, raws: list[bytes]) -> str:
        """Keep only the given prefix of events (after replay found an invalid event); what
        is cut off is first appended to ``log.cut`` (we told peers we stored it: it is
        evidence, whatever damaged it).  Returns where it went, or why it could not be kept."""
        size = sum(len(raw) for raw in raws)
        with open(self.log_path, "r+b") as handle:
            handle.seek(size)
            tail = handle.read()
            try:
                fd = os.open(self.cut_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                try:
                    _write_all(fd, tail)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                kept = f"the {len(tail)} bytes cut off are kept in {self.cut_path}"
            except OSError as exc:  # a full disk: the log must still be cut to go on
                why = _describe(exc, self.cut_path)
                kept = f"the {len(tail)} bytes cut off could not be kept: {why}"
            handle.truncate(size)
            os.fsync(handle.fileno())
        self._size = size
        return kept

    def append(self, raws: list[bytes]) -> None:
        """Append events durably, or raise StorageError leaving the file as it was."""
        if not raws:
            return
        try:
            fd = self._open_log()
        except OSError as exc:  # a full disk may refuse a new game's folder or log file too
            raise StorageError(_describe(exc, self.log_path)) from exc
        data = b"".join(raws)
        try:
            # Write at the known end, not O_APPEND: after a failed write we cut back to it.
            os.lseek(fd, self._size or 0, os.SEEK_SET)
            try:
                _write_all(fd, data)
                os.fsync(fd)
            except OSError as exc:
                self._cut_back(fd)
                raise StorageError(_describe(exc, self.log_path)) from exc
            self._size = (self._size or 0) + len(data)
        finally:
            os.close(fd)

    def _open_log(self) -> int:
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._size is None:
            self.load()
        return os.open(self.log_path, os.O_WRONLY | os.O_CREAT, 0o644)

    def _cut_back(self, fd: int) -> None:
        try:
            os.ftruncate(fd, self._size or 0)
            os.fsync(fd)
        except OSError:
            pass  # the torn tail is dropped on the next load

    def save_secrets(self, data: bytes) -> None:
        try:
            write_private_file(self.secrets_path, data)
        except OSError as exc:
            raise StorageError(_describe(exc, self.secrets_path)) from exc

    def load_secrets(self) -> bytes | None:
        try:
            return self.secrets_path.read_bytes()
        except FileNotFoundError:
            return None

    def save_peers(self, addresses: list[str]) -> None:
        try:
            write_private_file(self.peers_path, "".join(f"{a}\n" for a in addresses).encode())
        except OSError as exc:
            raise StorageError(_describe(exc, self.peers_path)) from exc

    def load_peers(self) -> list[str]:
        try:
            return [line for line in self.peers_path.read_text().splitlines() if line.strip()]
        except FileNotFoundError:
            return []

    def save_port(self, port: int) -> None:
        """Remember where we serve this hosted game, so a restart can listen there again."""
        try:
            write_private_file(self.port_path, f"{port}\n".encode())
        except OSError as exc:
            raise StorageError(_describe(exc, self.port_path)) from exc

    def load_port(self) -> int | None:
        """The port saved by save_port, or None (none saved, or the file is not a port)."""
        try:
            text = self.port_path.read_text().strip()
        except (OSError, UnicodeDecodeError):  # none saved, or a disk that fails to read it
            return None
        return int(text) if is_port(text) else None

    def save_reserved(self, keys: frozenset[bytes]) -> None:
        """Keep this hosted game's free seats for keys (a rematch) across restarts."""
        text = "".join(f"{key.hex()}\n" for key in sorted(keys))
        try:
            write_private_file(self.reserved_path, text.encode())
        except OSError as exc:
            raise StorageError(_describe(exc, self.reserved_path)) from exc

    def load_reserved(self) -> frozenset[bytes]:
        """The keys saved by save_reserved (empty: the seats are open to anyone).  A line that
        is not a key is skipped; the file is written atomically, so that takes a hand edit."""
        try:
            lines = self.reserved_path.read_text().split()
        except (FileNotFoundError, UnicodeDecodeError):
            return frozenset()
        keys = set()
        for line in lines:
            try:
                key = bytes.fromhex(line)
            except ValueError:
                continue
            if len(key) == KEY_BYTES:
                keys.add(key)
        return frozenset(keys)


def _describe(exc: OSError, path: Path) -> str:
    if exc.errno == errno.ENOSPC:
        return f"disk full: cannot write {path}; the log keeps its last stored event"
    return f"cannot write {path}: {exc.strerror or exc}"


class Home:
    """The node's home folder."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def identity(self) -> Identity:
        self.path.mkdir(parents=True, exist_ok=True)
        identity, _created = load_or_create_identity(self.path)
        return identity

    def game(self, game: bytes) -> GameStore:
        return GameStore(self.path / GAMES / game.hex())

    def stored_games(self) -> list[bytes]:
        folder = self.path / GAMES
        if not folder.is_dir():
            return []
        found = []
        for entry in sorted(folder.iterdir()):
            try:
                game = bytes.fromhex(entry.name)
            except ValueError:
                continue
            if (entry / LOG).is_file():
                found.append(game)
        return found


def write_private_file(path: Path, data: bytes) -> None:
    """Write data readable by the owner only, atomically: a crash leaves old or new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # O_CREAT's mode does not apply to a leftover temp file
        # A filling disk may take part of a write and refuse the rest: one os.write could
        # have put half a seat secret in place of the whole.
        _write_all(fd, data)
        os.fsync(fd)
    except OSError:
        os.close(fd)
        temporary.unlink(missing_ok=True)  # the old file stays as it was
        raise
    os.close(fd)
    os.replace(temporary, path)


def load_identity(home: Path) -> Identity:
    path = home / KEY_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise IdentityError(f"no identity at {path}; run `creepnet id` to create one") from None
    except OSError as exc:
        raise IdentityError(f"cannot read {path}: {exc.strerror}") from None
    if os.name == "posix" and path.stat().st_mode & 0o077:
        raise IdentityError(f"{path} is readable by others; run `chmod 600 {path}`")
    seed = data[len(_KEY_FILE_MAGIC) :]
    if not data.startswith(_KEY_FILE_MAGIC) or len(seed) != 32:
        raise IdentityError(f"{path} is not a creepnet identity file")
    return Identity.from_seed(seed)


def load_or_create_identity(home: Path) -> tuple[Identity, bool]:
    """The identity stored in home, creating it on first use; the flag says it was created."""
    if (home / KEY_FILE).exists():
        return load_identity(home), False
    identity = Identity.generate()
    write_private_file(home / KEY_FILE, _KEY_FILE_MAGIC + identity.seed())
    return identity, True
