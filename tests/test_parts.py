"""Code compiled per board shape for a shape of several parts that no step joins (boards of other
widths side by side, as the Island's beside the main board: kbdsl.bitset.parts, by_parts): grow,
next-to(S, n), straight runs and line ends against the per-hex definitions on random masks, dense
in one part and empty in another."""

from __future__ import annotations

import random
from types import SimpleNamespace

from conftest import walked_ends, walked_runs
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.bitset import dilate, grower, parts, shift_table, shifter
from kbdsl.board import DIRECTIONS
from kbdsl.expr import AXES, DIAGONALS, _line_end, _straight_run, _touching

#: Boards as (width, height), indexed one after the other, row by row (odd rows shifted right).
SHAPES = [[(9, 6)], [(10, 6), (7, 5)], [(8, 4), (5, 7), (3, 3)], [(4, 2), (11, 5)]]


def shape(boards: list[tuple[int, int]]) -> SimpleNamespace:
    """Tables of these boards, none touching another (what _touching, _straight_run and _line_end read)."""
    where = {}
    for b, (w, h) in enumerate(boards):
        for row in range(h):
            for col in range(w):
                where[(b, col - (row - (row & 1)) // 2, row)] = len(where)
    steps = [[-1] * len(where) for _ in DIRECTIONS]
    for (b, q, r), i in where.items():
        for d, (dq, dr) in enumerate(DIRECTIONS):
            steps[d][i] = where.get((b, q + dq, r + dr), -1)
    nbr = [sum(1 << step[i] for step in steps if step[i] >= 0) for i in range(len(where))]
    n = len(where)
    shifts = [shifter(shift_table(step)) for step in steps]
    return SimpleNamespace(
        n=n,
        steps=steps,
        nbr_mask=nbr,
        grow=grower(steps, nbr),
        shifts=shifts,
        cache={},
        shape_cache={},
        all=(1 << n) - 1,
        odd=0,
    )


TABLES = [shape(boards) for boards in SHAPES]


def test_parts_are_the_boards():
    assert [parts(t.steps) for t in TABLES] == [[0], [0, 60], [0, 32, 67], [0, 8]]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, len(SHAPES) - 1),
    st.integers(0, 10**6),
    st.lists(st.sampled_from([0, 0.05, 0.3, 0.7, 1]), min_size=3, max_size=3),
)
def test_code_per_part_is_the_per_hex_definition(which, seed, density):
    t, rng = TABLES[which], random.Random(seed)
    starts = [*parts(t.steps), t.n]
    mask = 0
    for k, (lo, hi) in enumerate(zip(starts, starts[1:], strict=False)):  # each part as dense as drawn
        mask |= sum(1 << i for i in range(lo, hi) if rng.random() < density[k % 3])
    assert t.grow(mask) == dilate(mask, t.nbr_mask)
    for n in range(2, 6):
        assert _touching(mask, n, t) == sum(1 << i for i in range(t.n) if (t.nbr_mask[i] & mask).bit_count() >= n)
    for n in range(2, 6):
        for axes in (AXES, DIAGONALS):
            assert _straight_run(mask, n, t, axes) == walked_runs(t, mask, n, axes), (n, axes)
    for n in range(1, 5):
        assert _line_end(mask, n, t) == walked_ends(t, mask, n), n
