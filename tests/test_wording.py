"""Counted nouns in generated text (issue 20, item 23): "1 check", "2 checks", never "1 checks" or "card(s)"."""

from __future__ import annotations

import re
import tokenize
from pathlib import Path

import pytest
from conftest import shipped

from kbdsl.cli import main
from kbdsl.english import English
from kbdsl.render.terminal import render_legend
from kbdsl.wording import counted, plural

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "n, noun, text",
    [
        (1, "check", "1 check"),
        (2, "check", "2 checks"),
        (0, "move", "0 moves"),
        (1, "copy", "1 copy"),
        (3, "copy", "3 copies"),
        (2, "day", "2 days"),
        (2, "hex", "2 hexes"),
        (2, "mandatory build", "2 mandatory builds"),
        (1, "Kingdom Builder card", "1 Kingdom Builder card"),
        (2, "person", "2 people"),
    ],
)
def test_counted(n, noun, text):
    assert counted(n, noun, "people" if noun == "person" else None) == text


def test_plural_of_the_nouns_the_messages_use():
    assert [plural(w) for w in ("tile", "city", "box", "match", "wish", "key")] == [
        "tiles",
        "cities",
        "boxes",
        "matches",
        "wishes",
        "keys",
    ]


def test_no_generated_text_hedges_a_plural():
    """No string in kbdsl's Python writes "(s)", "(es)" or "(ies)" after a word: counts use kbdsl.wording."""
    found = []
    for path in (ROOT / "kbdsl").rglob("*.py"):
        with path.open("rb") as f:
            for tok in tokenize.tokenize(f.readline):
                text = re.sub(r"\{[^{}]*\}", "", tok.string)  # an f-string's code is no text
                if tok.type == tokenize.STRING and re.search(r"[A-Za-z]\((s|es|ies)\)", text):
                    found.append(f"{path.relative_to(ROOT)}:{tok.start[0]}: {tok.string}")
    assert found == []


def test_one_of_each_reads_in_the_singular(tmp_path, monkeypatch, capsys):
    scenario = ROOT / "rules" / "base" / "scenarios" / "scoring"
    one = next(p for p in sorted(scenario.glob("*.yaml")) if "scores:" in p.read_text())
    text = one.read_text().split("expect:")[0] + "expect:\n  game_over: false\n"
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "one.yaml").write_text(text.replace("rules: ../..", "rules: base"))
    monkeypatch.chdir(tmp_path)
    assert main(["test", "-v", "scenarios/one.yaml"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("(1 check)")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "game.yaml").write_text('name: r\nextends: base\nfiles: ["*.kb"]\n')
    (tmp_path / "r" / "x.kb").write_text("define unused = own\n")
    assert main(["lint", "r"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("Found 1 problem: 1 warning.")


def test_explain_and_the_terminal_legend_count_in_words():
    nomads = shipped("nomads")
    one_copy = next(t for t in nomads.tiles.values() if t.copies == 1)
    assert "): 1 copy in the" in English(nomads).explain(one_copy.name)[0]
    assert "2 tiles on each location hex" in English(shipped("base")).explain("oracle")[0]
    text = render_legend(nomads, False, 200)
    assert "tiles tile" not in text and "a tile of the Nomad tiles pool lying there" in text
