"""The web table (kbdsl serve --http): seats and secrecy, pushes, bots, saves and restarts, bad input.

Most tests drive the ASGI app through Starlette's test client; the ones about sockets that
never read and about load run a real uvicorn server on loopback (tests/webserver.py).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from webserver import serving, token  # also skips this module without the web extra

from kbdsl.game import Game, Setup, replay  # noqa: E402
from kbdsl.protocol import validator  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402
from kbdsl.web.app import MAX_MESSAGE, create_app  # noqa: E402
from kbdsl.web.limits import Limits  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PEOPLE = [{"kind": "person"}, {"kind": "person"}]


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "data", bot_delay=0.0)) as c:
        yield c


def new_table(client, seats=PEOPLE, **setup) -> dict:
    reply = client.post("/api/tables", json={"rules": "base", "preset": "first-game", "seats": seats, **setup})
    assert reply.status_code == 201, reply.text
    return reply.json()


def ask(client, request, tok=None):
    headers = {"Authorization": f"Bearer {tok}"} if tok else {}
    return client.post("/api", json=request, headers=headers)


def state_of(client, table, tok=None) -> dict:
    reply = ask(client, {"cmd": "state", "game": table["table"]}, tok)
    assert reply.status_code == 200, reply.text
    return reply.json()["result"]["state"]


def saved(client, table) -> dict:
    """The engine's whole state of a table (seed and deck included): what no client may change or see."""
    tables = client.app.state.tables
    return tables.server.games[tables.get(table["table"]).game].to_json()


def first_build(client, table, tok) -> dict:
    moves = ask(client, {"cmd": "legal", "game": table["table"], "action": "build"}, tok).json()["result"]["moves"]
    return moves[0]


# -- seats and secrecy -----------------------------------------------------------------------------
def test_a_new_table_gives_each_person_an_unguessable_link_and_bots_none(client):
    t = new_table(client, [{"kind": "person"}, {"kind": "bot", "bot": "greedy"}, {"kind": "person"}])
    people = [s for s in t["seats"] if s["kind"] == "person"]
    assert [s["seat"] for s in people] == [0, 2] and "link" not in t["seats"][1]
    tokens = [token(s) for s in people]
    assert len(set(tokens)) == 2 and all(len(x) >= 32 for x in tokens)
    assert t["spectator"] == f"/t/{t['table']}" and len(t["table"]) >= 16
    other = new_table(client)
    assert other["table"] != t["table"] and not set(map(token, other["seats"])) & set(tokens)


def test_without_a_token_only_the_public_view_and_nothing_to_play(client):
    t = new_table(client)
    view = state_of(client, t)
    assert view["hand"] == [None, None] and isinstance(view["deck"], int) and view["setup"]["seed"] is None
    before = saved(client, t)
    for request in (
        {"cmd": "play", "game": t["table"], "move": "end"},
        {"cmd": "legal", "game": t["table"]},
        {"cmd": "targets", "game": t["table"], "action": "build"},
        {"cmd": "actions", "game": t["table"]},
    ):
        reply = ask(client, request)
        assert reply.status_code == 403 and reply.json()["error"]["code"] == "forbidden", request
    assert saved(client, t) == before


def test_a_seat_sees_its_own_card_and_plays_only_for_itself(client):
    t = new_table(client)
    me, other = token(t["seats"][0]), token(t["seats"][1])
    assert state_of(client, t, me)["hand"][1] is None and state_of(client, t, me)["hand"][0] is not None
    assert state_of(client, t, other)["hand"][0] is None
    before = saved(client, t)
    move = first_build(client, t, me)
    reply = ask(client, {"cmd": "play", "game": t["table"], "move": move}, other)
    assert reply.status_code == 403 and reply.json()["error"]["message"] == "it is seat 0's turn, not seat 1's"
    asking_for_another_view = ask(client, {"cmd": "state", "game": t["table"], "player": 0}, other)
    assert asking_for_another_view.status_code == 403
    wrong = ask(client, {"cmd": "play", "game": t["table"], "move": move}, "not-a-token")
    assert wrong.status_code == 403 and "not-a-token" not in wrong.text
    assert saved(client, t) == before
    played = ask(client, {"cmd": "play", "game": t["table"], "move": move}, me).json()
    assert played["ok"] and played["result"]["game"] == t["table"] and played["result"]["state"]["viewer"] == 0


def test_server_side_methods_are_refused_over_the_web(client):
    t = new_table(client)
    before = saved(client, t)
    for cmd in ("save", "bot", "close", "games", "new", "load"):
        reply = ask(client, {"cmd": cmd, "game": t["table"]}, token(t["seats"][0]))
        assert reply.status_code == 403 and reply.json()["error"]["code"] == "forbidden", cmd
    assert saved(client, t) == before


def test_no_secret_in_public_answers_pushes_errors_or_logs(client, caplog):
    caplog.set_level(logging.DEBUG)
    t = new_table(client, [{"kind": "person"}, {"kind": "bot", "bot": "random"}])
    me = token(t["seats"][0])
    full = saved(client, t)
    secrets_ = [me, str(full["setup"]["seed"])]
    public = [
        client.get(f"/api/tables/{t['table']}").text,
        ask(client, {"cmd": "state", "game": t["table"]}).text,
        ask(client, {"cmd": "scores", "game": t["table"]}).text,
        ask(client, {"cmd": "play", "game": t["table"], "move": "end"}).text,
        ask(client, {"cmd": "play", "game": t["table"], "move": "end"}, me).text,
        ask(client, {"cmd": "state", "game": "nope"}, me).text,
        client.get(f"/api/tables/{t['table']}/replay?step=0").text,
    ]
    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        ws.send_text(json.dumps({"join": None}))
        public.append(ws.receive_text())
    hidden_deck = json.dumps(full["deck"][:6])[1:-1]
    for text in public:
        for secret in secrets_:
            assert secret not in text
        assert hidden_deck not in text
    assert not any(s in r.getMessage() for r in caplog.records for s in secrets_)


def test_saves_on_disk_are_for_the_owner_only_and_hold_no_temporary_files(client, tmp_path):
    t = new_table(client)
    path = tmp_path / "data" / f"{t['table']}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


# -- pushes ------------------------------------------------------------------------------------
def test_a_move_is_pushed_live_to_the_other_seat_and_spectators_without_the_hand(client):
    t = new_table(client)
    me, other = token(t["seats"][0]), token(t["seats"][1])
    with (
        client.websocket_connect(f"/ws/{t['table']}") as ws0,
        client.websocket_connect(f"/ws/{t['table']}") as ws1,
        client.websocket_connect(f"/ws/{t['table']}") as spy,
    ):
        for ws, tok in ((ws0, me), (ws1, other), (spy, None)):
            ws.send_text(json.dumps({"join": tok}))
        first = [json.loads(ws.receive_text()) for ws in (ws0, ws1, spy)]
        for m in first:
            assert not [e.message for e in validator("push").iter_errors(m)]
        assert [m["seat"] for m in first] == [0, 1, None]
        assert "legal" in first[0] and "legal" not in first[1] and "legal" not in first[2]
        move = first[0]["legal"][0]
        ws0.send_text(json.dumps({"id": 1, "cmd": "play", "move": move}))
        pushed = [json.loads(ws1.receive_text()), json.loads(spy.receive_text())]
        for m in pushed:
            assert m["version"] == 1 and m["played"][0]["move"] == move and m["state"]["hand"][0] is None
            assert move["to"] in m["state"]["settlements"][0]
        mine = [json.loads(ws0.receive_text()) for _ in range(2)]
        assert mine[0]["push"] == "update" and mine[0]["state"]["hand"][0] is not None
        assert mine[1] == {**mine[1], "id": 1, "ok": True}


def test_a_socket_must_name_its_seat_first_and_a_bad_token_is_closed(client):
    t = new_table(client)
    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        ws.send_text(json.dumps({"join": "forged"}))
        reply = json.loads(ws.receive_text())
        assert reply["error"]["code"] == "forbidden" and "forged" not in json.dumps(reply)
    with client.websocket_connect("/ws/no-such-table") as ws:
        assert json.loads(ws.receive_text())["error"]["code"] == "unknown_game"


# -- bots -------------------------------------------------------------------------------------------
def test_bot_seats_play_on_the_server_to_the_end(client):
    t = new_table(client, [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "greedy"}])
    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        ws.send_text(json.dumps({"join": None}))
        versions = []
        while True:
            m = json.loads(ws.receive_text())
            versions.append(m["version"])
            if m["state"]["over"]:
                break
    assert versions == sorted(versions) and len(versions) > 50
    final = saved(client, t)
    rules = load("base")
    again = replay(Game(rules, Setup.from_json(final["setup"], rules)), final["log"])
    assert again.to_json() == final and m["scores"]["scores"] == again.scores()


def test_a_bot_answers_a_person_after_the_delay(tmp_path):
    delay = 0.5
    with TestClient(create_app(None, bot_delay=delay)) as client:
        t = new_table(client, [{"kind": "person"}, {"kind": "bot", "bot": "random"}])
        me = token(t["seats"][0])
        for _ in range(3):
            ask(client, {"cmd": "play", "game": t["table"], "move": first_build(client, t, me)}, me)
        start = time.monotonic()
        ask(client, {"cmd": "play", "game": t["table"], "move": "end"}, me)
        while len(state_of(client, t)["log"]) == 4:
            assert time.monotonic() - start < 60, "the bot never moved"
            time.sleep(0.02)
        assert time.monotonic() - start >= delay  # the bot waited before its move
        while state_of(client, t)["current"] == 1:
            assert time.monotonic() - start < 60, "the bot never finished its turn"
            time.sleep(0.05)


# -- saves and restarts -----------------------------------------------------------------------------
def test_a_restart_restores_every_open_table_from_its_save(tmp_path):
    data = tmp_path / "data"
    with TestClient(create_app(data, bot_delay=0.0)) as client:
        t = new_table(client)
        bots = new_table(client, [{"kind": "person"}, {"kind": "bot", "bot": "random"}])
        me = token(t["seats"][0])
        for _ in range(3):
            ask(client, {"cmd": "play", "game": t["table"], "move": first_build(client, t, me)}, me)
        before, seen = saved(client, t), state_of(client, t, me)
        (data / "garbage.json").write_text("{not json")
    with TestClient(create_app(data, bot_delay=0.0)) as client:
        assert saved(client, t) == before and state_of(client, t, me) == seen
        ask(client, {"cmd": "play", "game": t["table"], "move": "end"}, me)  # the same token still plays
        assert state_of(client, t)["current"] == 1
        assert client.get(f"/api/tables/{bots['table']}").status_code == 200


def test_the_save_is_written_after_every_move(client, tmp_path):
    t = new_table(client)
    me = token(t["seats"][0])
    path = tmp_path / "data" / f"{t['table']}.json"
    for n in range(1, 4):
        ask(client, {"cmd": "play", "game": t["table"], "move": first_build(client, t, me)}, me)
        doc = json.loads(path.read_text())
        assert len(doc["save"]["log"]) == n and doc["version"] == n


# -- replay ------------------------------------------------------------------------------------------
def test_replay_shows_the_public_position_after_each_move(client):
    t = new_table(client, [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}])
    while not state_of(client, t)["over"]:
        time.sleep(0.05)
    final = saved(client, t)
    rules = load("base")
    game = Game(rules, Setup.from_json(final["setup"], rules))
    for step in (0, 1, 17, len(final["log"])):
        r = client.get(f"/api/tables/{t['table']}/replay?step={step}").json()
        expected = replay(game, final["log"][:step])
        assert r["step"] == step and r["steps"] == len(final["log"])
        assert r["state"] == expected.view(None) and r["scores"] == expected.scores()
    assert client.get(f"/api/tables/{t['table']}/replay?step=-1").status_code == 400


# -- bad input -------------------------------------------------------------------------------------------
def test_bad_requests_get_clear_errors_and_change_nothing(client):
    t, u = new_table(client), new_table(client)
    me = token(t["seats"][0])
    before = saved(client, t), saved(client, u)
    cases = [
        (client.post("/api", content=b"{not json", headers={"Authorization": f"Bearer {me}"}), 400, "not JSON"),
        (ask(client, {"cmd": "dance", "game": t["table"]}, me), 400, "unknown cmd 'dance'"),
        (ask(client, {"cmd": "state", "game": "g1"}, me), 404, "no open table"),
        (ask(client, {"cmd": "play", "game": t["table"], "move": "end"}, me), 409, "mandatory action is not finished"),
        (ask(client, {"cmd": "play", "game": t["table"], "move": {"do": "build"}}, me), 409, ""),
        (client.post("/api", content=b"[" * 10_000), 400, "not JSON"),
        (client.post("/api/tables", json={"rules": "../../etc", "seats": PEOPLE}), 400, "unknown rule set"),
        (client.post("/api/tables", json={"seats": [{"kind": "bot", "bot": "skynet"}]}), 400, "unknown bot"),
        (client.post("/api/tables", json={"seats": PEOPLE, "seed": 1}), 400, "unknown field 'seed'"),
        (client.post("/api/tables", json={"seats": PEOPLE * 3}), 422, "2 to 4 players"),
    ]
    for reply, status, words in cases:
        assert reply.status_code == status, reply.text
        error = reply.json()["error"]
        assert words in error["message"] and "Traceback" not in reply.text
    assert (saved(client, t), saved(client, u)) == before


def test_a_ten_megabyte_message_is_refused_over_http_and_closes_the_socket(client):
    t = new_table(client)
    me = token(t["seats"][0])
    before = saved(client, t)
    big = json.dumps({"cmd": "play", "game": t["table"], "move": {"do": "build", "to": "1" + " " * 10_000_000}})
    reply = client.post("/api", content=big.encode(), headers={"Authorization": f"Bearer {me}"})
    assert reply.status_code == 413 and reply.json()["error"]["code"] == "too_large"
    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        ws.send_text(json.dumps({"join": me}))
        json.loads(ws.receive_text())
        ws.send_text(big)
        assert json.loads(ws.receive_text())["error"]["code"] == "too_large"
        with pytest.raises(Exception):  # noqa: B017  (the server closed the socket)
            ws.receive_text()
    assert saved(client, t) == before
    assert len(big) > MAX_MESSAGE


def test_a_socket_that_never_reads_is_closed_and_the_game_goes_on(tmp_path):
    with serving(None, bot_delay=0.0, ws_ping_interval=0.5, ws_ping_timeout=0.5) as (url, app):
        host, port = url.removeprefix("http://").split(":")
        body = json.dumps({"seats": [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]}).encode()
        json_type = {"Content-Type": "application/json"}
        created = urllib.request.urlopen(urllib.request.Request(f"{url}/api/tables", body, json_type, method="POST"))
        table = json.load(created)["table"]
        silent = socket.create_connection((host, int(port)))
        silent.sendall(
            f"GET /ws/{table} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        frame = b'{"join": null}'
        silent.sendall(bytes([0x81, 0x80 | len(frame)]) + b"\0\0\0\0" + frame)  # masked with a zero key
        live, tables = app.state.live, app.state.tables
        deadline = time.monotonic() + 60
        while not tables.server.games[tables.get(table).game].over or live.sockets[table]:
            assert time.monotonic() < deadline, "the game stalled or the silent socket was kept"
            time.sleep(0.1)
        silent.close()


# -- the command and the load test ------------------------------------------------------------------------
def test_kbdsl_serve_http_serves_the_new_game_page(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "kbdsl", "serve", "--http", "--port", str(port), "--data", str(tmp_path / "d")]
    server = subprocess.Popen(
        cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/").read().decode()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.2)
        assert "<title>kbdsl: the lobby</title>" in page and "/static/new.js" in page and 'id="setup"' in page
    finally:
        server.terminate()
        server.wait(30)


def test_fifty_concurrent_bot_games_over_websockets_end_without_errors_or_cross_talk():
    spec = importlib.util.spec_from_file_location("load_web", ROOT / "tools" / "load_web.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    with serving(None, bot_delay=0.0, limits=Limits(per_client=50)) as (url, app):  # one client, 50 tables
        report = tool.run(url, games=50, seed=1)
        tables = app.state.tables
        assert report["errors"] == [] and report["finished"] == 50
        for table_id, final in report["final"].items():
            state = tables.server.games[tables.get(table_id).game]
            assert state.over and final == state.view(0)  # each client saw its own game's end, no other
            again = replay(state.game, final["log"])
            assert again.to_json() == state.to_json()


# -- undo and the board picture ------------------------------------------------------------------------
def test_a_seat_takes_back_its_own_build_and_only_its_own(client):
    t = new_table(client)
    me, other = token(t["seats"][0]), token(t["seats"][1])
    nothing = ask(client, {"cmd": "undo", "game": t["table"]}, me)
    assert nothing.status_code == 409 and nothing.json()["error"]["reason"] == "you have made no move this turn"
    before = saved(client, t)
    move = first_build(client, t, me)
    ask(client, {"cmd": "play", "game": t["table"], "move": move}, me)
    assert ask(client, {"cmd": "undo", "game": t["table"]}, other).status_code == 403
    assert ask(client, {"cmd": "undo", "game": t["table"]}).status_code == 403
    reply = ask(client, {"cmd": "undo", "game": t["table"]}, me).json()
    assert reply["result"]["undone"] == move and reply["result"]["state"]["viewer"] == 0
    assert saved(client, t) == before


def test_the_board_picture_is_the_svg_drawing_of_the_position_or_a_replayed_step(client):
    t = new_table(client)
    me = token(t["seats"][0])
    move = first_build(client, t, me)
    ask(client, {"cmd": "play", "game": t["table"], "move": move}, me)
    now = client.get(f"/api/tables/{t['table']}/board.svg")
    assert now.status_code == 200 and now.headers["content-type"].startswith("image/svg+xml")
    assert f'<g class="piece" data-hex="{move["to"]}" data-kind="settlement" data-player="0">' in now.text
    assert f'class="last-mark" data-hex="{move["to"]}"' in now.text
    start = client.get(f"/api/tables/{t['table']}/board.svg?step=0").text
    assert 'class="piece"' not in start and start.count('class="hex') == now.text.count('class="hex')
    assert client.get(f"/api/tables/{t['table']}/board.svg?step=x").status_code == 400


def test_web_answers_are_protocol_responses(client):
    t = new_table(client)
    me = token(t["seats"][0])
    answers = [
        ask(client, {"cmd": "hello"}),
        ask(client, {"cmd": "state", "game": t["table"]}, me),
        ask(client, {"cmd": "actions", "game": t["table"]}, me),
        ask(client, {"cmd": "play", "game": t["table"], "move": "end"}, me),
        ask(client, {"cmd": "play", "game": t["table"], "move": "end"}),
        client.post("/api", content=b"x" * (MAX_MESSAGE + 1)),
    ]
    for reply in answers:
        errors = [e.message for e in validator("response").iter_errors(reply.json())]
        assert not errors, (reply.text[:200], errors)


def test_bad_messages_on_a_socket_are_answered_and_the_socket_stays(client):
    t = new_table(client)
    me = token(t["seats"][0])
    before = saved(client, t)
    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        ws.send_text(json.dumps({"join": me}))
        json.loads(ws.receive_text())
        ws.send_text("{not json")
        assert "not JSON" in json.loads(ws.receive_text())["error"]["message"]
        ws.send_text(json.dumps({"id": 7, "cmd": "dance"}))
        assert json.loads(ws.receive_text())["error"]["message"].startswith("unknown cmd 'dance'")
        ws.send_text(json.dumps({"id": 8, "cmd": "save"}))
        assert json.loads(ws.receive_text())["error"]["code"] == "forbidden"
        ws.send_text(json.dumps({"id": 9, "cmd": "state"}))
        assert json.loads(ws.receive_text())["result"]["state"]["viewer"] == 0
    assert saved(client, t) == before


def test_bots_go_on_after_a_restart(tmp_path):
    data = tmp_path / "data"
    with TestClient(create_app(data, bot_delay=3600)) as client:  # the bots wait: the server stops first
        t = new_table(client, [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}])
        assert state_of(client, t)["log"] == []
    with TestClient(create_app(data, bot_delay=0.0)) as client:
        deadline = time.monotonic() + 60
        while not state_of(client, t)["over"]:
            assert time.monotonic() < deadline, "the restored table's bots did not play"
            time.sleep(0.05)


def test_a_move_that_cannot_be_saved_is_refused_taken_back_and_logged(client, tmp_path, caplog):
    t = new_table(client)
    me = token(t["seats"][0])
    path = tmp_path / "data" / f"{t['table']}.json"
    path.unlink()
    path.mkdir()  # a folder in the save's place: no rename can replace it, even as root
    (path / "keep").write_text("")
    before = saved(client, t)
    move = first_build(client, t, me)
    reply = ask(client, {"cmd": "play", "game": t["table"], "move": move}, me)
    assert reply.status_code == 503 and reply.json()["error"]["code"] == "unavailable"
    assert "could not be saved" in reply.json()["error"]["message"] and saved(client, t) == before
    assert any("could not be saved" in r.getMessage() for r in caplog.records)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left behind
    (path / "keep").unlink()
    path.rmdir()  # the disk can be written again: the same move is made and saved
    assert ask(client, {"cmd": "play", "game": t["table"], "move": move}, me).json()["ok"]
    assert json.loads(path.read_text())["save"]["log"] == [move]


def test_serve_http_without_the_web_extra_says_how_to_get_it(capsys, monkeypatch):
    from kbdsl.cli import main

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the web extra were not installed
    assert main(["serve", "--http"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == 'kbdsl serve --http needs the web extra: python3 -m pip install ".[web]" in the kbdsl folder'
    )


def test_the_history_gives_every_move_with_its_seat_and_events_as_play_reported_them(client):
    t = new_table(client, [{"kind": "person"}, {"kind": "bot", "bot": "random"}])
    me = token(t["seats"][0])
    reported = []
    for _ in range(3):
        reply = ask(client, {"cmd": "play", "game": t["table"], "move": first_build(client, t, me)}, me).json()
        reported += reply["result"]["played"]
    history = client.get(f"/api/tables/{t['table']}/history").json()
    assert history["played"][:3] == reported and history["version"] >= 3
    log = saved(client, t)["log"]
    assert [x["move"] for x in history["played"]] == log[: len(history["played"])]
