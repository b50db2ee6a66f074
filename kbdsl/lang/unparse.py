"""Turn expressions and actions back into rule-language text (for messages and docs)."""

from __future__ import annotations

from dataclasses import replace

from kbdsl.lang import ast

_PREC = {"|": 1, "&": 2, "!": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "//": 6}


def unparse(node, parent: int = 0) -> str:
    """Rule-language text of an expression or action, parenthesised only where needed."""
    if isinstance(node, ast.Action):
        if node.kind == "or":
            return " or ".join(unparse(part) for part in node.parts)
        if node.then is not None:
            return f"{unparse(replace(node, then=None))} then {unparse(node.then)}"
        mods = "".join(f" {m}" for m in node.modifiers)
        count = f" up-to {node.count}" if node.up_to else f" {node.count}" if node.count != 1 else ""
        if node.kind == "build":
            return f"build{count} on {unparse(node.target)}{mods}"
        if node.kind == "place":
            return f"place{count} {node.piece} on {unparse(node.target)}{mods}"
        if node.kind == "remove":
            return f"remove from {unparse(node.target)}{mods}"
        if node.kind == "gold":
            return f"gold {node.count}"
        if node.kind == "ignore":
            return f"ignore {node.modifiers[0]}"
        if node.kind == "later":
            return f"next-turn ignore {node.modifiers[0]}" if node.modifiers else f"next-turn extra {node.count}"
        source = f" from {unparse(node.source)}" if node.source is not None else ""
        if node.kind == "return":
            return f"return {node.piece}{source}{mods}"
        if node.kind == "draw":
            return "draw"
        piece = f" {node.piece}" if node.piece else ""
        return f"move{count}{piece}{source} to {unparse(node.target)}{mods}"
    if isinstance(node, ast.Num):
        return str(node.value)
    if isinstance(node, ast.Ref):
        return node.name
    if isinstance(node, ast.Call):
        return f"{node.name}({', '.join(unparse(a) for a in node.args)})"
    if isinstance(node, ast.Per):
        where = f" where {unparse(node.where)}" if node.where is not None else ""
        return _wrap(f"{node.amount} per {node.domain}{where}", 7 if where == "" else 0, parent)
    if isinstance(node, ast.Aggregate):
        where = f" where {unparse(node.where)}" if node.where is not None else ""
        pays = f" pays {', '.join(map(str, node.payouts))}" if node.payouts else ""
        return f"{node.fn}({unparse(node.expr)} over {node.domain}{where}{pays})"
    if isinstance(node, ast.Not):
        return _wrap("!" + unparse(node.operand, _PREC["!"]), _PREC["!"], parent)
    if isinstance(node, (ast.BoolOp, ast.BinOp)):
        prec = _PREC[node.op]
        text = f"{unparse(node.left, prec)} {node.op} {unparse(node.right, prec + 1)}"
        return _wrap(text, prec, parent)
    if isinstance(node, ast.Compare):
        prec = _PREC["cmp"]
        return _wrap(f"{unparse(node.left, prec + 1)} {node.op} {unparse(node.right, prec + 1)}", prec, parent)
    raise TypeError(f"cannot unparse {type(node).__name__}")


def _wrap(text: str, prec: int, parent: int) -> str:
    return f"({text})" if prec < parent else text
