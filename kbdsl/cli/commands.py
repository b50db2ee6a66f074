"""Subcommands that inspect and check rules: lint, test, score."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kbdsl.errors import KbdslError
from kbdsl.lint import lint_paths
from kbdsl.scenario import Runner, find


def register(sub: argparse._SubParsersAction) -> None:
    from kbdsl.cli import play, serve, simulate

    p = sub.add_parser("lint", help="check rule folders, .kb files and scenarios (ruff-style output)")
    p.add_argument("paths", nargs="+")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(run=cmd_lint)

    p = sub.add_parser("test", help="run every scenario under the paths")
    p.add_argument("paths", nargs="+")
    p.add_argument("-v", "--verbose", action="store_true", help="print every scenario, not only failures")
    p.set_defaults(run=cmd_test)

    p = sub.add_parser("perft", help="count legal move sequences from a scenario's position (move-generator check)")
    p.add_argument("file")
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--divide", action="store_true", help="split the count by first move")
    p.set_defaults(run=cmd_perft)

    p = sub.add_parser("score", help="score the position of a scenario file, card by card")
    p.add_argument("file")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(run=cmd_score)
    play.register(sub)
    simulate.register(sub)
    serve.register(sub)


def cmd_lint(args) -> int:
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"kbdsl lint: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    found = lint_paths(args.paths)
    if args.format == "json":
        print(json.dumps([d.to_json() for d in found], indent=2))
    else:
        for d in found:
            print(d.render(with_source=False))
        if found:
            print(f"Found {len(found)} problem(s).")
    return 1 if found else 0


def cmd_test(args) -> int:
    files = find(args.paths)
    if not files:
        print(
            f"kbdsl test: no scenario files under {' '.join(args.paths)} (they live in scenarios/ folders)",
            file=sys.stderr,
        )
        return 2
    runner = Runner()
    passed = failed = 0
    for f in files:
        out = runner.run(f)
        if out.ok:
            passed += 1
            if args.verbose:
                print(f"PASS {f}: {out.name} ({out.checks} checks)")
        else:
            failed += 1
            print(f"FAIL {f}: {out.name}")
            for d in out.failures:
                print(f"  {d.render(with_source=False)}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_score(args) -> int:
    state = _scenario_state(args.file)
    sheets = state.scores()
    if args.format == "json":
        print(
            json.dumps(
                {
                    "players": [
                        {"total": s["total"], "scores": {k: v for k, v in s.items() if k != "total"}} for s in sheets
                    ]
                },
                indent=2,
            )
        )
        return 0
    print(score_table(sheets))
    return 0


def cmd_perft(args) -> int:
    from kbdsl.perft import divide, perft

    if not 1 <= args.depth <= 6:
        raise KbdslError("--depth must be between 1 and 6")
    state = _scenario_state(args.file)
    if args.divide:
        for move, nodes in divide(state, args.depth).items():
            print(f"{move}: {nodes}")
    print(f"perft {args.depth}: {perft(state, args.depth)}")
    return 0


def _scenario_state(path: str):
    """The position a scenario file sets up (its moves played)."""
    from kbdsl.yamlio import read_yaml, validate

    runner = Runner()
    doc = read_yaml(path)
    validate(doc, "scenario")
    return runner.arrange(doc, runner.rules_for(doc))


def score_table(sheets: list[dict[str, int]]) -> str:
    """A per-player, per-card table with totals."""
    if not sheets:
        raise KbdslError("no players to score")
    cols = list(sheets[0])
    width = max(len(c) for c in cols + ["player"]) + 2
    lines = ["player".ljust(8) + "".join(c.rjust(width) for c in cols)]
    for p, s in enumerate(sheets):
        lines.append(f"P{p}".ljust(8) + "".join(str(s[c]).rjust(width) for c in cols))
    return "\n".join(lines)
