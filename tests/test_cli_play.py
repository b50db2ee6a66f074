"""The terminal front end: `kbdsl play`, `kbdsl replay` and the text rendering behind them."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import yaml

from kbdsl.bots import make_bot, play_out
from kbdsl.cli import main
from kbdsl.render.terminal import score_table
from kbdsl.saves import game_of, read_save
from kbdsl.errors import IllegalMove
from kbdsl.game import Game, State
from kbdsl.moves import END
from kbdsl.render.terminal import CELL, ROW_LABEL, render_board, render_status, use_color
from kbdsl.ruleset import load

ROOT = Path(__file__).resolve().parent.parent
MOVE_LINE = re.compile(r"^P(\d) (\w+): (\S.*)$")


class NoInput(io.StringIO):
    """stdin for games without people: reading it is a failure."""

    def readline(self, *args: object) -> str:  # type: ignore[override]
        raise AssertionError("a game without human seats read from stdin")


@pytest.fixture(scope="module")
def rules():
    return load("base")


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def cell(board: str, r: int, c: int) -> str:
    """The two visible characters of hex (r, c) in a plain render_board text."""
    line = next(x for x in board.splitlines() if x[:ROW_LABEL].strip() == str(r)).ljust(ROW_LABEL + 21 * CELL)
    at = ROW_LABEL + (CELL // 2 if r % 2 else 0) + c * CELL
    return line[at : at + 2]


# -- bots only -----------------------------------------------------------------------------
def test_four_bots_play_to_final_scores_without_input(capsys, monkeypatch, rules):
    monkeypatch.setattr("sys.stdin", NoInput())
    code, out, err = run(capsys, ["play", "--bots", "random,random,random,random", "--seed", "1", "--no-color"])
    assert code == 0, err
    # The same game played straight on the engine: same setup draws, same bot seeds.
    game = Game.new(rules, 4, seed=1)
    state = play_out(game.new_state(), [make_bot("random", f"1:{p}:random") for p in range(4)])
    assert state.over
    assert score_table(state.scores()) in out
    moves = [MOVE_LINE.match(x) for x in out.splitlines() if MOVE_LINE.match(x)]
    assert [m.group(3) for m in moves] == [str(game.decode(c)) for c in state.log]
    assert {m.group(2) for m in moves} == {"random"}
    best = state.winners()
    gold = state.scores()[best[0]]["total"]
    last = out.rstrip().splitlines()[-1]
    if len(best) == 1:
        assert last == f"Winner: P{best[0]} with {gold} gold"
    else:
        assert last.startswith("Shared victory: ") and all(f"P{p}" in last for p in best)


def test_quiet_prints_only_the_final_scores(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", NoInput())
    code, out, _ = run(capsys, ["play", "--bots", "random,greedy", "--seed", "3", "--quiet"])
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].split()[:1] == ["player"] and lines[0].split()[-1] == "total"
    assert [x.split()[0] for x in lines[1:3]] == ["P0", "P1"]
    assert len(lines) == 4 and lines[3].startswith(("Winner: ", "Shared victory: "))


def test_same_seed_same_output_and_another_seed_differs(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", NoInput())
    argv = ["play", "--bots", "greedy,random,random", "--seed", "7", "--no-color"]
    first, second = run(capsys, argv)[1], run(capsys, argv)[1]
    other = run(capsys, argv[:-2] + ["8", "--no-color"])[1]
    assert first == second
    assert first != other
    assert "Winner" in first or "Shared victory" in first


def test_no_color_has_no_escape_codes_but_color_does(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", NoInput())
    argv = ["play", "--bots", "random,random", "--seed", "4"]
    plain = run(capsys, argv + ["--no-color"])[1]
    colored = run(capsys, argv + ["--color"])[1]
    assert "\x1b" not in plain
    assert "\x1b[" in colored
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == plain


def test_use_color_needs_a_terminal_and_no_no_color(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(False, Tty()) is True
    assert use_color(True, Tty()) is False
    assert use_color(False, io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(False, Tty()) is False


def test_setup_options_reach_the_game(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("sys.stdin", NoInput())
    path = tmp_path / "g.json"
    code, _, err = run(
        capsys,
        [
            "play",
            "--bots",
            "random,random",
            "--seed",
            "2",
            "--quiet",
            "--sections",
            "tavern,paddock@180,oasis,farm",
            "--cards",
            "fishermen,lords,hermits",
            "--option",
            "move-may-stay=true",
            "--save",
            str(path),
        ],
    )
    assert code == 0, err
    setup = json.loads(path.read_text())["setup"]
    assert setup["sections"] == {"main": ["tavern", "paddock@180", "oasis", "farm"]}
    assert setup["cards"] == ["fishermen", "lords", "hermits"]
    assert setup["options"] == {"move-may-stay": True}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "3", "--bots", "human,random"], "--players 3 but --bots names 2"),
        (["--bots", "human,wizard"], "unknown player kind 'wizard'"),
        (["--option", "move-may-stay"], "write NAME=true or NAME=false"),
        (["--bots", "random,random", "--cards", "nope,lords,knights"], "unknown card 'nope'"),
    ],
)
def test_bad_setup_is_one_line_on_stderr(capsys, argv, message):
    code, out, err = run(capsys, ["play", *argv])
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# -- a person at the keyboard --------------------------------------------------------------
def test_human_game_from_a_script(capsys, monkeypatch, rules):
    game = Game.new(rules, 2, seed=2, preset="first-game")
    state = game.new_state()
    targets = state.targets("build")
    wrong = next(h for h in game.tables.ids if h not in targets and game.board.graph.nodes[h]["buildable"])
    try:
        state.clone().play(f"build {wrong}")
    except IllegalMove as e:
        wrong_reason = e.reason
    else:  # pragma: no cover
        pytest.fail(f"build {wrong} should be illegal")
    trial, builds = state.clone(), []
    for _ in range(3):
        builds.append(trial.targets("build")[0])
        trial.play(f"build {builds[-1]}")
    assert trial.legal_moves() == [END]  # turn 1: nothing but ending is left; Enter ends it, undo takes back
    script = (
        "\n".join(
            [
                "help",
                "end",
                f"build {wrong}",
                "fly 1,1",
                "targets build",
                "moves",
                f"build {builds[0]}",
                builds[1],
                f"build {builds[2]}",
                "undo",
                f"build {builds[2]}",
                "",
                "undo",
                "score",
            ]
        )
        + "\n"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    code, out, err = run(
        capsys, ["play", "--bots", "human,random", "--seed", "2", "--preset", "first-game", "--no-color"]
    )
    assert code == 0, err
    assert "Traceback" not in out + err
    assert f"illegal: {wrong_reason}" in out.splitlines()
    assert any(x.startswith("illegal: the mandatory action is not finished") for x in out.splitlines())
    assert any(x.startswith("illegal: unknown action 'fly'") for x in out.splitlines())
    assert f"build: {' '.join(targets)}" in out.splitlines()  # 'targets build' and 'moves' agree
    for h in builds:
        assert f"P0 human: build {h}" in out.splitlines()
    lines = out.splitlines()
    assert lines.index(f"P0 human: undid build {builds[2]}") < lines.index("P0 human: end")
    assert "Only 'end' is left: press Enter to end the turn, or type undo." in lines
    assert "cannot undo: you have made no move this turn" in lines  # turn 3: P0's turn has just begun
    assert any(MOVE_LINE.match(x) and x.startswith("P1 random:") for x in out.splitlines())
    assert "Moves (text notation):" in out
    # stdin ran dry on turn 3 (P0 again): the game stops cleanly with the position's scores
    assert "Game stopped before the end" in out
    assert out.rstrip().splitlines()[-1].startswith("Leading: ")
    # highlighted targets on the first board drawn
    first_board = out.split("Type 'help'")[1].split("P0> help")[0]
    assert first_board.count("*") == len(targets)


def test_quit_and_save_then_replay_matches(capsys, monkeypatch, tmp_path, rules):
    game = Game.new(rules, 2, seed=5)
    first = game.new_state().targets("build")[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{first}\nquit\n"))
    path = tmp_path / "partial.yaml"
    code, out, _ = run(capsys, ["play", "--seed", "5", "--no-color", "--save", str(path)])
    assert code == 0
    data = yaml.safe_load(path.read_text())
    assert data["log"] == [{"do": "build", "to": first}]
    code, out, err = run(capsys, ["replay", str(path), "--no-color"])
    assert code == 0, err
    assert f"   1 P0: build {first}" in out
    assert "Replay matches the saved state (1 move)." in out


# -- saves and replays ---------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_save_then_replay_gives_the_same_final_state(capsys, monkeypatch, tmp_path, suffix):
    monkeypatch.setattr("sys.stdin", NoInput())
    path = tmp_path / f"game{suffix}"
    code, out, _ = run(
        capsys, ["play", "--bots", "greedy,random,random", "--seed", "11", "--no-color", "--save", str(path)]
    )
    assert code == 0 and path.exists()
    data = read_save(str(path))
    assert data["over"] is True
    game = game_of(data, str(path))
    replayed = game.new_state()
    for m in data["log"]:
        replayed.play(m)
    assert replayed.key() == State.from_json(data, game).key()
    code, out, err = run(capsys, ["replay", str(path), "--no-color"])
    assert code == 0, err
    lines = out.splitlines()
    assert sum(1 for x in lines if re.match(r"^\s*\d+ P\d: ", x)) == len(data["log"])
    assert score_table(replayed.scores()) in out
    assert lines[-1] == f"Replay matches the saved state ({len(data['log'])} moves)."
    quiet = run(capsys, ["replay", str(path), "--quiet", "--no-color"])[1]
    assert not re.search(r"^\s*\d+ P\d: ", quiet, re.M)
    assert quiet.count("Turn ") == 1 and quiet.rstrip().endswith("moves).")


def test_replay_notices_a_tampered_save(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("sys.stdin", NoInput())
    path = tmp_path / "game.json"
    assert run(capsys, ["play", "--bots", "random,random", "--seed", "6", "--quiet", "--save", str(path)])[0] == 0
    data = json.loads(path.read_text())
    data["supply"][0] += 1
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, ["replay", str(path), "--quiet"])
    assert code == 1
    assert "differs from the saved state in: supply" in err
    data = json.loads(path.read_text())
    data["log"][1] = {"do": "build", "to": data["log"][0]["to"]}  # the hex just built on
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, ["replay", str(path), "--quiet"])
    assert code == 1
    assert f"move 2 (build {data['log'][0]['to']}) cannot be played" in err and "occupied" in err


def test_replay_of_a_non_save_is_a_usage_error(capsys, tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("just: text\n")
    code, _, err = run(capsys, ["replay", str(path)])
    assert code == 2
    assert f"{path}:1:1: E202 the saved game needs the key 'rules'" in err


# -- rendering -----------------------------------------------------------------------------
def test_board_layout_marks_and_highlights(rules):
    game = Game.new(rules, 2, seed=9)
    state = game.new_state()
    built = state.targets("build")[0]
    state.play(f"build {built}")
    targets = state.targets("build")
    text = render_board(state, highlight=targets)
    header = text.splitlines()[0]
    assert header.split() == [str(c) for c in range(20)]
    assert header.index(" 1 ") - header.index("0 ") == CELL - 1
    g = game.board.graph
    for name in game.tables.ids:
        a = g.nodes[name]
        shown = cell(text, a["row"], a["col"])
        if a["location"]:
            assert shown == f"{rules.tiles[a['location']].letter}{state.loc_supply[game.tables.index[name]]}"
        else:
            mark = "0" if name == built else "*" if name in targets else " "
            assert shown == rules.terrains[a["terrain"]].letter + mark, name
    odd = next(x for x in text.splitlines() if x[:ROW_LABEL].strip() == "1")
    even = next(x for x in text.splitlines() if x[:ROW_LABEL].strip() == "2")
    assert odd[ROW_LABEL : ROW_LABEL + CELL // 2] == " " * (CELL // 2) and even[ROW_LABEL] != " "


def test_status_hides_other_hands(rules):
    game = Game.new(rules, 3, seed=1)
    state = game.new_state()
    seats = ["human", "random", "random"]
    title = rules.terrains[state.hand[0]].title
    mine = render_status(state, seats, viewer=0)
    assert f"card: {title}" in mine and "P0 (human) to move" in mine
    assert "card:" not in render_status(state, seats, viewer=None)
    assert "card:" not in render_status(state, seats, viewer=1)
    cards = " · ".join(rules.cards[c].title for c in game.setup.cards)
    assert f"Cards: {cards}" in mine
    assert re.search(r"> P0 human\s+supply\s+40\s+tiles: -", mine)


def test_detached_board_drawn_under_its_name(tmp_path, rules):
    base = ROOT / "rules" / "base"
    (tmp_path / "sections").mkdir()
    (tmp_path / "game.yaml").write_text(
        f"name: isle\nextends: {base}\nfiles: ['sections/*.kb']\n"
        "boards:\n  - name: isle\n    grid: [1, 1]\n    sectors: false\n"
    )
    letters = {t.letter: n for n, t in rules.terrains.items() if "buildable" in t.flags}
    land = next(iter(letters))
    loc = next(iter(rules.tiles.values())).letter
    (tmp_path / "sections" / "isle.kb").write_text(
        f'section rock "Rock" {{\n  board: isle\n  grid:\n    | {land} {land} {land}\n    |  {land} {loc} {land}\n}}\n'
    )
    isle_rules = load(tmp_path)
    state = Game.new(isle_rules, 2, seed=1).new_state()
    text = render_board(state, highlight=["isle:0,1"])
    head, _, tail = text.partition("isle:  (type hexes as isle:row,col)")
    assert tail, text
    assert len([x for x in head.splitlines() if x[:ROW_LABEL].strip().isdigit()]) == 20
    rows = tail.strip("\n").splitlines()
    assert rows[0].split() == ["0", "1", "2"]
    assert rows[1] == f"  0 {land}   {land}*  {land}"
    assert rows[2] == f"  1   {land}   {loc}2  {land}"


def test_front_end_names_no_content():
    """Names live in rules/ only: the renderer and the play command use titles and letters."""
    rules = load("base")
    names = set(rules.terrains) | set(rules.tiles) | set(rules.cards) | set(rules.sections) | set(rules.scorings)
    for f in ("kbdsl/render/terminal.py", "kbdsl/render/svg.py", "kbdsl/cli/play.py"):
        src = (ROOT / f).read_text().lower()
        assert not [n for n in names if re.search(rf"\b{re.escape(n)}\b", src)], f


def test_board_option_picks_a_detached_board_side(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", NoInput())
    args = ["play", "--rules", "island", "--bots", "random,random", "--seed", "3", "--no-color"]
    for side in ("island-rope-bridge", "island-tree-house"):
        code, out, _ = run(capsys, [*args, "--sections", "tavern,paddock,oasis,farm", "--board", f"island={side}"])
        assert code == 0
        assert f"Sections: main tavern paddock oasis farm; island {side}" in out
    code, _, err = run(capsys, [*args, "--board", "island"])
    assert code == 2 and "write NAME=SECTION" in err


def test_terminal_shows_walls_gold_and_dealt_tiles():
    """Nomads: a wall shows its glyph on its hex; the status names the shared stock, the tiles
    lying on nomad hexes and each seat's gold won during play."""
    game = Game.new(load("nomads"), players=2, preset="nomads", seed=7)
    state = State.arrange(game, [["14,3"], []], neutral={"wall": ["10,0"]}, gold=[{"ambassadors": 3}, {}])
    board = render_board(state)
    assert cell(board, 10, 0) == "G#"
    assert cell(board, 3, 3) == "x1"  # the nomad hex 3,3 still has its tile
    status = render_status(state, ["random", "random"])
    assert "Shared supply: Stone wall (#) 24 left" in status
    lying = ", ".join(f"{h} {game.rules.tiles[k].title}" for h, k in state.to_json()["dealt"].items())
    assert f"Tiles lying face up: {lying}" in " ".join(status.split())  # wrapped to 80 columns
    p0, p1 = (line for line in status.splitlines() if "supply" in line and "tiles:" in line)
    assert "gold so far  3" in p0 and "gold so far" not in p1


def test_resume_restores_the_saved_seats(capsys, monkeypatch, tmp_path, rules):
    """A save records who sat where; resuming without --bots plays on against the same bots."""
    path = tmp_path / "g.json"
    first = Game.new(rules, 2, seed=5).new_state().targets("build")[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{first}\nquit\n"))
    assert run(capsys, ["play", "--bots", "human,greedy", "--seed", "5", "--no-color", "--save", str(path)])[0] == 0
    assert json.loads(path.read_text())["seats"] == ["human", "greedy"]
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code, out, _ = run(capsys, ["play", "--resume", str(path), "--no-color"])
    assert code == 0 and "P1 greedy" in out and "P1 random" not in out
    assert json.loads(path.read_text())["seats"] == ["human", "greedy"]
    data = json.loads(path.read_text())
    del data["seats"]  # a save from before seats were recorded: a person against random bots
    path.write_text(json.dumps(data))
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code, out, _ = run(capsys, ["play", "--resume", str(path), "--no-color"])
    assert code == 0 and "P1 random" in out


@pytest.mark.parametrize(
    "argv, seats",
    [
        (["--bots", "greedy,random"], ["greedy", "random"]),
        (["--bots", "greedy", "--players", "3"], ["greedy"] * 3),
    ],
)
def test_bots_mean_one_entry_per_seat_in_play_and_simulate(capsys, monkeypatch, tmp_path, argv, seats):
    monkeypatch.setattr("sys.stdin", NoInput())
    path = tmp_path / "g.json"
    assert run(capsys, ["play", *argv, "--seed", "2", "--quiet", "--save", str(path)])[0] == 0
    assert json.loads(path.read_text())["seats"] == seats
    out = tmp_path / "rows.jsonl"
    assert run(capsys, ["simulate", *argv, "--games", "1", "--no-progress", "--out", str(out)])[0] == 0
    assert json.loads(out.read_text().splitlines()[0])["bots"] == seats


def test_simulate_refuses_a_seat_count_that_disagrees_with_bots(capsys):
    code, _, err = run(capsys, ["simulate", "--players", "3", "--bots", "greedy,random", "--games", "1"])
    assert code == 2 and "--players 3 but --bots names 2 seats" in err
