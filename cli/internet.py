"""The CLI's side of playing over the internet (node/wan): options, the carrier, invites.

Only ``--internet`` (and ``join INVITE``, ``relay``) touch the optional extra: without it, the
commands say how to install it and LAN play is exactly as before.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from creepnet.cli.network import interfaces
from creepnet.node.node import Node
from creepnet.node.wan import WanUnavailable, require

RELAYS_ENV = "CREEPNET_RELAYS"  # comma-separated relay multiaddrs


def add_internet_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--internet",
        action="store_true",
        help="also reach players over the internet through a relay; prints an invite "
        "(needs: pip install 'creepnet[wan]')",
    )
    parser.add_argument(
        "--relay",
        action="append",
        metavar="MULTIADDR",
        help="a relay to use (/ip4/HOST/tcp/PORT/p2p/ID, from `creepnet relay`; repeatable; "
        f"default ${RELAYS_ENV})",
    )


def relays(args: argparse.Namespace) -> list[str]:
    given = list(getattr(args, "relay", None) or [])
    env = os.environ.get(RELAYS_ENV, "")
    return given or [part.strip() for part in env.split(",") if part.strip()]


def check_internet(args: argparse.Namespace) -> str | None:
    """Why --internet cannot run (the extra missing, no relay given), or None."""
    try:
        require()
    except WanUnavailable as exc:
        return str(exc)
    if not relays(args):
        return (
            f"--internet needs a relay: --relay MULTIADDR or ${RELAYS_ENV} "
            "(anyone with a public address can run one: creepnet relay)"
        )
    try:
        check_relays(relays(args))
    except ValueError as exc:
        return str(exc)
    return None


def check_relays(addresses: list[str] | tuple[str, ...], peer: str | None = None) -> None:
    """ValueError, in one line, for a relay address (or host peer id) libp2p cannot read: found
    here, before the node opens, it is the user's mistake, not a traceback out of the carrier."""
    from creepnet.node.wan.carrier import CarrierError, peer_id_of, relay_info

    try:
        for address in addresses:
            relay_info(address)
        if peer is not None:
            peer_id_of(peer)
    except CarrierError as exc:
        raise ValueError(str(exc)) from None


def carrier_listen(args: argparse.Namespace) -> str:
    chosen = interfaces(args)
    return f"/ip4/{chosen[0] if chosen else '0.0.0.0'}/tcp/0"


@asynccontextmanager
async def maybe_internet(
    node: Node, args: argparse.Namespace, via: list[str] | None = None
) -> AsyncIterator[Any]:
    """The node's internet carrier when asked for (else None), for the block's duration."""
    if not (getattr(args, "internet", False) or via):
        yield None
        return
    from creepnet.node.wan.attach import internet

    async with internet(node, relays=via or relays(args), listen=carrier_listen(args)) as carrier:
        yield carrier


def read_invite(text: str | None) -> Any:
    """The Invite when text is one (checked, and the extra installed), else None."""
    from creepnet.node.wan.invite import PREFIX, Invite

    if not text or not text.startswith(PREFIX):
        return None
    invite = Invite.parse(text)
    try:
        require()
    except WanUnavailable as exc:
        raise ValueError(str(exc)) from None
    check_relays(invite.relays, invite.peer)
    return invite


def say_path(node: Node, address: str) -> None:
    """Print which path the connection to address takes: direct, or through a relay."""
    from creepnet.node.wan.attach import path_of

    for peer in node.peers.values():
        if peer.dialed == address:
            print(f"path: {path_of(peer.conn)} ({getattr(peer.conn.stream, 'remote', '')})")
            return
