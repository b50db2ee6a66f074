"""Playing a web table through its public API until a seat may use a tile, for the web tests.

Web tables draw their seed from the operating system, so a test cannot know the deck. Instead both
seats play their mandatory builds through the API: seat 0 as near to a location hex as it can
(so it takes that tile), seat 1 as far from it as it can, and neither uses a tile. Only public
requests are used (`board` for the hex graph, `legal` with each seat's own token), so the same
helper drives a test client and a real server.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

Call = Callable[[dict, str | None], dict]  # (request, token) -> the protocol response
MAX_MOVES = 600


def distances(call: Call, table: str, location: str) -> dict[str, int]:
    """Steps from every hex to the nearest location hex of tile `location` (the board's own graph)."""
    hexes = call({"cmd": "board", "game": table}, None)["result"]["hexes"]
    nbrs = {h["id"]: h["neighbours"] for h in hexes}
    todo = deque(h["id"] for h in hexes if h["location"] == location)
    assert todo, f"the board has no {location} hex"
    dist = dict.fromkeys(todo, 0)
    while todo:
        h = todo.popleft()
        for n in nbrs[h]:
            if n not in dist:
                dist[n] = dist[h] + 1
                todo.append(n)
    return dist


def play_until(
    call: Call, table: str, tokens: list[str], location: str, wanted: str | Callable[[dict, list[dict]], bool]
) -> list[dict]:
    """Play both seats until seat 0 is to move and may play the action `wanted` (or `wanted(view,
    legal moves)` holds); returns seat 0's legal moves then."""
    done = wanted if callable(wanted) else lambda _, legal: any(m["do"] == wanted for m in legal)
    dist = distances(call, table, location)
    far = max(dist.values()) + 1
    for _ in range(MAX_MOVES):
        state = call({"cmd": "state", "game": table}, None)["result"]["state"]
        assert not state["over"], f"the game ended before seat 0 could play {wanted}"
        seat = state["current"]
        legal = call({"cmd": "legal", "game": table}, tokens[seat])["result"]["moves"]
        if seat == 0 and done(state, legal):
            return legal
        builds = [m for m in legal if m["do"] == "build"]
        if builds:
            near = (lambda m: dist.get(m["to"], far)) if seat == 0 else (lambda m: -dist.get(m["to"], far))
            move: Any = min(builds, key=lambda m: (near(m), m["to"]))
        else:
            move = {"do": "end"}
        reply = call({"cmd": "play", "game": table, "move": move}, tokens[seat])
        assert reply["ok"], reply
    raise AssertionError(f"seat 0 could not play {wanted} within {MAX_MOVES} moves")


def end_turns(call: Call, table: str, tokens: list[str], until_seat: int = 0) -> None:
    """End the current turn, then play the other seats' turns (their first legal builds, then end)
    until `until_seat` is to move."""
    while True:
        state = call({"cmd": "state", "game": table}, None)["result"]["state"]
        seat = state["current"]
        legal = call({"cmd": "legal", "game": table}, tokens[seat])["result"]["moves"]
        if any(m["do"] == "end" for m in legal):
            reply = call({"cmd": "play", "game": table, "move": {"do": "end"}}, tokens[seat])
            assert reply["ok"], reply
            if reply["result"]["state"]["current"] == until_seat:
                return
            continue
        build = next(m for m in legal if m["do"] == "build")
        assert call({"cmd": "play", "game": table, "move": build}, tokens[seat])["ok"]
