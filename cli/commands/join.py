"""`creepnet join NAME-OR-ID [--addr HOST:PORT]`: join (or rejoin) a game and play it."""

from __future__ import annotations

import argparse

from creepnet.cli.network import (
    DEFAULT_WAIT,
    add_network_options,
    find_game,
    find_open_game,
    interfaces,
    open_node,
    port_note,
    run_trio,
)
from creepnet.cli.seat_runner import add_player_options, player_name, run_seat
from creepnet.cli.web.run import add_web_options, serve_game
from creepnet.node.node import Node, NodeError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("join", help="join a game on the LAN (or resume one) and play it")
    parser.add_argument(
        "game",
        metavar="NAME-OR-ID",
        nargs="?",
        help="the game's name or id prefix (default: your unfinished game, else the only open one)",
    )
    parser.add_argument(
        "--addr", metavar="HOST:PORT", help="the host's address: no zeroconf needed"
    )
    parser.add_argument(
        "--wait", type=float, default=DEFAULT_WAIT, help="seconds to look for the game"
    )
    add_player_options(parser)
    add_network_options(parser)
    add_web_options(parser)
    parser.set_defaults(func=run)


def check_address(text: str) -> str:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--addr must look like HOST:PORT, not {text!r}")
    return text


def stored_game(node: Node, target: str | None) -> bytes | None:
    """A game this home already holds whose id or name matches: rejoin instead of join.
    An unfinished one wins over finished games of the same name.  Without a target: the one
    unfinished game we hold a seat in, if there is exactly one."""
    if target is None:
        seated = [
            game
            for game, runtime in node.games.items()
            if runtime.state in ("lobby", "playing") and runtime.session.local_seat is not None
        ]
        return seated[0] if len(seated) == 1 else None
    matching = [
        game
        for game, runtime in node.games.items()
        if game.hex().startswith(target.lower()) or runtime.session.name == target
    ]
    unfinished = [game for game in matching if node.games[game].state in ("lobby", "playing")]
    return (unfinished or matching or [None])[0]


async def locate(args: argparse.Namespace) -> tuple[str, str | None]:
    """The host's address, and the id prefix to ask it for (None: match by name there)."""
    if args.addr:
        return check_address(args.addr), None
    if args.game is None:
        found = await find_open_game(interfaces(args), args.wait)
        print(f"found {found.title.rsplit(' ', 2)[0]!r} ({found.game}) at {found.address}")
    else:
        found = await find_game(args.game, interfaces(args), args.wait)
    return found.address, found.game


async def pick(node: Node, address: str, target: str | None, prefix: str | None) -> str | None:
    """The id (prefix) to ask the host for; None lets a host with one open game decide."""
    if prefix or target is None:
        return prefix
    games = await node.list_games(address)
    for item in games:
        if item["name"] == target or item["game"].hex().startswith(target.lower()):
            return item["game"].hex()
    listing = (
        ", ".join(f"{i['game'].hex()[:8]} {i['name']!r} ({i['state']})" for i in games) or "none"
    )
    raise NodeError(f"no game {target!r} at {address}; it holds: {listing}")


def run(args: argparse.Namespace) -> int:
    return run_trio(_join, args)


async def _join(args: argparse.Namespace) -> int:
    # Zeroconf starts only once we know we need it: `--addr` alone never multicasts.
    async with open_node(args, discovery=False) as node:
        game = stored_game(node, args.game)
        if game is not None and node.session(game).local_seat is not None:
            return await resume(node, game, args)
        address, prefix = await locate(args)
        target = await pick(node, address, args.game, prefix)
        game = await node.join(address, target, player=player_name(args))
        print(f"joined at {address}")
        if not args.addr:
            await node.start_discovery()  # found by zeroconf: find the host again if it moves
        return await (serve_game if args.web else run_seat)(node, game, args)


async def resume(node: Node, game: bytes, args: argparse.Namespace) -> int:
    """Play on a game we hold a seat in: as its host (advertised again, on its old port if
    free), or as a guest (redialling the host, and looking it up by zeroconf if it moved)."""
    session = node.session(game)
    print(f"resuming game {session.name!r} ({game.hex()[:8]})")
    if session.finished:
        print(f"that game is over: {session.outcome_text}")
        return 0
    await node.start_discovery()
    note = port_note(node)
    if note:
        print(note)
    return await (serve_game if args.web else run_seat)(node, game, args)
