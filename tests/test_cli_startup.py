"""`kbdsl --version` answers without importing the commands, the engine or their libraries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import sys
from kbdsl.cli import main
try:
    main(["--version"])
except SystemExit as e:
    assert e.code == 0, e.code
heavy = sorted(m for m in ("kbdsl.cli.commands", "kbdsl.engine", "kbdsl.game", "lark", "jsonschema",
                           "networkx", "yaml", "importlib.metadata") if m in sys.modules)
print("imported:", heavy)
"""


def test_version_imports_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("kbdsl ")
    assert lines[1] == "imported: []"


def test_commands_still_parse_after_the_early_version_parser(capsys):
    from kbdsl.cli import main

    assert main(["lint", "base"]) == 0
    assert "All checks passed" in capsys.readouterr().out
