"""`creepnet relay`: run a relay for players whose homes cannot reach each other directly."""

from __future__ import annotations

import argparse

from creepnet.cli.network import run_trio
from creepnet.cli.options import add_home_option, fail, home_dir
from creepnet.node.transport import parse_address
from creepnet.node.wan import WanUnavailable, require


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "relay", help="run a relay for internet play (needs: pip install 'creepnet[wan]')"
    )
    parser.add_argument(
        "--listen", default="0.0.0.0:4001", metavar="HOST:PORT", help="where to listen (TCP)"
    )
    parser.add_argument(
        "--announce",
        action="append",
        metavar="ADDR",
        help="the public IPv4 address players reach this relay at (repeatable; "
        "default: the addresses it listens on)",
    )
    parser.add_argument("--max-reservations", type=int, default=64, help="peers held at once")
    parser.add_argument(
        "--max-per-ip",
        type=int,
        default=8,
        help="reservations (and circuits) held from one IP address",
    )
    parser.add_argument("--max-circuits", type=int, default=32, help="relayed connections at once")
    parser.add_argument(
        "--circuit-mib", type=int, default=64, help="MiB one relayed connection may carry"
    )
    parser.add_argument(
        "--circuit-minutes", type=int, default=120, help="minutes one relayed connection may last"
    )
    add_home_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        require()
    except WanUnavailable as exc:
        return fail(str(exc))
    try:
        parse_address(args.listen)
    except ValueError:
        return fail(f"--listen must look like HOST:PORT, not {args.listen!r}")
    limits = (args.max_reservations, args.max_per_ip, args.max_circuits)
    if min(*limits, args.circuit_mib, args.circuit_minutes) < 1:
        return fail("relay limits must be at least 1")
    return run_trio(_relay, args)


async def _relay(args: argparse.Namespace) -> int:
    from creepnet.node.wan.carrier import Limits
    from creepnet.node.wan.relay import run_relay

    limits = Limits(
        reservations=args.max_reservations,
        per_ip=args.max_per_ip,
        circuits=args.max_circuits,
        data=args.circuit_mib * 1024 * 1024,
        duration=args.circuit_minutes * 60,
    )

    def ready(addresses: list[str]) -> None:
        for address in addresses:
            print(f"relay {address}")
        print("hosts use it with:  creepnet host KIND --internet --relay ADDRESS  (Ctrl-C stops)")

    await run_relay(home_dir(args), args.listen, limits, announce=args.announce, ready=ready)
    return 0
