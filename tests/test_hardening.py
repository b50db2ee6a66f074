"""Regressions of issue 7 ("Hardening"): one test (or a few) per defect, worst first.

Each probe that could hang runs under `no_hang`, which bounds it in time; the assertions are
about behaviour (the answer, the state), never about how long something took.
"""

from __future__ import annotations

import json
import re

import pytest

from kbdsl.errors import IllegalMove
from kbdsl.game import Game
from kbdsl.protocol import MAX_TEXT, Server

from conftest import no_hang

SPACES = 64_000


@pytest.fixture
def server() -> Server:
    return Server()


def new_game(server: Server, **fields) -> str:
    response = server.handle({"cmd": "new", "players": 2, "seed": 7, **fields})
    assert response["ok"], response
    return response["result"]["game"]


# -- 1. one request must not block a server -----------------------------------------------
@pytest.mark.parametrize("text", ["1" + " " * SPACES + "x", "island:" + " " * SPACES + "1,", "(" + "1 " * SPACES])
def test_1_hex_names_parse_in_linear_time(base_rules, text):
    state = Game.new(base_rules, 2, seed=1).new_state()
    with no_hang(5), pytest.raises(IllegalMove, match="not a hex"):
        state.play({"do": "build", "to": text})


def test_1_long_strings_are_refused_before_parsing(server):
    gid = new_game(server)
    before = server.handle({"cmd": "save", "game": gid})
    line = json.dumps({"cmd": "play", "game": gid, "move": {"do": "build", "to": "1" + " " * SPACES + "x"}})
    with no_hang(5):
        error = json.loads(server.handle_line(line))["error"]
    assert error["code"] == "bad_request" and f"longer than the {MAX_TEXT}" in error["message"]
    for field in ({"rules": "x" * (MAX_TEXT + 1)}, {"x" * (MAX_TEXT + 1): 1}):
        assert server.handle({"cmd": "rules", **field})["error"]["code"] == "bad_request"
    assert server.handle({"cmd": "save", "game": gid}) == before


def test_1_hex_spellings_still_parse(base_rules):
    board = Game.new(base_rules, 2, seed=1).board
    for text in ("3,4", " 3,4 ", "(3, 4)", "3 4", "( 3 , 4 )"):
        assert board.hex(text) == "3,4"
    for text in ("3,,4", "1,2,3", "a:b:1,2", "３,4", "-1,2", "3;4", ""):
        with pytest.raises(ValueError, match="not a hex"):
            board.hex(text)


# -- 2. loading keeps nothing after it returns ----------------------------------------------
def test_2_rule_folder_loads_do_not_accumulate_memory(mini):
    import gc
    import tracemalloc

    from kbdsl import yamlio
    from kbdsl.ruleset import load

    big = "\n".join(f"# {i}" for i in range(50)) + "\n" + mini.read("game.yaml")
    mini.write("game.yaml", big + "presets:\n" + "".join(f"  p{i}: {{text: t{i}}}\n" for i in range(300)))
    load(mini.root)  # warm every cache that is meant to be filled once
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            load(mini.root)
            yamlio.parse_yaml(big, "x.yaml")
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    # each load reads ~20 kB of YAML; had any of it stayed, 20 loads would keep far more than this
    assert grown < 100_000, grown


# -- 3. hidden information stays hidden -----------------------------------------------------
def test_3_a_game_without_a_seed_gets_an_unpredictable_one(server, base_rules):
    seeds, decks = set(), set()
    for _ in range(3):
        gid = server.handle({"cmd": "new", "players": 2})["result"]["game"]
        save = server.handle({"cmd": "save", "game": gid})["result"]["save"]
        seeds.add(save["setup"]["seed"])
        decks.add(tuple(save["deck"]))
        view = server.handle({"cmd": "state", "game": gid, "player": 0})["result"]["state"]
        assert view["setup"]["seed"] is None and isinstance(view["deck"], int)
    assert len(seeds) == 3 and len(decks) == 3
    assert all(s.bit_length() > 64 for s in seeds)  # 128 random bits (fails with odds 3 in 2**64)
    assert Game.new(base_rules, 2).setup.seed != Game.new(base_rules, 2).setup.seed


def test_3_the_deck_is_its_own_stream_of_the_seed(base_rules):
    """Drawing the setup from the seed takes nothing from the deck's stream: the same seed gives the
    same deck whether the setup was drawn or given, and the seed alone reproduces the game."""
    drawn = Game.new(base_rules, 3, seed=11).new_state()
    given = Game.new(base_rules, 3, preset="first-game", seed=11).new_state()
    assert drawn.deck == given.deck and drawn.hand == given.hand
    again = Game.new(base_rules, 3, seed=11)
    assert again.setup == drawn.game.setup and again.new_state().key() == drawn.key()
    other = Game.new(base_rules, 3, preset="first-game", seed=12).new_state()
    assert other.deck != given.deck


# -- 4. a refused request changes nothing -----------------------------------------------------
def saved(server: Server, gid: str) -> dict:
    return server.handle({"cmd": "save", "game": gid})["result"]["save"]


@pytest.mark.parametrize("request_", [{"cmd": "play"}, {"cmd": "bot"}, {"cmd": "bot", "until": "over"}])
def test_4_a_request_refused_for_a_bad_seat_plays_nothing(server, request_):
    gid = new_game(server)
    server.handle({"cmd": "bot", "game": gid, "until": "turn"})
    before = saved(server, gid)
    if request_["cmd"] == "play":  # a legal move, refused only for the seat
        request_ = {**request_, "move": server.handle({"cmd": "legal", "game": gid})["result"]["moves"][0]}
    response = server.handle({**request_, "game": gid, "player": 5})
    assert response["error"]["code"] == "bad_request" and "not a seat" in response["error"]["message"]
    assert saved(server, gid) == before


def test_4_any_failing_request_leaves_the_server_as_it_was(server, monkeypatch):
    gid = new_game(server)
    games = server.handle({"cmd": "games"})
    assert server.handle({"cmd": "new", "players": 2, "player": 9})["ok"] is False
    assert server.handle({"cmd": "games"}) == games  # no game opened, no id used up
    assert new_game(server) == "g2"

    def broken(self, *args, **kwargs):
        raise RuntimeError("a bug after the game was replaced")

    monkeypatch.setattr(Server, "_view", broken)
    before = saved(server, gid)
    assert server.handle({"cmd": "bot", "game": gid})["error"]["code"] == "internal"
    assert saved(server, gid) == before


# -- 5. no file's contents are echoed -------------------------------------------------------
SECRET = "TOPSECRET-4711"


@pytest.mark.parametrize("text", [f"{SECRET}\n", f"{SECRET}: 1\nname: x\n", f"- {SECRET}\n"])
def test_5_a_file_that_is_not_a_rule_file_is_not_quoted(server, tmp_path, text):
    # A file not named game.yaml is not read at all; a game.yaml that is no mapping is not quoted
    # (one that is a mapping is a manifest, whose unknown keys are named to help its author).
    for name in ("notes.txt", "game.yaml") if ":" not in text else ("notes.txt",):
        (tmp_path / name).write_text(text)
        for ref in (str(tmp_path / name), str(tmp_path)):
            response = server.handle({"cmd": "rules", "rules": ref})
            assert response["ok"] is False and SECRET not in json.dumps(response), response
    passwd = server.handle({"cmd": "rules", "rules": "/etc/passwd"})
    assert passwd["error"]["code"] == "rules" and "root:" not in json.dumps(passwd)


def test_5_rule_files_may_not_be_symlinks_out_of_the_rule_folder(server, mini, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.kb").write_text(f"{SECRET} and more\n")
    (mini.root / "leak.kb").symlink_to(outside / "secret.kb")
    response = server.handle({"cmd": "rules", "rules": str(mini.root)})
    assert SECRET not in json.dumps(response)
    (d,) = response["error"]["diagnostics"]
    assert d["code"] == "E204" and "symbolic link out of the rule folder" in d["message"]

    (outside / "game.yaml").write_text(f"{SECRET}: 1\n")
    mini.write("game.yaml", mini.read("game.yaml") + "extends: ../outside/secret.kb\n")
    (mini.root / "leak.kb").unlink()
    response = server.handle({"cmd": "rules", "rules": str(mini.root)})
    assert response["error"]["diagnostics"][0]["code"] == "E203" and SECRET not in json.dumps(response)

    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "game.yaml").symlink_to(outside / "game.yaml")
    response = server.handle({"cmd": "rules", "rules": str(linked)})
    assert "symbolic link" in response["error"]["message"] and SECRET not in json.dumps(response)


# -- 6. definitions are shared, not expanded ------------------------------------------------
def chain(name: str, first: str, depth: int) -> str:
    """define NAME0 = FIRST, then NAMEi = NAME(i-1) | NAME(i-1): 2**depth uses if expanded."""
    lines = [f"define {name}0 = {first}"]
    lines += [f"define {name}{i} = {name}{i - 1} | {name}{i - 1}" for i in range(1, depth + 1)]
    return "\n".join(lines) + "\n"


def test_6_a_chain_of_doubling_definitions_evaluates_in_linear_time(mini):
    from kbdsl.protocol import Server

    mini.write("chain.kb", chain("e", "own", 30) + chain("b", "option(some-option)", 30))
    mini.edit("rules.kb", "score: 1 per area", "score: count(e30) + 5 per sector where b30")
    mini.edit("rules.kb", "mandatory: build 1 on terrain(card)", "mandatory: build 1 on terrain(card) & !e30")
    server = Server()
    with no_hang(20):
        response = server.handle({"cmd": "new", "rules": str(mini.root), "players": 2, "seed": 1})
        assert response["ok"], response
        gid = response["result"]["game"]
        for _ in range(4):
            assert server.handle({"cmd": "bot", "game": gid, "until": "turn"})["ok"]
        scores = server.handle({"cmd": "scores", "game": gid})["result"]["scores"]
        state = server.handle({"cmd": "save", "game": gid})["result"]["save"]
    # e30 is `own`, b30 is the option (off): the card counts each player's settlements
    assert [s["hermits"] for s in scores] == [len(hexes) for hexes in state["settlements"]]
    assert all(len(hexes) >= 1 for hexes in state["settlements"])


# -- 7. RULINGS 11 when one move takes a second tile of a kind and loses the first ----------
def barn_position(base_rules):
    """Seat 0's only settlement (1,5) alone touches the Barn hex 2,6 whose tile it holds; a Barn
    move to 5,1 (canyon) lands next to the other Barn hex 6,2, so it takes the second Barn tile
    and loses the first in the same move."""
    from kbdsl.game import State

    game = Game.new(
        base_rules, 3, sections=["barn", "tavern", "oasis", "farm"], cards=["lords", "knights", "fishermen"], seed=1
    )
    tiles = [[{"tile": "barn", "at": "2,6"}], [], []]
    return State.arrange(game, [["1,5"]], hand=["canyon", "grass", "grass"], built=3, tiles=tiles)


@pytest.mark.parametrize("discard, kept", [(None, "new"), ("new", "used")])
def test_7_a_move_that_takes_a_twin_and_loses_the_first_offers_the_choice(base_rules, discard, kept):
    state = barn_position(base_rules)
    legal = {m for m in state.legal_moves() if m.do == "barn" and m.to == "5,1"}
    assert {m.discard for m in legal} == {None, "new"}  # RULINGS 11: the new one may be discarded
    move = {"do": "barn", "from": "1,5", "to": "5,1"} | ({"discard": discard} if discard else {})
    events = state.play(move)
    assert [(x.kind, x.at, x.status) for x in state.tiles[0]] == [("barn", state.game.tables.index["6,2"], kept)]
    assert {e["event"] for e in events} >= {"tile_gained", "tile_lost"}


# -- 8. State.from_json refuses impossible states ---------------------------------------------
def played_save(base_rules):
    from kbdsl.bots import RandomBot

    game = Game.new(base_rules, 2, preset="first-game", seed=3)
    state = game.new_state()
    bot = RandomBot("8")
    while not state.tiles[0] or state.current != 0 or len(state.log) < 12:
        state.apply_action(bot.choose(state))
    return game, state.to_json()


def tamper(data: dict, change) -> dict:
    data = json.loads(json.dumps(data))
    change(data)
    return data


TAMPERINGS = {
    "negative supply": (lambda d: d["supply"].__setitem__(0, -1), "supply"),
    "duplicate deck card": (lambda d: d["deck"].append(d["deck"][0]), "deck"),
    "missing deck card": (lambda d: d["deck"].pop(), "deck"),
    "extra terrain card": (lambda d: d["discard"].append("lava"), "deck"),
    "hand card of no terrain": (lambda d: d["hand"].__setitem__(1, "lava"), "hand"),
    "unknown tile": (lambda d: d["tiles"][0][0].__setitem__("tile", "dragon"), "tiles"),
    "tile from a plain hex": (lambda d: d["tiles"][0][0].__setitem__("at", "0,0"), "tiles"),
    "tile nobody touches": (lambda d: d["settlements"].__setitem__(0, d["settlements"][0][:0]), "tiles"),
    "tile never taken": (lambda d: d["taken"].__setitem__(0, []), "tiles"),
    "taken from a plain hex": (lambda d: d["taken"][1].append("0,0"), "taken"),
    "location supply too big": (
        lambda d: d["location_supply"].update({next(iter(d["location_supply"])): 9}),
        "location_supply",
    ),
    "turn 0": (lambda d: d.__setitem__("turn", 0), "turn"),
    "turn 2.0": (lambda d: d.__setitem__("turn", 2.0), "turn"),
    "ending is 1": (lambda d: d.__setitem__("ending", 1), "ending"),
    "a seat too many": (lambda d: d["supply"].append(3), "one entry per player"),
}


@pytest.mark.parametrize("name", TAMPERINGS)
def test_8_from_json_refuses_impossible_states_naming_the_field(base_rules, name):
    from kbdsl.errors import SetupError
    from kbdsl.game import State

    game, data = played_save(base_rules)
    assert State.from_json(data, game).to_json() == data  # the untouched save loads
    change, field = TAMPERINGS[name]
    with pytest.raises(SetupError, match=f"not a saved state of this game: .*{field}"):
        State.from_json(tamper(data, change), game)


# -- 9. integers are integers ------------------------------------------------------------------
@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "new", "players": 2.0},
        {"cmd": "new", "players": 2, "seed": 7.0},
        {"cmd": "new", "players": 2, "player": 0.0},
        {"cmd": "hello", "protocol": 1.0},
    ],
)
def test_9_numbers_with_a_fraction_point_are_not_integers_in_requests(server, request_):
    error = server.handle(request_)["error"]
    assert error["code"] == "bad_request" and ".0 is not" in error["message"]


def test_9_a_save_with_float_numbers_is_refused(server, base_rules):
    from kbdsl.errors import SetupError
    from kbdsl.game import Setup

    gid = new_game(server)
    save = server.handle({"cmd": "save", "game": gid})["result"]["save"]
    for change in ({"players": 2.0}, {"seed": 7.0}):
        bad = {**save, "setup": {**save["setup"], **change}}
        assert server.handle({"cmd": "load", "save": bad})["error"]["code"] == "bad_request"
        with pytest.raises(SetupError, match="must be a whole number"):
            Setup.from_json(bad["setup"], base_rules)
    with pytest.raises(SetupError, match="seed must be a whole number"):
        Game.new(base_rules, 2, seed=7.0)


def test_9_replay_of_a_save_with_float_players_is_a_located_error(tmp_path, base_rules, capsys):
    from kbdsl.cli import main

    data = Game.new(base_rules, 2, seed=1).new_state().to_json()
    data["setup"]["players"] = 2.0
    path = tmp_path / "save.json"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) != 0
    err = capsys.readouterr().err
    assert (
        f"{path}:" in err
        and "the key 'setup/players' must be a whole number, not a number (2.0)" in err
        and "Traceback" not in err
    )


def test_9_manifest_integers_refuse_floats(mini):
    from conftest import load_error

    mini.edit("game.yaml", "settlements: 6", "settlements: 6.0")
    (d,) = load_error(mini.root).diagnostics
    assert d.code == "E202" and "the key 'settlements' must be a whole number, not a number (6.0)" in d.message


# -- 10. every loader limit is a located one-sentence error, reached at once -------------------
def test_10_a_long_chain_of_definitions_is_a_located_error(mini, capsys):
    from kbdsl.cli import main
    from kbdsl.expr import MAX_DEPTH

    lines = ["define d0 = own"] + [f"define d{i} = d{i - 1} & own" for i in range(1, 400)]
    mini.write("chain.kb", "\n".join(lines) + "\n")
    mini.edit("rules.kb", "score: 1 per area", "score: count(d399)")
    with no_hang(20):
        code = main(["lint", str(mini.root)])
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.out + out.err
    assert re.search(rf"chain\.kb:\d+:\d+: E105 expression nested more than {MAX_DEPTH} levels deep", out.out)


def test_10_a_long_extends_chain_is_a_located_error(mini, tmp_path):
    from conftest import load_error
    from kbdsl.ruleset import MAX_EXTENDS

    chain = tmp_path / "chain"
    for i in range(1500):
        folder = chain / f"m{i}"
        folder.mkdir(parents=True)
        parent = f"../m{i + 1}" if i < 1499 else str(mini.root)
        (folder / "game.yaml").write_text(f"name: m{i}\nextends: {parent}\n")
    with no_hang(20):
        (d,) = load_error(chain / "m0").diagnostics
    assert d.code == "E203" and f"at most {MAX_EXTENDS} manifests" in d.message
    assert d.pos.path.endswith(f"m{MAX_EXTENDS - 1}/game.yaml") and d.pos.line == 2


@pytest.mark.parametrize(
    "text, line",
    [
        ("name: x\nplayers: " + "[" * 40_000 + "]" * 40_000 + "\n", 2),
        ("name: x\nplayers:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 1200)) + "\n", 34),
        ("name: x\ntext: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n", 2),
    ],
    ids=["brackets", "indentation", "braces"],
)
def test_10_deeply_nested_yaml_is_refused_at_once_where_it_gets_too_deep(mini, text, line):
    from conftest import load_error

    mini.write("game.yaml", text)
    with no_hang(5):
        (d,) = load_error(mini.root).diagnostics
    assert d.code == "E201" and d.message == "YAML nested deeper than 32 levels" and d.pos.line == line


# -- 11. smaller ----------------------------------------------------------------------------
@pytest.mark.parametrize("cards", [[], ["fishermen"], ["fishermen", "knights", "lords", "miners"]])
def test_11_a_game_has_the_rule_sets_number_of_cards(server, cards):
    error = server.handle({"cmd": "new", "players": 2, "cards": cards})["error"]
    assert error["code"] == "setup" and f"uses 3 Kingdom Builder cards, not {len(cards)}" in error["message"]
    gid = new_game(server)
    save = server.handle({"cmd": "save", "game": gid})["result"]["save"]
    bad = {**save, "setup": {**save["setup"], "cards": cards}}
    assert "uses 3 Kingdom Builder cards" in server.handle({"cmd": "load", "save": bad})["error"]["message"]


def test_11_a_save_must_place_every_board_of_its_rule_set(server):
    save = server.handle({"cmd": "save", "game": new_game(server)})["result"]["save"]
    error = server.handle({"cmd": "load", "save": {**save, "rules": "island"}})["error"]
    assert error["code"] == "setup" and "board 'island'" in error["message"]


def test_11_legal_with_an_unknown_action_is_a_bad_request(server):
    gid = new_game(server)
    assert server.handle({"cmd": "legal", "game": gid, "action": "fly"})["error"]["code"] == "bad_request"
    assert server.handle({"cmd": "legal", "game": gid, "action": "build"})["result"]["moves"]


def test_11_a_line_of_exactly_the_limit_is_read(server):
    import io

    from kbdsl.protocol import MAX_LINE, serve

    line = json.dumps({"cmd": "hello", "id": "x"}).encode()
    exact = line[:-1] + b" " * (MAX_LINE - len(line)) + b"}"
    assert len(exact) == MAX_LINE
    out = io.StringIO()
    serve(io.BytesIO(exact + b"\n" + exact + b" \n" + exact + b"\r\n"), out, server)
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [a["ok"] for a in answers] == [True, False, True]
    assert "longer than" in answers[1]["error"]["message"]


def test_11_duplicate_json_keys_are_refused(server):
    error = json.loads(server.handle_line('{"cmd": "new", "players": 2, "players": 3}'))["error"]
    assert error["code"] == "bad_request" and "'players' appears twice" in error["message"]


@pytest.mark.parametrize("fields", [{"do": ["build"]}, {"do": "build", "to": 34}, {"do": "end", "discard": {}}])
def test_11_moves_with_fields_that_are_not_strings_are_illegal_moves(base_rules, fields):
    from kbdsl.moves import Move

    state = Game.new(base_rules, 2, seed=1).new_state()
    before = state.key()
    with pytest.raises(IllegalMove, match="must be a string"):
        state.play(Move(**fields))
    assert state.key() == before
