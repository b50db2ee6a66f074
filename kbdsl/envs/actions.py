"""The fixed action space of the environments, and how its actions make the engine's moves.

The engine's action codes (`BaseGame.encode`) number (kind, discard, from, to): 4·K·n² codes,
6.4 million for the base game, far too many for a mask. The environments number (kind, grid
cell) instead, K·cells + 4 actions (4,004 for the base game), and one engine move takes one to
three of them: the action kind and its hex (a build's target, or the piece a move lifts), then
for a move its target (the same numbering), then, only where a move may lose one of two tiles of
different status (RULINGS 11), which one (the last 4 actions: none, used, unused, new). A step
whose choice leaves one engine move applies it at once; a choice that leaves several waits for
the next step, and the observation shows the stage and what was chosen. The kinds without a hex
(`end`, a tile that only draws) use their kind's first cell.
"""

from __future__ import annotations

from kbdsl.engine.setup import BaseGame
from kbdsl.envs.encoding import Encoding
from kbdsl.moves import DISCARDS

CHOOSE, TARGET, DISCARD = 0, 1, 2


class ActionSpace:
    """The numbering of one game's actions (its size depends only on the rule set)."""

    def __init__(self, enc: Encoding, game: BaseGame):
        self.game = game
        self.cells = enc.grid.cells
        self.kinds = len(enc.kinds)
        self.size = self.kinds * self.cells + len(DISCARDS)
        self.cell = enc.grid.cells_of(game.tables.ids)
        rules = game.rules
        self.moves = [k >= 2 and rules.actions[name].kind == "move" for k, name in enumerate(game.kinds)]
        self.no_hex = [k == 1 or name in game.no_hex for k, name in enumerate(game.kinds)]
        # per kind, whether its first action names the source (a move) and its offset in the space
        self.first = [(self.moves[k] and not self.no_hex[k], k * self.cells, self.no_hex[k]) for k in range(self.kinds)]

    def key(self, code: int, stage: int) -> int:
        """The action that stands for engine move `code` at `stage`."""
        kind, disc, frm, to = self.game.split(code)
        if stage == DISCARD:
            return self.kinds * self.cells + disc
        if self.no_hex[kind]:
            return kind * self.cells
        if stage == CHOOSE and self.moves[kind]:
            return kind * self.cells + self.cell[frm]
        return kind * self.cells + self.cell[to]

    def describe(self, action: int) -> str:
        """A person's reading of an action number (for logs and render)."""
        if action >= self.kinds * self.cells:
            return f"discard {DISCARDS[action - self.kinds * self.cells]}"
        kind, cell = divmod(action, self.cells)
        return f"{self.game.kinds[kind]} @cell {cell}"


class Choice:
    """The engine moves still possible while one is being chosen action by action."""

    __slots__ = ("space", "codes", "stage", "kind", "source", "_keys", "_legal")

    def __init__(self, space: ActionSpace, codes: list[int]):
        self.space = space
        self.stage, self.kind, self.source = CHOOSE, -1, -1
        self.codes = codes
        self._keys: dict[int, list[int]] | None = None
        self._advance()

    def _group(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        if self.stage != CHOOSE:
            key, stage = self.space.key, self.stage
            for c in self.codes:
                out.setdefault(key(c, stage), []).append(c)
            return out
        sp = self.space  # the first stage, on every move: ActionSpace.key inline
        n, first, cell = sp.game.tables.n, sp.first, sp.cell
        nn = n * n
        for c in self.codes:
            kd, rest = divmod(c, nn)
            by_source, base, no_hex = first[kd >> 2]
            if no_hex:
                k = base
            else:
                frm, to = divmod(rest, n)
                k = base + cell[frm if by_source else to]
            if k in out:
                out[k].append(c)
            else:
                out[k] = [c]
        return out

    def _advance(self) -> None:
        """Skip stages at which every remaining move shares its action (nothing to choose)."""
        while True:
            keys = self._group()
            if len(keys) > 1 or len(self.codes) == 1 or self.stage == DISCARD:
                self._keys, self._legal = keys, sorted(keys)
                return
            self.stage += 1
            if self.stage == TARGET and not self.space.moves[self.space.game.split(self.codes[0])[0]]:
                self.stage = DISCARD

    def legal(self) -> list[int]:
        """The legal actions now, in increasing order (do not change the list)."""
        return self._legal

    def copy(self) -> Choice:
        """An independent copy (the lists it holds are never changed in place)."""
        other = object.__new__(Choice)
        other.space, other.codes, other._keys, other._legal = self.space, self.codes, self._keys, self._legal
        other.stage, other.kind, other.source = self.stage, self.kind, self.source
        return other

    def allows(self, action: int) -> bool:
        return action in self._keys

    def take(self, action: int) -> int | None:
        """Narrow the choice by a legal action: the engine code once one move is left, else None.
        ValueError for an action that is not legal."""
        codes = self._keys.get(action)
        if codes is None:
            raise ValueError(f"action {action} ({self.space.describe(action)}) is not legal now")
        if len(codes) == 1:
            return codes[0]
        kind, _, frm, _ = self.space.game.split(codes[0])
        self.kind = kind
        if self.stage == CHOOSE and self.space.moves[kind]:
            self.source = frm
        self.codes = codes
        self.stage += 1 if self.space.moves[kind] or self.stage != CHOOSE else 2
        self._advance()
        return None
