"""Loading rule folders that are wrong: every mistake is a RuleError whose Diagnostics name
file:line:col and say what is wrong; a bad folder never half-loads."""

from __future__ import annotations

import time

import pytest
from conftest import MINI_SECTION, load_error, locate, where

from kbdsl.errors import RuleError
from kbdsl.resources import rules_path
from kbdsl.ruleset import MAX_GRID, RuleSet, load
from kbdsl.yamlio import MAX_DEPTH, MAX_YAML_BYTES, parse_yaml


def only(err: RuleError, code: str | None = None):
    """The single diagnostic of an error (optionally checking its code)."""
    assert len(err.diagnostics) == 1, [d.render(False) for d in err.diagnostics]
    d = err.diagnostics[0]
    if code is not None:
        assert d.code == code, d.render(False)
    return d


def codes(err: RuleError) -> list[str]:
    return [d.code for d in err.diagnostics]


# ---- the mini rule set itself ------------------------------------------------------


def test_mini_rule_set_loads(mini):
    rs = mini.load()
    assert isinstance(rs, RuleSet)
    assert rs.name == "mini" and set(rs.terrains) == {"grass", "desert", "water"}
    assert set(rs.tiles) == {"well"} and set(rs.cards) == {"hermits"} and list(rs.sections) == ["one"]


# ---- syntax errors through the loader -------------------------------------------------


def test_syntax_error(mini):
    text = mini.write("zz.kb", 'terrain lava "Lava" {\n  letter L\n}\n')
    d = only(mini.error(), "E001")
    assert where(d) == (mini.file("zz.kb"), *locate(text, "L\n"))
    assert d.message == "unexpected 'L'; expected ':'"


def test_syntax_errors_stop_the_load_before_cross_checks(mini):
    # a file with a syntax error contributes nothing, so cross-checks would only report what its
    # absence breaks: the loader stops after parsing and reports the syntax error alone
    text = mini.edit("rules.kb", "supply: 1", "supply 1")
    err = mini.error()
    assert len(err.diagnostics) == 1
    first = err.diagnostics[0]
    assert (first.code, where(first)) == ("E001", (mini.file("rules.kb"), *locate(text, "1\n")))
    assert first.message == "unexpected '1'; expected ':'"


def test_unexpected_character(mini):
    text = mini.write("zz.kb", 'terrain lava "Lava" @ { letter: L }')
    d = only(mini.error(), "E001")
    assert where(d) == (mini.file("zz.kb"), *locate(text, "@"))
    assert d.message.startswith("unexpected character '@'")


def test_unexpected_end_of_file(mini):
    mini.write("section.kb", MINI_SECTION.rstrip().rstrip("}"))
    err = mini.error()
    d = err.diagnostics[0]
    assert d.code == "E001" and d.pos.path == mini.file("section.kb") and d.pos.line >= 1
    assert "unexpected end of file" in d.message


def test_syntax_errors_in_two_files_are_reported_together_and_name_errors_after_them(mini):
    t1 = mini.edit("terrain.kb", "letter: W", "letter W")
    t2 = mini.edit("rules.kb", "supply: 1", "supply 1")
    err = mini.error()
    got = {(d.code, where(d)) for d in err.diagnostics}
    assert got == {
        ("E001", (mini.file("terrain.kb"), *locate(t1, "W }"))),
        ("E001", (mini.file("rules.kb"), *locate(t2, "1\n"))),
    }
    mini.edit("terrain.kb", "letter W", "letter: W")
    mini.edit("rules.kb", "supply 1", "supply: 1")
    t3 = mini.edit("rules.kb", "per area", "per areas")
    d = only(mini.error(), "E101")
    assert where(d) == (mini.file("rules.kb"), *locate(t3, "areas"))


# ---- unknown names -----------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, needle, code, message",
    [
        ("terrain(grass)", "terrain(gras)", "gras)", "E101", "unknown terrain 'gras' (did you mean 'grass'?)"),
        ("terrain(water)", "terrain(lava, water)", "lava", "E101", "unknown terrain 'lava'"),
        ("1 per area", "1 per hex where owned", "owned", "E101", "unknown name 'owned'"),
        ("next-to(terrain", "near(terrain", "near", "E101", "unknown function 'near'"),
        (
            "1 per area",
            "1 per row",
            "row",
            "E101",
            "unknown domain 'row'; expected one of settlement, hex, line, sector, area, side, field, board",
        ),
        (
            "1 per area",
            "avg(count(own) over line)",
            "avg",
            "E101",
            "unknown aggregate 'avg'; expected one of max, min, sum, rank",
        ),
        (
            "1 per area",
            "1 per hex where option(no-such-option)",
            "no-such-option",
            "E101",
            "unknown option 'no-such-option'",
        ),
        ("terrain(card) adjacent", "location(spring) adjacent", "spring", "E101", "unknown tile 'spring'"),
    ],
)
def test_unknown_names(mini, old, new, needle, code, message):
    text = mini.edit("rules.kb", old, new)
    d = only(mini.error(), code)
    assert where(d) == (mini.file("rules.kb"), *locate(text, needle))
    assert d.message == message


def test_unknown_terrain_in_the_real_rules(rules_copy):
    text = rules_copy.edit("tiles.kb", "terrain(grass)", "terrain(gras)")
    d = only(rules_copy.error(), "E101")
    assert where(d) == rules_copy.diag_at("tiles.kb", "gras)")
    assert where(d)[1:] == locate(text, "terrain(gras)", offset=len("terrain("))
    assert d.message == "unknown terrain 'gras' (did you mean 'grass'?)"


def test_unknown_name_in_the_real_cards(rules_copy):
    rules_copy.edit("cards.kb", "next-to(own)", "next-to(owned)")
    d = only(rules_copy.error(), "E101")
    assert where(d) == rules_copy.diag_at("cards.kb", "owned")
    assert d.message == "unknown name 'owned'"


def test_deck_names_unknown_terrain(mini):
    text = mini.edit("game.yaml", "desert: 2}", "desert: 2, lava: 3}")
    d = only(mini.error(), "E101")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "lava: 3"))  # the unknown name itself
    assert d.message == "deck names unknown terrain 'lava'"


def test_turn_setting_names_unknown_option(mini):
    text = mini.edit(
        "rules.kb",
        "card) adjacent-if-possible\n",
        "card) adjacent-if-possible\n  moves: may-stay when option(no-such)\n",
    )
    d = only(mini.error(), "E101")
    assert where(d) == (mini.file("rules.kb"), *locate(text, "no-such"))
    assert d.message == "unknown option 'no-such'"


@pytest.mark.parametrize(
    "line, needle, code, message",
    [
        ("moves: sideways", "sideways", "E105", "moves is one of must-leave, may-stay, not 'sideways'"),
        (
            "keep: for-good",
            "keep",
            "E101",
            "'keep' is not a setting of the turn block (hand, draw, discard, identical, moves, end)",
        ),
        ("hand: 0", "0", "E105", "hand is a number from 1 to 9, not 0"),
        ("hand: 12 when option(no-such)", "12", "E105", "hand is a number from 1 to 9, not 12"),
        ("discard: some", "some", "E105", "discard is one of all, played, not 'some'"),
        ("identical: wild", "wild", "E105", "identical is one of as-drawn, any-terrain, not 'wild'"),
        ("hand: 2 when own", "own", "E105", "a `when` condition tests rule options only"),
        ("draw: at-dawn", "at-dawn", "E105", "draw is one of end-of-turn, start-of-turn, not 'at-dawn'"),
        ("moves: may-stay when own", "own", "E105", "a `when` condition tests rule options only"),
        ("moves: may-stay when count(own) > 1", ">", "E105", "a `when` condition tests rule options only"),
    ],
)
def test_bad_turn_settings(mini, line, needle, code, message):
    text = mini.edit("rules.kb", "card) adjacent-if-possible\n", f"card) adjacent-if-possible\n  {line}\n")
    d = only(mini.error(), code)
    assert where(d) == (mini.file("rules.kb"), *locate(text, needle, nth=text.count(needle) - 1))
    assert d.message.startswith(message)


def test_lifecycle_settings_are_checked(mini):
    text = mini.edit("rules.kb", "tile well", "lifecycle held {\n  keep: sometimes\n  moves: must-leave\n}\ntile well")
    err = mini.error()
    assert {(d.code, d.message) for d in err.diagnostics} == {
        ("E105", "keep is one of while-touching, for-good, until-end-of-next-turn, not 'sometimes'"),
        ("E101", "'moves' is not a setting of a lifecycle (keep, check, lost, use, first-use, window, forced)"),
    }
    assert where(next(d for d in err.diagnostics if d.code == "E105")) == (
        mini.file("rules.kb"),
        *locate(text, "sometimes"),
    )


def test_a_tile_restates_card_zone_settings_but_not_when_hands_are_filled(mini):
    mini.edit("rules.kb", "supply: 1", "supply: 1\n  hand: 3 discard: played")
    rules = load(mini.root)
    assert rules.tile_cards["well"].resolve({}) == {"hand": "3", "discard": "played"}
    assert rules.tile_lifecycle["well"].lines == ()  # card-zone lines are not lifecycle lines
    text = mini.edit("rules.kb", "discard: played", "draw: start-of-turn")
    d = only(mini.error(), "E101")
    assert where(d) == (mini.file("rules.kb"), *locate(text, "draw: start"))
    assert d.message.startswith("'draw' is not a setting of a tile (keep, check,")


def test_a_tile_follows_the_lifecycle_it_names_or_the_first(mini):
    mini.edit("rules.kb", "tile well", "lifecycle a { use: once }\nlifecycle b { }\ntile well")
    rules = load(mini.root)
    assert rules.tile_lifecycle["well"] is rules.lifecycles["a"]
    mini.edit("rules.kb", "supply: 1", "supply: 1 lifecycle: b")
    assert load(mini.root).tile_lifecycle["well"].decl.name == "b"
    mini.edit("rules.kb", "lifecycle: b", "lifecycle: c")
    d = only(mini.error(), "E101")
    assert d.message == "tile 'well' follows unknown lifecycle 'c'"


def test_preset_names_unknown_section_and_card(mini):
    text = mini.edit(
        "game.yaml", "options:", "presets:\n  p:\n    sections: {main: [moon]}\n    cards: [hermits, fools]\noptions:"
    )
    err = mini.error()
    got = {d.message: where(d) for d in err.diagnostics}
    assert got == {
        "preset 'p' names unknown section 'moon'": (mini.file("game.yaml"), *locate(text, "moon")),
        "preset 'p' names unknown card 'fools'": (mini.file("game.yaml"), *locate(text, "fools")),
    }


# ---- duplicates ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "file, extra, kind, name, first_file, first_needle",
    [
        ("zz.kb", "terrain grass { letter: Q buildable }", "terrain", "grass", "terrain.kb", "grass "),
        ("zz.kb", "tile well { letter: v supply: 1 action: build on own }", "tile", "well", "rules.kb", "well"),
        ("zz.kb", "card hermits { score: 1 per area }", "card or scoring", "hermits", "rules.kb", "hermits"),
        ("zz.kb", "scoring hermits { score: 1 per area }", "card or scoring", "hermits", "rules.kb", "hermits"),
        ("zz.kb", "section one { grid:\n | G G G\n | G G G\n}", "section", "one", "section.kb", "one"),
        ("zz.kb", "define wet = own", "definition", "wet", "rules.kb", "wet"),
    ],
)
def test_duplicate_ids(mini, file, extra, kind, name, first_file, first_needle):
    text = mini.write(file, extra)
    d = only(mini.error(), "E102")
    assert where(d) == (mini.file(file), *locate(text, name))
    first = "{}:{}:{}".format(*mini.diag_at(first_file, first_needle))
    assert d.message == f"duplicate {kind} {name!r} (first declared at {first}; write `override` to replace it)"


def test_duplicate_id_within_one_file(mini):
    text = mini.edit("terrain.kb", "terrain water", 'terrain desert "Dry" { letter: Y buildable }\nterrain water')
    d = only(mini.error(), "E102")
    assert where(d) == (mini.file("terrain.kb"), *locate(text, "desert", 1))
    assert d.message.startswith("duplicate terrain 'desert' (first declared at ")


def test_duplicate_letter(mini):
    text = mini.write("zz.kb", "terrain lava { letter: D buildable }")
    d = only(mini.error(), "E102")
    assert where(d) == (mini.file("zz.kb"), *locate(text, "lava"))
    first = "{}:{}:{}".format(*mini.diag_at("terrain.kb", "desert"))
    assert d.message == f"letter 'D' of 'lava' is already used at {first}"


def test_letter_must_be_one_character(mini):
    text = mini.edit("terrain.kb", "letter: W", "letter: WW")
    err = mini.error()
    assert (
        "E103",
        (mini.file("terrain.kb"), *locate(text, "water")),
        "letter 'WW' of 'water' must be a single letter",
    ) in {(d.code, where(d), d.message) for d in err.diagnostics}


def test_two_turn_blocks(mini):
    text = mini.write("zz.kb", "turn { mandatory: build on own }")
    d = only(mini.error(), "E102")
    assert where(d) == (mini.file("zz.kb"), 1, 1)
    first = "{}:{}:{}".format(*mini.diag_at("rules.kb", "turn"))
    assert d.message == f"a rule set has one turn block (first at {first}; write `override turn`)"
    assert text


def test_tile_with_the_name_of_a_terrain(mini):
    text = mini.write("extra.kb", "tile water { letter: v supply: 1 action: build on own }")
    d = only(mini.error(), "E102")
    assert where(d) == (mini.file("extra.kb"), *locate(text, "water"))
    assert d.message == "tile 'water' has the name of a terrain"


# ---- grids ------------------------------------------------------------------------------


def test_grid_rows_of_different_lengths(mini):
    text = mini.edit("section.kb", "|  D w G", "|  D w G D")
    d = only(mini.error(), "E103")
    assert where(d) == (mini.file("section.kb"), *locate(text, "D w"))  # the first cell of the bad row
    assert d.message == "row 1 of section 'one' has 4 hexes, the other rows 3"


def test_letter_missing_from_the_legend(mini):
    text = mini.edit("section.kb", "|  D w G", "|  D X G")
    d = only(mini.error(), "E104")
    assert where(d) == (mini.file("section.kb"), *locate(text, "X"))
    assert d.message == "letter 'X' is not in the legend (no terrain or tile declares it)"


def test_letter_missing_from_the_legend_in_the_real_rules(rules_copy):
    rules_copy.edit("sections/farm.kb", "| D D C W W T T T G G", "| D D C W W T T T G X")
    d = only(rules_copy.error(), "E104")
    assert where(d) == rules_copy.diag_at("sections/farm.kb", "X")
    assert d.message == "letter 'X' is not in the legend (no terrain or tile declares it)"


def test_row_length_in_the_real_rules(rules_copy):
    rules_copy.edit("sections/oasis.kb", "grid:\n    | ", "grid:\n    | G ")
    err = rules_copy.error()
    # row 0 is now 11 wide: only it is reported (the other nine agree), at its first cell
    assert codes(err) == ["E103"]
    d = err.diagnostics[0]
    assert where(d) == rules_copy.diag_at("sections/oasis.kb", "G D D C W")
    assert d.message == "row 0 of section 'oasis' has 11 hexes, the other rows 10"


def test_section_on_an_unknown_board(mini):
    text = mini.edit("section.kb", "grid:", "board: moon\n  grid:")
    d = only(mini.error(), "E101")
    assert where(d) == (mini.file("section.kb"), *locate(text, "one"))
    assert d.message == "section 'one' names unknown board 'moon'"


def test_section_without_grid(mini):
    text = mini.write("extra.kb", 'section two "Two" { text: "no grid" }')
    d = only(mini.error(), "E103")
    assert where(d) == (mini.file("extra.kb"), *locate(text, "two"))
    assert d.message == "section 'two' has no grid"


def test_sections_of_one_board_must_have_one_shape(mini):
    text = mini.write("zz.kb", "section two { grid:\n | G G\n | G G\n}")
    d = only(mini.error(), "E103")
    assert where(d) == (mini.file("zz.kb"), *locate(text, "two"))
    assert d.message == "section 'two' is 2x2 but 'one' on the same board is 2x3"


def test_odd_rows_on_a_turnable_board(rules_copy):
    text = rules_copy.edit("sections/farm.kb", "    |  T T T W W W W W W W\n", "")
    err = rules_copy.error()
    assert {(d.code, where(d)) for d in err.diagnostics} == {
        ("E103", (rules_copy.file("sections/farm.kb"), *locate(text, "section farm", offset=len("section "))))
    }
    assert any("odd number of rows, so it cannot be turned" in d.message for d in err.diagnostics)


def test_too_large_grid(mini):
    row = " G" * (MAX_GRID + 1)
    text = mini.write("section.kb", f"section one {{ grid:\n |{row}\n}}")
    d = only(mini.error(), "E103")
    assert where(d) == (mini.file("section.kb"), *locate(text, "one"))
    assert d.message == f"section 'one' is larger than {MAX_GRID}x{MAX_GRID}"


# ---- types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, needle, message",
    [
        ("build on terrain(grass)", "build on 3", "3 adj", "expected a hex set here, found a number"),
        ("1 per area", "own", "own", "expected a number here, found a hex set"),
        ("1 per area", "1 + option(some-option)", "option", "expected a number here, found a truth value"),
        ("1 per area", "1 per hex where own & 2", "own & 2", "'&' combines hex sets or truth values, not numbers"),
        ("1 per area", "!3", "!", "'!' needs a hex set or a truth value, found a number"),
        ("1 per area", "count(own, own)", "count", "count() takes 1 argument, got 2"),
        ("terrain(grass)", "next-to(own, own)", "own)", "next-to() needs a whole number as argument 2"),
        ("terrain(grass)", "terrain(1)", "1)", "terrain() takes terrain names"),
        ("terrain(grass)", "straight(2)", "straight", "straight() only makes sense in the target of a move"),
        ("1 per area", "1 per hex where line", "line", "'line' is a domain; use it after 'per' or 'over'"),
        (
            "1 per area",
            "rank(count(own) over area pays 1)",
            "rank",
            "rank() compares players: use it over hexes, lines or sectors, not inside another domain",
        ),
        ("1 per area", "rank(count(own) over line)", "rank", "rank() needs payouts: rank(E over D pays a, b)"),
        ("1 per area", "max(count(own) over line pays 1)", "max", "'pays' belongs to rank(), not max()"),
        ("build 1 on", "build 0 on", "build 0", "build count must be between 1 and 100"),
    ],
)
def test_type_and_shape_errors(mini, old, new, needle, message):
    text = mini.edit("rules.kb", old, new)
    d = only(mini.error())
    assert d.code == "E105"
    assert where(d) == (mini.file("rules.kb"), *locate(text, needle))
    assert d.message == message


def test_a_number_where_a_hex_set_is_expected_in_the_real_tiles(rules_copy):
    rules_copy.edit("tiles.kb", "build on terrain(grass)", "build on 3")
    d = only(rules_copy.error(), "E105")
    assert where(d) == rules_copy.diag_at("tiles.kb", "3 adj")
    assert d.message == "expected a hex set here, found a number"


def test_definition_that_refers_to_itself(mini):
    text = mini.edit("rules.kb", "define wet = next-to(terrain(water))", "define wet = next-to(wet)")
    d = only(mini.error(), "E106")
    assert where(d) == (mini.file("rules.kb"), *locate(text, "wet)"))
    assert d.message == "definition 'wet' refers to itself"


@pytest.mark.parametrize(
    "old, new, needle, message",
    [
        (
            "  action: build on terrain(grass) adjacent-if-possible\n",
            "",
            "well",
            "tile 'well' has no action, no card setting, and no rule reads it with held()",
        ),
        ("letter: w  supply: 1", "letter: w", "well", "tile 'well' has no supply (tiles per location hex)"),
        ("  score: 1 per area\n", "", "hermits", "card 'hermits' has no score"),
    ],
)
def test_missing_properties(mini, old, new, needle, message):
    text = mini.edit("rules.kb", old, new)
    d = only(mini.error(), "E107")
    assert where(d) == (mini.file("rules.kb"), *locate(text, needle))
    assert d.message == message


def test_no_turn_block(mini):
    mini.edit("rules.kb", "turn {\n  mandatory: build 1 on terrain(card) adjacent-if-possible\n}\n", "")
    d = only(mini.error(), "E107")
    assert where(d) == (mini.file("game.yaml"), 1, 1)
    assert d.message == "the rule set has no turn block (the mandatory action)"


def test_manifest_without_boards(mini):
    mini.edit("game.yaml", "boards:\n  - name: main\n    grid: [1, 1]\n", "")
    err = mini.error()
    d = err.diagnostics[0]
    assert (d.code, d.pos.line, d.pos.col, d.message) == ("E107", 1, 1, "the manifest declares no board")


def test_manifest_without_boards_names_the_manifest(mini):
    mini.edit("game.yaml", "boards:\n  - name: main\n    grid: [1, 1]\n", "")
    d = mini.error().diagnostics[0]
    assert d.pos.path == mini.file("game.yaml")


def test_players_min_above_max(mini):
    text = mini.edit("game.yaml", "{min: 2, max: 3}", "{min: 4, max: 3}")
    d = only(mini.error(), "E107")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "4,"))
    assert d.message == "players: min is larger than max"


def test_more_cards_in_play_than_cards(mini):
    text = mini.edit("game.yaml", "cards_in_play: 1", "cards_in_play: 2")
    d = only(mini.error(), "E107")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "2\n"))
    assert d.message == "cards_in_play is 2 but the rule set has only 1 card"


# ---- manifests: schema and YAML ------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, needle, message",
    [
        (
            "settlements: 6",
            "settlements: six",
            "six",
            "the key 'settlements' must be a whole number, not the text 'six'",
        ),
        ("settlements: 6", "settlements: 0", "0\n", "the key 'settlements' must be at least 1, not 0"),
        (
            "settlements: 6",
            "settlements: .nan",
            ".nan",
            "the key 'settlements' must be a whole number, not a number (NaN)",
        ),
        (
            "{min: 2, max: 3}",
            "{min: two, max: 3}",
            "two",
            "the key 'players/min' must be a whole number, not the text 'two'",
        ),
        (
            "default: false",
            "default: nope",
            "nope",
            "the key 'options/some-option/default' must be true or false, not the text 'nope'",
        ),
        ("grid: [1, 1]", "grid: [1]", "[1]", "the key 'boards/0/grid' must list at least 2 items, not 1"),
        (
            "name: mini",
            "name: Mini Game",
            "Mini",
            "the key 'name' must be a name of lower-case letters, digits, - and _ that starts with a letter, "
            "not the text 'Mini Game'",
        ),
        ('files: ["*.kb"]', "files: '*.kb'", "'*.kb'", "the key 'files' must be a list, not the text '*.kb'"),
        ("  - name: main\n", "  - text: main\n", "text: main", "item 1 of 'boards' needs the key 'name'"),
    ],
)
def test_schema_violations_name_file_line_col(mini, old, new, needle, message):
    text = mini.edit("game.yaml", old, new)
    d = only(mini.error(), "E202")
    assert where(d) == (mini.file("game.yaml"), *locate(text, needle))
    assert d.message == message


def test_schema_missing_name(mini):
    text = mini.edit("game.yaml", "name: mini\n", "")
    d = only(mini.error(), "E202")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "title"))  # the document starts there
    assert d.message == "the manifest needs the key 'name'"


def test_schema_unknown_key_points_at_the_key(mini):
    text = mini.edit("game.yaml", "settlements: 6", "settlements: 6\ncolour: red")
    d = only(mini.error(), "E202")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "colour"))
    assert d.message.startswith("unknown key 'colour' in the manifest; known keys: boards, cards_in_play,")


def test_schema_unknown_nested_key_points_at_the_key(mini):
    text = mini.edit("game.yaml", "    grid: [1, 1]", "    grid: [1, 1]\n    colour: red")
    d = only(mini.error(), "E202")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "colour"))
    assert d.message == "unknown key 'colour' in 'boards/0'; known keys: edge, grid, name, sectors, text, turnable"


def test_several_schema_violations_are_reported_together(mini):
    mini.edit("game.yaml", "settlements: 6", "settlements: six")
    mini.edit("game.yaml", "cards_in_play: 1", "cards_in_play: -1")
    err = mini.error()
    assert codes(err) == ["E202", "E202"]
    assert {d.message.split(" must")[0] for d in err.diagnostics} == {
        "the key 'settlements'",
        "the key 'cards_in_play'",
    }


def test_invalid_yaml(mini):
    text = mini.edit("game.yaml", "{min: 2, max: 3}", "{min: 2, max: 3")
    d = only(mini.error(), "E201")
    # the parser notices on the next line, at the first ':' that cannot be inside the {...}
    assert where(d) == (mini.file("game.yaml"), *locate(text, "settlements:", offset=len("settlements")))
    assert d.message == "invalid YAML: expected ',' or '}', but got ':'"


def test_duplicate_yaml_key(mini):
    text = mini.edit("game.yaml", "settlements: 6", "settlements: 6\nsettlements: 7")
    d = only(mini.error(), "E201")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "settlements", 1))
    assert d.message == "duplicate key 'settlements'"


def test_yaml_aliases_are_refused(mini):
    text = mini.edit("game.yaml", "settlements: 6\n", "settlements: &n 6\ncards_in_play: *n\n").replace(
        "cards_in_play: 1\n", ""
    )
    mini.write("game.yaml", text)
    d = only(mini.error(), "E201")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "&n"))
    assert d.message == "YAML anchors and aliases are not supported"


def test_unused_yaml_anchor_is_refused(mini):
    text = mini.edit("game.yaml", "settlements: 6", "settlements: &n 6")
    d = only(mini.error(), "E201")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "&n"))
    assert d.message == "YAML anchors and aliases are not supported"


def test_billion_laughs_is_refused_quickly(mini):
    lines = ["name: mini", 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    mini.write("game.yaml", "\n".join(lines) + "\n")
    start = time.monotonic()
    d = only(mini.error(), "E201")
    assert time.monotonic() - start < 5
    assert d.message == "YAML anchors and aliases are not supported"
    assert d.pos.path == mini.file("game.yaml") and d.pos.line == 2


def test_python_tags_are_refused(mini):
    mini.edit("game.yaml", "settlements: 6", "settlements: !!python/object:os.system 1")
    d = only(mini.error(), "E201")
    assert d.pos.path == mini.file("game.yaml") and d.pos.line >= 1
    assert "could not determine a constructor for the tag 'tag:yaml.org,2002:python/object:os.system'" in d.message


def test_tags_on_lists_construct_nothing(mini):
    # the tag of a collection is ignored (plain data is built), so the schema sees a list
    text = mini.edit("game.yaml", "settlements: 6", "settlements: !!python/object/apply:os.system ['true']")
    d = only(mini.error(), "E202")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "!!python"))
    assert d.message == "the key 'settlements' must be a whole number, not a list"


def test_too_deep_yaml(mini):
    text = mini.edit("game.yaml", "title: Mini", "title: " + "[" * 40 + "]" * 40)
    d = only(mini.error(), "E201")
    # the document is level 0, title's list level 1: the first list too deep starts MAX_DEPTH columns later
    line, col = locate(text, "[")
    assert where(d) == (mini.file("game.yaml"), line, col + MAX_DEPTH)
    assert d.message == f"YAML nested deeper than {MAX_DEPTH} levels"


def test_huge_yaml(mini):
    mini.write("game.yaml", "name: mini\ntext: '" + "a" * MAX_YAML_BYTES + "'\n")
    d = only(mini.error(), "E201")
    assert where(d) == (mini.file("game.yaml"), 1, 1)
    assert d.message == f"file is larger than {MAX_YAML_BYTES} bytes"


def test_huge_rule_file(mini):
    mini.write("big.kb", "#" + "x" * 1_000_001 + "\n")
    d = only(mini.error(), "E002")
    assert where(d) == (mini.file("big.kb"), 1, 1)
    assert d.message == "file is larger than 1000000 bytes"


def test_too_deep_rule_expression(mini):
    text = mini.write("zz.kb", "# deep\ndefine deep = " + "next-to(" * 65 + "own" + ")" * 65)
    d = only(mini.error(), "E002")
    assert where(d) == (mini.file("zz.kb"), *locate(text, "next-to(", 64, offset=len("next-to")))
    assert d.message == "parentheses nested deeper than 64"


def test_deep_expression_without_parentheses(mini):
    mini.write("zz.kb", "# deep\ndefine deep = " + "!" * 3000 + "own")
    d = only(mini.error(), "E002")
    assert where(d) == (mini.file("zz.kb"), 1, 1)  # the parser cannot say where: the file's start
    assert d.message == "expression nested too deeply"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "the document is empty, not a mapping of keys: it is not a kbdsl game manifest (game.yaml)"),
        (
            "- name: mini\n",
            "the document is a list, not a mapping of keys: it is not a kbdsl game manifest (game.yaml)",
        ),
        ("just words\n", "the document is a text, not a mapping of keys: it is not a kbdsl game manifest (game.yaml)"),
    ],
)
def test_manifest_that_is_not_a_mapping(mini, text, message):
    mini.write("game.yaml", text)
    d = only(mini.error(), "E202")
    assert where(d) == (mini.file("game.yaml"), 1, 1)
    assert d.message == message


def test_no_manifest(tmp_path):
    d = only(load_error(tmp_path), "E200")
    assert d.pos.path == str(tmp_path / "game.yaml")
    assert "no game manifest here" in d.message


def test_a_folder_of_a_shipped_name_without_a_manifest_does_not_hide_the_shipped_rule_set(tmp_path, monkeypatch):
    (tmp_path / "base").mkdir()
    monkeypatch.chdir(tmp_path)
    assert load("base").title == load(rules_path("base")).title
    (tmp_path / "base" / "game.yaml").write_text("title: [\n", encoding="utf-8")
    # a folder with a manifest is read, even broken
    assert only(load_error("base"), "E201").pos.path == "base/game.yaml"


def test_extends_a_missing_folder(mini):
    text = mini.edit("game.yaml", "title: Mini", "title: Mini\nextends: ../nowhere")
    d = only(mini.error(), "E203")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "../nowhere"))
    assert d.message == "extends '../nowhere': no game manifest there"


def test_extends_cycle(mini, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "game.yaml").write_text("name: other\nextends: ../mini\n", encoding="utf-8")
    mini.edit("game.yaml", "title: Mini", "title: Mini\nextends: ../other")
    d = only(mini.error(), "E203")
    other_file = str((other / "game.yaml").resolve())
    assert where(d) == (other_file, 2, 10)  # the `extends` that closes the loop
    assert d.message == (
        f"extends '../mini': manifests extend each other in a cycle "
        f"({mini.file('game.yaml')} -> {other_file} -> {mini.file('game.yaml')})"
    )


def test_extends_itself(mini):
    text = mini.edit("game.yaml", "title: Mini", "title: Mini\nextends: .")
    d = only(mini.error(), "E203")
    assert where(d) == (mini.file("game.yaml"), *locate(text, "extends: .", offset=len("extends: ")))


# ---- unreadable files ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, data, line, col",
    [
        ("bad.kb", b"terrain lava {\xff\xfe }", 1, 15),
        ("bad.kb", b"# fine\nterrain lava {\n  letter: L \xe9 }", 3, 13),
        ("game.yaml", b"name: mini\n\xff\n", 2, 1),
    ],
)
def test_non_utf8_files_name_the_first_bad_byte(mini, name, data, line, col):
    mini.path(name).write_bytes(data)
    d = only(mini.error(), "E200")
    assert where(d) == (mini.file(name), line, col)
    bad = data.split(b"\n")[line - 1][col - 1]
    assert d.message == f"the file is not UTF-8 text (byte 0x{bad:02x})"


# ---- manifest `files` patterns that would leave the folder or that pathlib refuses ------------------


@pytest.mark.parametrize(
    "pattern, code, message",
    [
        (
            "/etc/*.kb",
            "E202",
            "item 2 of 'files' must be a file pattern inside this folder (not starting with / or a backslash, "
            "not . or ..), not the text '/etc/*.kb'",
        ),
        (
            ".",
            "E202",
            "item 2 of 'files' must be a file pattern inside this folder (not starting with / or a backslash, "
            "not . or ..), not the text '.'",
        ),
        ("x" * 300, "E202", "item 2 of 'files' must be at most 200 characters long"),
        ("./.", "E204", "bad file pattern './.': tuple index out of range"),
        ("extra/*.kb", "E204", "no rule file matches 'extra/*.kb'"),
    ],
    ids=["absolute", "dot", "long", "dot-slash-dot", "no-match"],
)
def test_bad_files_patterns_are_rule_errors(mini, pattern, code, message):
    text = mini.edit("game.yaml", 'files: ["*.kb"]', f'files: ["*.kb", "{pattern}"]')
    d = only(mini.error(), code)
    assert where(d) == (mini.file("game.yaml"), *locate(text, f'"{pattern}"'))
    assert d.message == message


def test_empty_files_pattern(mini):
    text = mini.edit("game.yaml", 'files: ["*.kb"]', 'files: ["*.kb", ""]')
    err = mini.error()
    assert {where(d) for d in err.diagnostics} == {(mini.file("game.yaml"), *locate(text, '""'))}
    assert "item 2 of 'files' may not be empty" in {d.message for d in err.diagnostics}


# ---- all or nothing ---------------------------------------------------------------------


def test_many_findings_come_in_one_error(mini):
    mini.edit("rules.kb", "terrain(grass)", "terrain(gras)")
    mini.edit("rules.kb", "1 per area", "1 per areas")
    mini.edit("section.kb", "|  D w G", "|  D X G")
    mini.edit("game.yaml", "desert: 2}", "desert: 2, lava: 1}")
    err = mini.error()
    assert sorted(codes(err)) == ["E101", "E101", "E101", "E104"]
    text = str(err)
    for d in err.diagnostics:
        assert f"{d.pos.path}:{d.pos.line}:{d.pos.col}: {d.code} {d.message}" in text


def test_a_failed_load_leaves_nothing_behind(mini):
    good = mini.load()
    original = mini.read("rules.kb")
    mini.edit("rules.kb", "terrain(grass)", "terrain(gras)")
    load_error(mini.root)
    mini.write("rules.kb", original)
    again = mini.load()
    assert again.name == good.name
    assert set(again.terrains) == set(good.terrains) and set(again.tiles) == set(good.tiles)
    assert again.legend == good.legend and list(again.sections) == list(good.sections)


def test_diagnostics_render_with_source_line(mini):
    text = mini.edit("rules.kb", "terrain(grass)", "terrain(gras)")
    d = only(mini.error(), "E101")
    line, col = locate(text, "gras)")
    rendered = d.render().splitlines()
    assert rendered[0] == f"{mini.file('rules.kb')}:{line}:{col}: E101 unknown terrain 'gras' (did you mean 'grass'?)"
    assert rendered[1] == "    " + text.splitlines()[line - 1]
    assert rendered[2] == "    " + " " * (col - 1) + "^^^^"  # under the whole name


def test_parse_yaml_positions_every_value():
    doc = parse_yaml("name: x\nboards:\n  - name: main\n    grid: [2, 2]\n", "g.yaml")
    assert doc.data == {"name": "x", "boards": [{"name": "main", "grid": [2, 2]}]}
    assert str(doc.pos("name")) == "g.yaml:1:7"
    assert str(doc.pos("boards", 0, "grid")) == "g.yaml:4:11"
    assert str(doc.pos("boards", 0, "grid", 1)) == "g.yaml:4:15"
    assert str(doc.pos("boards", 0, "nothing-here")) == "g.yaml:3:5"  # nearest enclosing value


def test_yaml_dates_stay_text():
    doc = parse_yaml("name: x\ntext: 2024-01-02\n", "g.yaml")
    assert doc.data["text"] == "2024-01-02"


def test_yaml_non_word_keys_are_refused():
    with pytest.raises(RuleError) as info:
        parse_yaml("name: x\n~: 1\n", "g.yaml")
    assert only(info.value, "E201").message == "YAML keys must be plain words"


def test_errors_survive_pickling_so_worker_processes_can_report_them():
    import pickle

    from kbdsl.errors import Diagnostic, IllegalMove, Pos, RuleError

    rule = RuleError([Diagnostic(Pos("cards.kb", 2, 33), "unknown terrain 'gras'", "E101")])
    back = pickle.loads(pickle.dumps(rule))
    assert str(back) == str(rule) and back.diagnostics[0].render() == rule.diagnostics[0].render()
    move = IllegalMove("b 1,2", "the hex is taken [RULINGS 7]")
    back = pickle.loads(pickle.dumps(move))
    assert (str(back), back.rule, back.reason) == (str(move), "RULINGS 7", move.reason)
