"""The routes of the web face, declared in one list (Starlette), and the live game stream.

Pages are static files; everything they show comes from the JSON routes and, for a game, from
a WebSocket that sends the whole view again whenever the node reports a change (views are
small, and a page that missed one update is right again at the next).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from creepnet.cli.web.face import WebError, WebFace
from creepnet.cli.web.replay_view import replay_view
from creepnet.cli.web.views import TYPED_ACTIONS, game_view
from creepnet.engine.racer import IllegalAction
from creepnet.node.storage import StorageError
from creepnet.protocol.log import Rejection

STATIC = Path(__file__).parent / "static"
MAX_BODY = 4096  # every request the page sends is a few words


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
    except ValueError:
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
            Route("/replay/{which}", page("replay.html")),
            replay_route(resolve),
            Mount("/static", StaticFiles(directory=STATIC)),
        ]
    )


def build_app(face: WebFace) -> Starlette:
    node = face.node

    def stored_log(which: str) -> Path:
        return node.home.game(face.game_id(which)).log_path

    def view_of(game: bytes) -> dict[str, Any]:
        view = game_view(node.session(game), node.games.get(game), face.story_for(game))
        view["news"] = face.news_for(game)
        view["version"] = face.version
        return view

    async def lobby(request: Request) -> Response:
        return JSONResponse(face.lobby())

    async def host(request: Request) -> Response:
        try:
            body = await body_of(request)
            limit, seats = body.get("limit"), body.get("seats")
            if limit is not None and (not whole(limit) or not 0 < limit < 10_000):
                raise WebError("the limit must be a whole number, 1 to 9999")
            if seats is not None and not whole(seats):
                raise WebError("the number of players must be a whole number")
            kind, name = str(body.get("kind", "")), str(body.get("name", ""))
            game = await face.host(kind, name, seats, limit)
        except WebError as exc:
            return error(str(exc))
        return JSONResponse({"game": game.hex()})

    def joiner(how: str):
        async def endpoint(request: Request) -> Response:
            try:
                body = await body_of(request)
                instance = str(body.get("instance", ""))
                game = await (face.join(instance) if how == "join" else face.watch(instance))
            except WebError as exc:
                return error(str(exc))
            return JSONResponse({"game": game.hex()})

        return endpoint

    async def game(request: Request) -> Response:
        try:
            return JSONResponse(view_of(face.game_id(request.path_params["game"])))
        except WebError as exc:
            return error(str(exc), 404)

    async def act(request: Request) -> Response:
        try:
            game_id = face.game_id(request.path_params["game"])
            action = str((await body_of(request)).get("action", "")).strip()
            if not action:
                raise WebError("no move given")
            typed = TYPED_ACTIONS.get(node.session(game_id).kind)
            for text in typed(node.session(game_id), action) if typed else [action]:
                await node.play(game_id, text)
        except WebError as exc:
            return error(str(exc))
        except IllegalAction as exc:
            return error(f"not sent: {exc.reason}")
        except Rejection as exc:
            return error(f"not sent: {exc.reason}")
        except StorageError as exc:
            return error(f"not sent: {exc}")
        return JSONResponse(view_of(game_id))

    async def stream(websocket: WebSocket) -> None:
        try:
            game_id = face.game_id(websocket.path_params["game"])
        except WebError as exc:
            await websocket.close(code=1008, reason=str(exc))
            return
        await websocket.accept()

        async def pump() -> None:
            last = None
            while True:
                changed = face.changed  # taken before the view: no change slips between
                view = view_of(game_id)
                text = json.dumps(view)
                if text != last:
                    await websocket.send_text(text)
                    last = text
                face.page_shown(game_id, websocket, view)
                # Every change a view shows is an update of the node (events, followers
                # arriving and leaving, halts); an unchanged view is not sent.
                await changed.wait()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pump)
            try:
                while True:
                    await websocket.receive_text()  # the page sends nothing; this sees it leave
            except (WebSocketDisconnect, RuntimeError):
                pass
            nursery.cancel_scope.cancel()
            face.page_shown(game_id, websocket, None)

    routes = [
        Route("/", page("lobby.html")),
        Route("/game/{game}", page("game.html")),
        Route("/replay/{which}", page("replay.html")),
        Route("/api/lobby", lobby),
        Route("/api/host", host, methods=["POST"]),
        Route("/api/join", joiner("join"), methods=["POST"]),
        Route("/api/watch", joiner("watch"), methods=["POST"]),
        Route("/api/game/{game}", game),
        Route("/api/game/{game}/act", act, methods=["POST"]),
        replay_route(lambda which: face.replay_files.get(which) or stored_log(which)),
        WebSocketRoute("/ws/game/{game}", stream),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    return Starlette(routes=routes)
