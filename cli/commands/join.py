"""`creepnet join NAME-OR-ID [--addr HOST:PORT]`: join (or rejoin) a game and play it."""

from __future__ import annotations

import argparse
import shlex
import shutil

from creepnet.cli.commands.play import bot_of_game
from creepnet.cli.internet import maybe_internet, say_path
from creepnet.cli.main import runnable
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
from creepnet.cli.options import fail, home_dir, kept_options, saved_player_name
from creepnet.cli.seat_runner import add_player_options, ask_name_once, player_name, run_seat
from creepnet.cli.text import printable
from creepnet.cli.web.run import add_web_options, serve_game
from creepnet.node.node import Node, NodeError
from creepnet.node.transport import parse_address


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("join", help="join a game on the LAN (or resume one) and play it")
    parser.add_argument(
        "game",
        metavar="NAME-OR-ID",
        nargs="?",
        help="the game's name or id prefix (default: your unfinished game, else the only open "
        "one), or an invite (creepnet:…) to join over the internet",
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
    try:
        parse_address(text)
    except ValueError:
        raise ValueError(f"--addr must look like HOST:PORT, not {text!r}") from None
    return text


def stored_game(node: Node, target: str | None) -> bytes | None:
    """An unfinished game this home holds a seat in whose name or id matches: rejoin it instead
    of joining anew.  A finished game never shadows a new one of the same name (a rematch);
    only its id finds it.  Without a target: the one unfinished game we are seated in."""
    seated = {
        game: runtime
        for game, runtime in node.games.items()
        if runtime.session.local_seat is not None
    }
    unfinished = [game for game, rt in seated.items() if rt.state in ("lobby", "playing")]
    if target is None:
        return unfinished[0] if len(unfinished) == 1 else None
    by_name = [game for game in unfinished if node.games[game].session.name == target]
    by_id = [game for game in seated if len(target) >= 4 and game.hex().startswith(target.lower())]
    found = by_name or by_id
    return found[0] if found else None


async def locate(args: argparse.Namespace, node: Node) -> tuple[str, str | None, str | None]:
    """The host's address, the id prefix to ask it for (None: match by name there), and the
    host's fingerprint as the advert names it (None with --addr: no advert).  An advert's
    address is dialled only within the node's scope (Node.advert_address)."""
    if args.addr:
        return check_address(args.addr), None, None
    if getattr(args, "invite", None) is not None:
        return args.invite.address, args.invite.game.hex(), args.invite.host
    if args.game is None:
        found = await find_open_game(interfaces(args), args.wait)
        print(f"found {printable(found.name)!r} ({found.game}) at {found.address}")
    else:
        found = await find_game(args.game, interfaces(args), args.wait)
    return node.advert_address(found), found.game, found.host


OPEN_FIRST = {"lobby": 0, "playing": 1}  # a game still open wins over a finished one


async def pick(
    node: Node, address: str, target: str | None, prefix: str | None, *, to_play: bool = False
) -> tuple[str | None, list[dict] | None]:
    """The id to ask the host for (None lets a host with one open game decide), and the
    listing it was chosen from (None if none was asked), which ``node.join``/``node.watch``
    then take instead of listing again.  Of several games with one name, an open one wins;
    to play, it must have a free seat."""
    if prefix is None and target is None:
        return None, None
    games = await node.list_games(address)
    return choose(games, address, target, prefix, to_play=to_play), games


def choose(
    games: list[dict], address: str, target: str | None, prefix: str | None, *, to_play: bool
) -> str:
    """pick's choice among the games a host listed."""
    wanted = (prefix or target or "").lower()
    matching = [
        item
        for item in games
        if item["game"].hex().startswith(wanted) or (prefix is None and item["name"] == target)
    ]
    if not matching:
        listing = (
            ", ".join(f"{i['game'].hex()[:8]} {i['name']!r} ({i['state']})" for i in games)
            or "none"
        )
        raise NodeError(
            printable(f"no game {target or prefix!r} at {address}; it holds: {listing}")
        )
    chosen = min(matching, key=lambda item: OPEN_FIRST.get(item["state"], 2))
    short = chosen["game"].hex()[:8]
    if to_play and (chosen["state"] != "lobby" or chosen["taken"] >= chosen["seats"]):
        name = printable(chosen["name"])
        raise NodeError(
            f"game {name!r} ({short}) has no free seat ({chosen['state']}); "
            f"follow it as a spectator with: creepnet watch {short}"
        )
    return chosen["game"].hex()


def run(args: argparse.Namespace) -> int:
    from creepnet.cli.internet import read_invite

    try:
        args.invite = read_invite(args.game)  # None unless NAME-OR-ID is an invite
    except ValueError as exc:
        return fail(str(exc))
    if args.invite is not None:
        args.game = args.invite.game.hex()  # a home seated in it resumes it
    ask_name_once(args)
    return run_trio(_join, args)


async def _join(args: argparse.Namespace) -> int:
    ghosts: list[bytes] = []
    try:
        return await _join_or_resume(args, ghosts)
    finally:
        # A join that did not get us a seat leaves nothing behind for later commands to redial.
        for game in ghosts:
            shutil.rmtree(home_dir(args) / "games" / game.hex(), ignore_errors=True)


async def _join_or_resume(args: argparse.Namespace, ghosts: list[bytes]) -> int:
    # Zeroconf starts only once we know we need it: `--addr` alone never multicasts.
    saved = saved_player_name(home_dir(args))
    invited = args.invite.relays if getattr(args, "invite", None) else None
    async with (
        open_node(args, discovery=False, name=player_name(args, saved)) as node,
        maybe_internet(node, args, via=invited) as carrier,
    ):
        game = stored_game(node, args.game)
        if game is not None:
            return await resume(node, game, args)
        address, prefix, host = await locate(args, node)
        # Round trips saved over the internet: an invite with the genesis nonce proves the host
        # without a listing; else one listing serves both the choice and the join.
        invite = getattr(args, "invite", None)
        nonce = invite.nonce if invite is not None else None
        target: str | bytes | None
        listed: list[dict] | None = None
        if invite is not None and nonce is not None:
            target = invite.game
        else:
            target, listed = await pick(node, address, args.game, prefix, to_play=True)
        known = set(node.games)
        player = player_name(args, saved, node.fingerprint)
        try:
            game = await node.join(
                address,
                target,
                player=player,
                host=host,
                listed=listed,
                nonce=nonce,
                ticket=invite.ticket if invite is not None else None,
            )
        except BaseException:
            ghosts.extend(
                g
                for g, rt in node.games.items()
                if g not in known and rt.session.local_seat is None
            )
            raise
        print(f"joined at {address}")
        seat = node.session(game).local_seat
        if args.bot and seat is not None:  # a person gets this from the console's lobby
            print(f"you have seat {seat}; the {args.bot} bot plays it")
        if carrier is not None:
            say_path(node, address)
        if not args.addr and carrier is None:
            await node.start_discovery()  # found by zeroconf: find the host again if it moves
        hint = resume_command(node, game, args)
        if args.web:
            return await serve_game(node, game, args, player)
        return await run_seat(node, game, args, resume_hint=hint, player=player)


def resume_command(node: Node, game: bytes, args: argparse.Namespace) -> str:
    return f"{runnable()} join {shlex.quote(node.session(game).name)}{kept_options(args)}"


async def resume(node: Node, game: bytes, args: argparse.Namespace) -> int:
    """Play on a game we hold a seat in: as its host (advertised again, on its old port if
    free), or as a guest (redialling the host, and looking it up by zeroconf if it moved)."""
    session = node.session(game)
    print(f"resuming game {printable(session.name)!r} ({game.hex()[:8]})")
    if session.finished:
        print(f"that game is over: {printable(session.outcome_text or '')}")
        return 0
    bot = bot_of_game(home_dir(args), game)
    if bot is not None:
        print(
            f"that is your game against the {bot} bot, and the bot is not running; "
            f"resume it, bot included, with: {runnable()} play {session.kind} --vs {bot}"
            f"{kept_options(args)}"
        )
        return 1
    await node.start_discovery()
    note = port_note(node)
    if note:
        print(note)
    player = player_name(args, saved_player_name(home_dir(args)), node.fingerprint)
    hint = resume_command(node, game, args)
    if args.web:
        return await serve_game(node, game, args, player)
    return await run_seat(node, game, args, resume_hint=hint, player=player)
