"""The web table's lobby, seat names, rematches, card texts and plain-English refusals (over HTTP).

The browser side of the same features is in tests/test_browser.py; these drive the ASGI app
through Starlette's test client.
"""

from __future__ import annotations

import random
import time

import networkx as nx
import pytest

from webserver import token  # also skips this module without the web extra

from kbdsl.english import English  # noqa: E402
from kbdsl.lang.unparse import unparse  # noqa: E402
from kbdsl.protocol import validator  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402
from kbdsl.web.app import create_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "data", bot_delay=0.0)) as c:
        yield c


def new_table(client, seats, **setup) -> dict:
    reply = client.post("/api/tables", json={"rules": "base", "preset": "first-game", "seats": seats, **setup})
    assert reply.status_code == 201, reply.text
    return reply.json()


def play(client, table, move, tok):
    return client.post(
        "/api", json={"cmd": "play", "game": table, "move": move}, headers={"Authorization": f"Bearer {tok}"}
    )


def test_the_lobby_lists_open_tables_and_a_free_seat_is_taken_under_a_name(client):
    seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "open": True}, {"kind": "bot", "bot": "random"}]
    t = new_table(client, seats)
    listed = client.get("/api/tables").json()["tables"]
    mine = next(x for x in listed if x["table"] == t["table"])
    assert mine["open"] == 1 and mine["rules"] == "base" and mine["watch"] == f"/t/{t['table']}"
    assert [(s["kind"], s["name"], s["open"]) for s in mine["seats"]] == [
        ("person", "Ann", False),
        ("person", None, True),
        ("bot", None, False),
    ]
    assert not any(token(s) in str(listed) for s in t["seats"] if "link" in s)  # the lobby shows no seat's key

    joined = client.post(f"/api/tables/{t['table']}/seats", json={"name": "Bo"})
    assert joined.status_code == 201 and joined.json()["seat"] == 1
    assert joined.json()["link"] == t["seats"][1]["link"]  # the open seat's own key, now Bo's
    again = client.post(f"/api/tables/{t['table']}/seats", json={"name": "Cy"})
    assert again.status_code == 403 and "no open seat" in again.json()["error"]["message"]
    mine = next(x for x in client.get("/api/tables").json()["tables"] if x["table"] == t["table"])
    assert mine["open"] == 0 and mine["seats"][1]["name"] == "Bo"

    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        ws.send_json({"join": token(t["seats"][1])})
        push = ws.receive_json()
    assert not [e.message for e in validator("push").iter_errors(push)]
    assert push["seat"] == 1 and [s["name"] for s in push["seats"]] == ["Ann", "Bo", None]


@pytest.mark.parametrize(
    "seat, message",
    [
        ({"kind": "person", "name": "x" * 25}, "1 to 24 printable characters"),
        ({"kind": "person", "name": "a\nb"}, "1 to 24 printable characters"),
        ({"kind": "person", "open": "yes"}, "open is true"),
        ({"kind": "bot", "bot": "random", "name": "Hal"}, "a bot's seat has no name"),
    ],
)
def test_a_bad_seat_name_or_open_flag_is_refused_in_one_sentence(client, seat, message):
    reply = client.post("/api/tables", json={"seats": [seat, {"kind": "person"}]})
    assert reply.status_code == 400 and message in reply.json()["error"]["message"]


def test_a_finished_table_offers_a_rematch_with_the_same_set_up_and_seats(client):
    t = new_table(client, BOTS)
    info = {}
    for _ in range(1200):  # the bots play on the server (no pause): wait until the game is over
        info = client.get(f"/api/tables/{t['table']}").json()
        if info["over"]:
            break
        time.sleep(0.05)
    assert info["over"]
    first = client.post(f"/api/tables/{t['table']}/rematch", json={})
    assert first.status_code == 201
    again = client.post(f"/api/tables/{t['table']}/rematch", json={})
    assert again.json() == first.json()  # asked twice: one rematch
    new = client.get(f"/api/tables/{first.json()['table']}").json()
    assert [(s["kind"], s["bot"]) for s in new["seats"]] == [("bot", "random")] * 2 and new["rules"] == "base"
    assert first.json()["link"] == f"/t/{new['table']}"

    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        ws.send_json({"join": None})
        push = ws.receive_json()
    assert push["rematch"] == f"/t/{new['table']}"


def test_a_rematch_of_people_gives_each_seat_its_own_new_link_and_only_to_that_seat(client):
    t = new_table(client, [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Bo"}])
    tables = client.app.state.tables
    table = tables.get(t["table"])
    state = tables.server.games[table.game]
    early = client.post(
        f"/api/tables/{t['table']}/rematch", json={}, headers={"Authorization": f"Bearer {token(t['seats'][0])}"}
    )
    assert early.status_code == 403 and "follows a finished game" in early.json()["error"]["message"]
    rng = random.Random(2)
    while not state.over:  # the whole game, on the server's own state
        state.apply_action(rng.choice(state.legal_actions()))
    nobody = client.post(f"/api/tables/{t['table']}/rematch", json={})
    assert nobody.status_code == 403
    ann = client.post(
        f"/api/tables/{t['table']}/rematch", json={}, headers={"Authorization": f"Bearer {token(t['seats'][0])}"}
    )
    bo = client.post(
        f"/api/tables/{t['table']}/rematch", json={}, headers={"Authorization": f"Bearer {token(t['seats'][1])}"}
    )
    assert ann.json()["table"] == bo.json()["table"] != t["table"]
    new = tables.get(ann.json()["table"])
    assert [s.name for s in new.seats] == ["Ann", "Bo"]
    assert ann.json()["link"].endswith(f"#seat={new.seats[0].token}") and bo.json()["link"].endswith(new.seats[1].token)
    assert new.seats[0].token not in (token(s) for s in t["seats"])  # new keys, not the old ones


def test_a_refused_build_says_in_plain_english_what_the_rule_wants_and_the_nearest_legal_hex(client):
    t = new_table(client, [{"kind": "person"}, {"kind": "bot", "bot": "random"}])
    tok = token(t["seats"][0])
    tables = client.app.state.tables
    state = tables.server.games[tables.get(t["table"]).game]
    rules, graph = state.game.rules, state.game.board.graph
    card = state.hand[0]
    legal = {m.to for m in state.legal_moves() if m.do == "build"}
    wrong = next(h for h in graph if graph.nodes[h]["terrain"] not in (card, None) and h not in legal)
    reply = play(client, t["table"], {"do": "build", "to": wrong}, tok)
    assert reply.status_code == 409
    error = reply.json()["error"]
    assert not [e.message for e in validator("error").iter_errors(error)]
    explain = error["explain"]
    steps = nx.single_source_shortest_path_length(graph, wrong)
    closest = min(steps[h] for h in legal)
    assert explain["nearest"] in legal and steps[explain["nearest"]] == closest
    terrain = rules.terrains[graph.nodes[wrong]["terrain"]].title
    assert explain["text"] == (
        f"Build on {rules.terrains[card].title} hexes, next to your settlements if possible: {wrong} is {terrain}."
        f" Nearest you can: {explain['nearest']}."
    )
    assert (explain["kind"], explain["hex"], explain["card"]) == ("hex", wrong, card)
    assert "(" not in explain["text"] and "[" not in explain["text"]  # no rule-language code, no citation


def test_every_card_and_tile_has_its_rule_in_the_words_of_kbdsl_explain(client):
    t = new_table(client, [{"kind": "person"}, {"kind": "person"}], rules="crossroads", preset="crossroads")
    texts = client.get(f"/api/tables/{t['table']}/texts").json()
    rules = load("crossroads")
    en = English(rules)
    for name, c in {**rules.cards, **rules.scorings}.items():
        assert texts["cards"][name]["title"] == c.title
        assert texts["cards"][name]["rule"] == f"Each player scores {en.number(c.score)}."
        assert unparse(c.score) not in texts["cards"][name]["rule"]
    for name, tile in rules.tiles.items():
        if tile.action is not None:
            assert texts["tiles"][name]["rule"].lower() == f"{en.action(tile.action)}.".lower()
    assert len(texts["colours"]["seats"]) >= rules.players[1]
    assert set(texts["colours"]["terrains"]) == set(rules.terrains)


def test_names_set_ups_and_rematches_survive_a_restart(tmp_path):
    data = tmp_path / "data"
    with TestClient(create_app(data, bot_delay=3600)) as client:
        t = new_table(client, [{"kind": "person", "name": "Ann"}, {"kind": "person", "open": True}])
    with TestClient(create_app(data, bot_delay=3600)) as client:
        table = client.app.state.tables.get(t["table"])
        assert [(s.name, s.open) for s in table.seats] == [("Ann", False), (None, True)]
        assert table.spec == {"rules": "base", "preset": "first-game"}


def test_lobby_seats_and_rematches_refuse_what_another_site_could_send(client):
    """Taking a seat and asking for a rematch are POSTs a page of another site could send without a
    preflight: as table creation, they need this server's Origin and a JSON body."""
    t = client.post(
        "/api/tables",
        json={"rules": "base", "seats": [{"kind": "person", "open": True}, {"kind": "bot", "bot": "random"}]},
    ).json()
    seats = f"/api/tables/{t['table']}/seats"
    plain = client.post(seats, content='{"name": "Eve"}', headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and plain.json()["error"]["code"] == "bad_request"
    other = client.post(seats, json={"name": "Eve"}, headers={"Origin": "https://evil.example"})
    assert other.status_code == 403 and other.json()["error"]["code"] == "forbidden"
    rematch = client.post(f"/api/tables/{t['table']}/rematch", content="{}", headers={"Content-Type": "text/plain"})
    assert rematch.status_code == 415
    assert client.post(seats, json={"name": "Bo"}).status_code == 201  # the seat was still free
