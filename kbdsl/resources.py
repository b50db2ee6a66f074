"""Where the shipped data lives: inside the installed package, or beside it in a checkout."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The `rules` or `schemas` folder (installed wheels carry them inside the package)."""
    for candidate in (_HERE / name, _HERE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"kbdsl data folder {name!r} is missing from this installation")


def rules_path(name: str) -> Path:
    """A shipped rule set by its folder under rules/ (`base`, `examples/...`)."""
    return data_dir("rules") / name
