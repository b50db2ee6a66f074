"""The compiled neighbourhood of a hex set (Tables.grow, kbdsl.bitset.grower), the smaller side of
`A & next-to(B)` (kbdsl.expr._near), `next-to(A, n)`, the footprint pieces' targets (by masked
shifts) and walks from many sources (slides also counted by directions) against the per-hex
definitions, on random layouts of every shipped rule set and on a graph with a neighbour that
lies in no direction."""

from __future__ import annotations

import random
from types import SimpleNamespace

from conftest import RULE_SETS, random_position, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.bitset import bit_list, dilate, grower, shift_table, shifter
from kbdsl.engine.groups import WalkRun
from kbdsl.expr import (
    _near,
    _ray,
    _ray_counter,
    _ray_each,
    _slide,
    _slide_counter,
    _slide_each,
    _touching,
    _walk_each_code,
)
from kbdsl.game import Game


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from([0, 1, 3, 5, 8, 20, 120, 400]))
def test_grow_and_near_are_the_per_hex_definition(name, seed, size):
    rules = shipped(name)
    t = Game.new(rules, players=rules.players[0], seed=seed).tables
    rng = random.Random(seed)
    a, b = (sum(1 << i for i in rng.sample(range(t.n), min(k, t.n))) for k in (size, rng.choice([1, 4, 60])))
    assert t.grow(a) == dilate(a, t.nbr_mask)
    assert (
        _near(a, b, t)
        == a & dilate(b, t.nbr_mask)
        == sum(1 << i for i in range(t.n) if a >> i & 1 and t.nbr_mask[i] & b)
    )
    assert _near(b, a, t) == b & dilate(a, t.nbr_mask)
    for n in range(1, 7):  # next-to(a, n)
        assert _touching(a, n, t) == sum(1 << i for i in range(t.n) if (t.nbr_mask[i] & a).bit_count() >= n)
    for s in rng.sample(range(t.n), 3):  # next-to(own) with the piece on s lifted (Targets._lifted_targets)
        own = a | 1 << s
        lone = t.grow(own) ^ _touching(own, 2, t)
        assert t.grow(own) ^ (t.nbr_mask[s] & lone) == dilate(own ^ 1 << s, t.nbr_mask)


def test_grow_and_next_to_n_add_neighbours_that_lie_in_no_direction():
    # a row of 8 hexes (direction 0 to the right, 3 to the left) and an extra edge 0-7
    steps = [
        [i + 1 if i < 7 else -1 for i in range(8)],
        [-1] * 8,
        [-1] * 8,
        [i - 1 for i in range(8)],
        [-1] * 8,
        [-1] * 8,
    ]
    nbr = [sum(1 << j for j in (i - 1, i + 1) if 0 <= j < 8) for i in range(8)]
    nbr[0] |= 1 << 7
    nbr[7] |= 1 << 0
    grow = grower(steps, nbr)
    shifts = [shifter(shift_table(step)) for step in steps]
    t = SimpleNamespace(
        nbr_mask=nbr,
        grow=grow,
        shifts=shifts,
        steps=steps,
        cache={},
        shape_cache={},
        all=255,
        odd=sum(1 << i for i in (0, 7)),
    )
    for mask in range(256):
        assert grow(mask) == dilate(mask, nbr), bin(mask)
        for n in (1, 2, 3):
            assert _touching(mask, n, t) == sum(1 << i for i in range(8) if (nbr[i] & mask).bit_count() >= n)


def footprint_targets(state, kind: str, p: int, allowed: int, adjacent: bool, required: bool) -> int:
    """Kinds.kind_targets for a piece covering a hex and its neighbours, hex by hex."""
    t = state.game.tables
    out = near = 0
    for i in range(t.n):
        cover = state.cover(kind, i)
        if allowed >> i & 1 and cover and cover & allowed == cover:
            out |= 1 << i
            if dilate(cover, t.nbr_mask) & state.own[p] & ~cover:
                near |= 1 << i
    return near if required or (adjacent and near) else out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 120), st.booleans(), st.booleans())
def test_footprint_targets_are_the_per_hex_definition(seed, moves, adjacent, required):
    rules = shipped("crossroads")
    state, rng = random_position(rules, 2, seed, moves)
    t, p = state.game.tables, state.current
    for kind in state.game.footprints:
        for _ in range(5):
            allowed = rng.getrandbits(t.n) | rng.getrandbits(t.n) | rng.getrandbits(t.n)
            allowed ^= allowed & state.occ  # place_targets offers empty hexes only
            got = state.kind_targets(kind, p, allowed, adjacent, required)
            assert got == footprint_targets(state, kind, p, allowed, adjacent, required)


def _walk_by_definition(s: int, through: int, steps, slide: bool) -> int:
    """slide() or ray() from s, stepping through the step lists."""
    out = 0
    for step in steps:
        j, last = step[s], -1
        while j >= 0:
            if (through >> j) & 1 != slide:  # ray: the first of through; slide: the first not of it
                break
            last = j
            j = step[j]
        if slide and last >= 0:
            out |= 1 << last
        elif not slide and j >= 0:
            out |= 1 << j
    return out


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from([0.1, 0.5, 0.8, 0.95, 1.0]))
def test_walks_from_many_sources_are_the_walk_from_each(name, seed, density):
    # the compiled walks of slide() and ray() from a move's sources (kbdsl.expr._walk_each_code)
    rules = shipped(name)
    t = Game.new(rules, players=rules.players[0], seed=seed).tables
    rng = random.Random(seed)
    through = sum(1 << i for i in range(t.n) if rng.random() < density)
    sources = sum(1 << i for i in rng.sample(range(t.n), rng.choice([1, 5, 30, t.n])))
    free = rng.choice([t.all, sum(1 << i for i in range(t.n) if rng.random() < 0.7)])
    for slide, each, one in ((True, _slide_each, _slide), (False, _ray_each, _ray)):
        want = []
        for s in range(t.n):
            if (sources >> s) & 1:
                m = _walk_by_definition(s, through, t.steps, slide)
                assert one(s, through, t) == m
                if m & free:
                    want.append((1 << s, m & free))
        assert each(sources, through, t, free) == want, (name, slide)


def test_walks_from_many_sources_on_a_board_with_a_direction_going_both_ways():
    # hexes 0-5 in a row, direction 0 along it and 3 back, direction 1 a cycle's order 0 -> 4 -> 2
    steps = [[1, 2, 3, 4, 5, -1], [4, -1, -1, -1, 2, -1], [-1] * 6]
    steps += [[-1, 0, 1, 2, 3, 4], [-1, -1, 4, -1, 0, -1], [-1] * 6]
    nbr = [sum(1 << j for step in steps if (j := step[i]) >= 0) for i in range(6)]
    t = SimpleNamespace(steps=steps, nbr_mask=nbr, cache={}, shape_cache={})
    for slide, one in ((True, _slide), (False, _ray)):
        each = _walk_each_code(steps, slide)
        for through in range(64):
            for sources in range(64):
                want = [(1 << s, m) for s in range(6) if (sources >> s) & 1 and (m := one(s, through, t))]
                assert each(sources, through, t, 63) == want
                assert all(m == _walk_by_definition(s.bit_length() - 1, through, steps, slide) for s, m in want)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from([0.05, 0.1, 0.5, 0.8, 0.95]), st.booleans())
def test_slides_and_rays_from_many_sources_are_counted_and_drawn_by_directions(name, seed, density, slide):
    # a WalkRun (kbdsl.engine.groups) against the slide (ray) from each source by definition, in code order
    rules = shipped(name)
    t = Game.new(rules, players=rules.players[0], seed=seed).tables
    rng = random.Random(seed)
    sources = sum(1 << i for i in rng.sample(range(t.n), rng.choice([1, 5, 30])))
    through = sum(1 << i for i in range(t.n) if rng.random() < density) & ~sources  # (pieces are not empty)
    firsts, ends = (_slide_counter if slide else _ray_counter)(t)
    run = WalkRun(sources, *firsts(sources, through), ends, t.n)
    want = []
    for s in bit_list(sources):
        m = _walk_by_definition(s, through, t.steps, slide)
        assert run.targets(s) == m
        want += [s * t.n + j for j in bit_list(m)]
    assert run.size == len(want)
    assert [run.nth(k) for k in range(run.size)] == want
    some = sources & rng.getrandbits(t.n)  # the moves of some sources alone (WalkRun.part)
    part = run.part(some)
    got = [part.nth(k) for k in range(part.size)] if part is not None else []
    assert got == [code for code in want if (some >> (code // t.n)) & 1]


def test_slides_are_not_counted_by_directions_where_two_rays_from_a_hex_meet():
    # the board above: from hex 0, direction 0 and direction 1 both reach hex 2
    steps = [[1, 2, 3, 4, 5, -1], [4, -1, -1, -1, 2, -1], [-1] * 6]
    steps += [[-1, 0, 1, 2, 3, 4], [-1, -1, 4, -1, 0, -1], [-1] * 6]
    assert _slide_counter(SimpleNamespace(steps=steps, shape_cache={})) == ()
    assert _ray_counter(SimpleNamespace(steps=steps, shape_cache={})) == ()
