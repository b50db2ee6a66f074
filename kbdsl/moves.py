"""Moves: plain values a front end can show, send as JSON and type as text.

Text notation: `build 3,4`, `TILE 3,4` (a tile that builds), `TILE 3,4 3,6` (a tile that moves: from, to), `end`;
a move that loses one of two same-kind tiles may add `discard=used|unused|new`.
"""

from __future__ import annotations

from typing import NamedTuple


class Move(NamedTuple):
    do: str  # "build" (mandatory), "end", or a tile name
    to: str | None = None  # target hex
    frm: str | None = None  # moved settlement, for move actions
    discard: str | None = None  # which of two same-kind tiles to give up, when it matters

    def to_json(self) -> dict:
        out: dict = {"do": self.do}
        if self.frm is not None:
            out["from"] = self.frm
        if self.to is not None:
            out["to"] = self.to
        if self.discard is not None:
            out["discard"] = self.discard
        return out

    @classmethod
    def from_json(cls, data: dict) -> Move:
        if not isinstance(data, dict) or not isinstance(data.get("do"), str):
            raise ValueError(f"not a move: {data!r} (expected an object with 'do')")
        extra = set(data) - {"do", "to", "from", "discard"}
        if extra:
            raise ValueError(
                f"not a move: unknown {'field' if len(extra) == 1 else 'fields'} {', '.join(sorted(extra))}"
            )
        return cls(data["do"], data.get("to"), data.get("from"), data.get("discard")).checked()

    def checked(self) -> Move:
        """This move, if each field is a string (or None where allowed); else ValueError."""
        if not isinstance(self.do, str):
            raise ValueError(f"not a move: 'do' must be a string such as \"build\", not {self.do!r}")
        for key, value in (("to", self.to), ("from", self.frm), ("discard", self.discard)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f'not a move: {key!r} must be a string such as "3,4", not {value!r}')
        return self

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse the text notation (see module docstring)."""
        words = text.replace("->", " ").split()
        discard = None
        rest = []
        for w in words:
            if w.startswith("discard="):
                discard = w.split("=", 1)[1]
            else:
                rest.append(w)
        if not rest:
            raise ValueError("empty move")
        do, hexes = rest[0].lower(), rest[1:]
        if len(hexes) > 2:
            raise ValueError(f"{text!r}: a move names at most two hexes (from and to)")
        if len(hexes) == 2:
            return cls(do, hexes[1], hexes[0], discard)
        return cls(do, hexes[0] if hexes else None, None, discard)

    def __str__(self) -> str:
        parts = [str(self.do)] + [str(h) for h in (self.frm, self.to) if h is not None]
        if self.discard:
            parts.append(f"discard={self.discard}")
        return " ".join(parts)


END = Move("end")

# Action codes (State.legal_actions): ((kind * 4 + discard) * n + from) * n + to, where kind 0 is the
# mandatory build, 1 ends the turn, 2... are the rule set's tiles in order, and n is the number of hexes.
BUILD, END_TURN = 0, 1
DISCARDS = (None, "used", "unused", "new")
