"""Rules as data: no name of shipped content appears in the engine's Python code nor in the web pages."""

import re
from pathlib import Path

from kbdsl.ruleset import load

ROOT = Path(__file__).resolve().parent.parent
# The issue tracker's list, plus every name the shipped rule sets declare.
LISTED = (  # noqa: SIM905 -- lines of names read better than a 70-line list literal
    "fishermen merchants discoverers hermits citizens miners knights lords farmers oracle farm oasis "
    "tower tavern barn harbor paddock island rope-bridge tree-house "
    "caravan garden quarry village nomad nomads treasure resettlement sword outpost donation families "
    "shepherds ambassadors wall "
    # Marshlands, with the names of what it describes but does not ship
    "marshlands swamp palace palaces canoe temple refuge fountain rider scouts geologists messengers noblewomen "
    "vassals captains "
    "harvest farmland silo silos scout scouts cabin capitol capitols cave caves queenie"
).split()


def content_names() -> set[str]:
    names = set(LISTED)
    shipped = (
        "base",
        "island",
        "examples/hamlets",
        "nomads",
        "crossroads",
        "marshlands",
        "harvest",
        "caves",
        "capitol",
    )
    for folder in shipped:
        rules = load(ROOT / "rules" / folder)
        names |= set(rules.tiles) | set(rules.cards) | set(rules.scorings) | set(rules.sections) | set(rules.lifecycles)
        names |= set(rules.pieces) | set(rules.pools)
        names |= {t for t in rules.terrains} | {b.name for b in rules.boards} | set(rules.presets) | {rules.name}
        names |= {t.title.lower() for t in rules.tiles.values()} | {c.title.lower() for c in rules.cards.values()}
        names |= set(rules.pieces) | {d.title.lower() for d in rules.pieces.values()} | set(rules.decks)
        names |= {d.name for d, _, _ in rules.placements}
    # Words of the language itself, which content may reuse as names, are not content.
    return names - {"main", "base", "settlement"}


def test_engine_code_names_no_content():
    names = content_names()
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b", re.I)
    hits = []
    static = [p for p in (ROOT / "kbdsl" / "web" / "static").iterdir() if p.suffix in (".js", ".html", ".css")]
    assert static  # the web table's pages: every string they show comes from the engine's data
    for path in sorted([*(ROOT / "kbdsl").rglob("*.py"), *static]):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {m.group(0)!r} in {line.strip()}")
    assert not hits, "content names in engine code:\n" + "\n".join(hits)


def test_rl_encoding_and_example_name_no_content():
    """The environments' encoding (kbdsl/envs/) and the worked example read every plane and field
    name from the rule set: they are scanned like the engine (the test above covers kbdsl/)."""
    names = content_names()
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b", re.I)
    files = sorted((ROOT / "kbdsl" / "envs").glob("*.py")) + sorted((ROOT / "examples").glob("*.py"))
    assert any(p.name == "encoding.py" for p in files)
    hits = [
        f"{p.relative_to(ROOT)}:{n}: {m.group(0)!r}"
        for p in files
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        for m in pattern.finditer(line)
    ]
    assert not hits, "content names in the environments or the example:\n" + "\n".join(hits)
