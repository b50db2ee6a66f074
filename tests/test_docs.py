"""The authoring guide (docs/authoring.md) cannot rot.

- Its walk-through runs: every file block (first line `# file: PATH`) is written into a
  fresh folder and every ```sh block is run there, in document order. A line starting
  with `$ ` is a command; the lines below it are its whole output (`...` alone on a line
  stands for any lines, `...` inside a line for any text); `# exits with N` at the end
  of a command gives its exit code (default 0). ```python blocks run there too.
- The walk-through's files are the shipped example, rules/examples/hamlets.
- Its reference names every word of the language: the vocabulary tables of
  kbdsl/expr.py and every string literal of kbdsl/lang/grammar.lark; the guide names
  every manifest and scenario key and every lint code.
- Its rule snippets (```kb blocks) parse.

`python3 -m kbdsl` commands run in-process through kbdsl.cli.main, so the test is fast.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from kbdsl import expr
from kbdsl.cli import main
from kbdsl.lang.parser import parse

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "authoring.md"
EXAMPLE = ROOT / "rules" / "examples" / "hamlets"
WALK = "my-expansion/"  # the guide's walk-through folder; its files are the example's

FENCE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
FILE_MARK = re.compile(r"^#\s*file:\s*(\S+)\s*$")
EXIT_MARK = re.compile(r"#\s*exits with (\d+)\s*$")
KBDSL = "python3 -m kbdsl "
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*|>=|<=|==|!=|//|\S")


def guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


def blocks(text: str | None = None) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in document order."""
    return [(lang, body) for lang, body in FENCE.findall(text if text is not None else guide())]


def file_block(body: str) -> tuple[str, str] | None:
    """(path, content) when the block is a file block, else None."""
    first, _, rest = body.partition("\n")
    m = FILE_MARK.match(first)
    return (m.group(1), rest) if m else None


def reference() -> str:
    text = guide()
    start = text.index("# Part 3: Reference")
    return text[start:]


def code_tokens(text: str) -> set[str]:
    """Tokens of every inline code span and fenced block of `text`."""
    spans = re.findall(r"`([^`\n]+)`", FENCE.sub("", text)) + [body for _, body in blocks(text)]
    return {tok for span in spans for tok in TOKEN.findall(span)}


# ---- (a) the walk-through runs ----------------------------------------------------------
def sessions(body: str) -> list[tuple[str, int, list[str]]]:
    """(command, expected exit code, expected output lines) of one sh block."""
    out: list[tuple[str, int, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            cmd = line[2:].strip()
            m = EXIT_MARK.search(cmd)
            out.append((cmd, int(m.group(1)) if m else 0, []))
        elif out:
            out[-1][2].append(line.rstrip())
        elif line.strip():
            raise AssertionError(f"sh block text before its first '$ ' command: {line!r}")
    return out


def output_pattern(expected: list[str]) -> re.Pattern:
    while expected and not expected[-1]:
        expected = expected[:-1]
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def normalise(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


def run(cmd: str, cwd: Path) -> tuple[int, str]:
    """Run one command of the guide: kbdsl in-process, anything else in bash."""
    if cmd.startswith(KBDSL):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                code = main(shlex.split(cmd[len(KBDSL) :], comments=True))
            except SystemExit as e:  # argparse usage errors
                code = e.code if isinstance(e.code, int) else 2
        return code, buf.getvalue()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    done = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def test_walkthrough_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    commands = files = snippets = 0
    for lang, body in blocks():
        written = file_block(body)
        if written:
            path, content = written
            target = tmp_path / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
            files += 1
        elif lang == "sh":
            for cmd, want_code, want_out in sessions(body):
                code, out = run(cmd, tmp_path)
                assert code == want_code, f"$ {cmd}\nexited with {code}, the guide says {want_code}:\n{out}"
                assert output_pattern(want_out).fullmatch(normalise(out)), (
                    f"$ {cmd}\nprinted:\n{out}\nthe guide shows:\n" + "\n".join(want_out)
                )
                commands += 1
        elif lang == "python":
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(body, f"{GUIDE}:python-block", "exec"), {"__name__": "__guide__"})
            snippets += 1
    assert files >= 8 and commands >= 6 and snippets >= 1, (files, commands, snippets)


def test_walkthrough_files_are_the_shipped_example():
    shown = {}
    for _, body in blocks():
        written = file_block(body)
        if written and written[0].startswith(WALK):
            shown[written[0][len(WALK) :]] = written[1]
    assert {"game.yaml", "tiles.kb", "cards.kb", "sections/hamlet.kb"} <= set(shown)
    for rel, content in shown.items():
        shipped = (EXAMPLE / rel).read_text(encoding="utf-8")
        if rel == "game.yaml":
            assert "\nextends: base\n" in content
            content = content.replace("\nextends: base\n", "\nextends: ../../base\n")
        assert content == shipped, f"the guide's {WALK}{rel} differs from {EXAMPLE / rel}"


def test_sh_blocks_follow_the_convention():
    for lang, body in blocks():
        if lang == "sh":
            assert sessions(body), "an sh block without a '$ ' command"


# ---- (b) the reference is complete ------------------------------------------------------
def grammar_literals() -> set[str]:
    """Every quoted string of grammar.lark (keywords, punctuation, operators)."""
    text = (ROOT / "kbdsl" / "lang" / "grammar.lark").read_text(encoding="utf-8")
    out: set[str] = set()
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("//"):
            continue
        keywords = re.match(r"^[A-Z_]+\s*:\s*/\(\?:([a-z|-]+)\)\(\?!", line)
        if keywords:  # a keyword set written as a regular expression with a word-boundary lookahead
            out.update(keywords.group(1).split("|"))
        elif not re.match(r"^[A-Z_]+\s*:\s*/", line):  # other regular expressions are not words
            out.update(re.findall(r'"([^"]+)"', line))
    return out


def test_grammar_literals_are_found():
    lits = grammar_literals()
    assert {
        "terrain",
        "tile",
        "card",
        "scoring",
        "section",
        "define",
        "turn",
        "mandatory",
        "build",
        "move",
        "adjacent-if-possible",
        "pays",
        "//",
        ">=",
    } <= lits


@pytest.mark.parametrize("table", ["HEX_WORDS", "FUNCTIONS", "DOMAINS", "AGGREGATES"])
def test_reference_names_the_vocabulary(table):
    tokens = code_tokens(reference())
    missing = sorted(set(getattr(expr, table)) - tokens)
    assert not missing, f"the guide's reference does not name {table} entries {missing}"


@pytest.mark.parametrize(
    "table",
    [
        "LIFECYCLE_SETTINGS",
        "TURN_SETTINGS",
        "PIECE_KIND_SETTINGS",
        "PIECE_SETTINGS",
        "GRANT_SETTINGS",
        "PLACEMENT_SETTINGS",
    ],
)
def test_reference_names_every_setting_and_value(table):
    from kbdsl import ruleset

    tokens = code_tokens(reference())
    words = {w for key, values in getattr(ruleset, table).items() for w in (key, *values)}
    assert not sorted(words - tokens), f"the guide's reference does not name {table} entries {sorted(words - tokens)}"


def test_reference_names_every_grammar_keyword():
    tokens = code_tokens(reference())
    missing = sorted(grammar_literals() - tokens)
    assert not missing, f"the guide's reference does not name grammar literals {missing}"
    for syntax in ("#", '"', "|"):  # comments, strings, grid rows (regex-defined terminals)
        assert syntax in tokens


def schema_keys(node) -> set[str]:
    keys: set[str] = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                keys.update(v)
            keys |= schema_keys(v)
    elif isinstance(node, list):
        for v in node:
            keys |= schema_keys(v)
    return keys


@pytest.mark.parametrize("name", ["manifest", "scenario"])
def test_guide_names_every_schema_key(name):
    schema = json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))
    missing = sorted(schema_keys(schema) - code_tokens(guide()))
    assert not missing, f"the guide does not name {name} keys {missing}"


def test_guide_names_every_lint_code():
    codes = set()
    for path in (ROOT / "kbdsl").rglob("*.py"):
        codes.update(re.findall(r'"([EWS]\d{3})"', path.read_text(encoding="utf-8")))
    missing = sorted(codes - code_tokens(guide()))
    assert codes and not missing, f"the guide does not explain lint codes {missing}"


# ---- (c) the rule snippets parse --------------------------------------------------------
def test_kb_blocks_parse():
    kb = [body for lang, body in blocks() if lang == "kb"]
    assert len(kb) >= 8
    for body in kb:
        parse(body, "docs/authoring.md")


def test_example_lints_clean_and_its_scenarios_pass(capsys):
    assert main(["lint", str(EXAMPLE)]) == 0, capsys.readouterr().out
    assert main(["test", str(EXAMPLE)]) == 0, capsys.readouterr().out


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
