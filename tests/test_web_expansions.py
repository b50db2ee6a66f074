"""The web table on Nomads and Crossroads content, through its HTTP and WebSocket API: walls,
warriors and ships placed and moved by tiles, a tile's choice named `tile.verb`, a hand of two
cards that the other seat never sees, and the board picture drawing the new pieces."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from webplay import end_turns, table_where
from webserver import token  # also skips this module without the web extra

from kbdsl.protocol import validator  # noqa: E402
from kbdsl.web.app import create_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

PEOPLE = [{"kind": "person"}, {"kind": "person"}]
CROSSROADS = {"rules": "crossroads", "preset": "crossroads"}
NOMADS = {"rules": "nomads", "preset": "nomads"}
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "data", bot_delay=0.0)) as c:
        yield c


def open_table(client, setup: dict) -> tuple[str, list[str]]:
    reply = client.post("/api/tables", json={**setup, "seats": PEOPLE})
    assert reply.status_code == 201, reply.text
    t = reply.json()
    return t["table"], [token(s) for s in t["seats"]]


def caller(client):
    """The protocol over the web's HTTP endpoint, with a seat's token (None: public)."""

    def call(request: dict, tok: str | None) -> dict:
        headers = {"Authorization": f"Bearer {tok}"} if tok else {}
        reply = client.post("/api", json=request, headers=headers)
        assert reply.status_code in (200, 400, 409), reply.text  # 409: an illegal move
        return reply.json()

    return call


def view(client, table: str, tok: str | None = None) -> dict:
    return caller(client)({"cmd": "state", "game": table}, tok)["result"]["state"]


def drawn_pieces(client, table: str) -> dict[str, tuple[str, str]]:
    """hex -> (kind, owner) of every piece the board picture draws."""
    root = ET.fromstring(client.get(f"/api/tables/{table}/board.svg").text)
    return {
        e.get("data-hex"): (e.get("data-kind"), e.get("data-player"))
        for e in root.iter(f"{SVG}g")
        if e.get("class") == "piece"
    }


def play(client, table: str, tok: str, move: dict) -> dict:
    reply = caller(client)({"cmd": "play", "game": table, "move": move}, tok)
    assert reply["ok"], reply
    return reply["result"]["state"]


def test_a_wall_placed_with_a_nomads_tile_is_on_the_board_the_picture_and_the_other_seats_push(client):
    call = caller(client)
    (table, toks), legal = table_where(lambda: open_table(client, NOMADS), call, "quarry", "quarry")
    wall = next(m for m in legal if m["do"] == "quarry")
    assert set(wall) == {"do", "to"}  # a placement names one hex
    with client.websocket_connect(f"/ws/{table}") as ws1:
        ws1.send_text(json.dumps({"join": toks[1]}))
        json.loads(ws1.receive_text())  # the current position
        state = play(client, table, toks[0], wall)
        push = json.loads(ws1.receive_text())
    assert not [e.message for e in validator("push").iter_errors(push)]
    assert wall["to"] in state["neutral"]["wall"] and state["stock"]["wall"] == 24
    assert {"hex": wall["to"], "kind": "wall", "owner": None} in push["state"]["pieces"]
    assert push["played"][-1]["move"] == wall and "legal" not in push  # seat 1 is not to move
    assert drawn_pieces(client, table)[wall["to"]] == ("wall", "")
    # Quarry places up to 2: the same action goes on while a second wall has a hex (any other move ends it)
    again = [m for m in call({"cmd": "legal", "game": table}, toks[0])["result"]["moves"] if m["do"] == "quarry"]
    if state["pending"] is not None:
        assert state["pending"] == {"tile": "quarry", "left": 1, "up_to": True} and again
    else:
        assert not again


def test_a_warrior_placed_by_a_tiles_choice_blocks_the_hexes_around_it(client):
    call = caller(client)
    (table, toks), legal = table_where(lambda: open_table(client, CROSSROADS), call, "barracks", "barracks.place")
    actions = call({"cmd": "actions", "game": table}, toks[0])["result"]["actions"]
    named = {a["action"]: a for a in actions}
    assert named["barracks.place"]["usable"] and not named["barracks.return"]["usable"]  # no warrior out yet
    assert named["barracks.return"]["reason"] == "you have no warrior on the board for the Barracks action to take back"
    assert "barracks" not in named  # a tile's choice is offered as its parts, as moves name them
    place = next(m for m in legal if m["do"] == "barracks.place")
    state = play(client, table, toks[0], place)
    other = 2 if any(x["tile"] == "barracks" for x in state["tiles"][1]) else 0  # warriors come with the tile
    assert state["kinds"]["warrior"][0] == [place["to"]] and state["kind_supply"]["warrior"] == [1, other]
    assert drawn_pieces(client, table)[place["to"]] == ("warrior", "0")
    board = call({"cmd": "board", "game": table}, None)["result"]["hexes"]
    around = next(h["neighbours"] for h in board if h["id"] == place["to"])
    end_turns(call, table, toks, until_seat=1)
    builds = call({"cmd": "targets", "game": table, "action": "build"}, toks[1])["result"]["targets"]
    assert builds and not set(builds) & set(around)  # nobody builds next to a warrior
    refused = call({"cmd": "play", "game": table, "move": {"do": "build", "to": around[0]}}, toks[1])
    assert not refused["ok"] and refused["error"]["code"] == "illegal_move"
    assert refused["error"]["reason"] == (
        f"{around[0]} is next to a warrior, which blocks the hexes around it [piece warrior: aura: blocks-next-to]"
    )


def test_a_ship_is_placed_and_sails_step_by_step_with_the_lighthouses_parts(client):
    call = caller(client)
    (table, toks), legal = table_where(lambda: open_table(client, CROSSROADS), call, "lighthouse", "lighthouse.place")
    place = next(m for m in legal if m["do"] == "lighthouse.place")
    state = play(client, table, toks[0], place)
    assert state["kinds"]["ship"][0] == [place["to"]]
    end_turns(call, table, toks, until_seat=0)
    steps = call({"cmd": "legal", "game": table, "action": "lighthouse.move"}, toks[0])["result"]["moves"]
    assert steps and all(m["from"] == place["to"] for m in steps)  # the ship, and only the ship, sails
    state = play(client, table, toks[0], steps[0])
    assert state["kinds"]["ship"][0] == [steps[0]["to"]]
    assert state["pending"] == {"tile": "lighthouse.move", "left": 2, "up_to": True}
    assert drawn_pieces(client, table)[steps[0]["to"]] == ("ship", "0") and place["to"] not in drawn_pieces(
        client, table
    )


def holds_a_hand_tile_and_may_end(state: dict, legal: list[dict]) -> bool:
    return any(t["tile"] == "crossroads" for t in state["tiles"][0]) and {"do": "end"} in legal


def test_a_hand_of_two_cards_is_seen_only_by_its_holder(client):
    call = caller(client)
    (table, toks), _ = table_where(
        lambda: open_table(client, CROSSROADS), call, "crossroads", holds_a_hand_tile_and_may_end
    )
    with client.websocket_connect(f"/ws/{table}") as ws1, client.websocket_connect(f"/ws/{table}") as spy:
        for ws, tok in ((ws1, toks[1]), (spy, None)):
            ws.send_text(json.dumps({"join": tok}))
            json.loads(ws.receive_text())  # the current position
        play(client, table, toks[0], {"do": "end"})  # holding the tile, seat 0 draws two cards
        pushes = [json.loads(ws1.receive_text()), json.loads(spy.receive_text())]
    mine = view(client, table, toks[0])
    cards = [mine["hand"][0], *mine["spare"][0]]
    assert len(cards) == 2 and None not in cards
    for push in pushes:
        assert push["state"]["hand"][0] is None and push["state"]["spare"][0] == [None]
        assert not any(json.dumps(c) in json.dumps(push["state"]["spare"]) for c in cards)
    assert view(client, table, toks[1])["spare"][0] == [None] and view(client, table)["spare"][0] == [None]
    # at seat 0's next turn, the builds offered are those of either card
    end_turns(call, table, toks, until_seat=0)
    assert [view(client, table, toks[0])["hand"][0], *view(client, table, toks[0])["spare"][0]] == cards
    terrains = {h["id"]: h["terrain"] for h in call({"cmd": "board", "game": table}, None)["result"]["hexes"]}
    builds = call({"cmd": "targets", "game": table, "action": "build"}, toks[0])["result"]["targets"]
    assert builds and {terrains[h] for h in builds} <= set(cards)
