"""`creepnet id`: create or show this player's identity."""

from __future__ import annotations

import argparse

from creepnet.cli.options import (
    add_home_option,
    fail,
    home_dir,
    save_player_name,
    saved_player_name,
)
from creepnet.node.storage import IdentityError, load_or_create_identity
from creepnet.protocol.lobby import JoinError, check_player_name


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("id", help="create or show your identity and fingerprint")
    add_home_option(parser)
    parser.add_argument("--name", help="the player name others see (saved; --player overrides)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    home = home_dir(args)
    try:
        identity, created = load_or_create_identity(home)
    except (IdentityError, OSError) as exc:
        return fail(str(exc))
    if args.name is not None:
        try:
            save_player_name(home, check_player_name(args.name.strip()))
        except JoinError as exc:
            return fail(str(exc))
        except OSError as exc:
            return fail(f"cannot save the name in {home}: {exc.strerror}", 1)
    name = saved_player_name(home)
    if args.json:
        import json

        print(
            json.dumps(
                {
                    "fingerprint": identity.fingerprint,
                    "name": name,
                    "public_key": identity.public_key.hex(),
                    "home": str(home),
                    "created": created,
                }
            )
        )
        return 0
    if created:
        print(f"created a new identity in {home}")
    print(f"name         {name or '(not set: creepnet id --name NAME)'}")
    print(f"fingerprint  {identity.fingerprint}")
    print(f"public key   {identity.public_key.hex()}")
    return 0
