"""`kbdsl render`: sections, set-ups, scenario positions and saved games as SVG (and PNG)."""

import importlib.util
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kbdsl.cli import main
from kbdsl.marks import last_turn_hexes

ROOT = Path(__file__).resolve().parent.parent
NS = "{http://www.w3.org/2000/svg}"
SCENARIO = ROOT / "rules" / "examples" / "hamlets" / "scenarios" / "hamlet-targets.yaml"


def render(capsys, tmp_path, *args):
    out = tmp_path / "x.svg"
    code = main(["render", *args, "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return ET.parse(out).getroot()


def hexes(root):
    return [e for e in root.iter(f"{NS}polygon") if e.get("class", "").split()[:1] == ["hex"]]


def pieces(root):
    return [e for e in root.iter(f"{NS}g") if e.get("class") == "piece"]


def test_first_game_preset_has_400_hex_shapes(capsys, tmp_path):
    root = render(capsys, tmp_path, "--preset", "first-game")
    assert len(hexes(root)) == 400 and pieces(root) == []


def test_a_section_alone(capsys, tmp_path):
    root = render(capsys, tmp_path, "--rules", "island", "--section", "island-tree-house", "--coords")
    assert 0 < len(hexes(root)) < 100
    root = render(capsys, tmp_path, "--section", "paddock")
    assert len(hexes(root)) == 100
    assert main(["render", "--section", "padock"]) == 2
    assert "did you mean 'paddock'" in capsys.readouterr().err


def test_a_scenario_position_with_legal_targets(capsys, tmp_path):
    root = render(capsys, tmp_path, "--scenario", str(SCENARIO), "--legal", "hamlet")
    legal = {e.get("data-hex") for e in hexes(root) if "legal" in e.get("class").split()}
    assert legal == {"1,3", "3,2"}  # what the scenario expects
    assert sorted((e.get("data-hex"), e.get("data-player")) for e in pieces(root)) == [
        ("1,2", "0"),
        ("2,3", "0"),
        ("3,3", "1"),
        ("4,3", "0"),
    ]


def test_a_saved_game_at_any_move(capsys, tmp_path):
    save = tmp_path / "g.json"
    assert main(["play", "--bots", "random,random", "--seed", "2", "--quiet", "--save", str(save)]) == 0
    capsys.readouterr()
    root = render(capsys, tmp_path, "--game", str(save), "--move", "0")
    assert pieces(root) == []
    root = render(capsys, tmp_path, "--game", str(save), "--move", "4", "--last")
    assert len(pieces(root)) == 3  # the first turn's three builds, then the end of that turn
    marks = {e.get("data-hex") for e in root.iter() if e.get("class") == "last-mark"}
    assert marks == {e.get("data-hex") for e in pieces(root)}
    whole = render(capsys, tmp_path, "--game", str(save))
    assert len(pieces(whole)) > 40
    assert main(["render", "--game", str(save), "--move", "100000"]) == 2
    assert "the saved game has moves 0 to" in capsys.readouterr().err


def test_position_flags_need_a_position(capsys):
    assert main(["render", "--legal"]) == 2
    assert "need a position" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("cairosvg") is None, reason="CairoSVG (the png extra) is not installed")
def test_png_through_cairosvg(capsys, tmp_path):
    out = tmp_path / "x.png"
    assert main(["render", "--preset", "first-game", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_pictures_in_the_docs_are_what_their_commands_make(tmp_path, monkeypatch, capsys):
    """Every picture the README and the guide show is made by the command they print beside it."""
    monkeypatch.chdir(ROOT)
    commands = []
    for doc in ("README.md", "docs/authoring.md"):
        commands += re.findall(r"python3 -m kbdsl (render [^`\n]*-o (docs/images/\S+\.svg))", (ROOT / doc).read_text())
    assert len({out for _, out in commands}) >= 3
    for command, out in commands:
        argv = shlex.split(command)
        argv[argv.index(out)] = str(tmp_path / "made.svg")
        assert main(argv) == 0, capsys.readouterr().err
        assert (tmp_path / "made.svg").read_text() == (ROOT / out).read_text(), f"run: python3 -m kbdsl {command}"


def test_last_turn_marks_follow_the_log(base_rules):
    from kbdsl.game import Game
    from kbdsl.moves import END

    state = Game.new(base_rules, 2, preset="first-game").new_state()
    assert last_turn_hexes(state) == []
    built = []
    for _ in range(3):
        move = state.legal_moves()[0]
        state.play(move)
        built.append(move.to)
    assert last_turn_hexes(state) == built  # the turn under way
    state.play(END)
    assert last_turn_hexes(state) == built  # the turn that just ended, until the next one moves
    move = state.legal_moves()[0]
    state.play(move)
    assert last_turn_hexes(state) == [move.to]
