"""The web transport of the protocol: Starlette routes for pages, HTTP requests and a WebSocket per seat.

`Tables` (synchronous, in `tables.py`) decides everything; this module adds what needs an
event loop: one lock per table so requests and bot moves on a table run one at a time,
pushes to every connected seat after each change, bot turns after a short visible delay,
and limits (message size, a bounded queue per socket, so a client that never reads is
dropped instead of holding memory or the game).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from kbdsl.protocol import RequestError, _error, parse
from kbdsl.web.tables import Table, Tables

log = logging.getLogger("kbdsl.web")
Json = dict[str, Any]

MAX_MESSAGE = 1_000_000  # bytes per request or WebSocket message; web requests are small
QUEUE = 256  # pushes and answers waiting for one socket; a socket further behind is closed
SEND_TIMEOUT = 10.0  # seconds one message may take to leave; a socket slower than that is closed
JOIN_TIMEOUT = 10.0  # seconds a new socket has to say which seat it is
BOT_DELAY = 0.25  # seconds from a change to a bot's next move, so people see each move
STATUS = {
    "bad_request": 400,
    "forbidden": 403,
    "unknown_game": 404,
    "illegal_move": 409,
    "too_large": 413,
    "setup": 422,
    "rules": 422,
    "internal": 500,
}
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
}
STATIC = Path(str(resources.files("kbdsl.web") / "static"))


class Connection:
    """One WebSocket of a seat (None: a spectator) and its outgoing queue."""

    def __init__(self, ws: WebSocket, seat: int | None):
        self.ws, self.seat = ws, seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE)

    def send(self, text: str) -> bool:
        """Queue a message; False if the socket is too far behind (it is then closed, unsent messages dropped)."""
        try:
            self.queue.put_nowait(text)
            return True
        except asyncio.QueueFull:
            self.close(drop=True)
            return False

    def close(self, drop: bool = False) -> None:
        """Close after the queued messages (or at once, dropping them)."""
        if drop or self.queue.full():
            while not self.queue.empty():
                self.queue.get_nowait()
        self.queue.put_nowait(None)

    async def pump(self) -> None:
        """Send queued messages in order until closed; a message that cannot leave in time closes the socket."""
        try:
            while (text := await self.queue.get()) is not None:
                await asyncio.wait_for(self.ws.send_text(text), SEND_TIMEOUT)
        except (TimeoutError, RuntimeError, WebSocketDisconnect, OSError):
            pass
        with contextlib.suppress(Exception):
            await self.ws.close(1008)


class Live:
    """The asynchronous side of the tables: locks, sockets, bot turns."""

    def __init__(self, tables: Tables, bot_delay: float):
        self.tables, self.bot_delay = tables, bot_delay
        self.locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.sockets: defaultdict[str, set[Connection]] = defaultdict(set)
        self.bots: dict[str, asyncio.Task] = {}
        self.changed: dict[str, float] = {}  # loop time of each table's last push: bot pauses count from it

    async def call(self, token: Any, request: Any) -> Json:
        """One protocol request from a client; a change is saved, pushed to every seat, and wakes the bots."""
        table_id = request.get("game") if isinstance(request, dict) else None
        if not isinstance(table_id, str) or table_id not in self.tables.tables:
            return self.tables.request(token, request)[0]
        async with self.locks[table_id]:
            response, changed = self.tables.request(token, request)
            if changed:
                self._push(self.tables.tables[table_id])
                self.wake(table_id)
        return response

    def _push(self, table: Table) -> None:
        """Queue each connected seat's own view of the table (computed once per seat)."""
        self.changed[table.id] = asyncio.get_running_loop().time()
        texts: dict[int | None, str] = {}
        for conn in list(self.sockets[table.id]):
            if conn.seat not in texts:
                texts[conn.seat] = json.dumps(self.tables.push(table, conn.seat), separators=(",", ":"))
            if not conn.send(texts[conn.seat]):
                self.sockets[table.id].discard(conn)

    def wake(self, table_id: str) -> None:
        """Start the table's bot turns if a bot is to move and none is running."""
        if table_id not in self.bots and self.tables.bot_due(self.tables.tables[table_id]):
            self.changed.setdefault(table_id, asyncio.get_running_loop().time())  # a new or restored table: from now
            self.bots[table_id] = asyncio.create_task(self._bots(table_id))

    async def _bots(self, table_id: str) -> None:
        table = self.tables.tables[table_id]
        try:
            loop = asyncio.get_running_loop()
            while True:  # the pause runs from the last change, so the server's own work does not lengthen it
                await asyncio.sleep(max(0.0, self.bot_delay - (loop.time() - self.changed[table_id])))
                async with self.locks[table_id]:
                    think = self.tables.bot_plan(table)
                    if think is not None:
                        self.tables.bot_done(table, await anyio.to_thread.run_sync(think))
                        self._push(table)
                    if not self.tables.bot_due(table):
                        del self.bots[table_id]  # under the lock, so a person's move that follows wakes a new task
                        return
        except Exception:
            self.bots.pop(table_id, None)
            log.exception("bot turn failed on a table")

    async def join(self, ws: WebSocket, table: Table, seat: int | None) -> Connection:
        conn = Connection(ws, seat)
        async with self.locks[table.id]:
            self.sockets[table.id].add(conn)
            conn.send(json.dumps(self.tables.push(table, seat), separators=(",", ":")))
        return conn

    def leave(self, table_id: str, conn: Connection) -> None:
        self.sockets[table_id].discard(conn)
        conn.close()

    async def stop(self) -> None:
        for task in list(self.bots.values()):
            task.cancel()
        for conns in self.sockets.values():
            for conn in conns:
                conn.close()


def _json(data: Json, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=HEADERS)


def _answer(response: Json) -> JSONResponse:
    status = 200 if response["ok"] else STATUS.get(response["error"]["code"], 400)
    return _json(response, status)


def _refusal(e: RequestError) -> JSONResponse:
    return _answer(_error(None, e))


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    return auth[7:].strip() if auth.lower().startswith("bearer ") else None


async def _body(request: Request) -> Any:
    """The request body as JSON, read no further than MAX_MESSAGE bytes."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_MESSAGE:
            raise RequestError("too_large", f"the request is longer than {MAX_MESSAGE} bytes")
        chunks.append(chunk)
    return parse(b"".join(chunks), MAX_MESSAGE)


def create_app(data: Path | None = None, bot_delay: float = BOT_DELAY) -> Starlette:
    """The web table's ASGI app: tables restored from `data` (saved there after every change)."""
    tables = Tables(data)
    for problem in tables.restore():
        log.warning("%s", problem)
    live = Live(tables, bot_delay)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for table_id in list(tables.tables):
            live.wake(table_id)
        yield
        await live.stop()

    def page(name: str):
        async def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name, headers=HEADERS)

        return endpoint

    async def api(request: Request) -> Response:
        try:
            body = await _body(request)
        except RequestError as e:
            return _refusal(e)
        return _answer(await live.call(_token(request), body))

    async def create(request: Request) -> Response:
        try:
            result = tables.create(await _body(request))
        except RequestError as e:
            return _refusal(e)
        live.wake(result["table"])
        return _json(result, 201)

    def _table(request: Request) -> Table:
        return tables.get(request.path_params["table"])

    async def info(request: Request) -> Response:
        try:
            return _json(tables.info(_table(request)))
        except RequestError as e:
            return _refusal(e)

    def _step(request: Request) -> int | None:
        step = request.query_params.get("step")
        if step is not None and (not step.isdigit() or len(step) > 6):
            raise RequestError("bad_request", "step: a move number such as 12")
        return None if step is None else int(step)

    async def replay(request: Request) -> Response:
        try:
            table, step = _table(request), _step(request) or 0
            async with live.locks[table.id]:
                return _json(await anyio.to_thread.run_sync(tables.replay, table, step))
        except RequestError as e:
            return _refusal(e)

    async def history(request: Request) -> Response:
        try:
            table = _table(request)
            async with live.locks[table.id]:
                return _json(await anyio.to_thread.run_sync(tables.history, table))
        except RequestError as e:
            return _refusal(e)

    async def picture(request: Request) -> Response:
        try:
            table, step = _table(request), _step(request)
            coords = request.query_params.get("coords") == "1"
            async with live.locks[table.id]:
                text = await anyio.to_thread.run_sync(tables.picture, table, step, coords)
            return Response(text, media_type="image/svg+xml", headers=HEADERS)
        except RequestError as e:
            return _refusal(e)

    async def lobby(request: Request) -> Response:
        return _json(tables.lobby())

    async def texts(request: Request) -> Response:
        try:
            return _json(tables.texts(_table(request)))
        except RequestError as e:
            return _refusal(e)

    async def claim(request: Request) -> Response:
        try:
            table = _table(request)
            body = await _body(request)
            async with live.locks[table.id]:
                result = tables.claim(table, body)
                live._push(table)
            return _json(result, 201)
        except RequestError as e:
            return _refusal(e)

    async def rematch(request: Request) -> Response:
        try:
            table = _table(request)
            async with live.locks[table.id]:
                result = tables.offer_rematch(table, _token(request))
                live._push(table)
            live.wake(result["table"])
            return _json(result, 201)
        except RequestError as e:
            return _refusal(e)

    async def socket(ws: WebSocket) -> None:
        await ws.accept()
        try:
            table = tables.get(ws.path_params["table"])
            first = await asyncio.wait_for(ws.receive_text(), JOIN_TIMEOUT)
            join = parse(first, MAX_MESSAGE)
            if not isinstance(join, dict) or set(join) != {"join"}:
                raise RequestError("bad_request", 'the first message names the seat: {"join": TOKEN} or {"join": null}')
            token = join["join"]
            seat = tables.seat(table, token)
        except RequestError as e:
            await ws.send_text(json.dumps(_error(None, e)))
            await ws.close(1008)
            return
        except (TimeoutError, WebSocketDisconnect, KeyError):  # KeyError: a binary first message
            with contextlib.suppress(Exception):
                await ws.close(1008)
            return
        conn = await live.join(ws, table, seat)
        pump = asyncio.create_task(conn.pump())
        try:
            while not pump.done():
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                raw = text if text is not None else message.get("bytes") or b""
                if len(raw) > MAX_MESSAGE:
                    conn.send(
                        json.dumps(_error(None, RequestError("too_large", f"a message is at most {MAX_MESSAGE} bytes")))
                    )
                    break
                try:
                    request = parse(raw, MAX_MESSAGE)
                except RequestError as e:
                    conn.send(json.dumps(_error(None, e)))
                    continue
                if isinstance(request, dict) and "game" not in request and request.get("cmd") != "hello":
                    request["game"] = table.id
                conn.send(json.dumps(await live.call(token, request), separators=(",", ":")))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            live.leave(table.id, conn)
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(pump, SEND_TIMEOUT)

    routes = [
        Route("/", page("new.html")),
        Route("/t/{table}", page("table.html")),
        Route("/api", api, methods=["POST"]),
        Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables", lobby, methods=["GET"]),
        Route("/api/tables/{table}", info),
        Route("/api/tables/{table}/texts", texts),
        Route("/api/tables/{table}/seats", claim, methods=["POST"]),
        Route("/api/tables/{table}/rematch", rematch, methods=["POST"]),
        Route("/api/tables/{table}/replay", replay),
        Route("/api/tables/{table}/board.svg", picture),
        Route("/api/tables/{table}/history", history),
        WebSocketRoute("/ws/{table}", socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.tables, app.state.live = tables, live
    return app
