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
    """One finding: where, a short code for tools, and one sentence for people.

    Codes starting with W are warnings (the rules load); every other code is an error.
    `end` is where the offending text ends (exclusive), when it is known."""

    pos: Pos
    message: str
    code: str = "E000"
    end: Pos | None = None

    @property
    def severity(self) -> str:
        return "warning" if self.code.startswith("W") else "error"

    def render(self, with_source: bool = True) -> str:
        """`path:line:col: CODE message`, then the source line and a caret under the place."""
        head = f"{self.pos}: {self.code} {self.message}"
        if not with_source or not self.pos.line:
            return head
        src = source_line(self.pos.path, self.pos.line)
        if src is None:
            return head
        start = max(self.pos.col, 1)
        width = 1
        if self.end is not None and self.end.line == self.pos.line and self.end.col > start:
            width = self.end.col - start
        src = src.expandtabs(1)
        return f"{head}\n    {src}\n    {' ' * (start - 1)}{'^' * width}"

    def to_json(self) -> dict:
        """The shape of schemas/diagnostics.schema.json (also used by the protocol)."""
        end = self.end or self.pos
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "file": self.pos.path,
            "line": self.pos.line,
            "column": self.pos.col,
            "end_line": end.line,
            "end_column": end.col,
        }


def source_line(path: str, line: int) -> str | None:
    """Line `line` (1-based) of a text file, or None when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            for n, text in enumerate(f, 1):
                if n == line:
                    return text.rstrip("\r\n")
    except (OSError, UnicodeDecodeError):
        return None
    return None


class RuleError(KbdslError):
    """A rule file, manifest or scenario could not be loaded; holds every finding."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))

    def __reduce__(self):  # picklable, so a worker process can report it to its parent
        return type(self), (self.diagnostics,)


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
        self._given_rule = rule
        cited = re.search(r"\[([^\[\]]+)\]$", reason)  # reasons end with the rule they cite: "[RULINGS 7]"
        self.rule = rule or (cited.group(1) if cited else "")
        where = f" ({rule})" if rule and not cited else ""
        super().__init__(f"illegal move {move}: {reason}{where}")

    def __reduce__(self):  # picklable, so a worker process can report it to its parent
        return type(self), (self.move, self.reason, self._given_rule)


class SetupError(KbdslError, ValueError):
    """A game setup (players, sections, cards, options) that the rule set cannot play."""
