"""Load on the web table: many concurrent games over WebSockets on loopback, to the end.

Each game has two seats: seat 0 is a client bot here that plays a random legal move from
every push it gets over its WebSocket (as a page would), seat 1 is a random bot on the
server. Reports games per second and the client's move latency (a play request sent to its
answer received). Run it against a server started on this machine:

    python3 -m kbdsl serve --http --port 8765 --bot-delay 0 --tables-per-client 50 &
    python3 tools/load_web.py --url http://127.0.0.1:8765 --games 50

Only loopback addresses are accepted, and every loop is bounded in moves and time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import websockets

MAX_MOVES = 2_000  # per game; a two-player game takes about 200
TIMEOUT = 600.0  # seconds for the whole run


def create(url: str) -> dict[str, Any]:
    body = {"rules": "base", "seats": [{"kind": "person"}, {"kind": "bot", "bot": "random"}]}
    request = urllib.request.Request(f"{url}/api/tables", json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as reply:
        return json.load(reply)


async def play(url: str, table: dict[str, Any], rng: random.Random, out: dict[str, Any]) -> None:
    """Seat 0 of one table: join, answer every push that offers moves, stop at the end."""
    tid = table["table"]
    seat_token = table["seats"][0]["link"].split("#seat=", 1)[1]
    ws_url = url.replace("http://", "ws://", 1) + f"/ws/{tid}"
    sent: dict[int, float] = {}
    answered_version, moves = -1, 0
    async with websockets.connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"join": seat_token}))
        async for raw in ws:
            m = json.loads(raw)
            if "push" in m:
                if m["table"] != tid:
                    out["errors"].append(f"{tid}: a push of table {m['table']}")
                if m["state"]["over"]:
                    out["final"][tid] = m["state"]
                    return
                if "legal" in m and m["version"] > answered_version:
                    answered_version = m["version"]
                    if moves >= MAX_MOVES:
                        out["errors"].append(f"{tid}: no end after {MAX_MOVES} moves")
                        return
                    moves += 1
                    sent[moves] = time.perf_counter()
                    await ws.send(json.dumps({"id": moves, "cmd": "play", "move": rng.choice(m["legal"])}))
            else:
                start = sent.pop(m.get("id"), None)
                if start is not None:
                    out["latencies"].append(time.perf_counter() - start)
                if not m.get("ok"):
                    out["errors"].append(f"{tid}: {m.get('error')}")


def run(url: str, games: int = 50, seed: int = 0) -> dict[str, Any]:
    """Play `games` games at once against the server at `url` (loopback only); errors, finals, timings."""
    if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("load_web.py sends load to loopback servers only")
    tables = [create(url) for _ in range(games)]
    out: dict[str, Any] = {"errors": [], "final": {}, "latencies": []}

    async def everything() -> None:
        await asyncio.wait_for(
            asyncio.gather(*(play(url, t, random.Random(f"{seed}:{i}"), out) for i, t in enumerate(tables))),
            TIMEOUT,
        )

    start = time.perf_counter()
    asyncio.run(everything())
    out["seconds"] = time.perf_counter() - start
    out["finished"] = len(out["final"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8765")
    parser.add_argument("--games", type=int, default=50)
    args = parser.parse_args()
    r = run(args.url, args.games)
    lat = sorted(r["latencies"])
    moves = sum(len(s["log"]) for s in r["final"].values())
    rate = r["finished"] / r["seconds"]
    print(f"{r['finished']} of {args.games} games finished in {r['seconds']:.1f} s: {rate:.2f} games/s")
    print(f"{moves} moves ({moves / r['seconds']:.0f} moves/s, half by the client, half by server bots)")
    if lat:
        p95 = lat[int(0.95 * (len(lat) - 1))]
        print(f"client move latency: median {statistics.median(lat) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    print(f"errors: {len(r['errors'])}")


if __name__ == "__main__":
    main()
