"""Hex sets as Python ints: bit i is hex i of the board's index. The hot loops live on these."""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: One direction of movement as bitset shifts: (offset, sources) pairs; every hex of `sources`
#: has its neighbour in that direction at index + offset. A board has a few distinct offsets
#: per direction (odd and even rows differ), so a whole hex set moves in a few int operations
#: (`shifter` makes them one function).
Shift = tuple[tuple[int, int], ...]


#: 1 << i for every bit index i asked for so far (`bits`).
_BITS: list[int] = []


def bits(n: int) -> list[int]:
    """A list whose item i is 1 << i, for every i < n at least (shared by all: never changed but
    grown). Hot loops read a hex's bit from it: a shift makes a new big int, a subscript reads one
    (about a third of `occ | 1 << i` on a 400-hex board)."""
    if len(_BITS) < n:
        _BITS.extend(1 << i for i in range(len(_BITS), n))
    return _BITS


def bit_list(mask: int) -> list[int]:
    """Indexes of the set bits, lowest first (found highest first: clearing the top bit costs
    fewer big-int operations than isolating the lowest with `mask & -mask`)."""
    out = []
    append = out.append
    while mask:
        i = mask.bit_length() - 1
        append(i)
        mask ^= 1 << i
    out.reverse()
    return out


def nth_bit(mask: int, k: int) -> int:
    """Index of the k-th set bit of `mask` (0: the lowest), which has more than k set bits. Bits
    are cleared one by one from the nearer end (most masks drawn from have a few bits; the first
    three from the bottom written out, as most draws are there); past 8 bits, whole 64-bit words
    are skipped by their bit counts from the nearer end, and the word holding the bit is cleared
    from its nearer end. The lowest set bit is found as `(m ^ (m - 1)).bit_length() - 1` and
    cleared as `m & (m - 1)`, and the loops count down with `while`: a negative int (`m & -m`) and
    a `range` each cost more (a fifth of the call, counted with callgrind)."""
    if k < 4:
        if k:
            mask &= mask - 1
            if k > 1:
                mask &= mask - 1
                if k > 2:
                    mask &= mask - 1
        return (mask ^ (mask - 1)).bit_length() - 1
    high = mask.bit_count() - 1 - k  # set bits above the one sought
    if high < k:  # from the top
        if high >= 8:
            top = (mask.bit_length() - 1) >> 6 << 6  # the first bit of the highest word
            word = mask >> top
            count = word.bit_count()
            while high >= count:
                high -= count
                top -= 64
                word = mask >> top & WORD
                count = word.bit_count()
            k = count - 1 - high  # set bits of the word below the one sought
            if k < high:
                while k:
                    word &= word - 1
                    k -= 1
                return top + (word ^ (word - 1)).bit_length() - 1
            mask = word
        else:
            top = 0
        while high:
            mask ^= 1 << (mask.bit_length() - 1)
            high -= 1
        return top + mask.bit_length() - 1
    skipped = 0
    if k >= 8:
        word = mask & WORD
        count = word.bit_count()
        while k >= count:
            k -= count
            mask >>= 64
            skipped += 64
            word = mask & WORD
            count = word.bit_count()
        high = count - 1 - k
        if high < k:
            while high:
                word ^= 1 << (word.bit_length() - 1)
                high -= 1
            return skipped + word.bit_length() - 1
        mask = word
    while k:
        mask &= mask - 1
        k -= 1
    return skipped + (mask ^ (mask - 1)).bit_length() - 1


WORD = (1 << 64) - 1


def extend_bits(out: list[int], base: int, mask: int) -> None:
    """Append base + i to `out` for each set bit i of `mask`, lowest first (codes of moves)."""
    append = out.append
    base -= 1
    while mask:
        rest = mask & (mask - 1)  # without the lowest bit: three int operations, no negative int
        append(base + (mask ^ rest).bit_length())
        mask = rest


def dilate(mask: int, nbr_mask: Sequence[int]) -> int:
    """Every hex next to a hex of `mask` (the mask itself not included unless adjacent): the
    definition; the engine calls its board's compiled form (`grower`, Tables.grow)."""
    out = 0
    while mask:
        rest = mask & (mask - 1)  # without the lowest bit (see extend_bits)
        out |= nbr_mask[(mask ^ rest).bit_length() - 1]
        mask = rest
    return out


def off_axis(steps: Sequence[Sequence[int]], nbr_mask: Sequence[int]) -> list[int]:
    """Per hex, its neighbours that lie in no direction (`steps[d][i]`: the neighbour of i in
    direction d, or -1): what masked shifts miss (none on a plain hex grid)."""
    along = [0] * len(nbr_mask)
    for step in steps:
        for i, j in enumerate(step):
            if j >= 0:
                along[i] |= 1 << j
    return [m ^ (m & a) for m, a in zip(nbr_mask, along, strict=True)]


def grower(steps: Sequence[Sequence[int]], nbr_mask: Sequence[int]) -> Callable[[int], int]:
    """`dilate(mask, nbr_mask)` as one function compiled once per board shape: a small mask hex by
    hex, a larger one as the masked shifts of its six directions (`steps[d][i]`: the neighbour of
    i in direction d, or -1), part by part (`by_parts`), plus, hex by hex, any neighbours that lie
    in no direction. A hex costs the loop about four big-int operations, a distinct offset of a
    direction the shifts about two and a half (timed on 400- and 435-hex boards), hence the size
    where they change (on the first part's offsets; a later part, of small ints, chooses alike for
    its own hexes of the mask)."""
    extra = off_axis(steps, nbr_mask)
    off = sum(1 << i for i, x in enumerate(extra) if x)  # hexes with a neighbour in no direction
    starts = parts(steps)

    def part_code(part: Sequence[Sequence[int]], m: str, to: str) -> list[str]:
        tables = [shift_table(step) for step in part]
        shifts = " | ".join(shift_text(m, t) for t in tables) or "0"
        if m == "m":  # the first part (by_parts names its mask m): a small mask was looped over whole
            return [f"{to} = {shifts}"]
        nbr = tuple(sum(1 << step[i] for step in part if step[i] >= 0) for i in range(len(part[0])))
        return [
            f"if {m}.bit_count() < {max(2, sum(len(t) for t in tables) * 3 // 5)}:",
            f"    {to} = 0",
            f"    while {m}:",
            f"        rest = {m} & ({m} - 1)",
            f"        {to} |= {nbr}[({m} ^ rest).bit_length() - 1]",
            f"        {m} = rest",
            "else:",
            f"    {to} = {shifts}",
        ]

    first = part_steps(steps, 0, [*starts, len(steps[0])][1])
    loop_below = max(2, sum(len(shift_table(step)) for step in first) * 3 // 5)
    shifts = by_parts(steps, starts, part_code)
    code = f"""
def grow(m):
    if m.bit_count() < {loop_below}:
        out = 0
        while m:
            rest = m & (m - 1)
            out |= nbr[(m ^ rest).bit_length() - 1]
            m = rest
        return out
{chr(10).join("    " + line for line in shifts)}
    x = m & {off}
    while x:
        rest = x & (x - 1)
        out |= extra[(x ^ rest).bit_length() - 1]
        x = rest
    return out
"""
    space: dict = {"nbr": nbr_mask, "extra": extra}
    exec(code, space)  # only ints: the board's own masks and offsets
    return space["grow"]


def parts(steps: Sequence[Sequence[int]]) -> list[int]:
    """The first hex of each of the shape's parts that no step joins (boards that touch none of
    the others), where each holds a range of hexes of its own (the index runs board by board);
    else [0], the whole."""
    size = len(steps[0])
    root = list(range(size))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = i = root[root[i]]
        return i

    for step in steps:
        for i, j in enumerate(step):
            if j >= 0:
                root[find(i)] = find(j)
    roots = [find(i) for i in range(size)]
    starts = [i for i in range(size) if not i or roots[i] != roots[i - 1]]
    return starts if len(starts) == len(set(roots)) else [0]


def part_steps(steps: Sequence[Sequence[int]], lo: int, hi: int) -> Sequence[Sequence[int]]:
    """The step lists of the part of hexes lo..hi - 1 (one of `parts`), counted from lo."""
    if not lo and hi == len(steps[0]):
        return steps
    return [[j - lo if j >= 0 else -1 for j in step[lo:hi]] for step in steps]


def by_parts(
    steps: Sequence[Sequence[int]],
    starts: list[int],
    code: Callable[[Sequence[Sequence[int]], str, str], list[str]],
    out: str = "out",
) -> list[str]:
    """Lines setting `out` to what code(part's steps, mask name, result name) sets its result to,
    on a shape whose parts start at `starts` (`parts`): the first part's code on `m` into `out`;
    each later one's on the mask's hexes of it moved down to its first hex (small ints), skipped
    where there are none, its result moved back up into `out`. (Where the parts are boards of
    other widths, no one offset moves a whole direction: each part's steps have few.)"""
    ends = [*starts[1:], len(steps[0])]
    lines = code(part_steps(steps, 0, ends[0]), "m", out)
    for lo, hi in zip(starts[1:], ends[1:], strict=True):
        body = code(part_steps(steps, lo, hi), "x", "o")
        down = f"m >> {lo}" if hi == len(steps[0]) else f"m >> {lo} & {(1 << (hi - lo)) - 1}"
        lines += [f"x = {down}", "if x:", *("    " + line for line in body), f"    {out} |= o << {lo}"]
    return lines


def components(mask: int, grow: Callable[[int], int]) -> list[int]:
    """Connected parts of `mask` (adjacency restricted to hexes of the mask; `grow`: the board's
    dilate, Tables.grow)."""
    out = []
    while mask:
        seed = mask & -mask
        comp = frontier = seed
        while frontier:
            grown = grow(frontier) & mask & ~comp
            comp |= grown
            frontier = grown
        out.append(comp)
        mask &= ~comp
    return out


def shift_table(step: Sequence[int]) -> Shift:
    """The Shift of a step list (step[i]: the neighbour of hex i in one direction, or -1)."""
    by: dict[int, int] = {}
    for i, j in enumerate(step):
        if j >= 0:
            by[j - i] = by.get(j - i, 0) | 1 << i
    return tuple(by.items())


def shift_text(var: str, moves: Shift) -> str:
    """The Python expression moving each hex of the mask named `var` by `moves` (hexes leaving the
    board drop): its few masked shifts, for code compiled once per board."""
    terms = [f"({var} & {sources}) << {o}" if o > 0 else f"({var} & {sources}) >> {-o}" for o, sources in moves]
    return " | ".join(terms) or "0"


def shifter(moves: Shift) -> Callable[[int], int]:
    """A function moving each hex of a mask one step in the direction of `moves`: one expression,
    compiled once per board and direction (a loop over the pairs costs more than the shifts)."""
    return eval(f"lambda m: {shift_text('m', moves)}")  # only ints: the board's own masks and offsets
