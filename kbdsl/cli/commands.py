"""Subcommands that inspect and check rules: lint, test, score."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kbdsl.errors import Diagnostic, KbdslError
from kbdsl.lint import lint_paths
from kbdsl.render.terminal import score_table
from kbdsl.resources import shipped, user_path
from kbdsl.suggest import did_you_mean
from kbdsl.scenario import Outcome, Runner, find, scenario_position
from kbdsl.wording import counted


def register(sub: argparse._SubParsersAction) -> None:
    from kbdsl.cli import play, render, serve, show, simulate

    p = sub.add_parser("lint", help="check rule folders, .kb files and scenarios (ruff-style output)")
    p.add_argument("paths", nargs="+", help="rule folders, files, or names of shipped rule sets")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--select", default="", metavar="CODES", help="report only these codes or prefixes (E1,W001)")
    p.add_argument("--ignore", default="", metavar="CODES", help="never report these codes or prefixes")
    p.add_argument("--strict", action="store_true", help="warnings make the exit code 1 too")
    p.set_defaults(run=cmd_lint)

    p = sub.add_parser("test", help="run every scenario under the paths")
    p.add_argument("paths", nargs="+", help="folders, scenario files, or names of shipped rule sets")
    p.add_argument("-v", "--verbose", action="store_true", help="print every scenario, not only failures")
    p.add_argument("-k", dest="pattern", metavar="PATTERN", help="run only scenarios whose file or name contains it")
    p.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failing scenario")
    p.add_argument("--junit-xml", metavar="FILE", help="also write the results as JUnit XML (for CI systems)")
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
    render.register(sub)
    show.register(sub)
    serve.register(sub)


def cmd_lint(args) -> int:
    paths = [str(user_path(p)) for p in args.paths]
    missing = [p for p, q in zip(args.paths, paths, strict=True) if not Path(q).exists()]
    if missing:
        hint = did_you_mean(missing[0], shipped())
        print(f"kbdsl lint: no such file or folder: {', '.join(missing)}{hint}", file=sys.stderr)
        return 2
    found = select(lint_paths(paths), _codes(args.select), _codes(args.ignore))
    errors = sum(d.severity == "error" for d in found)
    warned = len(found) - errors
    if args.format == "json":
        print(json.dumps([d.to_json() for d in found], indent=2))
    else:
        for d in found:
            print(d.render())
        print(summary(errors, warned))
    return 1 if errors or (args.strict and warned) else 0


def _codes(text: str) -> list[str]:
    return [c.strip().upper() for c in text.split(",") if c.strip()]


def select(found: list[Diagnostic], chosen: list[str], ignored: list[str]) -> list[Diagnostic]:
    """Findings whose code starts with a chosen prefix (all when none is chosen) and no ignored one."""
    wanted, unwanted = tuple(chosen), tuple(ignored)
    return [
        d for d in found if (not wanted or d.code.startswith(wanted)) and not (unwanted and d.code.startswith(unwanted))
    ]


def summary(errors: int, warnings: int) -> str:
    if not errors and not warnings:
        return "All checks passed!"
    parts = [counted(errors, "error")] if errors else []
    parts += [counted(warnings, "warning")] if warnings else []
    return f"Found {counted(errors + warnings, 'problem')}: {', '.join(parts)}."


def cmd_test(args) -> int:
    import time

    paths = [str(user_path(p)) for p in args.paths]
    files = find(paths)
    if not files:
        print(
            f"kbdsl test: no scenario files under {' '.join(args.paths)} (they live in scenarios/ folders)",
            file=sys.stderr,
        )
        return 2
    runner = Runner()
    results: list[tuple[Outcome, float]] = []
    deselected = 0
    for f in files:
        if args.pattern and not matches(args.pattern, f"{f} {runner.name_of(f)}"):
            deselected += 1
            continue
        start = time.perf_counter()
        out = runner.run(f)
        results.append((out, time.perf_counter() - start))
        if out.ok:
            if args.verbose:
                print(f"PASS {f}: {out.name} ({counted(out.checks, 'check')})")
        else:
            print(f"FAIL {f}: {out.name}")
            for d in out.failures:
                print("  " + d.render().replace("\n", "\n  "))
            if args.exitfirst:
                break
    failed = sum(not out.ok for out, _ in results)
    line = f"{len(results) - failed} passed, {failed} failed"
    print(line + (f", {deselected} deselected" if deselected else ""))
    if args.junit_xml:
        write_junit(args.junit_xml, results)
    return 1 if failed else 0


def matches(pattern: str, text: str) -> bool:
    """`-k`: a case-insensitive substring; `not X` inverts it."""
    words = pattern.strip().lower()
    if words.startswith("not "):
        return words[4:].strip() not in text.lower()
    return words in text.lower()


def write_junit(path: str, results: list[tuple[Outcome, float]]) -> None:
    """Scenario results as JUnit XML, the format CI systems read."""
    import xml.etree.ElementTree as ET

    failed = sum(not out.ok for out, _ in results)
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="kbdsl",
        tests=str(len(results)),
        failures=str(failed),
        errors="0",
        time=f"{sum(t for _, t in results):.3f}",
    )
    for out, seconds in results:
        case = ET.SubElement(
            suite, "testcase", classname=Path(out.path).parent.as_posix(), name=out.name, file=out.path
        )
        case.set("time", f"{seconds:.3f}")
        if not out.ok:
            failure = ET.SubElement(case, "failure", message=out.failures[0].render(with_source=False))
            failure.text = "\n".join(d.render() for d in out.failures)
    try:
        ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
    except OSError as e:
        raise KbdslError(f"cannot write {path}: {e.strerror}") from None


def cmd_score(args) -> int:
    state = scenario_position(args.file)
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
    state = scenario_position(args.file)
    if args.divide:
        for move, nodes in divide(state, args.depth).items():
            print(f"{move}: {nodes}")
    print(f"perft {args.depth}: {perft(state, args.depth)}")
    return 0
