"""What the networked commands share: options, opening a node, finding a game on the LAN."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import trio

from creepnet.cli.faces import FACES
from creepnet.cli.options import UsageError, add_home_option, fail, home_dir
from creepnet.cli.text import printable
from creepnet.node.discovery import Found, open_discovery, service_type
from creepnet.node.node import Node, NodeError
from creepnet.node.storage import IdentityError, StorageError

DEFAULT_WAIT = 5.0


def add_network_options(parser: argparse.ArgumentParser) -> None:
    add_home_option(parser)
    parser.add_argument(
        "--iface",
        action="append",
        metavar="ADDR",
        help="use only this interface address (repeatable; default $CREEPNET_IFACE or all)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the node does")
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="append 'unix-time game seq' to FILE for every event this node stores "
        "(to measure latency between nodes)",
    )


def interfaces(args: argparse.Namespace) -> list[str] | None:
    """The interface addresses chosen (IPv4: zeroconf runs V4 only), or None for all; a
    UsageError for anything else, or for a $CREEPNET_SERVICE_TYPE zeroconf would refuse, not
    zeroconf's traceback (every command that browses or advertises asks this first)."""
    try:
        service_type()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if getattr(args, "iface", None):
        chosen = list(args.iface)
    else:
        env = os.environ.get("CREEPNET_IFACE", "").strip()
        chosen = [part.strip() for part in env.split(",") if part.strip()]
    for address in chosen:
        try:
            ipaddress.IPv4Address(address)
        except ValueError:
            raise UsageError(
                f"--iface (or $CREEPNET_IFACE) takes an interface's IPv4 address, not {address!r}"
            ) from None
    return chosen or None


def setup_logging(args: argparse.Namespace) -> None:
    if getattr(args, "verbose", False):
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        for handler in logging.getLogger().handlers:
            handler.addFilter(_printable_record)
    elif not logging.getLogger().handlers:
        # The node's warnings reach the user as updates (a redial is one status line); without
        # a handler, logging's last resort would print each to stderr too, one line per retry.
        # py-libp2p (creepnet[wan]) logs each failed dial attempt as an error the same way; the
        # carrier's own error says it once.
        for name in ("creepnet", "libp2p"):
            logging.getLogger(name).addHandler(logging.NullHandler())


def _printable_record(record: logging.LogRecord) -> bool:
    """Node logs quote peers (names, reasons): print them without terminal controls."""
    record.msg, record.args = printable(record.getMessage()), None
    return True


@asynccontextmanager
async def open_node(
    args: argparse.Namespace, *, discovery: bool, port: int = 0, name: str = ""
) -> AsyncIterator[Node]:
    """A node listening on the chosen interface (all by default), with or without zeroconf;
    ``name`` is the player name its handshake shows (a spectator has no seat to carry one)."""
    setup_logging(args)
    chosen = interfaces(args)
    host = chosen[0] if chosen else "0.0.0.0"
    async with AsyncExitStack() as stack:
        stack.enter_context(one_node_per_home(home_dir(args)))
        try:
            node = await stack.enter_async_context(
                Node.open(
                    home_dir(args),
                    host=host,
                    port=port,
                    discovery=discovery,
                    iface=chosen,
                    trace=getattr(args, "trace", None),
                    name=name,
                )
            )
        except BaseException as exc:  # re-raised unless it is a socket we could not open
            why = listen_failure(leaf_error(exc), host, port)
            if why is None:
                raise
            raise NodeError(why) from None
        yield node


LOCK_FILE = "node.lock"  # in the home folder: held by the one command whose node uses it


@contextmanager
def one_node_per_home(home: Path) -> Iterator[None]:
    """Refuse a second node on a home in use (two terminals, one default home): both would be
    online with one key, each cutting the other's connections (a peer keeps the newest from a
    key), and both would append to the same logs.  An OS lock, so a crashed command leaves none
    behind."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, as before
        yield
        return
    home.mkdir(parents=True, exist_ok=True)
    with open(home / LOCK_FILE, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip()
            raise NodeError(
                f"another creepnet command{f' (pid {holder})' if holder.isdigit() else ''} "
                f"is using the home {home}; stop it first, or give this one a home of its own "
                "with --home DIR (one per player on this machine)"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        yield


def listen_failure(exc: BaseException, host: str, port: int) -> str | None:
    """The user's words for a listening socket the OS refused, or None for any other error."""
    if not isinstance(exc, OSError):
        return None
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} is already in use on {host} (another creepnet, or another program); "
            "choose another with --port, or leave --port out to take any free one"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"cannot listen on {host}: no interface of this machine has that address "
            "(--iface or $CREEPNET_IFACE)"
        )
    return None


def reachable_address(node: Node) -> str:
    """HOST:PORT others can dial: the address we listen on, or this machine's LAN addresses
    (read from the interface list: nothing is sent) when we listen on all of them."""
    if node.host not in ("", "0.0.0.0"):
        return node.address
    import ifaddr  # a zeroconf dependency

    lan = [
        ip.ip
        for adapter in ifaddr.get_adapters()
        for ip in adapter.ips
        if isinstance(ip.ip, str) and not ipaddress.ip_address(ip.ip).is_loopback
    ]
    return " or ".join(f"{ip}:{node.port}" for ip in lan[:3]) or f"127.0.0.1:{node.port}"


def port_note(node: Node) -> str | None:
    """What to tell the user when a resumed hosted game could not get its old port back."""
    if node.port_taken is None:
        return None
    how = (
        "players who were connected find it again by zeroconf"
        if node.discovery is not None
        else f"players who were connected must rejoin with --addr {reachable_address(node)}"
    )
    return (
        f"note: port {node.port_taken}, where this home's game was served before, is taken; "
        f"listening on {node.port} instead ({how})"
    )


def matches(found: Found, target: str) -> bool:
    """A game seen on the LAN matches its name, its title or a prefix of its id."""
    lowered = target.lower()
    by_id = len(lowered) >= 4 and found.game.startswith(lowered)
    return target in (found.name, found.title) or by_id


async def find_game(target: str, iface: list[str] | None, wait: float) -> Found:
    """Browse the LAN until a game matching target appears, or raise LookupError after wait."""
    async with open_discovery(iface) as discovery, discovery.browse() as channel:
        seen: dict[str, Found] = {}
        with trio.move_on_after(wait):
            async for item in channel:
                if isinstance(item, Found):
                    seen[item.instance] = item
                    if matches(item, target) and item.address:
                        return item
                else:
                    seen.pop(item.instance, None)
    names = ", ".join(sorted(f.title for f in seen.values())) or "none"
    raise LookupError(f"no game {target!r} found on the LAN within {wait:g}s (seen: {names})")


async def find_open_game(iface: list[str] | None, wait: float, settle: float = 2.0) -> Found:
    """The one game on the LAN with a free seat; LookupError when there is none, or several.

    After the first open game appears we listen ``settle`` seconds more, so a second one can
    still show up and make the choice ambiguous rather than arbitrary (two adverts announced
    together reached a browser up to ~1.5 s apart on a loaded machine: 1 s was too short).
    """
    open_games: dict[str, Found] = {}
    async with open_discovery(iface) as discovery, discovery.browse() as channel:
        with trio.move_on_after(wait) as window:
            async for item in channel:
                if isinstance(item, Found):
                    if (
                        item.state == "lobby"
                        and item.seats_taken < item.seats_total
                        and item.address
                    ):
                        open_games[item.instance] = item
                        window.deadline = min(window.deadline, trio.current_time() + settle)
                else:
                    open_games.pop(item.instance, None)
    if len(open_games) == 1:
        return next(iter(open_games.values()))
    if not open_games:
        raise LookupError(
            f"no open game found on the LAN within {wait:g}s; "
            f"host one with `creepnet host GAME` (GAME: {', '.join(FACES)}), "
            "or join one with --addr HOST:PORT"
        )
    listing = ", ".join(sorted(f"{f.name!r} ({f.game})" for f in open_games.values()))
    raise LookupError(f"several open games: {listing}; say which: creepnet join NAME-OR-ID")


# Errors a user can cause or fix, and the exit code each gets (2: usage, 1: failure).
USER_ERRORS: tuple[tuple[type[BaseException], int], ...] = (
    (UsageError, 2),
    (ValueError, 2),
    (LookupError, 1),
    (NodeError, 1),
    (StorageError, 1),
    (IdentityError, 1),
    (OSError, 1),
)


def leaf_error(exc: BaseException) -> BaseException:
    """The one real error inside trio's exception groups (nurseries wrap what they propagate)."""
    while isinstance(exc, BaseExceptionGroup):
        real = [e for e in exc.exceptions if not isinstance(e, trio.Cancelled)]
        if len(real) != 1:
            return exc
        exc = real[0]
    return exc


class Stopped(KeyboardInterrupt):
    """The command was stopped by a signal: Ctrl-C (SIGINT) or SIGTERM (`kill`, a closing
    terminal session, a service manager).  Both end it the same clean way: its tasks are
    cancelled, so the node closes its connections and withdraws its adverts."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__()
        self.signum = signum


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def until_interrupted(
    main: Callable[[argparse.Namespace], Awaitable[int]], args: argparse.Namespace
) -> int:
    """main(args), cancelled at the first Ctrl-C or SIGTERM, which then ends it as ``Stopped``
    (a KeyboardInterrupt).

    Left to itself, trio raises KeyboardInterrupt in whichever task runs when SIGINT lands.
    In a task of Hypercorn's, or of a page's websocket (inside a nursery, so in an exception
    group), Hypercorn takes it for an error of the app or for its own shutdown, logs it and
    goes on: the command then never stops (on a loaded machine, where a task is more often
    running when the signal lands).  Here the signal is received, and the command's tasks are
    cancelled as at any other end.  SIGTERM, left to Python, would kill the process on the spot
    with nothing said.  A second Ctrl-C gets trio's own KeyboardInterrupt, for a clean-up that
    hangs."""
    stopped_by: int | None = None
    code = 0
    try:
        async with trio.open_nursery() as nursery:

            async def watch(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
                nonlocal stopped_by
                with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
                    task_status.started()
                    async for signum in signals:
                        stopped_by = signum
                        break
                nursery.cancel_scope.cancel()

            await nursery.start(watch)
            code = await main(args)
            nursery.cancel_scope.cancel()
    except BaseException as exc:
        if stopped_by is not None:  # what the clean-up raised is not the user's news
            raise Stopped(stopped_by) from exc
        raise
    if stopped_by is not None:
        raise Stopped(stopped_by)
    return code


def run_trio(main: Callable[[argparse.Namespace], Awaitable[int]], args: argparse.Namespace) -> int:
    """trio.run for a command: user errors become one line on stderr and an exit code; Ctrl-C
    stops it (``until_interrupted``)."""
    try:
        return trio.run(until_interrupted, main, args)
    except BaseException as exc:  # unwrapped below; re-raised unless it is a user error
        leaf = leaf_error(exc)
        if isinstance(leaf, KeyboardInterrupt):
            raise leaf from None
        for kind, code in USER_ERRORS:
            if isinstance(leaf, kind):
                return fail(printable(str(leaf)), code)  # one line, whatever a peer said
        raise
