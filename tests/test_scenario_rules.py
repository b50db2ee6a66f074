"""Where a scenario's `rules` points: a folder relative to the scenario file, else a shipped rule set's
name, whatever the working folder holds (issue 20, item 16); and lint checks scenarios as test does (item 18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_corpus import FINDING, cases, prepare

from kbdsl.cli import main

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "rules" / "crossroads" / "scenarios" / "barracks-place.yaml"


def copy_by_name(tmp_path: Path) -> Path:
    """A user's folder `crossroads/scenarios/x.yaml` (no manifest) whose scenario names the shipped rules."""
    folder = tmp_path / "crossroads" / "scenarios"
    folder.mkdir(parents=True)
    text = SHIPPED.read_text(encoding="utf-8").replace("rules: ..", "rules: crossroads")
    (folder / "x.yaml").write_text(text, encoding="utf-8")
    return folder / "x.yaml"


def test_a_shipped_name_passes_from_the_folder_above_and_from_inside(tmp_path, monkeypatch, capsys):
    copy_by_name(tmp_path)
    monkeypatch.chdir(tmp_path)  # here `crossroads` is the user's folder, which has no manifest
    assert main(["test", "crossroads/scenarios/x.yaml"]) == 0, capsys.readouterr()
    monkeypatch.chdir(tmp_path / "crossroads" / "scenarios")
    assert main(["test", "x.yaml"]) == 0, capsys.readouterr()


def test_a_relative_folder_wins_over_a_shipped_name(tmp_path, monkeypatch, capsys):
    scenario = copy_by_name(tmp_path)
    mine = tmp_path / "crossroads" / "scenarios" / "crossroads"
    mine.mkdir()
    (mine / "game.yaml").write_text('name: mine\nextends: crossroads\nfiles: ["*.kb"]\n', encoding="utf-8")
    (mine / "tasks.kb").write_text("card {", encoding="utf-8")  # the relative folder is the one loaded
    monkeypatch.chdir(tmp_path)
    assert main(["test", str(scenario.relative_to(tmp_path))]) == 1
    assert "tasks.kb:1:" in capsys.readouterr().out


def test_a_name_that_is_neither_is_located_at_the_rules_key(tmp_path, monkeypatch, capsys):
    scenario = copy_by_name(tmp_path)
    scenario.write_text(scenario.read_text().replace("rules: crossroads", "rules: crosroads"))
    monkeypatch.chdir(tmp_path)
    assert main(["test", "crossroads/scenarios/x.yaml"]) == 1
    out = capsys.readouterr().out
    line = next(n for n, t in enumerate(scenario.read_text().splitlines(), 1) if t.startswith("rules:"))
    assert f"crossroads/scenarios/x.yaml:{line}:8: E200 rules 'crosroads': no game manifest at" in out
    assert "(did you mean 'crossroads'?)" in out


SCENARIO_CASES = [c for c in cases() if c[0].startswith("scenario/")]


@pytest.mark.parametrize("case, code, line, col, message", SCENARIO_CASES, ids=[c[0] for c in SCENARIO_CASES])
def test_lint_finds_what_test_finds_before_judging(case, code, line, col, message, tmp_path, monkeypatch, capsys):
    """Every broken scenario of the corpus gives `kbdsl lint` the finding it gives `kbdsl test`, but an
    expectation that does not hold: lint sets the position up and checks names and hexes, it judges nothing."""
    monkeypatch.chdir(tmp_path)
    argv, reported = prepare(case, tmp_path)
    exit_code = main(["lint", *argv[1:]])
    text = capsys.readouterr().out
    if case == "scenario/failing-expectation.yaml":
        assert exit_code == 0 and "All checks passed!" in text, text
        return
    found = [m for m in map(FINDING.match, text.splitlines()) if m]
    assert exit_code == 1 and found, text
    assert any(
        (m.group(1), m.group(4), int(m.group(2)), int(m.group(3))) == (reported, code, line, col)
        and message in m.group(5)
        for m in found
    ), text
