"""The routes of the web face, declared in one list (Starlette), and the live game stream.

Pages are static files; everything they show comes from the JSON routes and, for a game, from
a WebSocket that sends the whole view again whenever the node reports a change (views are
small, and a page that missed one update is right again at the next).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from creepnet.cli.faces import page_of
from creepnet.cli.web.face import WebError, WebFace
from creepnet.cli.web.replay_view import replay_view
from creepnet.cli.web.views import game_view
from creepnet.node.storage import StorageError
from creepnet.protocol.log import Rejection
from creepnet.protocol.rules import GameRuleError

STATIC = Path(__file__).parent / "static"
MAX_BODY = 4096  # every request the page sends is a few words
# The tab's icon, inline: an octagon with a pin (browsers ask /favicon.ico of every page).
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<polygon points="10,1 22,1 31,10 31,22 22,31 10,31 1,22 1,10" fill="#5b7b4f"/>'
    '<circle cx="16" cy="16" r="8" fill="#f2c94c" stroke="#9a7a12" stroke-width="2"/></svg>'
)


async def favicon(request: Request) -> Response:
    return Response(FAVICON, media_type="image/svg+xml", headers={"cache-control": "max-age=86400"})


def page(name: str):
    async def endpoint(request: Request) -> Response:
        return FileResponse(STATIC / name, headers={"cache-control": "no-store"})

    return endpoint


def whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def error(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


async def body_of(request: Request) -> dict[str, Any]:
    raw = b""
    async for chunk in request.stream():  # stop at the limit: never buffer a flood
        raw += chunk
        if len(raw) > MAX_BODY:
            raise WebError("request too large")
    try:
        value = json.loads(raw or b"{}")
    except (ValueError, RecursionError):  # nested deeper than the parser goes: not the page's
        raise WebError("the page sent something that is not JSON") from None
    if not isinstance(value, dict):
        raise WebError("the page sent something that is not a JSON object")
    return value


def replay_route(resolve: Callable[[str], Path]) -> Route:
    """The replay data of a log file, ``resolve`` naming the file a page asks for."""

    async def replay(request: Request) -> Response:
        try:
            path = resolve(request.path_params["which"])
        except WebError as exc:
            return error(str(exc), 404)
        try:
            data = await trio.Path(path).read_bytes()
        except OSError as exc:
            return error(f"cannot read {path}: {exc.strerror}", 404)
        return JSONResponse(replay_view(str(path), data))

    return Route("/api/replay/{which}", replay)


def build_replay_app(files: dict[str, Path]) -> Starlette:
    """A face with no node: only the replay viewer, for `creepnet replay --web FILE`."""

    def resolve(which: str) -> Path:
        if which not in files:
            raise WebError("no such log here")
        return files[which]

    async def home(request: Request) -> Response:
        return RedirectResponse(f"/replay/{next(iter(files))}?{request.url.query}")

    return Starlette(
        routes=[
            Route("/", home),  # the page's "creepnet" link: this face has only the replay
            Route("/favicon.ico", favicon),
            Route("/replay/{which}", page("replay.html")),
            replay_route(resolve),
            game_files_route(),
            Mount("/static", StaticFiles(directory=STATIC)),
        ]
    )


class NodePages:
    """The endpoints of one node's page, each a named method (so each can be called alone, as
    the tests do); ``routes`` declares them in one list.  Who may call them at all is the
    guard's business (`guard.py`), in front of the whole app."""

    def __init__(self, face: WebFace) -> None:
        self.face = face
        self.node = face.node

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/", page("lobby.html")),
            Route("/game/{game}", page("game.html")),
            Route("/replay/{which}", page("replay.html")),
            Route("/favicon.ico", favicon),
            Route("/api/lobby", self.lobby),
            Route("/api/host", self.host, methods=["POST"]),
            Route("/api/join", self.join, methods=["POST"]),
            Route("/api/watch", self.watch, methods=["POST"]),
            Route("/api/join-invite", self.join_invite, methods=["POST"]),
            Route("/api/game/{game}", self.game),
            Route("/api/game/{game}/act", self.act, methods=["POST"]),
            Route("/api/game/{game}/leave", self.leave, methods=["POST"]),
            Route("/api/game/{game}/again", self.again, methods=["POST"]),
            replay_route(self.log_file),
            WebSocketRoute("/ws/game/{game}", self.stream),
            game_files_route(),
            Mount("/static", StaticFiles(directory=STATIC)),
        ]

    def log_file(self, which: str) -> Path:
        """A log the command named for the replay page, else a game this node stores."""
        named = self.face.replay_files.get(which)
        return named or self.node.home.game(self.face.game_id(which)).log_path

    def view_of(self, game: bytes) -> dict[str, Any]:
        face = self.face
        view = game_view(self.node.session(game), self.node.games.get(game), face.story_for(game))
        view["news"] = face.news_for(game)
        view["retiring"] = face.retiring_for(game)
        view["own_silence"] = face.own_silence_for(game)
        view["invite"] = face.invite_for(game)
        view.update(face.may_leave(game))
        view["abandoned"] = self.node.session(game).abandoned is not None
        view["again"] = face.again_for(game)
        view["version"] = face.version
        return view

    async def lobby(self, request: Request) -> Response:
        return JSONResponse(self.face.lobby())

    async def host(self, request: Request) -> Response:
        try:
            body = await body_of(request)
            limit, seats = body.get("limit"), body.get("seats")
            if limit is not None and (not whole(limit) or not 0 < limit < 10_000):
                raise WebError("the limit must be a whole number, 1 to 9999")
            if seats is not None and not whole(seats):
                raise WebError("the number of players must be a whole number")
            kind, name = str(body.get("kind", "")), str(body.get("name", ""))
            vs = body.get("vs") or None  # a bot level for the other seats; none: people
            if vs is not None and not isinstance(vs, str):
                raise WebError("the bot level must be one of the game's levels")
            game = await self.face.host(kind, name, seats, limit, vs)
        except WebError as exc:
            return error(str(exc))
        return JSONResponse({"game": game.hex()})

    async def join(self, request: Request) -> Response:
        return await self._enter(request, self.face.join)

    async def watch(self, request: Request) -> Response:
        return await self._enter(request, self.face.watch)

    async def join_invite(self, request: Request) -> Response:
        try:
            body = await body_of(request)
            game = await self.face.join_invite(str(body.get("invite", "")))
        except WebError as exc:
            return error(str(exc))
        return JSONResponse({"game": game.hex()})

    async def _enter(self, request: Request, how: Callable[[str], Awaitable[bytes]]) -> Response:
        try:
            body = await body_of(request)
            game = await how(str(body.get("instance", "")))
        except WebError as exc:
            return error(str(exc))
        return JSONResponse({"game": game.hex()})

    async def game(self, request: Request) -> Response:
        try:
            return JSONResponse(self.view_of(self.face.game_id(request.path_params["game"])))
        except WebError as exc:
            return error(str(exc), 404)

    async def act(self, request: Request) -> Response:
        try:
            game = self.face.game_id(request.path_params["game"])
            action = str((await body_of(request)).get("action", "")).strip()
            if not action:
                raise WebError("no move given")
            for text in self.typed(game, action):
                await self.node.play(game, text)
        except WebError as exc:
            return error(str(exc))
        except GameRuleError as exc:
            return error(f"not sent: {exc}")
        except Rejection as exc:
            return error(f"not sent: {exc.reason}")
        except StorageError as exc:
            return error(f"not sent: {exc}")
        return JSONResponse(self.view_of(game))

    async def leave(self, request: Request) -> Response:
        """``{"what": "leave"}`` or ``{"what": "claim"}`` (the page confirmed it first)."""
        try:
            game = self.face.game_id(request.path_params["game"])
            what = str((await body_of(request)).get("what", ""))
            said = await self.face.leave(game, what)
        except WebError as exc:
            return error(str(exc))
        except StorageError as exc:
            return error(f"not sent: {exc}")
        return JSONResponse({**self.view_of(game), "said": said})

    async def again(self, request: Request) -> Response:
        """``{"answer": "yes"}`` or ``{"answer": "no"}``: play again? (the game is over)."""
        try:
            game = self.face.game_id(request.path_params["game"])
            answer = str((await body_of(request)).get("answer", ""))
            said = await self.face.play_again(game, answer)
        except WebError as exc:
            return error(str(exc))
        except StorageError as exc:
            return error(f"not sent: {exc}")
        return JSONResponse({**self.view_of(game), "said": said})

    def typed(self, game: bytes, action: str) -> Iterator[str]:
        """The session's texts for a typed line, as the game's page record resolves them."""
        session = self.node.session(game)
        page = page_of(session.kind)
        if page is None or page.typed_actions is None:
            return iter([action])
        return page.typed_actions(session, action)

    async def stream(self, websocket: WebSocket) -> None:
        try:
            game = self.face.game_id(websocket.path_params["game"])
        except WebError as exc:
            await websocket.close(code=1008, reason=str(exc))
            return
        await websocket.accept()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._send_views, websocket, game)
            try:
                while True:
                    await websocket.receive_text()  # the page sends nothing; this sees it leave
            except (WebSocketDisconnect, RuntimeError):
                pass
            nursery.cancel_scope.cancel()

    async def _send_views(self, websocket: WebSocket, game: bytes) -> None:
        last = None
        while True:
            changed = self.face.changed  # taken before the view: no change slips between
            view = self.view_of(game)
            text = json.dumps(view)
            if text != last:
                await websocket.send_text(text)
                last = text
            # Every change a view shows is an update of the node (events, followers arriving
            # and leaving, halts); an unchanged view is not sent.
            await changed.wait()


def game_files_route() -> Route:
    """Each game's page script and styles, from the folder its record names (only the files
    the record lists: nothing else of that folder is served)."""

    async def game_file(request: Request) -> Response:
        kind, name = request.path_params["kind"], request.path_params["name"]
        page_face = page_of(kind)
        if page_face is None or name not in page_face.files:
            return error("no such file", 404)
        return FileResponse(page_face.folder / name, headers={"cache-control": "no-store"})

    return Route("/games/{kind}/{name}", game_file)


def build_app(face: WebFace) -> Starlette:
    return Starlette(routes=NodePages(face).routes())
