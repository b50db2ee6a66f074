"""Every number of the rule language is bounded at load time, with a located error (issue 20, item 11):
distances and line lengths by the extent of the rule set's boards, neighbour counts by 6, counts,
supplies and copies by documented caps, and every number written by MAX_NUMBER."""

from __future__ import annotations

import pytest
from conftest import load_error, no_hang, where

from kbdsl.cli import main
from kbdsl.lang.parser import MAX_NUMBER
from kbdsl.ruleset import MAX_COUNT, MAX_SUPPLY, load

# The mini rule set's one board is one section of 2 rows of 3 hexes: its extent is 2 * 3 = 6.
EXTENT = 6


def test_the_issues_case_is_an_error_at_the_number_not_a_long_scoring(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "far"
    folder.mkdir()
    (folder / "game.yaml").write_text('name: far\nextends: base\nfiles: ["*.kb"]\n')
    (folder / "far.kb").write_text(
        'card far "Far" {\n  score: 1 per settlement where within(1000000000, terrain(castle))\n}\n'
    )
    monkeypatch.chdir(tmp_path)
    with no_hang(60):
        assert main(["lint", "far"]) == 1
    assert "far/far.kb:2:40: E105 numbers are at most 1000000" in capsys.readouterr().out


@pytest.mark.parametrize(
    "expr, hi",
    [
        ("within({n}, own)", EXTENT),
        ("line-end(own, {n})", EXTENT),
        ("straight-run(own, {n})", EXTENT),
        ("aligned(own, {n})", EXTENT),
        ("diagonal-run(own, {n})", EXTENT),
        ("next-to(own, {n})", 6),
    ],
)
def test_a_geometric_number_is_bounded_by_the_board(mini, expr, hi):
    def with_n(n: int) -> str:
        return mini.edit("rules.kb", "score: 1 per area", f"score: 1 per settlement where {expr.format(n=n)}")

    original = mini.read("rules.kb")
    with_n(hi)
    mini.load()  # the bound itself is allowed
    mini.write("rules.kb", original)
    text = with_n(hi + 1)
    err = load_error(mini.root)
    [d] = err.diagnostics
    needle = expr.format(n=hi + 1)
    assert text and (d.code, where(d)) == ("E105", mini.diag_at("rules.kb", needle, offset=needle.index(str(hi + 1))))
    assert f"takes a number from 1 to {hi}" in d.message and f"not {hi + 1}" in d.message


def test_straight_is_bounded_by_the_board(mini):
    mini.edit(
        "rules.kb", "action: build on terrain(grass) adjacent-if-possible", f"action: move to straight({EXTENT + 1})"
    )
    [d] = load_error(mini.root).diagnostics
    assert d.code == "E105" and f"straight() takes a number from 1 to {EXTENT}" in d.message
    assert where(d) == mini.diag_at("rules.kb", str(EXTENT + 1))


def test_the_extent_follows_the_largest_board(tmp_path):
    """Base: 2x2 sections of 10x10, 40 rows and columns; a distance of 40 loads there, not in mini."""
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "game.yaml").write_text('name: b\nextends: base\nfiles: ["*.kb"]\n')
    (folder / "x.kb").write_text('card far "Far" { score: 1 per settlement where within(40, own) }\n')
    assert "far" in load(folder).cards
    (folder / "x.kb").write_text('card far "Far" { score: 1 per settlement where within(41, own) }\n')
    assert "from 1 to 40" in load_error(folder).diagnostics[0].message


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("letter: w  supply: 1", f"letter: w  supply: {MAX_COUNT + 1}", f"at most {MAX_COUNT} a location hex"),
        ("build on terrain(grass)", f"build {MAX_COUNT + 1} on terrain(grass)", f"between 1 and {MAX_COUNT}"),
    ],
)
def test_counts_and_supplies_have_caps(mini, old, new, message):
    mini.edit("rules.kb", old, new)
    [d] = load_error(mini.root).diagnostics
    assert d.code == "E105" and message in d.message and d.pos.line


def test_a_piece_supply_has_a_cap(mini):
    mini.write("pieces.kb", f'piece settlement "Settlement" {{ owner: player  supply: {MAX_SUPPLY + 1} }}\n')
    [d] = load_error(mini.root).diagnostics
    assert d.code == "E105" and f"at most {MAX_SUPPLY}" in d.message
    assert where(d) == mini.diag_at("pieces.kb", "settlement")


@pytest.mark.parametrize("digits", [7, 5000])
def test_a_number_too_large_to_write_is_an_error_at_the_number(mini, digits):
    """Thousands of digits are refused at the token, never converted (Python refuses over 4300)."""
    text = mini.edit("rules.kb", "score: 1 per area", f"score: 1 per area + {'9' * digits}")
    [d] = load_error(mini.root).diagnostics
    assert d.code == "E105" and d.message == f"numbers are at most {MAX_NUMBER}"
    assert where(d) == mini.diag_at("rules.kb", "9" * digits)
    assert text


def test_a_hand_of_thousands_of_digits_is_an_error_not_a_traceback(mini):
    mini.edit("rules.kb", "turn {", "turn {\n  hand: " + "9" * 5000)
    [d] = load_error(mini.root).diagnostics
    assert d.code == "E105" and d.message == f"numbers are at most {MAX_NUMBER}"
