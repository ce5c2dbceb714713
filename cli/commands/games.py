"""`creepnet games [--wait SECONDS]`: list the games advertised on the LAN."""

from __future__ import annotations

import argparse
import json
import sys

import trio

from creepnet.cli.network import add_network_options, interfaces, setup_logging
from creepnet.cli.options import fail
from creepnet.cli.text import printable
from creepnet.node.discovery import Found, browse_until_stable, open_discovery


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("games", help="list games on the LAN")
    parser.add_argument(
        "--wait",
        type=float,
        default=3.0,
        help="listen at most this long (default 3 s); returns once the list is stable",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per game")
    add_network_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.wait <= 0:
        return fail("--wait must be positive")
    setup_logging(args)
    try:
        found, skipped = trio.run(_browse, interfaces(args), args.wait)
    except OSError as exc:
        return fail(f"cannot browse the LAN: {exc}", 1)
    if skipped:  # adverts under our service type that no creepnet host sends (hints, ignored)
        print(f"note: skipped {skipped} malformed advert(s)", file=sys.stderr)
    found.sort(key=lambda f: f.title)
    if args.json:
        for f in found:
            print(
                json.dumps(
                    {
                        "title": f.title,
                        "player": f.player,
                        "kind": f.kind,
                        "game": f.game,
                        "address": f.address,
                        "seats": f"{f.seats_taken}/{f.seats_total}",
                        "state": f.state,
                    }
                )
            )
        return 0
    if not found:
        print(f"no games found on the LAN within {args.wait:g}s")
        return 0
    # Fits 80 columns: names are cut, an IPv4 address and port (21) always fit.
    print(f"{'NAME':<16} {'HOST':<10} {'KIND':<7} {'ID':<8} {'SEATS':<5} {'STATE':<7} ADDRESS")
    for f in found:
        name = f.name
        host = f.player or f.host or ""
        seats = f"{f.seats_taken}/{f.seats_total}"
        row = (
            f"{name[:16]:<16} {host[:10]:<10} {f.kind[:7]:<7} {f.game[:8]:<8} {seats:<5} "
            f"{f.state[:7]:<7} {f.address}"
        )
        print(printable(row))
    return 0


async def _browse(iface: list[str] | None, wait: float) -> tuple[list[Found], int]:
    async with open_discovery(iface) as discovery:
        found = await browse_until_stable(discovery, wait)
        return found, sum(discovery.skipped.values())
