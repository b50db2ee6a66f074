"""Where the shipped data lives: inside the installed package, or beside it in a checkout."""

from __future__ import annotations

from functools import cache
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


MANIFEST = "game.yaml"


@cache
def shipped() -> tuple[str, ...]:
    """Rule sets shipped with kbdsl, by name (folders with a manifest, test fixtures excluded)."""
    root = rules_path("")
    found = (m.parent.relative_to(root).as_posix() for m in root.rglob(MANIFEST))
    return tuple(sorted(n for n in found if "scenarios" not in n.split("/")))


def shipped_path(name: str) -> Path | None:
    """The folder of a shipped rule set by its name under rules/ ('examples/x'), or its last part alone."""
    names = shipped()
    if name in names:
        return rules_path(name)
    tails = [n for n in names if n.rsplit("/", 1)[-1] == name]
    return rules_path(tails[0]) if len(tails) == 1 else None


def user_path(where: str | Path) -> Path:
    """A path as typed: an existing file or folder, else a shipped rule set of that name, else as given."""
    path = Path(where)
    if path.exists() or path.is_absolute():
        return path
    found = shipped_path(str(where))
    if found is None:
        return path
    try:  # shown relative to the working folder when it is inside it, as typed paths are
        return found.relative_to(Path.cwd())
    except ValueError:
        return found
