"""The web table under abuse (issue 20, items 4 to 10): one numbered group of tests per item.

4 a flooding socket stalls nobody; 5 table creation cannot be locked; 6 lone surrogates get
protocol errors; 7 tampered saves are set aside; 8 no move is acknowledged unless saved; 9 a
crash's temporary files are removed; 10 every response has the security headers. Every wait is
bounded by a timeout and every assertion is about behaviour, never about how long something took.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import http.client
import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from webserver import serving, token  # also skips this module without the web extra

import websockets  # noqa: E402
from kbdsl.protocol import Server, serve, validator  # noqa: E402
from kbdsl.web import app as web_app  # noqa: E402
from kbdsl.web import store  # noqa: E402
from kbdsl.web.app import SECURITY, create_app  # noqa: E402
from kbdsl.web.limits import Limits  # noqa: E402
from kbdsl.web.tables import Tables  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PEOPLE = [{"kind": "person"}, {"kind": "person"}]
BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
BOUND = 60.0  # seconds any wait below may take before the test fails


def new_table(client, seats=PEOPLE) -> dict:
    reply = client.post("/api/tables", json={"rules": "base", "preset": "first-game", "seats": seats})
    assert reply.status_code == 201, reply.text
    return reply.json()


def ask(client, request, tok=None):
    return client.post("/api", json=request, headers={"Authorization": f"Bearer {tok}"} if tok else {})


def first_build(client, table, tok) -> dict:
    reply = ask(client, {"cmd": "legal", "game": table["table"], "action": "build"}, tok)
    return reply.json()["result"]["moves"][0]


def is_response(body: dict) -> bool:
    return not list(validator("response").iter_errors(body))


def post(url: str, path: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    """An HTTP POST from another client (urllib, in the calling thread), bounded by a timeout."""
    request = urllib.request.Request(
        url + path, json.dumps(body).encode(), {"Content-Type": "application/json", **(headers or {})}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=BOUND) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


# -- 4: one socket must not stall everyone -----------------------------------------------------------
def test_4_a_socket_flooding_board_requests_does_not_hold_another_clients_hello():
    """The server answers the other client's hello while it still has the flood's requests to answer."""
    flood = 200
    with serving(None, limits=Limits(costly_burst=10 * flood)) as (url, app):  # no ration here: fairness alone
        _, table = post(url, "/api/tables", {"seats": PEOPLE})
        tables, handled = app.state.tables, []
        answer = tables.request

        def recording(tok, request):  # the order in which the server handles requests
            handled.append(request.get("cmd") if isinstance(request, dict) else None)
            return answer(tok, request)

        tables.request = recording

        async def run() -> dict:
            async with websockets.connect(f"{url.replace('http', 'ws', 1)}/ws/{table['table']}", max_size=2**24) as ws:
                await ws.send(json.dumps({"join": None}))
                await asyncio.wait_for(ws.recv(), BOUND)
                for i in range(flood):
                    await ws.send(json.dumps({"id": i, "cmd": "board"}))
                first = json.loads(await asyncio.wait_for(ws.recv(), BOUND))  # the flood is being answered
                assert first["id"] == 0 and first["ok"]
                _, hello = await asyncio.wait_for(asyncio.to_thread(post, url, "/api", {"cmd": "hello"}), BOUND)
                for _ in range(flood - 1):
                    assert json.loads(await asyncio.wait_for(ws.recv(), BOUND))["ok"]
                return hello

        hello = asyncio.run(run())
    assert hello["ok"] and hello["result"]["protocol"] == 1
    assert handled.count("board") == flood and "board" in handled[handled.index("hello") :]  # not after the flood


def test_4_a_client_pipelining_400_requests_gets_every_answer_in_order():
    """Its own answers wait for it to read (half the socket's queue), instead of closing the socket."""
    with serving(None) as (url, _):
        _, table = post(url, "/api/tables", {"seats": PEOPLE})

        async def run() -> list[int]:
            async with websockets.connect(f"{url.replace('http', 'ws', 1)}/ws/{table['table']}") as ws:
                await ws.send(json.dumps({"join": None}))
                await asyncio.wait_for(ws.recv(), BOUND)
                for i in range(400):
                    await ws.send(json.dumps({"id": i, "cmd": "state"}))
                ids = []
                while len(ids) < 400:
                    answer = json.loads(await asyncio.wait_for(ws.recv(), BOUND))
                    assert answer["ok"], answer
                    ids.append(answer["id"])
                return ids

        assert asyncio.run(run()) == list(range(400))


def test_4_costly_requests_are_rationed_per_socket_and_per_client_address_and_cheap_ones_are_not():
    limits = Limits(costly_burst=3, costly_rate=1e-6)  # no refill within the test
    with TestClient(create_app(None, 0.0, limits)) as client:
        t = new_table(client)
        with client.websocket_connect(f"/ws/{t['table']}") as ws:
            ws.send_text(json.dumps({"join": None}))
            ws.receive_text()
            for i in range(8):
                ws.send_text(json.dumps({"id": i, "cmd": "board"}))
            answers = [json.loads(ws.receive_text()) for _ in range(8)]
            assert [a["ok"] for a in answers] == [True] * 3 + [False] * 5
            assert {a["error"]["code"] for a in answers[3:]} == {"rate_limited"}
            assert [a["id"] for a in answers] == list(range(8)) and all(map(is_response, answers))
            ws.send_text(json.dumps({"id": 9, "cmd": "state"}))
            assert json.loads(ws.receive_text())["ok"]  # the socket stays, cheap requests go on
        http = [ask(client, {"id": i, "cmd": "board", "game": t["table"]}) for i in range(4)]
        assert [r.status_code for r in http] == [200, 200, 200, 429]
        assert http[3].json()["error"]["code"] == "rate_limited" and http[3].json()["id"] == 3
        for rationed in ("board.svg?step=0", "replay?step=0", "history"):  # the same client's share
            assert client.get(f"/api/tables/{t['table']}/{rationed}").status_code == 429, rationed
        now = [client.get(f"/api/tables/{t['table']}/board.svg") for _ in range(5)]  # drawn once per version
        assert [r.status_code for r in now] == [200] * 5 and len({r.text for r in now}) == 1
        assert ask(client, {"cmd": "hello"}).status_code == 200
        with TestClient(client.app, client=("192.0.2.7", 1)) as other:  # another address has its own share
            assert ask(other, {"cmd": "board", "game": t["table"]}).status_code == 200


def test_4_the_picture_every_page_asks_for_after_a_push_follows_each_move(tmp_path):
    with TestClient(create_app(tmp_path / "data", 0.0)) as client:
        t = new_table(client)
        me = token(t["seats"][0])
        picture = f"/api/tables/{t['table']}/board.svg"
        before = client.get(picture).text
        move = first_build(client, t, me)
        ask(client, {"cmd": "play", "game": t["table"], "move": move}, me)
        after = client.get(picture).text
        assert 'class="piece"' not in before and f'data-hex="{move["to"]}" data-kind="settlement"' in after
        ask(client, {"cmd": "undo", "game": t["table"]}, me)
        assert client.get(picture).text == before


# -- 5: nobody can lock table creation -----------------------------------------------------------------
def test_5_tables_are_created_with_json_from_the_servers_own_origin_only():
    limits = Limits(origins=("https://table.example",))
    with TestClient(create_app(None, 0.0, limits)) as client:
        body = json.dumps({"seats": PEOPLE})
        tables = client.app.state.tables.tables
        plain = client.post("/api/tables", content=body, headers={"Content-Type": "text/plain"})
        assert plain.status_code == 415 and plain.json()["error"]["code"] == "bad_request" and is_response(plain.json())
        evil = {"Content-Type": "application/json", "Origin": "https://evil.example"}
        cross = client.post("/api/tables", content=body, headers=evil)
        assert cross.status_code == 403 and cross.json()["error"]["code"] == "forbidden" and not tables
        for origin in ("http://testserver", "https://table.example"):
            ok = client.post(
                "/api/tables", content=body, headers={"Content-Type": "application/json", "Origin": origin}
            )
            assert ok.status_code == 201, ok.text
        assert len(tables) == 2
        t = ok.json()["table"]
        with pytest.raises(WebSocketDisconnect), client.websocket_connect(f"/ws/{t}", headers={"Origin": "null"}):
            pass
        with client.websocket_connect(f"/ws/{t}", headers={"Origin": "http://testserver"}) as ws:
            ws.send_text(json.dumps({"join": None}))
            assert json.loads(ws.receive_text())["push"] == "update"


def test_5_one_client_address_holds_only_its_share_of_open_tables():
    with TestClient(create_app(None, 0.0, Limits(per_client=2))) as client:
        new_table(client), new_table(client)
        third = client.post("/api/tables", json={"seats": PEOPLE})
        assert third.status_code == 429 and third.json()["error"]["code"] == "rate_limited"
        with TestClient(client.app, client=("192.0.2.8", 1)) as other:
            assert other.post("/api/tables", json={"seats": PEOPLE}).status_code == 201


def test_5_a_full_server_answers_503_and_recovers_by_itself_freeing_the_files(tmp_path):
    data = tmp_path / "data"
    limits = Limits(max_tables=2, idle_timeout=0.5, finished_timeout=0.5)
    with TestClient(create_app(data, 0.0, limits)) as client:
        first = [new_table(client)["table"], new_table(client)["table"]]
        assert sorted(p.stem for p in data.glob("*.json")) == sorted(first)
        full = client.post("/api/tables", json={"seats": PEOPLE})
        assert full.status_code == 503 and full.json()["error"]["code"] == "unavailable" and is_response(full.json())
        deadline = time.monotonic() + BOUND
        while (reply := client.post("/api/tables", json={"seats": PEOPLE})).status_code == 503:
            assert time.monotonic() < deadline, "the idle tables never closed"
            time.sleep(0.05)
        assert reply.status_code == 201
        while any(client.get(f"/api/tables/{table}").status_code != 404 for table in first):
            assert time.monotonic() < deadline, "an idle table was never closed"
            time.sleep(0.05)
        assert not any((data / f"{table}.json").exists() for table in first)


def test_5_a_finished_table_closes_after_its_time_and_an_unfinished_one_stays(tmp_path):
    data = tmp_path / "data"
    with TestClient(create_app(data, 0.0, Limits(finished_timeout=0.2))) as client:
        bots, people = new_table(client, BOTS)["table"], new_table(client)["table"]
        deadline = time.monotonic() + BOUND
        while client.get(f"/api/tables/{bots}").status_code == 200:
            assert time.monotonic() < deadline, "the finished table was never closed"
            time.sleep(0.05)
        assert not (data / f"{bots}.json").exists()
        assert client.get(f"/api/tables/{people}").status_code == 200 and (data / f"{people}.json").exists()


def test_5_a_table_idle_before_a_restart_closes_after_it(tmp_path):
    data = tmp_path / "data"
    with TestClient(create_app(data, 0.0)) as client:
        t = new_table(client)["table"]
    path = data / f"{t}.json"
    doc = json.loads(path.read_text())
    assert doc["touched"] > 0
    path.write_text(json.dumps({**doc, "touched": doc["touched"] - 7200}))  # two hours without a move
    with TestClient(create_app(data, 0.0, Limits(idle_timeout=3600))) as client:
        deadline = time.monotonic() + BOUND
        while client.get(f"/api/tables/{t}").status_code == 200:
            assert time.monotonic() < deadline, "the idle table was never closed"
            time.sleep(0.05)
        assert not path.exists()


def test_5_the_limits_are_options_of_serve_http(capsys):
    from kbdsl.cli import main

    assert main(["serve", "--http", "--idle-timeout", "0"]) == 2
    assert capsys.readouterr().err.strip() == "--idle-timeout: a number of seconds, more than 0"
    assert main(["serve", "--http", "--tables-per-client", "0"]) == 2
    assert capsys.readouterr().err.strip() == "--tables-per-client: a number of tables, 1 or more"


# -- 6: lone surrogates ------------------------------------------------------------------------------------
LONE = "\\ud800"  # as JSON text: a backslash escape of half a surrogate pair


def test_6_lone_surrogates_anywhere_in_a_web_request_get_a_bad_request_response(tmp_path):
    with TestClient(create_app(tmp_path / "data", 0.0)) as client:
        t = new_table(client)
        me, table = token(t["seats"][0]), t["table"]
        before = client.app.state.tables.server.games[client.app.state.tables.get(table).game].to_json()
        bodies = [
            f'{{"id": "{LONE}", "cmd": "hello"}}',
            f'{{"id": 1, "cmd": "play", "game": "{table}", "move": "{LONE}"}}',
            f'{{"id": 2, "cmd": "play", "game": "{table}", "move": {{"do": "build", "to": "{LONE}"}}}}',
            f'{{"id": 3, "cmd": "state", "game": "{LONE}"}}',
            f'{{"cmd": "hello", "{LONE}": 1}}',
        ]
        for body in bodies:
            reply = client.post("/api", content=body, headers={"Authorization": f"Bearer {me}"})
            assert reply.status_code == 400 and is_response(reply.json()), (body, reply.text)
            assert reply.json()["error"]["code"] == "bad_request" and "surrogate" in reply.json()["error"]["message"]
        created = client.post(
            "/api/tables", content=f'{{"rules": "{LONE}", "seats": []}}', headers={"Content-Type": "application/json"}
        )
        assert created.status_code == 400 and is_response(created.json())
        with client.websocket_connect(f"/ws/{table}") as ws:
            ws.send_text(f'{{"join": "{LONE}"}}')
            assert json.loads(ws.receive_text())["error"]["code"] == "bad_request"
        with client.websocket_connect(f"/ws/{table}") as ws:
            ws.send_text(json.dumps({"join": me}))
            ws.receive_text()
            ws.send_text(bodies[2])
            answer = json.loads(ws.receive_text())
            assert answer["error"]["code"] == "bad_request" and is_response(answer)
            ws.send_text(json.dumps({"id": 4, "cmd": "state"}))
            assert json.loads(ws.receive_text())["ok"]  # the socket stays
        assert client.app.state.tables.server.games[client.app.state.tables.get(table).game].to_json() == before


def test_6_lone_surrogates_on_stdin_get_a_bad_request_line_and_the_loop_goes_on():
    lines = [
        f'{{"id": "{LONE}", "cmd": "hello"}}',
        f'{{"cmd": "rules", "rules": "{LONE}"}}',
        '{"id": 3, "cmd": "hello"}',
    ]
    out = io.StringIO()
    assert serve(io.BytesIO("\n".join(lines).encode() + b"\n"), out, Server()) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["ok"] for a in answers] == [False, False, True] and all(map(is_response, answers))
    assert {a["error"]["code"] for a in answers[:2]} == {"bad_request"}
    done = subprocess.run(
        [sys.executable, "-m", "kbdsl", "serve"], input=lines[0] + "\n", capture_output=True, text=True, timeout=BOUND
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "bad_request"


# -- 7: tampered files in --data --------------------------------------------------------------------
def test_7_tampered_saves_are_set_aside_with_the_reason_and_the_rest_restored(tmp_path, caplog):
    data = tmp_path / "data"
    with TestClient(create_app(data, 0.0)) as client:
        t = new_table(client)
        me = token(t["seats"][0])
        ask(client, {"cmd": "play", "game": t["table"], "move": first_build(client, t, me)}, me)
    good = json.loads((data / f"{t['table']}.json").read_text())

    def tampered(name: str, **change) -> None:
        (data / f"{name}.json").write_text(json.dumps({**good, "table": name, **change}))

    (data / "deepdeepdeep.json").write_text("[" * 200_000 + "]" * 200_000)
    seats = good["seats"]
    tampered("tokenisint", seats=[{**seats[0], "token": 12345}, seats[1]])
    tampered("tokenislist", seats=[{**seats[0], "token": [me]}, seats[1]])
    tampered("versionstring", version="3")
    tampered("unknownbot", seats=[seats[0], {"kind": "bot", "bot": "skynet", "token": None}])
    tampered("threeseats", seats=[*seats, seats[0]])
    tampered("notitsname", table="somethingelse")
    (data / "notjsonatall.json").write_text("{not json")
    bad = ["deepdeepdeep", "tokenisint", "tokenislist", "versionstring", "unknownbot", "threeseats", "notitsname"]
    bad.append("notjsonatall")
    caplog.set_level(logging.WARNING)
    with TestClient(create_app(data, 0.0)) as client:
        assert list(client.app.state.tables.tables) == [t["table"]]
        assert (
            ask(client, {"cmd": "state", "game": t["table"]}, me).json()["result"]["state"]["log"]
            == good["save"]["log"]
        )
    assert sorted(p.name for p in data.iterdir()) == sorted(
        [f"{t['table']}.json", *(f"{n}.json.rejected" for n in bad)]
    )
    logged = [r.getMessage() for r in caplog.records]
    for name in bad:
        line = next(m for m in logged if m.startswith(f"{name}.json was not restored"))
        assert f"set aside as {name}.json.rejected: " in line and "Traceback" not in line
    assert me not in " ".join(logged)  # the reason never quotes a token
    why = {name: next(m for m in logged if m.startswith(f"{name}.json ")).split(": ", 1)[1] for name in bad}
    assert "not JSON" in why["deepdeepdeep"] and "unknown bot 'skynet'" in why["unknownbot"]
    assert why["versionstring"].startswith("version: ") and why["tokenisint"].startswith("seats/0/token: ")
    assert why["tokenislist"].startswith("seats/0/token: ")
    assert "3 seats for a game of 2" in why["threeseats"] and "not the one its name says" in why["notitsname"]


# -- 8: never acknowledge a move that is not saved ----------------------------------------------------
FSIZE_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    from kbdsl.web.tables import Tables

    data = Path(sys.argv[1])
    tables = Tables(data)
    made = tables.create({"rules": "base", "seats": [{"kind": "person"}, {"kind": "person"}]})
    tid, tokens = made["table"], [s["link"].split("#seat=")[1] for s in made["seats"]]

    def move():
        state = tables.request(None, {"cmd": "state", "game": tid})[0]["result"]["state"]
        me = tokens[state["current"]]
        legal = tables.request(me, {"cmd": "legal", "game": tid})[0]["result"]["moves"]
        return tables.request(me, {"cmd": "play", "game": tid, "move": legal[0]})[0]

    size = (data / f"{tid}.json").stat().st_size
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 600, hard))  # room for a few moves, not many
    acked, refused = 0, None
    while refused is None and acked < 200:
        answer = move()
        if answer["ok"]:
            acked += 1
        else:
            refused = answer["error"]
    log = tables.request(None, {"cmd": "state", "game": tid})[0]["result"]["state"]["log"]
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # the disk has room again
    again = move()
    final = tables.request(None, {"cmd": "state", "game": tid})[0]["result"]["state"]["log"]
    restored = Tables(data)
    restored.restore()
    after = restored.request(None, {"cmd": "state", "game": tid})[0]["result"]["state"]["log"]
    print(json.dumps({"acked": acked, "refused": refused, "log": log, "again": again["ok"], "final": final,
                      "after": after}))
    """
)


def test_8_a_move_that_cannot_be_saved_under_a_file_size_limit_is_refused_and_taken_back(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", FSIZE_SCRIPT, str(tmp_path / "data")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BOUND * 2,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert 0 < out["acked"] < 200 and out["refused"]["code"] == "unavailable"
    assert out["refused"]["message"].startswith("the move could not be saved (File too large)")
    assert len(out["log"]) == out["acked"]  # the refused move was taken back
    assert out["again"] and out["final"][: out["acked"]] == out["log"] and len(out["final"]) == out["acked"] + 1
    assert out["after"] == out["final"]  # what was acknowledged is what a restart finds


def test_8_after_kill_9_a_restart_has_every_acknowledged_move(tmp_path):
    data = tmp_path / "data"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "kbdsl", "serve", "--http", "--port", str(port), "--data", str(data)]
    server = subprocess.Popen(
        cmd, cwd=ROOT, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True
    )
    acked: list[dict] = []
    try:
        deadline = time.monotonic() + BOUND
        while True:
            try:
                status, t = post(url, "/api/tables", {"seats": PEOPLE})
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        tokens = [token(s) for s in t["seats"]]
        stop = threading.Event()

        def play() -> None:
            with contextlib.suppress(OSError, http.client.HTTPException):  # the server is killed under it
                while not stop.is_set() and len(acked) < 400:
                    _, state = post(url, "/api", {"cmd": "state", "game": t["table"]})
                    me = tokens[state["result"]["state"]["current"]]
                    auth = {"Authorization": f"Bearer {me}"}
                    _, legal = post(url, "/api", {"cmd": "legal", "game": t["table"]}, auth)
                    move = legal["result"]["moves"][0]
                    _, played = post(url, "/api", {"cmd": "play", "game": t["table"], "move": move}, auth)
                    if played["ok"]:
                        acked.append(move)

        player = threading.Thread(target=play, daemon=True)
        player.start()
        while len(acked) < 30:
            assert player.is_alive() and time.monotonic() < deadline, "the moves were not answered"
            time.sleep(0.01)
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # no clean shutdown: whatever is on the disk is all there is
        server.wait(BOUND)
    stop.set()
    player.join(BOUND)
    tables = Tables(data)
    assert all("half-written" in problem for problem in tables.restore())  # a save in flight is no move acked
    log = tables.server.games[tables.get(t["table"]).game].view(None)["log"]
    assert len(log) >= len(acked) >= 30 and log[: len(acked)] == acked


def test_8_a_bots_move_that_cannot_be_saved_is_taken_back_and_tried_again(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(web_app, "SAVE_RETRY", 0.05)
    data = tmp_path / "data"
    with TestClient(create_app(data, bot_delay=0.3)) as client:
        t = new_table(client, [{"kind": "person"}, {"kind": "bot", "bot": "random"}])
        me, path = token(t["seats"][0]), data / f"{t['table']}.json"
        for _ in range(3):
            ask(client, {"cmd": "play", "game": t["table"], "move": first_build(client, t, me)}, me)
        real, full = store.write_atomic, threading.Event()

        def write(target: Path, text: str) -> None:
            if full.is_set():
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real(target, text)

        monkeypatch.setattr(store, "write_atomic", write)
        assert ask(client, {"cmd": "play", "game": t["table"], "move": "end"}, me).json()["ok"]
        full.set()  # the disk is full before the bot's first move (it waits 0.3 s)
        deadline = time.monotonic() + BOUND
        while not any("the bot's move could not be saved" in r.getMessage() for r in caplog.records):
            assert time.monotonic() < deadline, "the bot's failed save was not reported"
            time.sleep(0.02)
        log = ask(client, {"cmd": "state", "game": t["table"]}).json()["result"]["state"]["log"]
        assert len(log) == 4 and json.loads(path.read_text())["save"]["log"] == log  # nothing unsaved is shown
        full.clear()
        while len(json.loads(path.read_text())["save"]["log"]) == 4:
            assert time.monotonic() < deadline, "the bot did not move once the disk had room"
            time.sleep(0.02)
        saved_log = json.loads(path.read_text())["save"]["log"]
        assert saved_log[:4] == log and len(saved_log) > 4  # the bot's move, saved at last


# -- 9: temporary files of a crash ---------------------------------------------------------------------
def test_9_temporary_save_files_left_by_a_crash_are_removed_at_start(tmp_path, caplog):
    data = tmp_path / "data"
    with TestClient(create_app(data, 0.0)) as client:
        t = new_table(client)["table"]
    leftover = data / f".{t}.json.0a1b2c3d.tmp"
    leftover.write_text('{"seats": [{"kind": "person", "token": "a secret"}]}')
    caplog.set_level(logging.WARNING)
    with TestClient(create_app(data, 0.0)) as client:
        assert client.get(f"/api/tables/{t}").status_code == 200
    assert sorted(p.name for p in data.iterdir()) == [f"{t}.json"]
    assert any(r.getMessage().startswith(f"{leftover.name}, a save a crash left") for r in caplog.records)


# -- 10: security headers on every response ------------------------------------------------------------
def test_10_every_response_carries_the_security_headers(tmp_path):
    with TestClient(create_app(tmp_path / "data", 0.0), raise_server_exceptions=False) as client:
        t = new_table(client)["table"]
        replies = {
            "page": client.get("/"),
            "table page": client.get(f"/t/{t}"),
            "static file": client.get("/static/table.css"),
            "missing static file": client.get("/static/nothing.js"),
            "404 page": client.get("/no/such/page"),
            "405": client.get("/api"),
            "answer": ask(client, {"cmd": "hello"}),
            "refusal": ask(client, {"cmd": "state", "game": "nope"}),
            "picture": client.get(f"/api/tables/{t}/board.svg"),
        }
        client.app.state.tables.info = None  # a bug: GET /api/tables/T now fails inside the app
        replies["500"] = client.get(f"/api/tables/{t}")
    assert [r.status_code for r in replies.values()] == [200, 200, 200, 404, 404, 405, 200, 404, 200, 500]
    for what, reply in replies.items():
        for name, value in SECURITY.items():
            assert reply.headers.get(name) == value, (what, name)
    assert "frame-ancestors 'none'" in SECURITY["Content-Security-Policy"]
    crash = replies["500"].json()
    assert is_response(crash) and crash["error"]["code"] == "internal" and "Traceback" not in replies["500"].text


# -- DNS rebinding: a server on a loopback address answers only loopback names ---------------------------
def test_a_loopback_server_refuses_a_request_naming_another_host_pages_and_sockets_alike():
    from kbdsl.web.limits import served_hosts

    limits = Limits(hosts=served_hosts("127.0.0.1", []))
    with TestClient(create_app(None, 0.0, limits), base_url="http://127.0.0.1:8000") as client:
        t = new_table(client)["table"]
        assert client.get("/").status_code == 200
        assert client.get("/", headers={"Host": "localhost:8000"}).status_code == 200
        assert client.get("/", headers={"Host": "[::1]:8000"}).status_code == 200
        rebound = client.get(f"/api/tables/{t}", headers={"Host": "evil.example:8000"})
        assert rebound.status_code == 400 and t not in rebound.text
        for name, value in SECURITY.items():  # the refusal is a response like any other
            assert rebound.headers.get(name) == value, name
        evil = {"Host": "evil.example", "Origin": "http://evil.example"}
        refused = client.post("/api/tables", json={"seats": PEOPLE}, headers=evil)
        assert refused.status_code == 400 and len(client.app.state.tables.tables) == 1
        with pytest.raises(WebSocketDisconnect), client.websocket_connect(f"/ws/{t}", headers={"Host": "evil.example"}):
            pass


def test_served_hosts_follow_the_bind_address_and_allow_host():
    from kbdsl.web.limits import served_hosts

    assert served_hosts("127.0.0.1", []) == ("localhost", "127.0.0.1", "[::1]")
    assert served_hosts("::1", ["kb.test"]) == ("localhost", "127.0.0.1", "[::1]", "kb.test")
    assert served_hosts("192.0.2.5", []) == ("192.0.2.5",)
    assert served_hosts("0.0.0.0", []) == ("*",)  # every address: the names cannot be known
    assert served_hosts("0.0.0.0", ["kb.example"]) == ("kb.example",)


# -- behind a proxy: X-Forwarded-For is believed only from a --trusted-proxy ---------------------------------
def _create_as(url: str, forwarded_for: str) -> int:
    body = json.dumps({"rules": "base", "preset": "first-game", "seats": PEOPLE}).encode()
    headers = {"Content-Type": "application/json", "X-Forwarded-For": forwarded_for}
    request = urllib.request.Request(f"{url}/api/tables", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=BOUND) as reply:
            return reply.status
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.parametrize("trusted", [False, True])
def test_x_forwarded_for_names_the_client_only_when_the_peer_is_a_trusted_proxy(trusted):
    import argparse

    from kbdsl.cli.serve import register, uvicorn_options

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--http", *(["--trusted-proxy", "127.0.0.1"] if trusted else [])])
    with serving(limits=Limits(per_client=1), **uvicorn_options(args)) as (url, _app):
        assert _create_as(url, "198.51.100.1") == 201
        # another client behind the proxy has a share of its own; a client naming itself anew does not
        assert _create_as(url, "198.51.100.2") == (201 if trusted else 429)
