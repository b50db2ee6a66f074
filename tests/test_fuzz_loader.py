"""Fuzzing the loader: whatever text a rule author (or a stranger) writes, loading ends in a
RuleSet or in a clean RuleError whose diagnostics name a file and a line - never another
exception, never a hang. Random expressions that do load are also evaluated on a board.

KBDSL_TEST_SCALE=20 python3 -m pytest tests/test_fuzz_loader.py   # a longer fuzzing run
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path, PurePosixPath

import pytest
import yaml
from conftest import BASE, no_hang, scaled
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kbdsl.errors import Diagnostic, RuleError
from kbdsl.game import Game, State
from kbdsl.lang.parser import parse
from kbdsl.ruleset import RuleSet, load
from kbdsl.yamlio import parse_yaml, validate

RULE_FILES = [
    "terrain.kb",
    "turn.kb",
    "tiles.kb",
    "cards.kb",
    "sections/oracle.kb",
    "sections/farm.kb",
    "sections/tavern.kb",
    "game.yaml",
]
LAYOUT = ["oracle", "paddock", "harbor", "farm"]


def clean_outcome(fn, *, path_prefix: str | None = None):
    """Run fn; it may return or raise RuleError with well-formed diagnostics, nothing else."""
    try:
        with no_hang(20):
            return fn()
    except RuleError as e:
        assert e.diagnostics, "RuleError without diagnostics"
        for d in e.diagnostics:
            assert isinstance(d, Diagnostic)
            assert d.pos.path, d
            if path_prefix is not None:
                # "game.yaml" alone: the reported 'no board' bug (test_manifest_without_boards_names_the_manifest)
                assert d.pos.path.startswith(path_prefix) or d.pos.path == "game.yaml", d
            assert d.pos.line >= 1 and d.pos.col >= 1, d
            assert d.code.startswith("E") and d.message, d
            d.render()
        str(e)
        return None


def leaves_the_folder(manifest_text: str) -> bool:
    """True when a manifest's `files` climbs out of the rule folder ('..'): such a glob may walk the
    whole disk, which is slow rather than wrong, so the fuzzer steps around it."""
    try:
        data = yaml.safe_load(manifest_text)
    except Exception:  # noqa: BLE001 - not YAML: the loader reports it
        return False
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        return False
    return any(isinstance(p, str) and ".." in PurePosixPath(p).parts for p in data["files"])


# ---- mutations of the shipped rule files -------------------------------------------------

TOKEN = re.compile(r"\s+|[A-Za-z_][\w-]*|\d+|\"[^\"\n]*\"|.", re.DOTALL)
ODD = list("{}()[]|&!:;,\"'#@*-_=<>/\\ \n\t0123456789GoKw") + ["\x00", "é", "\u2028", "\r", "\ufeff", "…"]


@st.composite
def mutated(draw, text: str) -> str:
    for _ in range(draw(st.integers(1, 3))):
        op = draw(
            st.sampled_from(
                [
                    "delete",
                    "duplicate",
                    "replace",
                    "insert",
                    "tok-delete",
                    "tok-replace",
                    "tok-insert",
                    "tok-swap",
                    "line-delete",
                    "line-duplicate",
                ]
            )
        )
        n = len(text)
        if op in ("delete", "duplicate", "replace", "insert"):
            i = draw(st.integers(0, max(n - 1, 0)))
            j = min(n, i + draw(st.integers(1, 12)))
            if op == "delete":
                text = text[:i] + text[j:]
            elif op == "duplicate":
                text = text[:j] + text[i:j] * draw(st.integers(1, 3)) + text[j:]
            elif op == "replace":
                text = text[:i] + draw(st.sampled_from(ODD)) + text[i + 1 :]
            else:
                text = text[:i] + draw(st.text(st.sampled_from(ODD), min_size=1, max_size=4)) + text[i:]
        elif op.startswith("tok"):
            toks = TOKEN.findall(text) or [""]
            k = draw(st.integers(0, len(toks) - 1))
            if op == "tok-delete":
                del toks[k]
            elif op == "tok-replace":
                toks[k] = draw(st.sampled_from(toks))
            elif op == "tok-insert":
                toks.insert(k, draw(st.sampled_from(toks)))
            else:
                m = draw(st.integers(0, len(toks) - 1))
                toks[k], toks[m] = toks[m], toks[k]
            text = "".join(toks)
        else:
            lines = text.split("\n")
            k = draw(st.integers(0, len(lines) - 1))
            if op == "line-delete":
                del lines[k]
            else:
                lines.insert(k, lines[k])
            text = "\n".join(lines)
    return text


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz") / "base"
    shutil.copytree(BASE, root, ignore=shutil.ignore_patterns("scenarios", "__pycache__"))
    return root


ORIGINAL = {name: (BASE / name).read_text(encoding="utf-8") for name in RULE_FILES}


def load_with(root: Path, name: str, text: str) -> RuleSet | None:
    target = root / name
    target.write_text(text, encoding="utf-8")
    try:
        return clean_outcome(lambda: load(root), path_prefix=str(root.resolve()))
    finally:
        target.write_text(ORIGINAL[name], encoding="utf-8")


@settings(max_examples=scaled(100))
@given(data=st.data(), name=st.sampled_from([n for n in RULE_FILES if n.endswith(".kb")]))
def test_mutated_rule_file_loads_or_fails_cleanly(fuzz_root, data, name):
    text = data.draw(mutated(ORIGINAL[name]), label="mutated text")
    load_with(fuzz_root, name, text)


@settings(max_examples=scaled(60))
@given(data=st.data())
def test_mutated_manifest_loads_or_fails_cleanly(fuzz_root, data):
    text = data.draw(mutated(ORIGINAL["game.yaml"]), label="mutated manifest")
    assume(not leaves_the_folder(text))
    load_with(fuzz_root, "game.yaml", text)


def test_unmutated_copy_loads(fuzz_root):
    rs = load(fuzz_root)
    assert isinstance(rs, RuleSet) and len(rs.sections) == 8


@settings(max_examples=scaled(40))
@given(text=st.text(max_size=400))
def test_random_text_as_a_rule_file_in_a_rule_set(fuzz_root, text):
    load_with(fuzz_root, "cards.kb", text)


# ---- random text at the parser and at the YAML reader -------------------------------------------

WORDS = [
    "terrain",
    "tile",
    "card",
    "scoring",
    "section",
    "define",
    "turn",
    "letter:",
    "supply:",
    "action:",
    "score:",
    "grid:",
    "board:",
    "mandatory:",
    "text:",
    "build",
    "move",
    "on",
    "to",
    "from",
    "per",
    "over",
    "where",
    "pays",
    "adjacent-if-possible",
    "buildable",
    "special",
    "own",
    "empty",
    "next-to(",
    "count(",
    "max(",
    "rank(",
    ")",
    "(",
    "{",
    "}",
    "|",
    "&",
    "!",
    "==",
    ">=",
    "//",
    "+",
    "*",
    ",",
    ";",
    "1",
    "3",
    "99",
    '"t"',
    "\n| G G\n",
    "x",
    "=",
    "#",
    "\n",
]


@settings(max_examples=scaled(300))
@given(text=st.text(max_size=300))
def test_random_text_parses_or_fails_cleanly(text):
    clean_outcome(lambda: parse(text, "fuzz.kb"))


@settings(max_examples=scaled(300))
@given(words=st.lists(st.sampled_from(WORDS), max_size=40))
def test_token_soup_parses_or_fails_cleanly(words):
    clean_outcome(lambda: parse(" ".join(words), "fuzz.kb"))


YAML_BITS = [
    "name:",
    "files:",
    "boards:",
    "deck:",
    "players:",
    "min:",
    "max:",
    "- ",
    "  ",
    "\n",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a",
    "*a",
    "!!str",
    "!!python/name:os.system",
    "---",
    "...",
    "%YAML 1.1\n",
    "? ",
    ": ",
    "|",
    ">",
    "'",
    '"',
    "#",
    "1",
    "-1",
    "1e999",
    ".nan",
    "~",
    "true",
    "2024-01-01",
    "x",
    "é",
    "\t",
    "\x00",
]


@settings(max_examples=scaled(200))
@given(text=st.one_of(st.text(max_size=200), st.lists(st.sampled_from(YAML_BITS), max_size=40).map("".join)))
def test_random_text_as_yaml_reads_or_fails_cleanly(text):
    clean_outcome(lambda: validate(parse_yaml(text, "game.yaml"), "manifest"))


# a schema-shaped manifest with random values: exercises the loader past the schema
flags = st.one_of(st.booleans(), st.fixed_dictionaries({"option": st.sampled_from(["move-may-stay", "nope"])}))
manifests = st.fixed_dictionaries(
    {"name": st.sampled_from(["base", "x-1"])},
    optional={
        "files": st.lists(
            st.sampled_from(
                [
                    "terrain.kb",
                    "turn.kb",
                    "tiles.kb",
                    "cards.kb",
                    "sections/*.kb",
                    "nothing.kb",
                    "*.kb",
                    "**/*.kb",
                    "sections/farm.kb",
                ]
            ),
            max_size=6,
        ),
        "players": st.fixed_dictionaries({}, optional={"min": st.integers(1, 16), "max": st.integers(1, 16)}),
        "settlements": st.integers(1, 1000),
        "cards_in_play": st.integers(0, 100),
        "deck": st.dictionaries(st.sampled_from(["grass", "canyon", "lava", "water"]), st.integers(0, 1000)),
        "boards": st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["main", "moon"])},
                optional={
                    "grid": st.tuples(st.integers(1, 8), st.integers(1, 8)).map(list),
                    "sectors": flags,
                    "edge": flags,
                    "turnable": st.booleans(),
                },
            ),
            max_size=3,
        ),
        "presets": st.dictionaries(
            st.sampled_from(["p", "q"]),
            st.fixed_dictionaries(
                {},
                optional={
                    "sections": st.dictionaries(
                        st.sampled_from(["main", "moon"]), st.lists(st.sampled_from(LAYOUT + ["moon", "farm@180"]))
                    ),
                    "cards": st.lists(st.sampled_from(["knights", "castles", "nope"])),
                },
            ),
        ),
        "options": st.dictionaries(
            st.sampled_from(["move-may-stay", "lords-presence-required", "z"]),
            st.fixed_dictionaries({"default": st.booleans(), "text": st.just("t")}),
        ),
    },
)


@settings(max_examples=scaled(60))
@given(manifest=manifests)
def test_schema_shaped_manifests_load_or_fail_cleanly(fuzz_root, manifest):
    load_with(fuzz_root, "game.yaml", yaml.safe_dump(manifest, sort_keys=False))


# ---- random expressions: type-checked at load, and evaluated when they load -----------------------

HEX_ATOMS = [
    "own",
    "other",
    "occupied",
    "empty",
    "buildable",
    "edge",
    "location",
    "special",
    "all",
    "site",
    "terrain(grass)",
    "terrain(water, mountain)",
    "terrain(card)",
    "location(oracle)",
    "location(farm, tower)",
]
ODD_ATOMS = [
    "card",
    "line",
    "hex",
    "nothing",
    "terrain(lava)",
    "option(lords-presence-required)",
    "option(nope)",
    "straight(2)",
]
NUM_ATOMS = ["0", "1", "2", "3"]
FUNCS = [
    "next-to",
    "within",
    "line-end",
    "count",
    "connected-by-own-to",
    "straight",
    "terrain",
    "location",
    "option",
    "frobnicate",
]
OPS = ["|", "&", "+", "-", "*", "//", ">=", "==", "!=", "<"]
DOMAINS = ["settlement", "hex", "line", "sector", "area", "row"]

plain = st.recursive(
    st.sampled_from(HEX_ATOMS + NUM_ATOMS + ODD_ATOMS),
    lambda kids: st.one_of(
        st.tuples(kids, st.sampled_from(OPS), kids).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        kids.map(lambda k: f"!{k}"),
        st.tuples(st.sampled_from(FUNCS), st.lists(kids, min_size=0, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
    ),
    max_leaves=6,
)


@st.composite
def top_expressions(draw) -> str:
    """An expression with at most one domain level (so evaluation stays fast)."""
    kind = draw(st.sampled_from(["plain", "per", "aggregate"]))
    if kind == "plain":
        return draw(plain)
    domain = draw(st.sampled_from(DOMAINS))
    where = draw(st.none() | plain)
    cond = f" where {where}" if where else ""
    if kind == "per":
        return f"({draw(st.sampled_from(['1', '2']))} per {domain}{cond})"
    fn = draw(st.sampled_from(["max", "min", "sum", "rank", "avg"]))
    pays = draw(st.sampled_from(["", " pays 3", " pays 12, 6"]))
    return f"{fn}({draw(plain)} over {domain}{cond}{pays})"


@settings(max_examples=scaled(80))
@given(expr=top_expressions(), data=st.data())
def test_random_card_expressions(fuzz_root, expr, data):
    text = ORIGINAL["cards.kb"] + f'\ncard zz "ZZ" {{\n  score: {expr}\n}}\n'
    rs = load_with(fuzz_root, "cards.kb", text)
    if rs is None:
        return
    game = Game.new(rs, players=3, sections=LAYOUT, cards=["zz", "knights", "lords"], seed=1)
    buildable = game.tables.names(game.tables.buildable)
    hexes = data.draw(st.lists(st.sampled_from(buildable), unique=True, max_size=30), label="settlements")
    state = State.arrange(game, [hexes[0::3], hexes[1::3], hexes[2::3]])
    with no_hang(20):
        sheets = state.scores()
    for sheet in sheets:
        assert isinstance(sheet["zz"], int)
        assert sheet["total"] == sum(v for k, v in sheet.items() if k != "total")


@settings(max_examples=scaled(60))
@given(expr=plain, data=st.data())
def test_random_mandatory_targets(fuzz_root, expr, data):
    text = f"turn {{\n  mandatory: build 2 on {expr} adjacent-if-possible\n}}\n"
    rs = load_with(fuzz_root, "turn.kb", text)
    if rs is None:
        return
    game = Game.new(rs, players=2, sections=LAYOUT, seed=2)
    buildable = game.tables.names(game.tables.buildable)
    hexes = data.draw(st.lists(st.sampled_from(buildable), unique=True, max_size=12), label="settlements")
    state = State.arrange(game, [hexes[0::2], hexes[1::2]])
    with no_hang(20):
        moves = state.legal_moves()
        for m in moves[:3]:
            trial = state.clone()
            trial.play(m)
    for m in moves:
        if m.do == "build":
            assert m.to not in hexes
