"""A family of declarations: one declaration written once for each value of a list.

`family t in (red, blue) { tile dig { ... terrain(t) ... } }` stands for the tiles `dig-red` and
`dig-blue`: each member is the declaration with every use of the
parameter `t` (a bare word, a function's argument, a terrain card's choice, a card's `removes`)
replaced by the value. The member's name is `NAME-VALUE`, its title `Title (Value)` (the value's
terrain title when it names a terrain), and a `letter:` of as many letters as the list has values
gives the i-th member the i-th letter. The list is written out or names a `list NAME = a, b, c`
declaration. Expansion happens before anything is checked, so lint, explain and the protocol see
each member as a declaration of its own (positions point into the family).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kbdsl.errors import Diagnostic
from kbdsl.lang import ast
from kbdsl.suggest import did_you_mean

MAX_MEMBERS = 200  # members one family may make (a guard against lists of lists blowing up)


def expand(decls: list[ast.Decl]) -> tuple[list[ast.Decl], list[Diagnostic]]:
    """The declarations with every family replaced by its members, and the findings of doing so."""
    lists = {d.name: d for d in decls if isinstance(d, ast.ListDecl)}
    titles = {d.name: d.title for d in decls if isinstance(d, ast.Terrain)}
    diags: list[Diagnostic] = []
    seen: dict[str, ast.ListDecl] = {}
    for d in decls:
        if isinstance(d, ast.ListDecl):
            if d.name in seen:
                first = seen[d.name].pos
                diags.append(Diagnostic(d.pos, f"duplicate list {d.name!r} (first declared at {first})", "E102"))
            seen[d.name] = d
    out: list[ast.Decl] = []
    for d in decls:
        if isinstance(d, ast.Family):
            out.extend(_members(d, lists, titles, diags))
        elif not isinstance(d, ast.ListDecl):
            out.append(d)
    return out, diags


def _members(fam: ast.Family, lists: dict, titles: dict, diags: list[Diagnostic]) -> list[ast.Decl]:
    values = fam.values
    if fam.ref is not None:
        if fam.ref not in lists:
            hint = did_you_mean(fam.ref, lists)
            diags.append(Diagnostic(fam.pos, f"family {fam.name!r} ranges over unknown list {fam.ref!r}{hint}", "E101"))
            return []
        values = lists[fam.ref].items
    inner: list[ast.Decl] = []
    for d in fam.decls:  # a family inside a family: its members first, then this one's values
        inner.extend(_members(d, lists, titles, diags) if isinstance(d, ast.Family) else [d])
    if len(values) * len(inner) > MAX_MEMBERS:
        diags.append(Diagnostic(fam.pos, f"family {fam.name!r} makes more than {MAX_MEMBERS} declarations", "E002"))
        return []
    out = []
    for d in inner:
        if isinstance(d, (ast.Turn, ast.Removal)):
            diags.append(Diagnostic(d.pos, "a family holds named declarations (not a turn block or a removal)", "E105"))
            continue
        letters = getattr(d, "letter", None)
        if letters is not None and len(letters) not in (1, len(values)):
            diags.append(
                Diagnostic(d.pos, f"letter {letters!r}: one letter per value of the family ({len(values)})", "E103")
            )
            continue
        for i, v in enumerate(values):
            member = _subst(d, fam.name, v)
            changes: dict[str, Any] = {"name": f"{d.name}-{v}", "family": f"{fam.name} = {v}"}
            if hasattr(d, "title"):
                changes["title"] = f"{d.title} ({titles.get(v, v)})"
            if letters is not None and len(letters) == len(values) > 1:
                changes["letter"] = letters[i]
            out.append(dataclasses.replace(member, **changes))
    return out


def _subst(node: Any, param: str, value: str) -> Any:
    """`node` with every use of the parameter replaced by the value (a new tree; nodes are frozen)."""
    if isinstance(node, ast.Ref):
        return dataclasses.replace(node, name=value) if node.name == param else node
    if isinstance(node, tuple):
        return tuple(_subst(x, param, value) for x in node)
    if isinstance(node, str):
        return node
    if isinstance(node, ast.TerrainCard):
        choices = tuple((value if t == param else t, n) for t, n in node.choices)
        node = dataclasses.replace(node, choices=choices)
    elif isinstance(node, ast.Card) and param in node.removes:
        node = dataclasses.replace(node, removes=tuple(value if t == param else t for t in node.removes))
    if dataclasses.is_dataclass(node):
        changes = {}
        for f in dataclasses.fields(node):
            if f.name in ("pos", "name", "choices", "removes"):
                continue
            old = getattr(node, f.name)
            if isinstance(old, (ast.Node, tuple)):
                new = _subst(old, param, value)
                if new is not old:
                    changes[f.name] = new
        return dataclasses.replace(node, **changes) if changes else node
    return node
