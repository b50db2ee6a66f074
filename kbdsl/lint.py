"""The linter: everything the loader rejects, plus warnings about content that cannot matter."""

from __future__ import annotations

from pathlib import Path

from kbdsl.errors import Diagnostic, Pos, RuleError, read_source
from kbdsl.lang import ast
from kbdsl.lang.parser import parse, walk
from kbdsl.lang.unparse import unparse
from kbdsl.occupancy import NEEDS, occupancies
from kbdsl.resources import MANIFEST
from kbdsl.ruleset import RuleSet, dedupe, load
from kbdsl.scenario import SCENARIO_DIR, Runner, find
from kbdsl.wording import counted


def lint_paths(paths: list[str]) -> list[Diagnostic]:
    """Lint rule folders (with game.yaml), single .kb files and scenario files."""
    found: list[Diagnostic] = []
    manifests, loose, scenarios = set(), set(), set()
    for p in map(Path, paths):
        if p.is_file() and p.name == MANIFEST:
            manifests.add(p.parent)
        elif p.is_file() and p.suffix == ".kb":
            loose.add(p)
        elif p.is_file() and p.suffix in (".yaml", ".yml"):
            scenarios.add(p)
        elif p.is_dir():
            manifests.update(m.parent for m in p.rglob(MANIFEST))
            scenarios.update(find([str(p)]))
            loose.update(p.rglob("*.kb"))
        else:
            found.append(Diagnostic(Pos(str(p)), "no such file or folder", "E200"))
    covered: set[str] = set()
    for folder in sorted(manifests):
        try:
            rules = load(folder)
        except RuleError as e:
            found.extend(e.diagnostics)
            covered.update(d.pos.path for d in e.diagnostics)
            covered.update(str(f) for f in folder.rglob("*.kb"))
            continue
        covered.update(rules.files)
        found.extend(warnings(rules))
    for f in sorted(loose):
        if str(f) in covered or str(f.resolve()) in {str(Path(c).resolve()) for c in covered}:
            continue
        try:
            parse(read_source(f), str(f))
        except RuleError as e:
            found.extend(e.diagnostics)
    runner = Runner()
    for f in sorted(scenarios):
        found.extend(runner.lint(f))
    return _unique(found)


def warnings(rules: RuleSet) -> list[Diagnostic]:
    """Content that loads but cannot matter: unused definitions, letters, tiles, terrains."""
    out: list[Diagnostic] = []
    used_refs: set[str] = set()
    scored = list(rules.cards.values()) + list(rules.scorings.values())
    nodes = [c.score for c in scored] + [expr for c in scored for _, expr in c.triggers]
    nodes += [t.action for t in rules.tiles.values()] + [a.decl for a in rules.mandatory]
    nodes += [d.expr for d in rules.defines.values()] + [t.given for t in rules.tiles.values()]
    for node in nodes:
        for n in walk(node):
            if isinstance(n, ast.Ref):
                used_refs.add(n.name)
    for d in rules.defines.values():
        if d.name not in used_refs:
            out.append(Diagnostic(d.pos, f"definition {d.name!r} is never used", "W001"))
    letters = {cell.letter for s in rules.sections.values() for row in s.rows for cell in row}
    for tile in (t for t in rules.tiles.values() if t.grant is None):  # the board grants the others
        if tile.given is not None:
            continue  # given from a stock, not taken from a hex
        pool = rules.pools.get(tile.pool) if tile.pool else None
        letter = rules.terrains[pool.on].letter if pool is not None else tile.letter
        if letter not in letters:
            out.append(
                Diagnostic(
                    tile.pos, f"tile {tile.name!r} has no location hex on any section, so no one can take it", "W002"
                )
            )
    markers = {d.marker for d, _, _ in rules.placements}  # terrains put on hexes at set-up
    for terrain in rules.terrains.values():
        if terrain.letter not in letters and terrain.name not in markers:
            out.append(Diagnostic(terrain.pos, f"terrain {terrain.name!r} appears on no section", "W003"))
    for card, count in rules.deck.items():
        for name in rules.card_terrains(card):
            if "buildable" not in rules.terrains[name].flags:
                out.append(
                    Diagnostic(
                        rules.terrains[name].pos,
                        f"the deck has {counted(count, 'card')} of {name!r}, which is not buildable",
                        "W004",
                    )
                )
    out += _identical_never_applies(rules)
    out += _never_a_target(rules)
    out += _unread_files(rules)
    return out


def _never_a_target(rules: RuleSet) -> list[Diagnostic]:
    """Actions whose target (or source) can hold no hex they need, whatever the position: `remove
    from own` (remove takes another player's piece), `build on occupied`, `move from other`."""
    out = []
    for action in (*rules.mandatory, *rules.actions.values()):
        a = action.decl
        for role, expr in (("target", a.target), ("source", a.source)):
            need = NEEDS.get((a.kind, role))
            if need is None or expr is None:
                continue
            if need[0] not in occupancies(expr, rules.defines, move=a.kind == "move" and role == "target"):
                message = f"`{unparse(a)}` never has a {role}: `{a.kind}` {need[1]}, and `{unparse(expr)}` holds none"
                out.append(Diagnostic(expr.pos, message, "W006"))
    return out


def _unread_files(rules: RuleSet) -> list[Diagnostic]:
    """Rule files in the rule folder (outside scenarios and other rule folders) that no pattern of
    the manifest's `files` matches: they are never read, which is seldom what their author meant."""
    read = {Path(f).resolve() for f in rules.files}
    root = rules.root
    out = []
    for f in sorted(root.rglob("*.kb")):
        inside = f.relative_to(root).parts[:-1]
        if SCENARIO_DIR in inside or any(
            (root.joinpath(*inside[: i + 1]) / MANIFEST).is_file() for i in range(len(inside))
        ):
            continue  # a test rule set beside the scenarios, or a rule folder of its own
        if f.resolve() not in read:
            message = f"rule file {f.name!r} is never read: no pattern of {MANIFEST}'s `files` matches it"
            out.append(Diagnostic(Pos(str(f), 1, 1), message, "W007"))
    return out


def _identical_never_applies(rules: RuleSet) -> list[Diagnostic]:
    """`identical: any-terrain` with no hand of two cards: no rule (the turn or a tile) gives one."""
    decls = [d for d in (rules.turn.decl, *rules.tiles.values()) if d is not None]
    lines = [st for d in decls for st in d.settings]
    if any(st.key == "hand" and int(st.value) > 1 for st in lines):
        return []
    message = "identical: any-terrain never applies: no hand holds two cards (neither the turn's nor a tile's hand)"
    return [
        Diagnostic(st.value_pos, message, "W005") for st in lines if (st.key, st.value) == ("identical", "any-terrain")
    ]


def _unique(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(dedupe(diags), key=lambda d: (d.pos.path, d.pos.line, d.pos.col))


__all__ = ["lint_paths", "warnings", "SCENARIO_DIR"]
