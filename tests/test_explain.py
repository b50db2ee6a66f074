"""`kbdsl explain` (rules in plain English, from the parsed objects), `kbdsl show` and `kbdsl --version`."""

import json
import re

import pytest

from conftest import shipped
from kbdsl import __version__
from kbdsl.cli import main
from kbdsl.english import English

RULE_SETS = ("base", "island", "examples/hamlets", "nomads", "crossroads")


def every_tile_and_card():
    for name in RULE_SETS:
        rules = shipped(name)
        for decl in [*rules.tiles.values(), *rules.cards.values(), *rules.scorings.values()]:
            yield name, decl


@pytest.mark.parametrize("rule_set, decl", list(every_tile_and_card()), ids=lambda x: getattr(x, "name", x))
def test_every_shipped_tile_and_card_reads_as_a_sentence(rule_set, decl):
    rules = shipped(rule_set)
    text = English(rules).explain(decl.name)[0]  # a tile comes first; a section of the same name follows
    assert text.startswith(("Tile ", "Kingdom Builder card ", "Scoring (every game) "))
    assert repr(decl.title) in text and text.endswith(".")
    assert not re.search(r"\b(Ref|Call|BoolOp|Aggregate|Per|Num)\(|\?|_", text.replace(decl.name, "")), text
    # every terrain and tile the rule names appears by its title
    for word in re.findall(r"terrain\((\w+)\)", str(decl)):
        assert word in ("card", "drawn") or rules.terrains[word].title in text


@pytest.mark.parametrize(
    "name, expected",
    [
        (
            "oracle",
            "Tile 'Oracle' (oracle): location letter o, 2 tiles on each location hex. Once per turn, its "
            "holder may build one settlement from their supply on hexes of the terrain of the card they played, "
            "next to their own settlements if possible.",
        ),
        (
            "paddock",
            "Tile 'Paddock' (paddock): location letter p, 2 tiles on each location hex. Once per turn, its "
            "holder may move one of their settlements to buildable hexes, among them only hexes exactly 2 steps "
            "in a straight line from the moved settlement.",
        ),
        (
            "hermits",
            "Kingdom Builder card 'Hermits' (hermits): at the end of the game each player scores 1 for each of "
            "their settlement areas.",
        ),
        (
            "citizens",
            "Kingdom Builder card 'Citizens' (citizens): at the end of the game each player scores (the largest "
            "value of the number of their settlements over each of their settlement areas) divided by 2, "
            "rounded down.",
        ),
        (
            "lords",
            "Kingdom Builder card 'Lords' (lords): at the end of the game each player scores for each sector where "
            "(not (the rule option 'lords-presence-required' is on)) or (the number of their settlements is at "
            "least 1), ranking the players by the number of their settlements there: 12 to each player with the "
            "most, 6 to each player with the second most.",
        ),
        ("site", "Definition 'site': location hexes (of any tile) or Castle hexes."),
    ],
)
def test_explanations_follow_the_syntax_tree(name, expected):
    assert English(shipped("base")).explain(name)[0] == expected


def test_a_name_shared_by_a_tile_and_a_section_explains_both(capsys):
    assert main(["explain", "oasis"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Tile 'Oasis'") and "\n\nSection 'Oasis' (oasis) of board main: 10 rows of 10 hexes" in out


def test_explain_suggests_a_near_name(capsys):
    assert main(["explain", "padock"]) == 2
    assert "declares nothing called 'padock' (did you mean 'paddock'?)" in capsys.readouterr().err
    assert main(["explain", "hamlet", "--rules", "hamlets"]) == 0  # a shipped example by its last name
    assert "Tile 'Hamlet'" in capsys.readouterr().out


def test_show_lists_everything_as_a_table_and_as_json(capsys):
    assert main(["show", "island"]) == 0
    out = capsys.readouterr().out
    for heading in ("Terrains", "Tiles", "Cards", "Always scored", "Boards and sections", "Presets", "Options"):
        assert f"\n{heading}\n" in out
    assert re.search(r"^  island +1x1 +island-rope-bridge island-tree-house$", out, re.M)
    assert re.search(r"^  first-game +main: tavern paddock oasis farm +fishermen, knights, merchants$", out, re.M)
    assert all(line == line.rstrip() for line in out.splitlines())
    assert main(["show", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rules = shipped("base")
    assert [t["name"] for t in data["tiles"]] == list(rules.tiles)
    assert [c["name"] for c in data["cards"]] == list(rules.cards)
    assert [o["name"] for o in data["options"]] == list(rules.options)


def test_show_lists_piece_kinds_task_decks_hand_tiles_and_options(capsys):
    assert main(["show", "crossroads"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  warrior +Warrior +tile +x2 each +aura: blocks-next-to; movable: yes;", out, re.M)
    assert re.search(r"^  settlement +Settlement +build +x40 each$", out, re.M)
    assert re.search(r"^  crossroads +u +Crossroads +x2 +hand: 2$", out, re.M)
    deck = out.split("\nDeck tasks (one card for each of barracks, city-hall, lighthouse, monastery in play)\n")[1]
    assert [line.split()[0] for line in deck.split("\n\n")[0].splitlines()] == [
        "advance",
        "compass-points",
        "fortress",
        "home-country",
        "place-of-refuge",
        "road",
    ]
    cards = out.split("\nCards\n")[1].split("\n\n")[0]
    assert "advance" not in cards and "fishermen" in cards
    for option in ("meeples-move-by-own-tile", "placements-past-warriors", "meeple-placements-pay-nothing"):
        assert re.search(rf"^  {option} +off +", out, re.M)


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"kbdsl {__version__}\n"


@pytest.mark.parametrize(
    "rule_set, name, expected",
    [
        (
            "crossroads",
            "lighthouse",
            "Tile 'Lighthouse' (lighthouse): location letter l, 2 tiles on each location hex. Once per turn, its "
            "holder may place one ship from their supply on Water hexes, next to their own settlements if possible; "
            "or move their ship to Water hexes, among them only hexes next to the hex the moved ship starts from, up "
            "to 3 times; or take one ship of theirs back from the board to their supply.",
        ),
        (
            "crossroads",
            "fort",
            "Tile 'Fort' (fort): location letter z, 2 tiles on each location hex. Once per turn, its holder may draw "
            "the top terrain card and put it face up on the discard pile, then build one settlement from their supply "
            "on hexes of the terrain of the card the action drew, next to their own settlements if possible.",
        ),
        (
            "crossroads",
            "crossroads",
            "Tile 'Crossroads' (crossroads): location letter u, 2 tiles on each location hex. Its holder draws 2 "
            "terrain cards at the end of each turn and plays one of them.",
        ),
        (
            "nomads",
            "quarry",
            "Tile 'Quarry' (quarry): location letter q, 2 tiles on each location hex. Once per turn, its holder may "
            "place one stone wall from the shared supply on hexes of the terrain of the card they played, among them "
            "only hexes next to their settlements, up to 2 times.",
        ),
        (
            "nomads",
            "treasure",
            "Tile 'Treasure' (treasure): 2 copies in the nomad-tiles pool, dealt at setup. The moment it is taken, its "
            "holder may gain 3 gold.",
        ),
        (
            "nomads",
            "sword",
            "Tile 'Sword' (sword): 2 copies in the nomad-tiles pool, dealt at setup. Once, and then it leaves the "
            "game, its holder may remove one piece of each other player standing on other players' settlements, back "
            "to its owner's supply.",
        ),
    ],
)
def test_expansion_tiles_name_their_piece_kinds_choices_and_lifecycles(rule_set, name, expected):
    assert English(shipped(rule_set)).explain(name)[0] == expected


# -- structure (issue 20, item 14): distinct trees never read alike ------------------------------
from itertools import product  # noqa: E402

from kbdsl.expr import HEX_WORDS  # noqa: E402
from kbdsl.lang import ast as kb_ast  # noqa: E402
from kbdsl.lang.parser import parse, walk  # noqa: E402
from kbdsl.lang.unparse import unparse  # noqa: E402


def tree(text: str):
    return parse(f"define z = {text}")[0].expr


def test_the_issues_two_rules_read_differently():
    english = English(shipped("base"))
    inside = english.expr(tree("next-to(terrain(water) & next-to(own))"))
    outside = english.expr(tree("next-to(terrain(water)) & next-to(own)"))
    assert inside == "hexes next to (Water hexes, among them only hexes next to their settlements)"
    assert outside == "hexes next to Water hexes, among them only hexes next to their settlements"


def nested_cases() -> list[str]:
    atoms = ["own", "terrain(water)", "edge", "next-to(own)"]
    one = [f"!{a}" for a in atoms] + [f"next-to({a})" for a in atoms]
    one += [f"{a} {op} {b}" for a, b in product(atoms, repeat=2) for op in "&|"]
    two = []
    for x, a in product(one, atoms[:2]):
        two += [f"next-to({x})", f"!({x})", f"within(2, {x})", f"count({x}) >= 2"]
        two += [f"({x}) {op} {a}" for op in "&|"] + [f"{a} {op} ({x})" for op in "&|"]
        two += [f"{x} {op} {a}" for op in "&|"]  # unbracketed: the grammar's own grouping
    return atoms + one + two


def expressions_of(rules):
    roots = [c.score for c in [*rules.cards.values(), *rules.scorings.values()] if c.score is not None]
    roots += [e for c in [*rules.cards.values(), *rules.scorings.values()] for _, e in c.triggers]
    roots += [d.expr for d in rules.defines.values()]
    for a in [*(t.action for t in rules.tiles.values() if t.action), *(m.decl for m in rules.mandatory)]:
        roots += [n.target for n in walk(a) if isinstance(n, kb_ast.Action) and n.target is not None]
        roots += [n.source for n in walk(a) if isinstance(n, kb_ast.Action) and n.source is not None]
    names = set(HEX_WORDS) | set(rules.defines)
    for root in roots:
        for n in walk(root):
            if isinstance(n, kb_ast.Ref) and n.name not in names:
                continue  # a name given to terrain(), location() or option(), not an expression
            yield n


def test_distinct_trees_never_give_the_same_sentence():
    """Over every shipped rule (every subexpression) and a set of nested cases: one sentence, one tree."""
    seen: dict[str, str] = {}
    for name in (*RULE_SETS, "combined"):
        rules = shipped(name)
        english = English(rules)
        cases = (
            [*expressions_of(rules), *(tree(t) for t in nested_cases())] if name == "base" else expressions_of(rules)
        )
        for node in cases:
            sentence, shape = f"{name}: {english.expr(node)}", unparse(node)
            assert seen.setdefault(sentence, shape) == shape, f"{shape!r} and {seen[sentence]!r} both read {sentence!r}"
    assert len(seen) > 500
