"""Diagnostics like a good compiler: codes documented, suggestions, carets, lint options, JSON, runner options."""

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from kbdsl.cli import main
from kbdsl.suggest import closest, distance

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "diagnostics.md"


def run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_code_in_the_engine_is_in_the_table_and_back():
    used = set()
    for path in (ROOT / "kbdsl").rglob("*.py"):
        used.update(re.findall(r'"([EWS]\d{3})"', path.read_text(encoding="utf-8")))
    table = set(re.findall(r"^\| `([EWS]\d{3})` \|", DOC.read_text(encoding="utf-8"), re.M))
    assert used and used == table


@pytest.mark.parametrize(
    "word, names, hit",
    [
        ("biuld", ["build", "move"], "build"),
        ("mountian", ["mountain", "grass"], "mountain"),
        ("preset", ["presets", "players"], "presets"),
        ("bass", ["base", "island"], "base"),
        ("tiel", ["tile", "terrain", "turn"], "tile"),
        ("xyz", ["own", "edge"], None),
        ("a", ["b"], "b"),
    ],
)
def test_closest_name(word, names, hit):
    assert closest(word, names) == hit


def test_edit_distance_counts_a_swap_once():
    assert distance("tiel", "tile") == 1
    assert distance("kitten", "sitting") == 3
    assert distance("", "abc") == 3


def write_typo(tmp_path, extra=""):
    folder = tmp_path / "typo"
    folder.mkdir()
    (folder / "game.yaml").write_text('name: typo\nextends: base\nfiles: ["*.kb"]\n')
    (folder / "cards.kb").write_text('card lookouts "Lookouts" {\n  score: 1 per settlement where edg\n}\n' + extra)
    return folder


def write_warning_only(tmp_path):
    folder = tmp_path / "warn"
    folder.mkdir()
    (folder / "game.yaml").write_text('name: warn\nextends: base\nfiles: ["*.kb"]\n')
    (folder / "defs.kb").write_text("define unused = own\n")
    return folder


def test_lint_prints_source_line_and_caret_and_a_summary(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_typo(tmp_path)
    code, out, _ = run(capsys, ["lint", "typo"])
    assert code == 1
    assert out.splitlines() == [
        "typo/cards.kb:2:33: E101 unknown name 'edg' (did you mean 'edge'?)",
        "      score: 1 per settlement where edg",
        "    " + " " * 32 + "^^^",
        "Found 1 problem: 1 error.",
    ]


def test_lint_clean_says_so_and_takes_shipped_names(capsys):
    code, out, _ = run(capsys, ["lint", "base"])
    assert (code, out) == (0, "All checks passed!\n")
    code, _, err = run(capsys, ["lint", "bass"])
    assert code == 2 and "(did you mean 'base'?)" in err


def test_warnings_exit_0_unless_strict_and_select_ignore_filter(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_warning_only(tmp_path)
    code, out, _ = run(capsys, ["lint", "warn"])
    assert code == 0 and "W001 definition 'unused' is never used" in out
    assert out.endswith("Found 1 problem: 1 warning.\n")
    assert run(capsys, ["lint", "warn", "--strict"])[0] == 1
    code, out, _ = run(capsys, ["lint", "warn", "--strict", "--ignore", "W001"])
    assert (code, out) == (0, "All checks passed!\n")
    code, out, _ = run(capsys, ["lint", "warn", "--strict", "--select", "E"])
    assert (code, out) == (0, "All checks passed!\n")
    code, out, _ = run(capsys, ["lint", "warn", "--select", "w0"])
    assert "W001" in out


def test_lint_json_of_the_shipped_rules_matches_its_schema(capsys, tmp_path, monkeypatch):
    schema = json.loads((ROOT / "schemas" / "diagnostics.schema.json").read_text())
    code, out, _ = run(capsys, ["lint", "--format", "json", str(ROOT / "rules")])
    assert code == 0 and json.loads(out) == []
    monkeypatch.chdir(tmp_path)
    write_typo(tmp_path)
    write_warning_only(tmp_path)
    code, out, _ = run(capsys, ["lint", "--format", "json", "typo", "warn"])
    found = json.loads(out)
    jsonschema.validate(found, schema)
    assert code == 1
    assert [(d["code"], d["severity"], d["file"], d["line"], d["column"], d["end_column"]) for d in found] == [
        ("E101", "error", "typo/cards.kb", 2, 33, 36),
        ("W001", "warning", "warn/defs.kb", 1, 8, 8),
    ]


def test_scenario_runner_selects_stops_and_writes_junit(capsys, tmp_path):
    code, out, _ = run(capsys, ["test", "base", "-k", "lords-tie", "-v"])
    assert code == 0
    lines = out.splitlines()
    assert len([x for x in lines if x.startswith("PASS ")]) == 2
    assert re.fullmatch(r"2 passed, 0 failed, \d+ deselected", lines[-1])
    scen = tmp_path / "scenarios"
    scen.mkdir()
    bad = "name: {name}\nsections: [tavern, paddock, oasis, farm]\nexpect:\n  scores:\n    - {{castles: 99}}\n"
    for name in ("a-bad", "b-bad"):
        (scen / f"{name}.yaml").write_text(bad.format(name=name))
    report = tmp_path / "junit.xml"
    code, out, _ = run(capsys, ["test", str(scen), "-x", "--junit-xml", str(report)])
    assert code == 1
    assert out.count("FAIL ") == 1 and out.splitlines()[-1] == "0 passed, 1 failed"
    assert "S100 player 0 castles: expected 99, got 0" in out and "    - {castles: 99}" in out  # source line
    suite = ET.parse(report).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("1", "1")
    assert "expected 99, got 0" in suite.find("testcase/failure").get("message")


def test_a_deselected_scenario_is_not_run(capsys, tmp_path, monkeypatch):
    from kbdsl.scenario import Runner

    scen = tmp_path / "scenarios"
    scen.mkdir()
    good = "name: {name}\nsections: [tavern, paddock, oasis, farm]\nexpect:\n  scores:\n    - {{castles: 0}}\n"
    for name in ("keep-me", "skip-me"):
        (scen / f"{name}.yaml").write_text(good.format(name=name))
    ran: list[str] = []
    real = Runner.run
    monkeypatch.setattr(Runner, "run", lambda self, path: ran.append(Path(path).stem) or real(self, path))
    code, out, _ = run(capsys, ["test", str(scen), "-k", "keep"])
    assert code == 0 and out.splitlines()[-1] == "1 passed, 0 failed, 1 deselected"
    assert ran == ["keep-me"]


def test_expected_tokens_use_the_languages_words_never_grammar_names():
    from kbdsl.lang.parser import _WORDS, _describe, _lark

    for terminal in _lark().terminals:
        if terminal.name in _lark().lexer_conf.ignore:  # spaces and comments are never expected
            continue
        words = _describe(terminal.name)
        assert words, terminal.name
        if terminal.name not in _WORDS:
            assert all(w.startswith("'") and w.endswith("'") for w in words), (terminal.name, words)
    assert _describe("TEXT_KEY") == ["'text'", "'note'"] and _describe("FLAG") == ["'buildable'", "'special'"]


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["render", "--preset", "first-gam"], "(did you mean 'first-game'?)"),
        (["render", "--rules", "bass"], "(did you mean 'base'?)"),
        (["render", "--sections", "tavern,padock,oasis,farm"], "(did you mean 'paddock'?)"),
        (["render", "--cards", "lord,knights,farmers"], "(did you mean 'lords'?)"),
        (["render", "--option", "move-may-sty=true"], "(did you mean 'move-may-stay'?)"),
        (["render", "--board", "iland=island-tree-house", "--rules", "island"], "(did you mean 'island'?)"),
        (["show", "islnd"], "(did you mean 'island'?)"),
    ],
)
def test_command_line_names_get_suggestions(capsys, argv, hint):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert hint in err and "Traceback" not in err


@pytest.mark.parametrize("hand, warned", [("", True), ("  hand: 2 when option(move-may-stay)\n", False)])
def test_lint_warns_of_identical_any_terrain_without_a_hand_of_two(capsys, tmp_path, monkeypatch, hand, warned):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wild").mkdir()
    (tmp_path / "wild" / "game.yaml").write_text("name: wild\nextends: base\nfiles: ['*.kb']\n")
    turn = "override turn {\n  mandatory: build 3 on terrain(card) adjacent-if-possible\n" + hand
    (tmp_path / "wild" / "turn.kb").write_text(turn + "  identical: any-terrain\n}\n")
    code, out, _ = run(capsys, ["lint", "wild"])
    line = 4 if hand else 3
    assert code == 0
    assert (f"wild/turn.kb:{line}:14: W005 identical: any-terrain never applies" in out) == warned
