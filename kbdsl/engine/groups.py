"""Moves of many pieces at once, counted and drawn without listing them.

A move action whose target reads only the board and the moving piece's hex (its origin: "two
hexes in a straight line") has a table per board: `table[s]`, the hexes a piece on s may go to
when they are empty. The moves of pieces on `sources` onto the empty hexes `free` are the pairs
(s, t) with t in table[s] & free, code base + s * n + t in source order. Grouped by the offset
t - s of the board's index, the table is a few masks (six for a straight line on a board of
regular rows), so the moves are counted with a few bitset operations however many pieces there
are, and only a drawn move's source is looked up. A random playout draws one move among all of a
tile's (`Turn.sample_action`); listing them is left to `legal_actions`.
"""

from __future__ import annotations

from kbdsl.bitset import bit_list, extend_bits, nth_bit


class OriginTable:
    """One board's targets of one action (and card) by origin, also kept as masks by offset.

    `table` is the board's cache of targets by origin (Targets.board_table), filled by its owner
    before `learn`; the offset masks cover the origins learnt so far (`known`)."""

    __slots__ = ("table", "known", "by_offset", "terms")

    def __init__(self, table: list[int | None]):
        self.table = table
        self.known = 0
        self.by_offset: dict[int, int] = {}
        self.terms: tuple[tuple[int, int], ...] = ()  # (offset, origins with a target at that offset)

    def learn(self, origins: int) -> None:
        """Add these origins (their table entries filled) to the offset masks."""
        table, by = self.table, self.by_offset
        for s in bit_list(origins & ~self.known):
            for t in bit_list(table[s]):
                by[t - s] = by.get(t - s, 0) | 1 << s
        self.known |= origins
        self.terms = tuple(by.items())

    def count(self, sources: int, free: int) -> int:
        """The number of moves from `sources` (all known) onto `free` hexes."""
        terms = self.terms
        if len(terms) > sources.bit_count():  # a table of many offsets: by source is cheaper
            table = self.table
            return sum((table[s] & free).bit_count() for s in bit_list(sources))
        total = 0
        for offset, origins in terms:
            m = origins & sources
            if m:
                total += ((free >> offset if offset > 0 else free << -offset) & m).bit_count()
        return total


class MoveGroup:
    """The moves of pieces on `sources` to the `free` hexes their OriginTable allows, as one run
    of `Turn._runs`: it answers `bit_count()` like a run's mask, and `nth`/`extend` for the codes."""

    __slots__ = ("origins", "sources", "free", "size", "stride")

    def __init__(self, origins: OriginTable, sources: int, free: int, size: int, stride: int):
        self.origins, self.sources, self.free, self.size, self.stride = origins, sources, free, size, stride

    def bit_count(self) -> int:
        """The number of moves (what int.bit_count() is for a run of single codes)."""
        return self.size

    def nth(self, k: int) -> int:
        """The code offset (source * stride + target) of the k-th move, in code order: sources
        are walked from the nearer end."""
        table, free, rest = self.origins.table, self.free, self.sources
        if 2 * k < self.size:
            while rest:
                low = rest & -rest
                s = low.bit_length() - 1
                targets = table[s] & free
                size = targets.bit_count()
                if k < size:
                    return s * self.stride + nth_bit(targets, k)
                k -= size
                rest ^= low
        else:
            k = self.size - 1 - k  # the k-th from the last move
            while rest:
                s = rest.bit_length() - 1
                targets = table[s] & free
                size = targets.bit_count()
                if k < size:
                    return s * self.stride + nth_bit(targets, size - 1 - k)
                k -= size
                rest ^= 1 << s
        raise IndexError("move group index out of range")

    def extend(self, out: list[int], base: int) -> None:
        """Append the codes of every move, in code order."""
        table, free = self.origins.table, self.free
        for s in bit_list(self.sources):
            targets = table[s] & free
            if targets:
                extend_bits(out, base + s * self.stride, targets)
