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

from collections import defaultdict
from collections.abc import Callable
from functools import lru_cache
from itertools import compress

from kbdsl.bitset import bit_list, extend_bits, nth_bit
from kbdsl.expr import Ctx, ShapeSplit, later_parts


class OriginTable:
    """One board's targets of one action (and card) by origin, also kept as masks by offset.

    `table` is the board's cache of targets by origin (Targets.board_table), filled by its owner
    before `learn`; the offset masks cover the origins learnt so far (`known`). `count(sources,
    free)` is the number of moves from `sources` (all known) onto `free` hexes: a function
    compiled over the offset masks (see _counter). On a board shape of several parts that no step
    joins (`split`: the first hex of the second, kbdsl.expr.later_parts), the offsets of the later
    parts (a detached board's own, where rows have another width) are counted apart, only where a
    source lies there."""

    __slots__ = ("table", "known", "by_offset", "count", "split")

    def __init__(self, table: list[int | None], split: int = 0):
        self.table = table
        self.known = 0
        self.by_offset: defaultdict[int, int] = defaultdict(int)  # offset -> origins with a target at that offset
        self.count: Callable[[int, int], int] = _counter((), (), 0)(table)
        self.split = split

    def learn(self, origins: int) -> None:
        """Add these origins (their table entries filled) to the offset masks."""
        table, by = self.table, self.by_offset
        new = rest = origins ^ (origins & self.known)  # origins & ~known, without a negative int
        while rest:  # (lowest bits one by one, as kbdsl.bitset.extend_bits: no list, no call)
            low = rest ^ (rest := rest & (rest - 1))
            s = low.bit_length()  # (one more than the origin, as bit_length is than the target)
            targets = table[s - 1]
            while targets:
                t = targets ^ (targets := targets & (targets - 1))
                by[t.bit_length() - s] |= low  # (a missing offset starts at 0: defaultdict, in C)
        self.known |= origins
        if new:
            split = self.split
            if not split:
                offsets = tuple(sorted(by))
                self.count = _counter(offsets, (), 0)(table, *map(by.__getitem__, offsets))  # (no generator frames)
                return
            offsets = sorted(by)
            masks = list(map(by.__getitem__, offsets))
            lows = list(map(((1 << split) - 1).__and__, masks))  # the origins on the first part
            highs = list(map(int.__sub__, masks, lows))  # (C calls: a table may learn every game)
            low, high = tuple(compress(offsets, lows)), tuple(compress(offsets, highs))
            self.count = _counter(low, high, split)(table, *compress(lows, lows), *compress(highs, highs))


def shape_origins(c: Ctx, split: ShapeSplit, sources: int) -> OriginTable:
    """The OriginTable of a split move target's origin part (kbdsl.expr.ShapeSplit) on the board
    of context `c`, these sources learnt: one per board shape, kept with it (the part reads the
    origin and the shape alone). A source it does not know fills and learns every hex of the
    shape at once: a learn recompiles the counter over all offsets (about 30 us), so learning a
    few sources at a time cost a combined game 1.3 learns in a process of 1,200 games; the whole
    board once costs about 1.2 ms a table a process."""
    cache = c.t.shape_cache
    hit = cache.get(id(split))
    if hit is None or hit[0] is not split:
        origins = OriginTable([None] * (c.t.n + 1), later_parts(c.t))
        hit = cache[id(split)] = (split, origins)  # (the split kept: its id stays its)
    origins = hit[1]
    if sources ^ (sources & origins.known):  # sources & ~known, without a negative int
        missing = rest = c.t.all ^ origins.known  # every hex of the shape at once: one learn a shape
        table, every, fn = origins.table, c.t.all, split.origin
        while rest:
            low = rest & (rest - 1)
            c.origin = s = (rest ^ low).bit_length() - 1
            rest = low
            if c.memo:
                c.memo = {}
            table[s] = fn(c) & every
        origins.learn(missing)
    return origins


@lru_cache(maxsize=64)
def _counter(offsets: tuple[int, ...], high: tuple[int, ...], split: int) -> Callable[..., Callable[[int, int], int]]:
    """OriginTable.count over the terms of these offsets as one expression (a loop over the terms
    costs more than their shifts, and a method calling it costs a call), made from the terms'
    origin masks: compiled once per set of offsets (a board's straight lines have the same few
    everywhere), bound to the table and masks each time a table learns origins. With few sources
    for many offsets, it counts by source instead (a term costs about 11 bytecodes, a source 20
    and the sum's calls about 60: the offsets of a straight line are always cheaper); one source
    (the piece of a move of several steps) is counted by its targets, whatever the offsets. The
    terms of the `high` offsets (their masks: the origins from hex `split` on) only where a
    source lies there."""
    masks = [f"m{k}" for k in range(len(offsets) + len(high))]

    def terms(offsets: tuple[int, ...], masks: list[str]) -> str:
        shifted = [f"(free >> {o})" if o > 0 else f"(free << {-o})" for o in offsets]
        return " + ".join(f"({f} & sources & {m}).bit_count()" for f, m in zip(shifted, masks, strict=True)) or "0"

    count = terms(offsets, masks[: len(offsets)])
    if high:
        count = f"{count} + ({terms(high, masks[len(offsets) :])} if sources >> {split} else 0)"
    if len(offsets) > 8:
        by_source = "sum((table[s] & free).bit_count() for s in bit_list(sources))"
        count = f"{by_source} if 2 * sources.bit_count() + 6 < {len(offsets)} else {count}"
    if len(masks) > 1:  # one source (a piece's next step): its own targets, whatever the offsets
        one = "(table[sources.bit_length() - 1] & free).bit_count()"
        count = f"{one} if sources and not sources & (sources - 1) else {count}"
    return eval(f"lambda table, {', '.join(masks)}: lambda sources, free: {count}", {"bit_list": bit_list})  # ints


class MoveGroup:
    """The moves of pieces on `sources` to the `free` hexes their OriginTable allows, as one run
    of `Turn._runs`: it answers `bit_count()` like a run's mask, and `nth`/`extend` for the codes."""

    __slots__ = ("origins", "sources", "free", "size", "stride", "bit_count")

    def __init__(self, origins: OriginTable, sources: int, free: int, size: int, stride: int):
        self.origins = origins  # (one assignment each: five at once build and unpack a tuple)
        self.sources = sources
        self.free = free
        self.size = size
        self.stride = stride
        # the number of moves, what int.bit_count() is for a run of single codes: a C call
        # returning `size` (a method would cost a Python call, and _pick asks each run twice)
        self.bit_count: Callable[[], int] = size.__index__

    def nth(self, k: int) -> int:
        """The code offset (source * stride + target) of the k-th move, in code order: sources
        are walked from the nearer end, k counting down by each one's targets until it drops
        below 0, at the source of the move (k == -1: the target nearest the next source, found
        inline)."""
        table, free, rest = self.origins.table, self.free, self.sources
        if 2 * k < self.size:
            while rest:
                low = rest & (rest - 1)  # the other sources
                s = (rest ^ low).bit_length() - 1  # the lowest (three int operations, no negative int)
                k -= (table[s] & free).bit_count()
                if k < 0:
                    targets = table[s] & free
                    if k == -1:  # its last target
                        return s * self.stride + targets.bit_length() - 1
                    return s * self.stride + nth_bit(targets, targets.bit_count() + k)
                rest = low
        else:
            k = self.size - 1 - k  # the k-th from the last move
            while rest:
                s = rest.bit_length() - 1
                k -= (table[s] & free).bit_count()
                if k < 0:
                    targets = table[s] & free
                    if k == -1:  # its first target
                        return s * self.stride + (targets ^ (targets - 1)).bit_length() - 1
                    return s * self.stride + nth_bit(targets, -1 - k)
                rest ^= 1 << s
        raise IndexError("move group index out of range")

    def extend(self, out: list[int], base: int) -> None:
        """Append the codes of every move, in code order."""
        table, free = self.origins.table, self.free
        for s in bit_list(self.sources):
            targets = table[s] & free
            if targets:
                extend_bits(out, base + s * self.stride, targets)


class SameMoves:
    """The moves of pieces on `sources` each onto the same hexes `targets`, as one run of
    `Turn._runs` (a MoveGroup's interface): source by source in code order, targets in order."""

    __slots__ = ("sources", "targets", "width", "stride", "bit_count")

    def __init__(self, sources: int, targets: int, stride: int):
        self.sources = sources
        self.targets = targets
        self.width = targets.bit_count()
        self.stride = stride
        self.bit_count: Callable[[], int] = (sources.bit_count() * self.width).__index__  # (as MoveGroup's)

    def nth(self, k: int) -> int:
        """The code offset (source * stride + target) of the k-th move, in code order."""
        i = k // self.width
        return nth_bit(self.sources, i) * self.stride + nth_bit(self.targets, k - i * self.width)

    def extend(self, out: list[int], base: int) -> None:
        """Append the codes of every move, in code order."""
        for s in bit_list(self.sources):
            extend_bits(out, base + s * self.stride, self.targets)


class WalkRun:
    """The moves of pieces on `sources` whose target is one slide or ray from the moving piece through
    hexes none of which is taken (kbdsl.expr._once_a_move), as one run of `Turn._runs` (a
    MoveGroup's interface): from each piece, one target per direction whose walk ends on a hex
    (`firsts`, `ends`: the board shape's kbdsl.expr._slide_counter or _ray_counter, with the hexes
    where a walk stops, `stops`, found once for all the pieces), so the moves are counted by bit
    counts and only a drawn move's source (or a piece that may lose a tile) has its targets found."""

    __slots__ = ("sources", "firsts", "stops", "ends", "stride", "size", "bit_count")

    def __init__(self, sources: int, firsts: tuple[int, ...], stops: tuple[int, ...], ends: tuple, stride: int):
        self.sources = sources
        self.firsts = firsts
        self.stops = stops
        self.ends = ends
        self.stride = stride
        size = 0
        for first in firsts:
            size += first.bit_count()
        self.size = size
        self.bit_count: Callable[[], int] = size.__index__  # (as MoveGroup's)

    def targets(self, s: int) -> int:
        """The targets of the piece on s."""
        out = 0
        for first, end, stops in zip(self.firsts, self.ends, self.stops, strict=True):
            if first >> s & 1:
                out |= end(s, stops)
        return out

    def part(self, sources: int) -> WalkRun | None:
        """The moves of these of the run's sources alone (None if there are none)."""
        run = WalkRun(sources, tuple(first & sources for first in self.firsts), self.stops, self.ends, self.stride)
        return run if run.size else None

    def nth(self, k: int) -> int:
        """The code offset (source * stride + target) of the k-th move, in code order: the number
        of moves from each source kept bit-sliced (c0 + 2 c1 + 4 c2: its first steps, at most 6),
        the sources with a move walked from the nearer end, k counting down by their moves."""
        c0 = c1 = c2 = 0
        for first in self.firsts:
            carry = c0 & first
            c0 ^= first
            c2 |= c1 & carry
            c1 ^= carry
        rest = c0 | c1 | c2
        if 2 * k < self.size:
            while True:
                low = rest & (rest - 1)
                s = (rest ^ low).bit_length() - 1  # the lowest
                k -= (c0 >> s & 1) + 2 * (c1 >> s & 1) + 4 * (c2 >> s & 1)
                if k < 0:  # among its moves: the last is -1
                    targets = self.targets(s)
                    return s * self.stride + nth_bit(targets, targets.bit_count() + k)
                rest = low
        k = self.size - 1 - k  # the k-th from the last move
        while True:
            s = rest.bit_length() - 1  # the highest
            k -= (c0 >> s & 1) + 2 * (c1 >> s & 1) + 4 * (c2 >> s & 1)
            if k < 0:  # among its moves: the first is -1
                return s * self.stride + nth_bit(self.targets(s), -1 - k)
            rest ^= 1 << s
