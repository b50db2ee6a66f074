"""Errors a person can cause, each pointing at the place that caused it.

Every user-facing failure is a `Diagnostic` (file, line, column, message) or a
`IllegalMove` (the move and the rule it breaks). The CLI prints them without a
traceback; library users catch `KbdslError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


class KbdslError(Exception):
    """Base class of every error kbdsl raises on purpose."""


@dataclass(frozen=True)
class Pos:
    """A place in a source file (1-based line and column)."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.col}"
        return self.path


@dataclass(frozen=True)
class Diagnostic:
    """One finding: where, a short code for tools, and one sentence for people."""

    pos: Pos
    message: str
    code: str = "E000"

    def render(self, with_source: bool = True) -> str:
        head = f"{self.pos}: {self.code} {self.message}"
        if not with_source or not self.pos.line:
            return head
        try:
            lines = Path(self.pos.path).read_text(encoding="utf-8").splitlines()
            src = lines[self.pos.line - 1]
        except (OSError, IndexError, UnicodeDecodeError):
            return head
        caret = " " * (max(self.pos.col, 1) - 1) + "^"
        return f"{head}\n    {src}\n    {caret}"

    def to_json(self) -> dict:
        return {
            "path": self.pos.path,
            "line": self.pos.line,
            "col": self.pos.col,
            "code": self.code,
            "message": self.message,
        }


class RuleError(KbdslError):
    """A rule file, manifest or scenario could not be loaded; holds every finding."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def read_source(path: str | Path) -> str:
    """A rule author's file as text; unreadable or non-UTF-8 bytes become a located RuleError."""
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise RuleError([Diagnostic(Pos(str(path)), f"cannot read file: {err.strerror}", "E200")]) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        col = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        raise RuleError(
            [Diagnostic(Pos(str(path), line, col), f"the file is not UTF-8 text (byte 0x{raw[err.start]:02x})", "E200")]
        ) from None


class IllegalMove(KbdslError):
    """A move the rules forbid; the state it was played on is unchanged."""

    def __init__(self, move: object, reason: str, rule: str = ""):
        self.move = move
        self.reason = reason
        cited = re.search(r"\[([^\[\]]+)\]$", reason)  # reasons end with the rule they cite: "[RULINGS 7]"
        self.rule = rule or (cited.group(1) if cited else "")
        where = f" ({rule})" if rule and not cited else ""
        super().__init__(f"illegal move {move}: {reason}{where}")


class SetupError(KbdslError, ValueError):
    """A game setup (players, sections, cards, options) that the rule set cannot play."""
