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

The first stage of a move reads the engine's legal moves as runs of bitsets (`legal_runs`: a
kind's targets, or a move's sources), so its mask is a few shifts of those bitsets, never a loop
over the legal moves; only the action taken is looked up among them (`Choice.take`).
"""

from __future__ import annotations

import numpy as np

from kbdsl.bitset import bit_list, extend_bits
from kbdsl.caches import ByOwner
from kbdsl.engine.compiled import SameRun
from kbdsl.engine.groups import MoveGroup, SameMoves
from kbdsl.engine.setup import BaseGame
from kbdsl.engine.state import State
from kbdsl.envs.encoding import Encoding
from kbdsl.moves import DISCARDS

CHOOSE, TARGET, DISCARD = 0, 1, 2
HEX, NO_HEX, SOURCE = 0, 1, 2  # how a kind's first-stage action reads a run: its targets, one cell, its sources

#: Turn.legal_runs: codes base + i per set bit i, or a group
Runs = list[tuple[int, "int | MoveGroup | SameMoves | SameRun"]]


class ActionSpace:
    """The numbering of one game's actions (its size depends only on the rule set)."""

    def __init__(self, enc: Encoding, game: BaseGame):
        self.game = game
        self.cells = enc.grid.cells
        self.kinds = len(enc.kinds)
        self.size = self.kinds * self.cells + len(DISCARDS)
        self.nbytes = (self.size + 7) // 8
        self.cell = enc.grid.cells_of(game.tables.ids)
        rules, n = game.rules, game.tables.n
        self.n, self.stride = n, 4 * n * n  # codes of one action kind
        self.moves = [k >= 2 and rules.actions[name].kind == "move" for k, name in enumerate(game.kinds)]
        self.no_hex = [k == 1 or name in game.no_hex for k, name in enumerate(game.kinds)]
        self.by_source = [m and not x for m, x in zip(self.moves, self.no_hex, strict=True)]
        self.shape = [NO_HEX if x else SOURCE if m else HEX for m, x in zip(self.moves, self.no_hex, strict=True)]
        # per kind: its one engine code for a first-stage action, when it has one (every kind but
        # moves: a run of such a kind is (kind's code of hex 0, targets), no discard variants),
        # as the code of hex 0 (None for moves)
        self.lone = [None if m else game.code_base[k] for k, m in enumerate(self.moves)]
        self.hex_at, self.segments = _layout(self.cell, n)

    def cells_of(self, hexes: int) -> int:
        """A set of hexes as the set of their grid cells."""
        if self.segments is None:
            return hexes
        out = 0
        for start, mask, shift in self.segments:
            part = (hexes >> start) & mask
            if part:
                out |= part << (start + shift)
        return out

    def first_mask(self, runs: Runs) -> int:
        """The actions of a move's first stage as a bitset over the space, read off the runs."""
        out, cells, stride, n, shape, direct = 0, self.cells, self.stride, self.n, self.shape, self.segments is None
        for base, bits in runs:
            kind = base // stride
            how = shape[kind]
            if how == HEX:  # (the common case first; one board: hexes are on the cells of their index)
                hexes = bits << (base % n)
                out |= (hexes if direct else self.cells_of(hexes)) << kind * cells
            elif how == NO_HEX:
                out |= 1 << kind * cells
            elif bits.__class__ is MoveGroup:  # the pieces that can move
                out |= self.cells_of(_movable(bits)) << kind * cells
            elif bits.__class__ is SameMoves:  # every source has the same (nonempty) targets
                out |= self.cells_of(bits.sources) << kind * cells
            elif bits.__class__ is SameRun:  # the same targets but next to a lone piece's hexes
                out |= self.cells_of(bits.movable()) << kind * cells
            else:
                out |= 1 << (kind * cells + self.cell[base % (n * n) // n])
        return out

    def codes_at(self, runs: Runs, action: int) -> list[int]:
        """The engine codes a first-stage action stands for, in the order of legal_actions."""
        kind, cell = divmod(action, self.cells)
        stride, n, out = self.stride, self.n, []
        if kind >= self.kinds:
            return out
        no_hex, by_source, at = self.no_hex[kind], self.by_source[kind], self.hex_at.get(cell)
        for base, bits in runs:
            if base // stride != kind:
                continue
            if bits.__class__ is MoveGroup:
                if by_source and at is not None and (bits.sources >> at) & 1:
                    extend_bits(out, base + at * n, bits.origins.table[at] & bits.free)
                elif no_hex:
                    bits.extend(out, base)
            elif bits.__class__ is SameMoves:
                if by_source and at is not None and (bits.sources >> at) & 1:
                    extend_bits(out, base + at * n, bits.targets)
                elif no_hex:
                    bits.extend(out, base)
            elif bits.__class__ is SameRun:
                if by_source and at is not None and (bits.sources >> at) & 1:
                    extend_bits(out, base + at * n, bits.targets(at))
                elif no_hex:
                    bits.extend(out, base)
            elif no_hex or (by_source and base % (n * n) // n == at):
                extend_bits(out, base, bits)
            elif not by_source and at is not None:
                j = at - base % n
                if j >= 0 and (bits >> j) & 1:
                    out.append(base + j)
        return out

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

    def array(self, mask: int) -> np.ndarray:
        """A bitset over the space as the environments' int8 mask (a new array). (Positional
        arguments and module-level names: a fifth cheaper than keywords and attribute lookups.)"""
        return _unpackbits(_frombuffer(mask.to_bytes(self.nbytes, "little"), _UINT8), None, self.size, "little").view(
            _INT8
        )


_unpackbits, _frombuffer, _UINT8, _INT8 = np.unpackbits, np.frombuffer, np.uint8, np.int8


_LAYOUTS: ByOwner[tuple[dict[int, int], list | None]] = ByOwner()  # a shape's cells -> its layout


def _layout(cell: list[int], n: int) -> tuple[dict[int, int], list[tuple[int, int, int]] | None]:
    """Per board shape (Grid.cells_of shares its list): grid cell -> hex index, and hexes to cells
    as bitsets: runs of consecutive hexes on consecutive cells, (first hex, run's mask, cell - hex),
    or None when every hex is on the cell of its index (a single board)."""
    hit = _LAYOUTS.get(cell)
    if hit is None:
        segments: list[tuple[int, int, int]] = []
        for i, c in enumerate(cell):
            if segments and i - segments[-1][0] == segments[-1][1].bit_length() and c - i == segments[-1][2]:
                start, mask, shift = segments[-1]
                segments[-1] = (start, mask << 1 | 1, shift)
            else:
                segments.append((i, 1, c - i))
        layout = ({c: i for i, c in enumerate(cell)}, None if segments == [(0, (1 << n) - 1, 0)] else segments)
        hit = _LAYOUTS.put(cell, (), layout)
    return hit


def _movable(group: MoveGroup) -> int:
    """The sources of a MoveGroup with at least one target: per offset of its table, the origins
    with a target there whose target is free (a few bitset operations, however many pieces)."""
    free, out = group.free, 0
    for offset, origins in group.origins.by_offset.items():
        out |= origins & (free >> offset if offset > 0 else free << -offset)
    return out & group.sources


class Choice:
    """The engine moves still possible while one is being chosen action by action: at the first
    stage as the engine's runs (`Choice.first`), after it as the remaining codes."""

    __slots__ = ("space", "runs", "stage", "kind", "source", "mask", "_codes", "_keys", "_legal")

    def __init__(self, space: ActionSpace, codes: list[int], stage: int = CHOOSE):
        self.space, self.runs = space, None
        self.stage, self.kind, self.source = stage, -1, -1
        self._codes = codes
        self._advance()

    @classmethod
    def first(cls, space: ActionSpace, state: State) -> Choice:
        """The choice of the next move of `state` (not over)."""
        runs = state.legal_runs()
        mask = space.first_mask(runs)
        if mask.bit_count() == 1:  # one action: if it stands for several moves, nothing to choose yet
            action = mask.bit_length() - 1
            kind, cell = divmod(action, space.cells)
            lone = space.lone[kind]
            if lone is not None:  # not a move: one engine code
                codes = [lone if space.no_hex[kind] else lone + space.hex_at[cell]]
            else:
                codes = space.codes_at(runs, action)
            if len(codes) > 1:
                stage = TARGET if space.moves[kind] else DISCARD
                return cls(space, codes, stage)
        else:
            codes = None
        self = object.__new__(cls)
        self.space, self.runs, self.mask = space, runs, mask
        self.stage, self.kind, self.source = CHOOSE, -1, -1
        self._codes, self._keys, self._legal = codes, None, None  # one action: its one move, kept for take
        return self

    @property
    def codes(self) -> list[int]:
        """The engine moves still possible, in the order of legal_actions."""
        if self._codes is None:
            out: list[int] = []
            for base, bits in self.runs:
                if bits.__class__ is int:
                    extend_bits(out, base, bits)
                else:  # a MoveGroup, SameMoves or SameRun
                    bits.extend(out, base)
            self._codes = out
        return self._codes

    def _advance(self) -> None:
        """Group the codes by their action at this stage (TARGET or DISCARD: the codes of one
        action of one kind, so the key is their target's cell or their discard), skipping stages
        at which every remaining move shares its action (nothing to choose)."""
        sp = self.space
        n = sp.n
        while True:
            keys: dict[int, list[int]] = {}
            if self.stage == TARGET:  # (ActionSpace.key at this stage, inline: a call per code costs more)
                at, cell = self._codes[0] // sp.stride * sp.cells, sp.cell
                for c in self._codes:
                    keys.setdefault(at + cell[c % n], []).append(c)
            else:
                at, nn = sp.kinds * sp.cells, n * n
                for c in self._codes:
                    keys.setdefault(at + c // nn % 4, []).append(c)
            if len(keys) > 1 or len(self._codes) == 1 or self.stage == DISCARD:
                self._keys, self._legal = keys, sorted(keys)
                self.mask = sum(1 << a for a in keys)
                return
            self.stage += 1
            if self.stage == TARGET and not sp.moves[self._codes[0] // sp.stride]:
                self.stage = DISCARD

    def legal(self) -> list[int]:
        """The legal actions now, in increasing order (do not change the list)."""
        if self._legal is None:
            self._legal = bit_list(self.mask)
        return self._legal

    def copy(self) -> Choice:
        """An independent copy (the lists and runs it holds are never changed in place)."""
        other = object.__new__(Choice)
        other.space, other.runs, other.mask = self.space, self.runs, self.mask
        other._codes, other._keys, other._legal = self._codes, self._keys, self._legal
        other.stage, other.kind, other.source = self.stage, self.kind, self.source
        return other

    def allows(self, action: int) -> bool:
        return action >= 0 and (self.mask >> action) & 1 == 1

    def take(self, action: int) -> int | None:
        """Narrow the choice by a legal action: the engine code once one move is left, else None.
        ValueError for an action that is not legal."""
        if action < 0 or not (self.mask >> action) & 1:  # (allows, inline)
            raise ValueError(f"action {action} ({self.space.describe(action)}) is not legal now")
        sp = self.space
        if self.runs is None:
            codes = self._keys[action]
        else:
            kind, cell = divmod(action, sp.cells)
            lone = sp.lone[kind]
            if lone is not None:  # not a move: its one engine code (codes_at would find it alone)
                return lone if sp.no_hex[kind] else lone + sp.hex_at[cell]
            if self._codes is not None and self.mask.bit_count() == 1:  # the one action Choice.first read
                codes = self._codes
            else:
                codes = sp.codes_at(self.runs, action)
        if len(codes) == 1:
            return codes[0]
        kind, _, frm, _ = sp.game.split(codes[0])
        self.kind = kind
        if self.stage == CHOOSE and sp.moves[kind]:
            self.source = frm
        self.stage += 1 if sp.moves[kind] or self.stage != CHOOSE else 2
        self.runs, self._codes, self._legal = None, codes, None
        self._advance()
        return None
