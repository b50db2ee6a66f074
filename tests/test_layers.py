"""The engine's modules import one way: no cycle, counting imports made only for type checking."""

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def import_graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for path in (ROOT / "kbdsl").rglob("*.py"):
        mod = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        g.add_node(mod)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kbdsl"):
                # `from kbdsl.cli import play` imports the submodule kbdsl.cli.play
                subs = [f"{node.module}.{a.name}" for a in node.names]
                subs = [m for m in subs if _is_module(m)]
                g.add_edges_from((mod, m) for m in subs or [node.module])
            elif isinstance(node, ast.Import):
                g.add_edges_from((mod, a.name) for a in node.names if a.name.startswith("kbdsl"))
    return g


def test_no_import_cycles():
    g = import_graph()
    cycles = list(nx.simple_cycles(g))
    assert not cycles, f"import cycles: {cycles}"


def test_engine_layers_import_downward():
    g = import_graph()
    order = [
        "phases",
        "placements",
        "setup",
        "pieces",
        "kinds",
        "zones",
        "hand",
        "gold",
        "later",
        "tiles",
        "given",
        "grants",
        "groups",
        "targets",
        "compiled",
        "turn",
        "explain",
        "events",
        "possible",
        "state",
    ]
    for i, name in enumerate(order):
        below = {f"kbdsl.engine.{m}" for m in order[:i]}
        above = {f"kbdsl.engine.{m}" for m in order[i:]} - {f"kbdsl.engine.{name}"}
        assert not set(g.successors(f"kbdsl.engine.{name}")) & above, name
        engine = {s for s in g.successors(f"kbdsl.engine.{name}") if s.startswith("kbdsl.engine")}
        assert engine <= below, name
