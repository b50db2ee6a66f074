"""straight-run(S, n) and diagonal-run(S, n): kbdsl.expr._straight_run (hex by hex for a few
hexes, masked shifts from RUN_SHIFTS_FROM on) against walking each hex's steps, on random layouts
of every shipped rule set and masks sparse to dense (dense ones hold long runs)."""

from __future__ import annotations

import random

from conftest import RULE_SETS, shipped, walked_runs
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.expr import AXES, DIAGONALS, RUN_SHIFTS_FROM, _straight_run
from kbdsl.game import Game


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from([3, RUN_SHIFTS_FROM, 30, 150, 320]))
def test_straight_run_is_walking_each_hexs_steps(name, seed, size):
    rules, rng = shipped(name), random.Random(seed)
    options = {o: rng.random() < 0.5 for o in rules.options}
    t = Game.new(rules, players=rules.players[0], seed=seed, options=options).tables
    mask = sum(1 << i for i in rng.sample(range(t.n), min(size, t.n)))
    for n in range(1, 8):
        for axes in (AXES, DIAGONALS):
            assert _straight_run(mask, n, t, axes) == walked_runs(t, mask, n, axes), (n, axes, t.names(mask))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6))
def test_n_hexes_are_a_run_of_n_exactly_when_they_lie_in_line(name, seed):
    # n hexes of mask (a turn's builds, Families): looked up among the board's runs of n
    rules, rng = shipped(name), random.Random(seed)
    t = Game.new(rules, players=rules.players[0], seed=seed).tables
    for n in range(1, 6):
        d, run, j = rng.randrange(6), 0, rng.randrange(t.n)
        for _ in range(n):
            if j < 0:
                break
            run |= 1 << j
            j = t.steps[d][j]
        first = (run & -run).bit_length() - 1
        others = [k for k in range(t.n) if t.nbr_mask[first] >> k & 1 and not run >> k & 1]
        bent = run ^ (1 << first) | (1 << rng.choice(others)) if others else run  # its first hex moved aside
        for mask in (run, bent):
            for axes in (AXES, DIAGONALS):
                assert _straight_run(mask, n, t, axes) == walked_runs(t, mask, n, axes), (n, axes, t.names(mask))
