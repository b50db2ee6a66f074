"""The JSON protocol (kbdsl.protocol, `kbdsl serve`) and its documentation (docs/protocol.md).

Every request sent here and every response received is validated against
schemas/protocol.schema.json, results against their method's `<cmd>_result` definition.
The documentation's examples are replayed in one fresh server and compared.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import shipped
from kbdsl.game import State
from kbdsl.protocol import MAX_LINE, Server, validator
from kbdsl.yamlio import schema

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"
FIRST_GAME = {"cmd": "new", "players": 2, "preset": "first-game", "seed": 825}  # the seed of docs/protocol.md


def valid(data: Any, name: str) -> None:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(name).iter_errors(data)]
    assert not errors, f"{name}: {errors}"


def ask(server: Server, **request: Any) -> dict:
    """Send a request that must succeed; check both sides against the schema; return the result."""
    response = exchange(server, request)
    assert response["ok"], response
    return response["result"]


def exchange(server: Server, request: Any) -> dict:
    """Send any request; check it (if well-formed) and the response against the schema."""
    response = server.handle(request)
    json.dumps(response)  # plain JSON values only
    valid(response, "response")
    if response["ok"]:
        valid(request, "request")
        valid(response["result"], f"{request['cmd']}_result")
    return response


def error(server: Server, **request: Any) -> dict:
    response = exchange(server, request)
    assert not response["ok"], response
    return response["error"]


@pytest.fixture
def server() -> Server:
    return Server()


@pytest.fixture
def game(server: Server) -> str:
    return ask(server, **FIRST_GAME)["game"]


# -- the schema ------------------------------------------------------------------------------
def test_schema_is_a_valid_2020_12_schema_with_a_request_and_result_per_method():
    root = schema("protocol")
    jsonschema.Draft202012Validator.check_schema(root)
    methods = Server().methods
    assert set(root["$defs"]["request"]["properties"]["cmd"]["enum"]) == set(methods)
    for cmd in methods:
        assert f"{cmd}_request" in root["$defs"] and f"{cmd}_result" in root["$defs"], cmd


# -- rule sets with other piece kinds, choices and task decks ---------------------------------
def test_rules_describes_piece_kinds_with_their_own_supplies_and_settings(server: Server):
    rules = ask(server, cmd="rules", rules="combined")
    pieces = {k["name"]: k for k in rules["pieces"]}
    assert [k["name"] for k in rules["pieces"] if k["role"] == "build"] == ["settlement"]
    assert pieces["settlement"]["supply"] == rules["settlements"] == 40  # the deprecated field agrees
    assert (pieces["wall"]["role"], pieces["wall"]["owner"], pieces["wall"]["supply"]) == ("neutral", "none", 25)
    assert {k: pieces[k]["supply"] for k in ("warrior", "ship", "wagon", "city-hall")} == {
        "warrior": 2,
        "ship": 1,
        "wagon": 1,
        "city-hall": 1,
    }
    assert {"key": "aura", "value": "blocks-next-to", "when": None} in pieces["warrior"]["settings"]
    assert {"key": "footprint", "value": "hex-and-neighbours", "when": None} in pieces["city-hall"]["settings"]
    assert {"key": "placement", "value": "past-auras", "when": "option(placements-past-warriors)"} in (
        pieces["ship"]["settings"]
    )
    assert not any(st["key"] == "placement" for st in pieces["warrior"]["settings"])


def test_rules_describes_tile_parts_hands_and_task_decks(server: Server):
    rules = ask(server, cmd="rules", rules="crossroads")
    tiles = {t["name"]: t for t in rules["tiles"]}
    assert [p["name"] for p in tiles["lighthouse"]["parts"]] == [
        "lighthouse.place",
        "lighthouse.move",
        "lighthouse.return",
    ]
    move = tiles["lighthouse"]["parts"][1]
    assert (move["kind"], move["count"], move["up_to"], move["piece"]) == ("move", 3, True, "ship")
    assert tiles["lighthouse"]["action"]["kind"] == "or" and " or " in tiles["lighthouse"]["action"]["text"]
    assert [(p["name"], p["kind"], p["text"]) for p in tiles["fort"]["parts"]] == [
        ("fort", "draw", "draw"),
        ("fort.build", "build", "build on terrain(drawn) adjacent-if-possible"),
    ]
    assert tiles["crossroads"]["action"] is None and tiles["crossroads"]["hand"] == 2
    assert tiles["oracle"]["hand"] is None and [p["name"] for p in tiles["oracle"]["parts"]] == ["oracle"]
    tasks = rules["decks"]["tasks"]
    assert len(tasks) == 6 and all(c["deck"] == "tasks" for c in rules["cards"] if c["name"] in tasks)
    assert all(c["deck"] is None for c in rules["cards"] if c["name"] not in tasks)
    deals = {s["name"]: s["deals"] for s in rules["boards"][0]["sections"]}
    assert {k for k, v in deals.items() if v == "tasks"} == {"lighthouse", "barracks", "city-hall", "monastery"}
    assert deals["oracle"] is None
    # the parts are exactly the tile actions moves name (a move's `do`)
    parts = {p["name"] for t in rules["tiles"] for p in t["parts"]}
    assert parts == set(shipped("crossroads").actions)


# -- a scripted session through the request handler -------------------------------------------
def test_scripted_session(server: Server):
    hello = ask(server, cmd="hello", id="h")
    assert hello["protocol"] == 1 and "base" in hello["rules"] and "random" in hello["bots"]
    assert set(hello["methods"]) == set(server.methods)

    rules = ask(server, cmd="rules", rules="base")
    assert rules["players"] == {"min": 2, "max": 4}
    assert all(t["letter"] and t["color"] for t in rules["terrains"])
    assert all(t["title"] and t["texts"] and t["action"]["text"] for t in rules["tiles"])
    assert all(c["title"] and c["texts"] and c["score"] for c in rules["cards"])
    assert rules["boards"][0]["sections"] and all(len(s["grid"]) == 10 for s in rules["boards"][0]["sections"])
    assert {o["name"] for o in rules["options"]} >= {"move-may-stay"}
    assert rules["presets"][0]["cards"]

    new = ask(server, **FIRST_GAME, player=0)
    gid, state = new["game"], new["state"]
    assert gid == "g1" and state["turn"] == 1 and state["viewer"] == 0 and state["mandatory_left"] == 3
    assert ask(server, cmd="rules", game=gid)["name"] == "base"

    moves = ask(server, cmd="legal", game=gid)["moves"]
    assert moves and all(m["do"] == "build" for m in moves)  # the mandatory action first
    targets = ask(server, cmd="targets", game=gid, action="build")["targets"]
    assert targets == [m["to"] for m in moves]

    played = ask(server, cmd="play", game=gid, move=moves[0], id=7)
    assert played["played"] == [
        {"player": 0, "move": moves[0], "events": [{"event": "built", "player": 0, "hex": moves[0]["to"]}]}
    ]
    assert played["state"]["settlements"][0] == [moves[0]["to"]] and played["state"]["mandatory_left"] == 2
    text = ask(server, cmd="legal", game=gid, action="build")["moves"][0]
    ask(server, cmd="play", game=gid, move=f"build {text['to']}")  # the text notation
    ask(server, cmd="bot", game=gid)
    assert ask(server, cmd="state", game=gid)["state"]["mandatory_left"] == 0
    assert ask(server, cmd="legal", game=gid, action="end")["moves"] == [{"do": "end"}]

    scores = ask(server, cmd="scores", game=gid)
    assert len(scores["scores"]) == 2 and scores["winners"] is None and not scores["over"]
    board = ask(server, cmd="board", game=gid)
    assert len(board["hexes"]) == 400 and len(board["lines"]) == 20 and len(board["sectors"]) == 4
    hexes = {h["id"]: h for h in board["hexes"]}
    assert all(a in hexes[b]["neighbours"] for a in hexes for b in hexes[a]["neighbours"])

    save = ask(server, cmd="save", game=gid)["save"]
    loaded = ask(server, cmd="load", save=save)
    assert loaded["game"] == "g2"
    assert ask(server, cmd="save", game="g2")["save"] == save
    assert [g["game"] for g in ask(server, cmd="games")["games"]] == ["g1", "g2"]
    assert ask(server, cmd="close", game="g1") == {"game": "g1", "closed": True}
    assert error(server, cmd="state", game="g1")["code"] == "unknown_game"
    assert ask(server, cmd="new", players=2)["game"] == "g3"  # ids are never reused


def test_targets_of_a_tile_that_moves(server: Server):
    """Seat 0 takes a tile that moves a settlement, then may move: sources, then targets from one of them."""
    gid = ask(server, **FIRST_GAME)["game"]
    for move in ("build 5,10", "build 6,10", "build 5,9", "end"):
        ask(server, cmd="play", game=gid, move=move)
    ask(server, cmd="bot", game=gid, until="turn")
    tile = ask(server, cmd="state", game=gid)["state"]["tiles"][0][0]["tile"]
    all_targets = ask(server, cmd="targets", game=gid, action=tile)
    assert all_targets["sources"] == ["5,9", "5,10", "6,10"]
    one = ask(server, cmd="targets", game=gid, action=tile, **{"from": "(5, 9)"})
    assert one["from"] == "5,9" and set(one["targets"]) < set(all_targets["targets"])
    legal = ask(server, cmd="legal", game=gid, action=tile)["moves"]
    assert sorted(m["to"] for m in legal if m["from"] == "5,9") == sorted(one["targets"])
    assert error(server, cmd="targets", game=gid, action="end")["code"] == "bad_request"
    assert error(server, cmd="targets", game=gid, action="fly")["code"] == "bad_request"
    assert "no hex 99,99" in error(server, cmd="targets", game=gid, action=tile, **{"from": "99,99"})["message"]


def test_new_takes_sections_cards_options_and_other_rule_sets(server: Server):
    rules = ask(server, cmd="rules", rules="base")
    names = [s["name"] for s in rules["boards"][0]["sections"]][:4]
    cards = [c["name"] for c in rules["cards"]][:3]
    option = rules["options"][0]["name"]
    state = ask(
        server,
        cmd="new",
        players=3,
        sections=[names[0] + "@180", *names[1:]],
        cards=cards,
        seed=3,
        options={option: True},
    )["state"]
    assert state["setup"]["sections"] == {"main": [names[0] + "@180", *names[1:]]}
    assert state["setup"]["cards"] == cards and state["setup"]["options"] == {option: True}
    # With a preset, a plain list of sections still wins over the preset's sections.
    preset = rules["presets"][0]
    state = ask(server, cmd="new", players=2, preset=preset["name"], sections=names)["state"]
    assert state["setup"]["sections"]["main"] == names and state["setup"]["cards"] == preset["cards"]
    for name in ask(server, cmd="hello")["rules"]:
        other = ask(server, cmd="new", rules=name, players=2, seed=1)
        assert ask(server, cmd="board", game=other["game"])["hexes"]
    folder = ask(server, cmd="rules", rules=str(ROOT / "rules" / "base"))
    assert folder["ref"] == "base"


# -- errors ----------------------------------------------------------------------------------
def test_illegal_move_changes_nothing_and_reports_reason_and_rule(server: Server, game: str):
    before = ask(server, cmd="save", game=game)["save"]
    err = error(server, cmd="play", game=game, move={"do": "end"}, id=5)
    assert err["code"] == "illegal_move" and err["rule"] == "rulebook: Mandatory Action"
    assert err["reason"].startswith("the mandatory action is not finished") and err["move"] == {"do": "end"}
    assert err["message"].endswith(err["reason"])
    water = next(h["id"] for h in ask(server, cmd="board", game=game)["hexes"] if h["terrain"] and not h["buildable"])
    err = error(server, cmd="play", game=game, move=f"build {water}")
    assert err["code"] == "illegal_move" and water in err["reason"] and err["move"] == {"do": "build", "to": water}
    for move in ({"do": "build", "to": "99,99"}, {"do": "fly", "to": "1,1"}, "build", "nonsense 1,1 2,2 3,3"):
        assert error(server, cmd="play", game=game, move=move)["code"] == "illegal_move"
    assert ask(server, cmd="save", game=game)["save"] == before


def test_a_failing_engine_is_an_internal_error_and_the_game_is_untouched(server: Server, game: str, monkeypatch):
    before = ask(server, cmd="save", game=game)["save"]
    move = ask(server, cmd="legal", game=game)["moves"][0]

    def broken(self: State, code: int) -> None:
        self.log.append(code)  # half-done work, then a failure
        raise RuntimeError("boom")

    monkeypatch.setattr(State, "apply_action", broken)
    err = error(server, cmd="play", game=game, move=move)
    assert err == {"code": "internal", "message": "internal error: RuntimeError: boom"}
    assert error(server, cmd="bot", game=game)["code"] == "internal"
    monkeypatch.undo()
    assert ask(server, cmd="save", game=game)["save"] == before


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("{not json", "not JSON"),
        ('{"cmd": "hello"', "not JSON"),
        ("[1, 2]", "JSON object"),
        ('"hello"', "JSON object"),
        ('{"cmd": "hello", "protocol": NaN}', "not JSON"),
        ('{"cmd": "dance"}', "unknown cmd 'dance'"),
        ('{"cmd": ["hello"]}', "unknown cmd"),
        ('{"id": 1}', "unknown cmd None"),
        ('{"cmd": "new"}', "'players' is a required property"),
        ('{"cmd": "new", "players": 2, "seeed": 1}', "'seeed' was unexpected"),
        ('{"cmd": "new", "players": true}', "players: True is not of type 'integer'"),
        ('{"cmd": "new", "players": 2.5}', "players: 2.5 is not of type 'integer'"),
        ('{"cmd": "play", "game": "g1", "move": {"do": "build", "to": 3}}', "move"),
        ('{"cmd": "state", "game": "g1", "player": "me"}', "player"),
        ('{"cmd": "rules", "rules": "base", "game": "g1"}', "should not be valid"),
        ('{"cmd": "hello", "id": {"a": 1}}', "id"),
        ("[" * 100_000 + "]" * 100_000, "not JSON"),
        ('{"cmd": "new", "players": 2, "seed": ' + "9" * 5000 + "}", "not JSON"),
    ],
)
def test_malformed_requests_are_bad_requests(server: Server, line: str, needle: str):
    response = json.loads(server.handle_line(line))
    valid(response, "response")
    assert response["ok"] is False and response["error"]["code"] == "bad_request"
    assert needle in response["error"]["message"]
    assert ask(server, cmd="hello")["protocol"] == 1  # and the server goes on


def test_ids_are_echoed_and_bad_ids_are_not(server: Server):
    assert server.handle({"cmd": "hello", "id": "x-1"})["id"] == "x-1"
    assert server.handle({"cmd": "dance", "id": 9})["id"] == 9
    assert server.handle({"cmd": "hello", "id": True})["id"] is None
    assert server.handle({"cmd": "hello"})["id"] is None
    assert server.handle_line("   ") is None
    assert json.loads(server.handle_line(b"\xff\xfe"))["error"]["message"] == "the line is not UTF-8 text"
    assert "longer than" in json.loads(server.handle_line("x" * (MAX_LINE + 1)))["error"]["message"]


def test_setup_rules_and_unknown_game_errors(server: Server, mini):
    assert error(server, cmd="new", players=9)["code"] == "setup"
    assert error(server, cmd="new", players=2, cards=["nobody"])["code"] == "setup"
    assert error(server, cmd="new", players=2, preset="nothing")["code"] == "setup"
    assert error(server, cmd="new", players=2, options={"no-such-option": True})["code"] == "setup"
    assert error(server, cmd="new", players=2, sections=["a", "b"])["code"] == "setup"
    assert error(server, cmd="new", players=2, player=2)["code"] == "bad_request"
    assert ask(server, cmd="games")["games"] == []  # nothing was opened by the failures
    for cmd in ("state", "legal", "play", "bot", "scores", "board", "save", "close"):
        request = {"cmd": cmd, "game": "g7"} | ({"move": "end"} if cmd == "play" else {})
        err = error(server, **request)
        assert err["code"] == "unknown_game" and "'g7'" in err["message"]
    assert error(server, cmd="targets", game="g7", action="build")["code"] == "unknown_game"

    mini.edit("rules.kb", "terrain(grass)", "terrain(gras)")
    err = error(server, cmd="rules", rules=str(mini.root))
    assert err["code"] == "rules"
    (diag,) = err["diagnostics"]
    assert (diag["file"], diag["line"], diag["column"]) == mini.diag_at("rules.kb", "gras)")
    assert diag["code"].startswith("E") and "gras" in diag["message"] and "gras" in err["message"]
    assert error(server, cmd="new", rules=str(mini.root), players=2)["code"] == "rules"
    assert error(server, cmd="rules", rules="no/such/folder")["code"] == "rules"


def test_shipped_only_servers_refuse_rule_folder_paths(mini):
    server = Server(allow_paths=False)
    assert ask(server, cmd="hello")["folders"] is False
    err = error(server, cmd="rules", rules=str(mini.root))
    assert err["code"] == "bad_request" and "only shipped" in err["message"]
    save = {
        "rules": str(mini.root),
        "setup": {"players": 2, "sections": {"main": ["one"]}, "cards": ["hermits"]},
        "log": [],
    }
    assert error(server, cmd="load", save=save)["code"] == "bad_request"
    assert ask(server, cmd="rules", rules="island")["name"] == "island"
    assert ask(Server(), cmd="load", save=save)["state"]["setup"]["cards"] == ["hermits"]


def test_load_replays_and_refuses_views_tampering_and_illegal_logs(server: Server, game: str):
    ask(server, cmd="bot", game=game, until="turn")
    save = ask(server, cmd="save", game=game)["save"]
    minimal = {k: save[k] for k in ("rules", "setup", "log")}
    assert ask(server, cmd="save", game=ask(server, cmd="load", save=minimal)["game"])["save"] == save

    view = ask(server, cmd="state", game=game, player=0)["state"]
    assert "a player's view" in error(server, cmd="load", save=view)["message"]
    tampered = json.loads(json.dumps(save))
    tampered["settlements"][0].append("0,0")
    assert "differs in settlements" in error(server, cmd="load", save=tampered)["message"]
    illegal = dict(minimal, log=[{"do": "end"}])
    assert "move 1 of the save's log" in error(server, cmd="load", save=illegal)["message"]
    assert error(server, cmd="load", save={"rules": "base"})["code"] == "bad_request"
    assert error(server, cmd="load", save=dict(minimal, rules="nowhere"))["code"] == "rules"
    assert len(ask(server, cmd="games")["games"]) == 2  # the game and one good load


# -- hidden information --------------------------------------------------------------------
def test_views_hide_other_hands_the_deck_order_and_the_seed(server: Server):
    new = ask(server, cmd="new", players=4, seed=11)
    gid, public = new["game"], new["state"]
    assert public["hand"] == [None] * 4 and public["viewer"] is None
    assert isinstance(public["deck"], int) and public["setup"]["seed"] is None
    full = ask(server, cmd="save", game=gid)["save"]
    assert all(isinstance(h, str) for h in full["hand"]) and full["setup"]["seed"] == 11
    for seat in range(4):
        view = ask(server, cmd="state", game=gid, player=seat)["state"]
        assert view["viewer"] == seat and view["hand"][seat] == full["hand"][seat]
        assert [h for p, h in enumerate(view["hand"]) if p != seat] == [None] * 3
        assert view["deck"] == len(full["deck"]) and view["setup"]["seed"] is None
    current = ask(server, cmd="bot", game=gid, until="turn", player="current")["state"]
    assert current["viewer"] == 1 and current["hand"][1] is not None and current["hand"][0] is None
    assert error(server, cmd="state", game=gid, player=4)["code"] == "bad_request"


# -- bots and determinism --------------------------------------------------------------------
def test_a_bot_game_played_to_the_end_by_bot_requests(server: Server):
    gid = ask(server, cmd="new", players=3, seed=5)["game"]
    moves = 0
    while True:
        result = ask(server, cmd="bot", game=gid, bot="random")
        assert len(result["played"]) == 1
        moves += 1
        if result["state"]["over"]:
            break
        assert moves < 2000
    scores = ask(server, cmd="scores", game=gid)
    assert scores["over"] and scores["winners"] == scores["leaders"]
    best = max(s["total"] for s in scores["scores"])
    assert scores["winners"] == [p for p, s in enumerate(scores["scores"]) if s["total"] == best]
    err = error(server, cmd="bot", game=gid)
    assert err["code"] == "illegal_move" and err["reason"] == "the game is over"
    assert error(server, cmd="play", game=gid, move="end")["code"] == "illegal_move"
    assert error(server, cmd="bot", game=gid, bot="oracle-of-delphi")["code"] == "bad_request"

    # The same game in one request: bots are seeded from the position, so the moves are the same.
    other = ask(server, cmd="new", players=3, seed=5)["game"]
    whole = ask(server, cmd="bot", game=other, bot="random", until="over")
    assert len(whole["played"]) == moves
    assert ask(server, cmd="save", game=other)["save"] == ask(server, cmd="save", game=gid)["save"]


def test_bot_turns_end_with_end_and_greedy_bots_play(server: Server, game: str):
    result = ask(server, cmd="bot", game=game, bot="greedy", until="turn")
    assert result["played"][-1] == {
        "player": 0,
        "move": {"do": "end"},
        "events": [{"event": "turn_ended", "player": 0}, {"event": "turn_started", "player": 1, "turn": 2}],
    }
    assert {p["player"] for p in result["played"]} == {0} and result["state"]["current"] == 1
    runs = []
    for seed in (1, 1):  # a fresh server each time: the same request gives the same turn
        s = Server()
        g = ask(s, **FIRST_GAME)["game"]
        runs.append(ask(s, cmd="bot", game=g, until="turn", seed=seed)["played"])
    assert runs[0] == runs[1]


def session_lines() -> list[str]:
    lines = [json.dumps(FIRST_GAME | {"id": 1})]
    lines += [json.dumps({"id": i, "cmd": "bot", "game": "g1", "bot": "random"}) for i in range(2, 40)]
    lines += ['{"id": 40, "cmd": "scores", "game": "g1"}', "oops", '{"id": 41, "cmd": "save", "game": "g1"}']
    return lines


def test_same_requests_same_responses():
    def run() -> list[str]:
        server = Server()
        return [server.handle_line(line) for line in session_lines()]

    assert run() == run()


# -- kbdsl serve -------------------------------------------------------------------------------
def test_kbdsl_serve_answers_line_by_line_and_survives_bad_lines():
    lines = [
        '{"id": 1, "cmd": "hello"}',
        "",
        "this is not json",
        '{"id": 2, "cmd": "dance"}',
        json.dumps(FIRST_GAME | {"id": 3, "player": 0}),
        '{"id": 4, "cmd": "play", "game": "g1", "move": "end"}',
        '{"id": 5, "cmd": "bot", "game": "g1", "until": "turn"}',
        '{"id": "last", "cmd": "scores", "game": "g1"}',
    ]
    data = "\n".join(lines).encode() + b"\n\xff\n" + '{"cmd": "caf\u00e9"}'.encode()  # no final newline
    proc = subprocess.run(
        [sys.executable, "-m", "kbdsl", "serve"], input=data, capture_output=True, cwd=ROOT, timeout=120, check=False
    )
    assert proc.returncode == 0 and proc.stderr == b""
    out = proc.stdout.decode("ascii").splitlines()
    responses = [json.loads(line) for line in out]
    for r in responses:
        valid(r, "response")
    assert [r["id"] for r in responses] == [1, None, 2, 3, 4, 5, "last", None, None]
    assert [r["ok"] for r in responses] == [True, False, False, True, False, True, True, False, False]
    assert responses[4]["error"]["code"] == "illegal_move" and responses[4]["error"]["rule"]
    assert responses[5]["result"]["played"][-1]["move"] == {"do": "end"}
    assert "caf\\u00e9" in out[-1]  # responses are ASCII
    # The same traffic through the in-process handler gives the same lines.
    server = Server()
    assert out[:7] == [r for r in map(server.handle_line, lines) if r is not None]


def test_kbdsl_serve_shipped_only():
    request = json.dumps({"id": 1, "cmd": "rules", "rules": str(ROOT / "rules" / "base")}) + "\n"
    proc = subprocess.run(
        [sys.executable, "-m", "kbdsl", "serve", "--shipped-only"],
        input=request.encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["error"]["code"] == "bad_request"


# -- the documentation -------------------------------------------------------------------------
ELLIPSIS = "..."


def doc_blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.M | re.S)


def doc_exchanges() -> list[tuple[str, Any]]:
    """(request line, expected response) of every protocol block, in document order."""
    out = []
    for block in doc_blocks("protocol"):
        request, _, response = block.partition("\n< ")
        assert request.startswith("> ") and "\n" not in request, block
        out.append((request[2:], json.loads(response)))
    return out


def matches(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Differences between a documented value and a real one ('...' marks left-out parts)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = [k for k in expected if k != ELLIPSIS]
        problems = [f"{where}/{k}: missing" for k in keys if k not in actual]
        if ELLIPSIS not in expected:
            problems += [f"{where}/{k}: not documented" for k in actual if k not in expected]
        for k in keys:
            if k in actual:
                problems += matches(expected[k], actual[k], f"{where}/{k}")
        return problems
    if isinstance(expected, list) and isinstance(actual, list):
        if expected and expected[-1] == ELLIPSIS:
            expected, actual = expected[:-1], actual[: len(expected) - 1]
        if len(expected) != len(actual):
            return [f"{where}: {len(actual)} items, documented {len(expected)}"]
        return [p for i, (e, a) in enumerate(zip(expected, actual, strict=True)) for p in matches(e, a, f"{where}/{i}")]
    return [] if expected == actual else [f"{where}: {actual!r}, documented {expected!r}"]


def test_matches_understands_left_out_parts():
    assert matches({"a": [1, 2, ELLIPSIS], ELLIPSIS: ELLIPSIS}, {"a": [1, 2, 3], "b": 0}) == []
    assert matches({"a": [1, ELLIPSIS]}, {"a": [1], "b": 0}) == ["/b: not documented"]
    assert matches({"a": [2, ELLIPSIS]}, {"a": [1, 2]}) == ["/a/0: 1, documented 2"]
    assert matches([1, 2], [1, 2, 3]) == [": 3 items, documented 2"]


def test_doc_examples_are_real(monkeypatch):
    monkeypatch.chdir(ROOT)  # paths in messages are relative to the working folder
    server = Server()
    exchanges = doc_exchanges()
    assert len(exchanges) >= 30
    for line, expected in exchanges:
        actual = json.loads(server.handle_line(line))
        valid(actual, "response")
        if actual["ok"]:
            request = json.loads(line)
            valid(request, "request")
            valid(actual["result"], f"{request['cmd']}_result")
            if request["cmd"] == "hello":
                expected["result"]["kbdsl"] = actual["result"]["kbdsl"]
        problems = matches(expected, actual)
        assert not problems, f"docs/protocol.md, request {line}:\n" + "\n".join(problems)


def test_doc_shows_every_method_and_error_code():
    exchanges = doc_exchanges()
    cmds = set()
    for line, _ in exchanges:
        with contextlib.suppress(ValueError):
            cmds.add(json.loads(line).get("cmd"))
    hello = Server().handle({"cmd": "hello"})["result"]
    assert set(hello["methods"]) <= cmds
    shown = {r["error"]["code"] for _, r in exchanges if not r["ok"]}
    text = DOC.read_text(encoding="utf-8")
    for code in hello["errors"]:
        assert f"| `{code}` |" in text, code
    assert set(hello["errors"]) - shown == {"internal"}  # the one error a session cannot show


def test_doc_python_client_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    (code,) = doc_blocks("python")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {})
    winners = json.loads(out.getvalue())
    assert winners and all(isinstance(p, int) for p in winners)
