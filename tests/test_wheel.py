"""The wheel users install holds the whole package: every module, the grammar, every rule folder,
every schema and every web page (tools/check_install.py; .ci/run also installs it and runs it)."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("check_install", ROOT / "tools" / "check_install.py")
check_install = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_install)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return check_install.build_wheel(tmp_path_factory.mktemp("wheel"))


def test_wheel_holds_every_file_of_the_package(wheel):
    assert check_install.missing_from(wheel) == []
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    for must in (
        "kbdsl/engine/turn.py",
        "kbdsl/lang/grammar.lark",
        "kbdsl/rules/base/game.yaml",
        "kbdsl/schemas/game.schema.json",
        "kbdsl/web/static/table.js",
    ):
        assert must in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_expected_files_cover_every_subpackage_and_rule_folder():
    files = check_install.expected_files()
    packages = {p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "kbdsl").rglob("__init__.py")}
    assert packages and all(f"{p}/__init__.py" in files for p in packages)
    for manifest in (ROOT / "rules").rglob("game.yaml"):
        assert f"kbdsl/rules/{manifest.relative_to(ROOT / 'rules').as_posix()}" in files


def test_a_wheel_without_a_subpackage_is_caught(wheel, tmp_path):
    """The check can fail: the same wheel with kbdsl/engine/ left out is reported."""
    broken = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            if not item.filename.startswith("kbdsl/engine/"):
                dst.writestr(item, src.read(item))
    missing = check_install.missing_from(broken)
    assert "kbdsl/engine/turn.py" in missing and all(m.startswith("kbdsl/engine/") for m in missing)
