"""Running the web face from the commands: `creepnet ui`, `--web` on host/join/watch/play, and
`creepnet replay --web`.  Each serves on 127.0.0.1, prints a link and opens the browser with
another, unless told not to.  Each link carries a one-time code (cli/web/guard.py): the one on
the browser's command line, which every local user can read, works once and for seconds.
A game's page stays up after the game, until Ctrl-C: its replay link and "play again?" need
the node that serves them."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from creepnet.node.node import Node

# The web stack (Starlette, Hypercorn, the views) is imported where a page is served: every
# `host`, `join` and `play` process registers --web, and ~0.25 s of CPU for imports a terminal
# or bot seat never uses is a tenth of a whole Racer game's CPU at a node.
if TYPE_CHECKING:
    from creepnet.cli.web.face import WebFace
    from creepnet.cli.web.server import WebServer


STAYS_UP = "the page stays up for the replay and a rematch; press Ctrl-C to stop"
# The printed link waits for the player to copy it; it is in their terminal only (one use too).
PRINTED_LINK_TTL = 300.0


def add_web_options(parser: argparse.ArgumentParser, *, flag: bool = True) -> None:
    """``--web`` (unless the command is always web) and how to serve the page."""
    if flag:
        parser.add_argument(
            "--web", action="store_true", help="use a page in your browser instead of the terminal"
        )
    parser.add_argument(
        "--no-browser", action="store_true", help="print the page's URL instead of opening it"
    )
    parser.add_argument(
        "--web-port", type=int, default=0, help="port of the page on 127.0.0.1 (default: any)"
    )


async def announce(server: WebServer, path: str, args: argparse.Namespace) -> None:
    from creepnet.cli.web.server import open_browser

    def fresh_link() -> None:
        link = server.url(path, PRINTED_LINK_TTL)
        print(
            "someone used your page's link before your browser did: the session it got is "
            f"revoked. A fresh link (it works once): {link}",
            flush=True,
        )

    server.guard.on_reuse = fresh_link
    url = server.url(path, PRINTED_LINK_TTL)
    print(f"your page (keep the link private: it works once): {url}", flush=True)
    # Its own code, good for seconds: the browser's command line is readable by any local user.
    if not args.no_browser and not await open_browser(server.url(path)):
        print("no browser found: open the link yourself", flush=True)


@asynccontextmanager
async def web_face(
    node: Node, args: argparse.Namespace, player: str, carrier: Any = None
) -> AsyncIterator[tuple[WebFace, WebServer]]:
    """The node's page, served until the block ends (``carrier``: the node's internet
    carrier, node/wan, when it has one: the page then shows invites and joins by them)."""
    from creepnet.cli.web.app import build_app
    from creepnet.cli.web.face import WebFace
    from creepnet.cli.web.server import start_web

    async with trio.open_nursery() as nursery:
        face = WebFace(node, player, carrier=carrier)
        await nursery.start(face.run)
        server = await start_web(nursery, build_app(face), args.web_port)
        try:
            yield face, server
        finally:
            nursery.cancel_scope.cancel()


async def serve_game(
    node: Node,
    game: bytes,
    args: argparse.Namespace,
    player: str | None = None,
    carrier: Any = None,
    next_game: Callable[[], Awaitable[bytes]] | None = None,
) -> int:
    """The game's page instead of the terminal.  After the game it stays up, until Ctrl-C:
    its replay link, and "play again?" (a rematch with the same players, or with
    ``next_game`` the next game against the same bots, for `creepnet play --web`), which the
    page moves on to.  ``player`` is the name this node plays under."""
    player = player or getattr(args, "player", None) or "player"
    async with web_face(node, args, player, carrier) as (face, server):
        await announce(server, f"/game/{game.hex()}", args)
        while True:
            if next_game is not None:
                face.play_again_with(game, next_game)
            await node.wait_for(game, lambda rt: rt.session.over)
            session = node.session(game)
            print(f"game over: {session.outcome_text}" if session.finished else "game stopped")
            print(f"log: {node.home.game(game).log_path}", flush=True)
            print(STAYS_UP, flush=True)
            game = await face.next_game_of(game)
            print(f"playing again: {node.session(game).name} ({game.hex()[:8]})", flush=True)


async def serve_ui(node: Node, args: argparse.Namespace, player: str, carrier: Any = None) -> int:
    """The lobby and every game of this node, until interrupted."""
    async with web_face(node, args, player, carrier) as (_, server):
        await announce(server, "/", args)
        print("press Ctrl-C to stop", flush=True)
        await trio.sleep_forever()
    return 0  # pragma: no cover (sleep_forever only ends by cancellation)


async def serve_replay(path: Path, args: argparse.Namespace) -> int:
    """The replay viewer for one log file, until interrupted."""
    from creepnet.cli.web.app import build_replay_app
    from creepnet.cli.web.server import start_web

    async with trio.open_nursery() as nursery:
        server = await start_web(nursery, build_replay_app({"log": path}), args.web_port)
        await announce(server, "/replay/log", args)
        print("press Ctrl-C to stop", flush=True)
        await trio.sleep_forever()
    return 0  # pragma: no cover
