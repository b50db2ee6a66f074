"""What pieces a hex of an action's target or source can hold, read from the expression alone.

An action needs a hex of a certain occupancy: `build`, `place` and `move ... to` an empty one,
`remove` one of another player's pieces, `move ... from` and `return ... from` one of the player's
own. The words `own`, `other`, `occupied` and `empty` decide a hex's occupancy exactly, so
`remove from own` can never have a target, whatever the board and the position: the linter says so
(kbdsl.lint). Everything else (terrains, neighbourhoods, definitions' other parts) may hold any hex.
"""

from __future__ import annotations

from collections.abc import Mapping

from kbdsl.lang import ast

EMPTY, OWN, OTHER, NEUTRAL = "empty", "own", "other", "neutral"
ANY = frozenset({EMPTY, OWN, OTHER, NEUTRAL})
NONE: frozenset[str] = frozenset()

#: Words that decide a hex's occupancy: `own` the player's pieces, `other` other players' pieces
#: (owned by nobody excluded), `occupied` any piece, `empty` none.
_WORDS = {
    "own": frozenset({OWN}),
    "other": frozenset({OTHER}),
    "occupied": frozenset({OWN, OTHER, NEUTRAL}),
    "empty": frozenset({EMPTY}),
}
#: Functions whose hexes are always hexes of their first argument.
_WITHIN_FIRST = frozenset({"slide", "straight-run", "diagonal-run", "aligned", "connected-by-own-to"})
#: What each action kind needs of its target's and its source's hexes, and how to say it.
NEEDS = {
    ("build", "target"): (EMPTY, "builds on an empty hex"),
    ("place", "target"): (EMPTY, "places on an empty hex"),
    ("move", "target"): (EMPTY, "moves to an empty hex"),
    ("remove", "target"): (OTHER, "takes another player's piece"),
    ("move", "source"): (OWN, "moves one of the player's own pieces"),
    ("return", "source"): (OWN, "takes back one of the player's own pieces"),
}
MAX_DEPTH = 100


def occupancies(node: ast.Expr, defines: Mapping[str, ast.Define], move: bool = False) -> frozenset[str]:
    """The occupancies a hex of the expression may have (a superset: "may"). `move`: in a move's
    target, where `origin` is the hex just left, so empty."""
    return _bounds(node, defines, move, 0)[0]


def _bounds(node: ast.Expr, defines: Mapping[str, ast.Define], move: bool, depth: int):
    """(may, must): occupancies a hex of node may have, and those for which every such hex is in it."""
    if depth > MAX_DEPTH:
        return ANY, NONE
    if isinstance(node, ast.Ref):
        if node.name in _WORDS:
            return _WORDS[node.name], _WORDS[node.name]
        if node.name == "origin" and move:
            return frozenset({EMPTY}), NONE
        if node.name in defines:
            return _bounds(defines[node.name].expr, defines, move, depth + 1)
        return ANY, NONE
    if isinstance(node, ast.BoolOp):
        (a, am), (b, bm) = (_bounds(n, defines, move, depth + 1) for n in (node.left, node.right))
        return (a & b, am & bm) if node.op == "&" else (a | b, am | bm)
    if isinstance(node, ast.Not):
        may, must = _bounds(node.operand, defines, move, depth + 1)
        return ANY - must, ANY - may
    if isinstance(node, ast.Call) and node.name in _WITHIN_FIRST and node.args:
        return _bounds(node.args[0], defines, move, depth + 1)[0], NONE
    return ANY, NONE
