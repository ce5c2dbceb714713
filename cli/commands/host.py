"""`creepnet host KIND`: advertise a game on the LAN, show who joins, play once seats are full."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING

import trio

from creepnet.cli.game_options import add_game_options, check_bot, seats_and_options
from creepnet.cli.internet import add_internet_options, check_internet, maybe_internet
from creepnet.cli.main import runnable
from creepnet.cli.network import (
    add_network_options,
    open_node,
    port_note,
    reachable_address,
    run_trio,
)
from creepnet.cli.options import fail, home_dir, kept_options, saved_player_name
from creepnet.cli.seat_runner import add_player_options, ask_name_once, player_name, run_seat
from creepnet.cli.web.run import add_web_options, serve_game
from creepnet.node.node import Node

if TYPE_CHECKING:  # the wan extra may not be installed; only its type is needed here
    from creepnet.node.wan.carrier import Carrier


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "host", help="host a game on the LAN and play it (run again: resume it)"
    )
    parser.add_argument("--name", default=None, help="the game's name on the LAN (default: yours)")
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="TCP port to listen on (default: any; a resumed game's old port if it is free)",
    )
    add_game_options(parser)
    parser.add_argument(
        "--retire-after",
        type=int,
        default=None,
        metavar="SECONDS",
        help="how long the table waits for a silent player before voting it out (3-4 seats; "
        "2 seats: the other may claim the game abandoned); default 120",
    )
    parser.add_argument("--no-discovery", action="store_true", help="do not advertise by zeroconf")
    add_player_options(parser)
    add_network_options(parser)
    add_web_options(parser)
    add_internet_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from creepnet.protocol.retirement import MAX_RETIRE_AFTER

    try:
        seats_and_options(args)
        check_bot(args.kind, args.bot)
    except ValueError as exc:
        return fail(str(exc))
    if args.retire_after is not None and not 1 <= args.retire_after <= MAX_RETIRE_AFTER:
        return fail(f"--retire-after must be 1-{MAX_RETIRE_AFTER} seconds")
    if args.internet and (why := check_internet(args)):
        return fail(why)
    ask_name_once(args)
    return run_trio(_host, args)


def retirement_options(args: argparse.Namespace, options: dict) -> dict:
    """``--retire-after`` for every game (the escrow of a table that plays on without a seat
    is already in: ``hosted_options``)."""
    options = dict(options)
    if args.retire_after is not None:
        options["retire_after"] = args.retire_after
    return options


def hosted_game(node: Node, name: str) -> bytes | None:
    """An unfinished game this home hosts under that name: run again, the command resumes it."""
    for game, runtime in node.games.items():
        if (
            runtime.hosted
            and runtime.state in ("lobby", "playing")
            and runtime.session.name == name
        ):
            return game
    return None


async def _host(args: argparse.Namespace) -> int:
    saved = saved_player_name(home_dir(args))
    seats, options = seats_and_options(args)
    options = retirement_options(args, options)
    name = (args.name or f"{player_name(args, saved)}'s game")[:64]
    async with (
        open_node(
            args, discovery=not args.no_discovery, port=args.port, name=player_name(args, saved)
        ) as node,
        maybe_internet(node, args) as carrier,
    ):
        player = player_name(args, saved, node.fingerprint)
        game = hosted_game(node, name)
        if game is not None:
            print(f"resuming game {name!r} ({game.hex()[:8]})")
        else:
            game = await node.host_game(
                args.kind, name, seats=seats, player=player, options=options
            )
            print(
                f"hosting {args.kind} game {name!r} ({game.hex()[:8]}) as {player} "
                f"({node.fingerprint})"
            )
        note = port_note(node)
        if note:
            print(note)
        print(f"listening on port {node.port}; others join with:  creepnet join {game.hex()[:8]}")
        print(
            f"  (or without zeroconf:  creepnet join {game.hex()[:8]} "
            f"--addr {reachable_address(node)})"
        )
        if carrier is not None:
            await print_invite(node, carrier, game)
        if args.web:
            return await serve_game(node, game, args, player, carrier)  # invite shown there
        again = f"{runnable()} host {args.kind} --name {shlex.quote(name)}{kept_options(args)}"
        if carrier is not None:
            again += " --internet" + "".join(f" --relay {r}" for r in carrier.relay_addresses)
        if not args.bot:  # the console shows the lobby and answers while it waits
            return await run_seat(node, game, args, resume_hint=again, player=player)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(show_lobby, node, game)
            return await run_seat(node, game, args, resume_hint=again, player=player)


async def show_lobby(node: Node, game: bytes) -> None:
    """Say who takes each seat as they join, until the seats are full and the game starts
    (for a seat played by a bot, which has no console to show it).  A game resumed under way
    has no lobby to tell."""
    if node.session(game).started:
        return
    shown = 0
    while True:
        session = node.session(game)
        for seat in session.seats[shown:]:
            taken = len(session.seats)
            print(f"  seat {shown}: {seat.label} ({taken}/{session.seat_count} seated)")
            shown += 1
        if session.started:
            print("all seats taken: the game starts")
            return
        await node.wait_changed(game)


async def print_invite(node: Node, carrier: Carrier, game: bytes) -> None:
    """The one line a friend pastes into `creepnet join` (once a relay holds our place)."""
    from creepnet.node.wan.attach import RESERVE_WAIT, invite

    if not await carrier.wait_reserved(RESERVE_WAIT):
        print(f"note: no relay took a reservation in {RESERVE_WAIT:g}s; still trying")
    line = invite(node, carrier, game)
    print(f"invite (for your friends only: whoever has it can take a seat):  creepnet join {line}")
