"""Fairness of the web table: one WebSocket pipelines N `board` requests while another client asks
`hello` over HTTP; prints how long that hello took and how the flood was answered. Run it against a
server started on this machine (loopback only; every wait is bounded):

    python3 -m kbdsl serve --http --port 8765 &
    python3 tools/flood_web.py --url http://127.0.0.1:8765 --requests 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import websockets

TIMEOUT = 120.0  # seconds any one wait may take


def post(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
        return json.load(reply)


async def flood(url: str, requests: int) -> dict[str, Any]:
    """Pipeline `requests` board requests on a spectator socket; time another client's hello meanwhile."""
    table = post(url, "/api/tables", {"seats": [{"kind": "person"}, {"kind": "person"}]})["table"]
    async with websockets.connect(f"{url.replace('http', 'ws', 1)}/ws/{table}", max_size=2**24) as ws:
        await ws.send(json.dumps({"join": None}))
        await asyncio.wait_for(ws.recv(), TIMEOUT)
        start = time.perf_counter()
        for i in range(requests):
            await ws.send(json.dumps({"id": i, "cmd": "board"}))
        answered = refused = 0

        async def read() -> None:
            nonlocal answered, refused
            while answered < requests:
                answer = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
                if "id" in answer:
                    answered += 1
                    refused += not answer["ok"]

        reader = asyncio.create_task(read())
        await asyncio.sleep(0.05)
        asked = time.perf_counter()
        await asyncio.wait_for(asyncio.to_thread(post, url, "/api", {"cmd": "hello"}), TIMEOUT)
        hello = time.perf_counter() - asked
        await reader
        return {"hello_s": hello, "flood_s": time.perf_counter() - start, "requests": requests, "refused": refused}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8765")
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    if urlsplit(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("flood_web.py sends load to loopback servers only")
    r = asyncio.run(flood(args.url, args.requests))
    print(
        f"hello answered in {r['hello_s']:.3f} s while one socket flooded {r['requests']} board requests "
        f"(all answered in {r['flood_s']:.2f} s, {r['refused']} rationed)"
    )


if __name__ == "__main__":
    main()
