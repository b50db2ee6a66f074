"""Helpers for the web table's tests: a real uvicorn server on loopback in a thread, and seat tokens."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install '.[web]')")

import uvicorn  # noqa: E402
from starlette.applications import Starlette  # noqa: E402

from kbdsl.web.app import MAX_MESSAGE, create_app  # noqa: E402
from kbdsl.web.limits import Limits  # noqa: E402


@contextlib.contextmanager
def serving(
    data: Path | None = None, bot_delay: float = 0.0, limits: Limits | None = None, **config: Any
) -> Iterator[tuple[str, Starlette]]:
    """A web table on 127.0.0.1 (a free port) for the duration of the block: its base URL and its app."""
    app = create_app(data, bot_delay, limits)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws_max_size=MAX_MESSAGE, **config)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(30)


def token(seat: dict) -> str:
    """The token in a seat's join link (/t/TABLE#seat=TOKEN)."""
    return seat["link"].split("#seat=", 1)[1]
