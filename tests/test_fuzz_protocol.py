"""Fuzzing the protocol (issue 7): random JSON values in every field of every method.

Each example sends a few requests, one after another, to a server holding a game in mid-play.
Every field of a method (as schemas/protocol.schema.json lists them) gets either a random JSON
value or a plausible one (an open game id, a seat, a legal move, a real save with one part
replaced), and sometimes an unknown field is added. After each request: the response has the
documented shape and is never an `internal` error, and a response that is not ok left every open
game exactly as it was (its saved state, and the list of open games).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import no_hang, scaled
from kbdsl.protocol import Server, validator
from kbdsl.yamlio import schema

REQUESTS = {
    name[: -len("_request")]: spec for name, spec in schema("protocol")["$defs"].items() if name.endswith("_request")
}
FIELDS = {cmd: [k for k in spec["properties"] if k != "cmd"] for cmd, spec in REQUESTS.items()}
REQUIRED = {cmd: set(spec.get("required", ())) for cmd, spec in REQUESTS.items()}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@cache
def template() -> Server:
    """A server with game g1 in mid-play (seat 1 to move, tiles held), built once."""
    server = Server()
    server.handle({"cmd": "new", "players": 2, "preset": "first-game", "seed": 5})
    for _ in range(3):
        server.handle({"cmd": "bot", "game": "g1", "until": "turn"})
    return server


def fresh() -> Server:
    base = template()
    server = Server()
    server._shipped = base._shipped  # the loaded shipped rule sets (a cache, not state)
    server.games = {gid: state.clone() for gid, state in base.games.items()}
    server._opened = base._opened
    return server


def plausible(field: str, server: Server) -> st.SearchStrategy:
    state = server.games["g1"]
    rules = state.game.rules
    hexes = st.sampled_from(state.game.tables.ids[:40]) | st.text(max_size=8)
    actions = st.sampled_from(["build", "end", "fly", *rules.tiles])
    save = state.to_json()
    moves = [m.to_json() for m in state.legal_moves()[:30]]
    choices: dict[str, st.SearchStrategy] = {
        "id": st.integers(0, 9) | st.text(max_size=4),
        "protocol": st.sampled_from([1, 2]),
        "rules": st.sampled_from(["base", "island", "examples/hamlets", "docs", "/etc/passwd", "nothing"]),
        "game": st.sampled_from(["g1", "g1", "g1", "g2", "g9"]),
        "players": st.integers(-1, 6),
        "sections": st.lists(st.sampled_from([*rules.sections, "tavern@180", "x"]), max_size=5),
        "cards": st.lists(st.sampled_from([*rules.cards, "x"]), max_size=4),
        "seed": st.integers(-(2**130), 2**130),
        "options": st.dictionaries(st.sampled_from([*rules.options, "x"]), st.booleans(), max_size=2),
        "preset": st.sampled_from([*rules.presets, "x"]),
        "player": st.sampled_from(["current", "current", 0, 1, -1, 2, None]),
        "action": actions,
        "from": hexes,
        "move": st.sampled_from(moves)
        | st.builds(lambda m: " ".join(str(v) for v in m.values()), st.sampled_from(moves))
        | st.fixed_dictionaries({"do": actions}, optional={"to": hexes, "from": hexes, "discard": json_values}),
        "bot": st.sampled_from(["random", "random", "greedy", "x"]),
        "until": st.sampled_from(["move", "move", "turn", "over", "x"]),
        "save": st.just(save)
        | st.builds(lambda k, v: {**save, k: v}, st.sampled_from(sorted(save)), json_values)
        | st.builds(
            lambda k, v: {**save, "setup": {**save["setup"], k: v}}, st.sampled_from(sorted(save["setup"])), json_values
        ),
    }
    return choices[field]


def chance(draw, tenths: int) -> bool:
    return draw(st.integers(0, 9)) < tenths


@st.composite
def requests(draw) -> dict[str, Any]:
    """Mostly a known method with its required fields, each value mostly plausible, else random."""
    cmd = draw(st.sampled_from(sorted(FIELDS))) if chance(draw, 9) else draw(st.text(max_size=6))
    request: dict[str, Any] = {"cmd": cmd}
    for field in FIELDS.get(cmd, []):
        if chance(draw, 9 if field in REQUIRED[cmd] else 5):
            request[field] = draw(plausible(field, fresh()) if chance(draw, 9) else json_values)
    if chance(draw, 1):
        request[draw(st.text(max_size=6))] = draw(json_values)
    return request


def snapshot(server: Server) -> dict[str, Any]:
    return {gid: json.dumps(state.to_json(), sort_keys=True) for gid, state in server.games.items()}


@settings(max_examples=scaled(300))
@given(st.lists(requests(), min_size=1, max_size=4))
def test_random_requests_are_answered_and_refusals_change_nothing(batch):
    server = fresh()
    for request in batch:
        before = snapshot(server)
        with no_hang(60):
            line = server.handle_line(json.dumps(request))
        response = json.loads(line)
        errors = list(validator("response").iter_errors(response))
        assert not errors, (request, response, errors[0].message)
        if response["ok"]:
            continue
        assert response["error"]["code"] != "internal", (request, response)
        assert snapshot(server) == before, (request, response)
