"""The rule-language parser: the AST it builds, where it says things are, and how it refuses."""

from __future__ import annotations

import pytest
from conftest import BASE, locate

from kbdsl.errors import Diagnostic, Pos, RuleError
from kbdsl.lang import ast
from kbdsl.lang.parser import MAX_NESTING, MAX_SOURCE_BYTES, parse, walk
from kbdsl.lang.unparse import unparse


def one(text: str):
    decls = parse(text, "t.kb")
    assert len(decls) == 1
    return decls[0]


def expr(text: str) -> ast.Expr:
    return one(f"define x = {text}").expr


def err(text: str, path: str = "t.kb") -> Diagnostic:
    with pytest.raises(RuleError) as info:
        parse(text, path)
    diags = info.value.diagnostics
    assert len(diags) == 1
    return diags[0]


def at(d: Diagnostic) -> tuple[str, int, int]:
    return (d.pos.path, d.pos.line, d.pos.col)


# ---- declarations ----------------------------------------------------------------


def test_terrain_declaration():
    t = one('terrain grass "Grass" { letter: G  buildable }')
    assert t == ast.Terrain("grass", "Grass", "G", frozenset({"buildable"}), (), pos=Pos("t.kb", 1, 9))
    assert t.pos == Pos("t.kb", 1, 9)


def test_title_defaults_to_name_and_separators_and_comments():
    t = one('# a comment\nterrain castle { letter: K; special; note: "n" ; text: "t" } # trailing')
    assert (t.name, t.title, t.letter, t.flags, t.texts) == ("castle", "castle", "K", {"special"}, ("n", "t"))
    assert t.pos == Pos("t.kb", 2, 9)


def test_tile_declaration_with_action():
    t = one('tile barn "Barn" {\n  letter: b  supply: 2\n  action: move to terrain(card) adjacent-if-possible\n}')
    assert (t.name, t.title, t.letter, t.supply) == ("barn", "Barn", "b", 2)
    a = t.action
    assert a.kind == "move" and a.source is None and a.adjacent_if_possible
    assert a.target == ast.Call("terrain", (ast.Ref("card", pos=Pos("")),), pos=Pos(""))
    assert unparse(a) == "move to terrain(card) adjacent-if-possible"


def test_move_with_source_and_build_count():
    t = one("turn { mandatory: build 3 on terrain(card) adjacent-if-possible }")
    (b,) = t.mandatory
    assert (b.kind, b.count, b.modifiers) == ("build", 3, ("adjacent-if-possible",))
    m = one("tile x { action: move from own & edge to empty }").action
    assert m.source == ast.BoolOp("&", ast.Ref("own", pos=Pos("")), ast.Ref("edge", pos=Pos("")), pos=Pos(""))
    assert m.target == ast.Ref("empty", pos=Pos(""))
    assert unparse(m) == "move from own & edge to empty"


def test_card_and_scoring():
    c, s = parse(
        'card lords "Lords" { score: rank(count(own) over sector pays 12, 6) }\n'
        "scoring castles { score: 3 per hex where terrain(castle) & next-to(own) }",
        "t.kb",
    )
    assert isinstance(c, ast.Card) and not c.always and c.title == "Lords"
    assert isinstance(s, ast.Card) and s.always
    agg = c.score
    assert (agg.fn, agg.domain, agg.payouts, agg.where) == ("rank", "sector", (12, 6), None)
    per = s.score
    assert (per.amount, per.domain) == (3, "hex")
    assert unparse(per.where) == "terrain(castle) & next-to(own)"


def test_section_grid_cells_and_positions():
    text = 'section s "S" {\n  board: moon\n  grid:\n    | G D\n    |  w G\n}\n'
    s = one(text)
    assert (s.name, s.title, s.board) == ("s", "S", "moon")
    assert [[c.letter for c in row] for row in s.rows] == [["G", "D"], ["w", "G"]]
    # each cell knows its own column (the shifted odd row included)
    assert s.rows[0][0].pos == Pos("t.kb", *locate(text, "G D"))
    assert s.rows[0][1].pos == Pos("t.kb", *locate(text, "D\n"))
    assert s.rows[1][0].pos == Pos("t.kb", *locate(text, "w G"))
    assert s.rows[1][1].pos == Pos("t.kb", *locate(text, "G\n}"))


def test_shipped_rule_files_parse():
    decls = []
    files = [BASE / n for n in ("terrain.kb", "turn.kb", "tiles.kb", "cards.kb")] + sorted(BASE.glob("sections/*.kb"))
    for f in files:
        decls += parse(f.read_text(encoding="utf-8"), str(f))
    kinds = {}
    for d in decls:
        kinds.setdefault(type(d).__name__, []).append(d)
    assert len(kinds["Terrain"]) == 8
    assert len(kinds["Tile"]) == 8
    assert sorted(c.name for c in kinds["Card"] if not c.always) == sorted(
        [
            "fishermen",
            "merchants",
            "discoverers",
            "hermits",
            "citizens",
            "miners",
            "workers",
            "knights",
            "lords",
            "farmers",
        ]
    )
    assert [c.name for c in kinds["Card"] if c.always] == ["castles"]
    assert len(kinds["Section"]) == 8
    for s in kinds["Section"]:
        assert len(s.rows) == 10 and {len(r) for r in s.rows} == {10}, s.name
    assert len(kinds["Turn"]) == 1


# ---- expressions -----------------------------------------------------------------

P = Pos("")


def R(name):
    return ast.Ref(name, pos=P)


def N(v):
    return ast.Num(v, pos=P)


@pytest.mark.parametrize(
    "text, tree",
    [
        ("a | b & c", ast.BoolOp("|", R("a"), ast.BoolOp("&", R("b"), R("c"), pos=P), pos=P)),
        ("(a | b) & c", ast.BoolOp("&", ast.BoolOp("|", R("a"), R("b"), pos=P), R("c"), pos=P)),
        ("!a & b", ast.BoolOp("&", ast.Not(R("a"), pos=P), R("b"), pos=P)),
        ("!(a & b)", ast.Not(ast.BoolOp("&", R("a"), R("b"), pos=P), pos=P)),
        ("a | b | c", ast.BoolOp("|", ast.BoolOp("|", R("a"), R("b"), pos=P), R("c"), pos=P)),
        ("1 + 2 * 3", ast.BinOp("+", N(1), ast.BinOp("*", N(2), N(3), pos=P), pos=P)),
        ("1 - 2 - 3", ast.BinOp("-", ast.BinOp("-", N(1), N(2), pos=P), N(3), pos=P)),
        ("7 // 2", ast.BinOp("//", N(7), N(2), pos=P)),
        ("count(own) >= 1", ast.Compare(">=", ast.Call("count", (R("own"),), pos=P), N(1), pos=P)),
        ("next-to(own, 2)", ast.Call("next-to", (R("own"), N(2)), pos=P)),
        ("line-end(own, 3)", ast.Call("line-end", (R("own"), N(3)), pos=P)),
        (
            "2 * max(count(own) over line)",
            ast.BinOp("*", N(2), ast.Aggregate("max", ast.Call("count", (R("own"),), pos=P), "line", pos=P), pos=P),
        ),
        ("1 per area", ast.Per(1, "area", pos=P)),
        (
            "1 per settlement where next-to(own) & !own",
            ast.Per(
                1,
                "settlement",
                ast.BoolOp("&", ast.Call("next-to", (R("own"),), pos=P), ast.Not(R("own"), pos=P), pos=P),
                pos=P,
            ),
        ),
        (
            "min(count(own) over sector where count(own) > 0)",
            ast.Aggregate(
                "min",
                ast.Call("count", (R("own"),), pos=P),
                "sector",
                ast.Compare(">", ast.Call("count", (R("own"),), pos=P), N(0), pos=P),
                pos=P,
            ),
        ),
    ],
)
def test_expression_trees(text, tree):
    assert expr(text) == tree


@pytest.mark.parametrize(
    "text",
    [
        "a | b & c",
        "(a | b) & c",
        "!a & b",
        "!(a & b)",
        "1 + 2 * 3",
        "(1 + 2) * 3",
        "1 - (2 - 3)",
        "count(own) >= 1",
        "next-to(terrain(water), 2)",
        "2 * max(count(own) over line)",
        "rank(count(own) over sector where !option(x) | count(own) >= 1 pays 12, 6)",
        "3 per hex where terrain(castle) & next-to(own)",
        "sum(count(own) over area where count(own) > 1)",
    ],
)
def test_unparse_round_trips(text):
    tree = expr(text)
    assert expr(unparse(tree)) == tree


def test_expression_positions():
    text = "define x = next-to(own) | 2 + 3"
    d = one(text)
    assert d.pos == Pos("t.kb", 1, 8)
    call = d.expr.left
    assert call.pos == Pos("t.kb", *locate(text, "next-to"))
    assert call.args[0].pos == Pos("t.kb", *locate(text, "own"))
    assert d.expr.right.pos == Pos("t.kb", *locate(text, "+"))  # a binary operator is placed at its sign


def test_walk_visits_every_node():
    names = {
        n.name
        for n in walk(expr("next-to(a) & !b | max(count(c) over line where d) >= 1 per hex where e"))
        if isinstance(n, ast.Ref)
    }
    assert names == {"a", "b", "c", "d", "e"}


def test_names_may_have_dashes_and_digits():
    assert expr("adjacent-ish_2") == R("adjacent-ish_2")
    assert one("tile rope-bridge { letter: r }").name == "rope-bridge"


# ---- syntax errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, needle, message",
    [
        ("terrain grass { letter G }", "G }", "unexpected 'G'; expected ':'"),
        ("terrain 1grass { }", "1grass", "unexpected '1'; expected a name"),
        ('terrain "grass" { }', '"grass"', "unexpected '\"grass\"'; expected a name"),
        ("card x {\n  score: 1 +\n}", "}", "unexpected '}'; expected"),
        ("tile t { supply: two }", "two", "unexpected 'two'; expected a number"),
        ("turn { mandatory: build 3 on terrain(card) nearby }", "nearby", "unexpected 'nearby'"),
        ("define x = own own", "own", "unexpected 'own'"),
    ],
)
def test_syntax_errors_name_file_line_col(text, needle, message):
    d = err(text)
    nth = 1 if text.startswith("define x = own own") else 0
    assert at(d) == ("t.kb", *locate(text, needle, nth))
    assert d.code == "E001"
    assert d.message.startswith(message), d.message


@pytest.mark.parametrize(
    "text, ch",
    [
        ("terrain grass @ { }", "@"),
        ("\x00", "\x00"),
        ("define x = own $ own", "$"),
        ('terrain t { text: "a\nb" }', '"'),
    ],
)
def test_unexpected_character(text, ch):
    d = err(text)
    assert d.code == "E001"
    assert d.message.startswith(f"unexpected character {ch!r}")
    assert at(d) == ("t.kb", *locate(text, ch))


@pytest.mark.parametrize("text", ["terrain grass { letter: G", "define x =", "tile t {\n  action: build on\n"])
def test_unexpected_end_of_file(text):
    d = err(text)
    assert d.code == "E001" and "end of file" in d.message
    assert d.pos.path == "t.kb" and d.pos.line >= 1


def test_error_lists_what_was_expected():
    d = err("terrain grass { colour: red }")
    assert d.message.startswith("unexpected 'colour'; expected ")
    assert "'letter'" in d.message and "'}'" in d.message


def test_rule_error_text_names_the_place():
    with pytest.raises(RuleError) as info:
        parse("\n\nterrain grass { letter G }", "rules/x.kb")
    assert str(info.value).startswith("rules/x.kb:3:24: E001 unexpected 'G'")


def test_diagnostic_render_shows_source_and_caret(tmp_path):
    f = tmp_path / "bad.kb"
    f.write_text("# comment\nterrain grass { letter G }\n", encoding="utf-8")
    with pytest.raises(RuleError) as info:
        parse(f.read_text(encoding="utf-8"), str(f))
    (d,) = info.value.diagnostics
    assert d.render().splitlines() == [
        f"{f}:2:24: E001 {d.message}",
        "    terrain grass { letter G }",
        "    " + " " * 23 + "^",
    ]
    assert d.to_json() == {
        "code": "E001",
        "severity": "error",
        "message": d.message,
        "file": str(f),
        "line": 2,
        "column": 24,
        "end_line": 2,
        "end_column": 25,
    }


# ---- limits ---------------------------------------------------------------------------


def test_nesting_limit_is_exact():
    ok = "define x = " + "(" * MAX_NESTING + "own" + ")" * MAX_NESTING
    assert isinstance(one(ok), ast.Define)
    text = "define x =\n  " + "(" * (MAX_NESTING + 1) + "own" + ")" * (MAX_NESTING + 1)
    d = err(text)
    assert d.code == "E002"
    assert d.message == f"parentheses nested deeper than {MAX_NESTING}"
    assert at(d) == ("t.kb", 2, 3 + MAX_NESTING)  # the first parenthesis too many


def test_deep_nesting_without_parentheses_is_refused():
    for text in ("define x = " + "!" * 5000 + "own", "define x = " + " | ".join(["own"] * 5000)):
        d = err(text)
        assert d.code == "E002" and d.message == "expression nested too deeply"
        assert at(d) == ("t.kb", 1, 1)


def test_moderate_depth_still_parses():
    assert isinstance(one("define x = " + "!" * 200 + "own").expr, ast.Not)
    assert isinstance(one("define x = " + " | ".join(["own"] * 200)).expr, ast.BoolOp)


def test_size_limit_is_in_bytes():
    at_limit = "#" + "x" * (MAX_SOURCE_BYTES - 1)
    assert parse(at_limit, "big.kb") == []
    d = err(at_limit + "x", "big.kb")
    assert (d.code, at(d)) == ("E002", ("big.kb", 1, 1))
    assert d.message == f"file is larger than {MAX_SOURCE_BYTES} bytes"
    # 'é' is two bytes in UTF-8: half as many characters already break the limit
    d = err("#" + "é" * (MAX_SOURCE_BYTES // 2), "big.kb")
    assert d.message == f"file is larger than {MAX_SOURCE_BYTES} bytes"


def test_lone_surrogate_does_not_crash():
    d = err("terrain \ud800 { }")
    assert d.code == "E001"


def test_empty_and_comment_only_files():
    assert parse("", "t.kb") == []
    assert parse("# nothing\n\n   \n", "t.kb") == []


@pytest.mark.parametrize(
    "text, block, begun, seen",
    [
        (
            'tile well "Well" {\n  letter: w  supply: 2\n  action: build on buildable\n\ntile hut { supply: 1 }\n',
            "tile 'well'",
            "1:1",
            "'tile'",
        ),
        (
            'override card x "A {" { # a { in a comment\n  score: 1 per area\ncard y { score: 2 }\n',
            "card 'x'",
            "1:10",
            "'card'",
        ),
        (
            "section s {\n  grid:\n    | G } D\n    | D G\n\nterrain lava { letter: L }\n",
            "section 's'",
            "1:1",
            "'terrain'",
        ),
        ("terrain grass { letter: G }\nturn {\n  mandatory: build 3 on terrain(card)\n", "turn", "2:1", "end of file"),
        ("card a { score: 1 per settlement where own\n  | edge\ndefine x = own\n", "card 'a'", "1:1", "'define'"),
    ],
)
def test_a_missing_brace_names_the_block_left_open_and_where_it_began(text, block, begun, seen):
    """Issue 20, item 17: not `unexpected 'tile'` with 33 expected tokens."""
    d = err(text)
    assert d.code == "E001"
    assert d.message == f"unexpected {seen}: {block} (begun at {begun}) is not closed, a '}}' is missing before it"
    if seen != "end of file":
        assert at(d) == ("t.kb", *locate(text, seen[1:-1], nth=text.count(seen[1:-1]) - 1))
