"""Lint says what cannot matter and what is really refused (issue 20, item 15): rule files the manifest
never reads (W007), actions that can never have a target (W006), and the kind of piece an action may not name."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_error

from kbdsl.lint import lint_paths
from kbdsl.lang.parser import parse
from kbdsl.occupancy import EMPTY, NEUTRAL, OTHER, OWN, occupancies


def folder(tmp_path: Path, text: str, files: str = '["x.kb"]', extends: str = "base") -> Path:
    root = tmp_path / "r"
    root.mkdir()
    (root / "game.yaml").write_text(f"name: r\nextends: {extends}\nfiles: {files}\n")
    (root / "x.kb").write_text(text)
    return root


def findings(root: Path, code: str) -> list[str]:
    return [d.render(False) for d in lint_paths([str(root)]) if d.code == code]


def test_a_rule_file_the_manifest_does_not_match_is_reported(tmp_path):
    root = folder(tmp_path, 'card a "A" { score: 1 }\n')
    (root / "cards").mkdir()
    (root / "cards" / "more.kb").write_text('card b "B" { score: 2 }\n')
    (root / "scenarios" / "fixtures" / "own").mkdir(parents=True)  # a test rule set of its own: not ours
    (root / "scenarios" / "fixtures" / "own" / "t.kb").write_text('card c "C" { score: 3 }\n')
    found = findings(root, "W007")
    assert found == [
        f"{root / 'cards' / 'more.kb'}:1:1: W007 rule file 'more.kb' is never read: "
        "no pattern of game.yaml's `files` matches it"
    ]
    (root / "game.yaml").write_text('name: r\nextends: base\nfiles: ["*.kb", "cards/*.kb"]\n')
    assert findings(root, "W007") == []


@pytest.mark.parametrize(
    "action, role, shown",
    [
        ("remove from own", "target", "`remove` takes another player's piece, and `own` holds none"),
        (
            "build on occupied & buildable",
            "target",
            "`build` builds on an empty hex, and `occupied & buildable` holds none",
        ),
        (
            "move from other to buildable",
            "source",
            "`move` moves one of the player's own pieces, and `other` holds none",
        ),
        ("place wall on own | other", "target", "`place` places on an empty hex, and `own | other` holds none"),
        ("build on mine", "target", "`build` builds on an empty hex, and `mine` holds none"),
    ],
)
def test_an_action_that_never_has_a_target_is_reported_at_its_expression(tmp_path, action, role, shown):
    text = f'define mine = own & terrain(grass)\ntile t "T" {{ letter: Q  supply: 2  action: {action} }}\n'
    root = folder(tmp_path, text, extends="nomads")
    [d] = [d for d in lint_paths([str(root)]) if d.code == "W006"]
    assert d.message == f"`{action}` never has a {role}: {shown}"
    expr = (
        action.split(" from ")[1].split(" to ")[0] if role == "source" else action.split(" on ")[-1].split(" from ")[-1]
    )
    assert (d.pos.line, d.pos.col) == (2, text.splitlines()[1].index(expr) + 1)


@pytest.mark.parametrize(
    "action",
    [
        "remove from !own & !empty",  # another player's piece or a wall: may be another player's
        "move to own | origin",  # the hex left is empty once the piece is lifted
        "build on next-to(own)",
        "remove from other & next-to(own)",
        "move from slide(own) to buildable",
    ],
)
def test_actions_that_may_have_a_target_are_not_reported(tmp_path, action):
    root = folder(tmp_path, f'tile t "T" {{ letter: Q  supply: 2  action: {action} }}\n')
    assert findings(root, "W006") == []


def test_the_occupancy_of_words_and_their_combinations():
    def occ(text: str, move: bool = False) -> set[str]:
        [d] = parse(f"define x = {text}")
        return set(occupancies(d.expr, {}, move))

    assert occ("own") == {OWN}
    assert occ("!own") == {EMPTY, OTHER, NEUTRAL}
    assert occ("occupied & !own & !other") == {NEUTRAL}
    assert occ("buildable & empty | own") == {EMPTY, OWN}
    assert occ("!(own | terrain(grass))") == {EMPTY, OWN, OTHER, NEUTRAL} - {OWN}
    assert occ("origin", move=True) == {EMPTY}


def test_the_shipped_rules_have_no_such_warnings():
    root = Path(__file__).resolve().parent.parent / "rules"
    assert [d.render(False) for d in lint_paths([str(root)]) if d.code in ("W006", "W007")] == []


@pytest.mark.parametrize(
    "action, said",
    [
        (
            "move settlement to buildable",
            "move settlement: `move` naming a kind moves only pieces placed by tiles (warrior, ship, wagon, "
            "city-hall); 'settlement' is the kind `build` places: a move naming no kind moves those",
        ),
        ("return shp", "there is no piece kind 'shp' (did you mean 'ship'?)"),
    ],
)
def test_a_refused_kind_of_piece_says_what_is_refused(tmp_path, action, said):
    root = folder(tmp_path, f'tile t "T" {{ letter: Q  supply: 2  action: {action} }}\n', extends="crossroads")
    [d] = load_error(root).diagnostics
    assert d.code == "E101" and said in d.message
    assert "no piece kind of players has that name" not in d.message


def test_a_kind_owned_by_nobody_is_said_so(tmp_path):
    root = folder(tmp_path, 'tile t "T" { letter: Q  supply: 2  action: return wall }\n', extends="nomads")
    [d] = load_error(root).diagnostics
    assert d.message == (
        "return wall: `return` takes back one of the player's own pieces: 'settlement', or a kind "
        "placed by tiles (this rule set declares none); 'wall' is owned by nobody"
    )
