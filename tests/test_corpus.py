"""The broken-file corpus: every bad file in tests/corpus gives its exact diagnostic, never a traceback.

tests/corpus/expected.txt has one line per case: the case's path under tests/corpus, the code,
`line:column`, and a piece of the message. Cases by folder:
- kb/NAME.kb: the only rule file of a rule set that extends base (`kbdsl lint`);
- manifest/NAME.yaml: the game.yaml of a rule folder (`kbdsl lint`);
- dirs/NAME/: a folder of rule folders, linted from its first subfolder (`kbdsl lint`);
- scenario/NAME.yaml: a scenario file (`kbdsl test`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kbdsl.cli import main

CORPUS = Path(__file__).resolve().parent / "corpus"
FINDING = re.compile(r"^\s*(\S+?):(\d+):(\d+): ([EWS]\d{3}) (.*)$")


def cases() -> list[tuple[str, str, int, int, str]]:
    out = []
    for line in (CORPUS / "expected.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            path, code, where, message = line.split(None, 3)
            row, col = where.split(":")
            out.append((path, code, int(row), int(col), message))
    return out


def prepare(case: str, tmp: Path) -> tuple[list[str], str]:
    """The command that checks a case, and the path its diagnostic must name."""
    src = CORPUS / case
    kind, name = case.split("/", 1)
    if kind == "kb":
        (tmp / "case").mkdir()
        (tmp / "case" / "game.yaml").write_text(f'name: case\nextends: base\nfiles: ["{name}"]\n')
        shutil.copy(src, tmp / "case" / name)
        return ["lint", "case"], f"case/{name}"
    if kind == "manifest":
        (tmp / "case").mkdir()
        shutil.copy(src, tmp / "case" / "game.yaml")
        return ["lint", "case"], "case/game.yaml"
    if kind == "dirs":
        shutil.copytree(src, tmp / name)
        first = sorted(p.name for p in src.iterdir())[0]
        return ["lint", f"{name}/{first}"], ""
    (tmp / "scenarios").mkdir()
    shutil.copy(src, tmp / "scenarios" / name)
    return ["test", f"scenarios/{name}"], f"scenarios/{name}"


def test_the_corpus_is_large_and_every_file_has_an_expectation():
    listed = {c[0] for c in cases()}
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("*/*") if p.suffix in (".kb", ".yaml")}
    on_disk |= {p.relative_to(CORPUS).as_posix() for p in (CORPUS / "dirs").iterdir()}
    assert len(listed) >= 40
    assert listed == on_disk


@pytest.mark.parametrize("case, code, line, col, message", cases(), ids=[c[0] for c in cases()])
def test_case_gives_its_exact_diagnostic(case, code, line, col, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv, reported = prepare(case, tmp_path)
    exit_code = main(argv)
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text
    assert exit_code in (1, 2), text
    found = [m for m in map(FINDING.match, text.splitlines()) if m]
    assert found, text
    first = found[0]
    assert (first.group(4), int(first.group(2)), int(first.group(3))) == (code, line, col), text
    assert not reported or first.group(1) == reported, text
    assert message in first.group(5), text
