"""A sum of `count(next-to(X, n))` over a few one-hex items is each item's neighbours in X counted
once and read off a table (kbdsl.expr.Compiler._near_sum): its values must be those of the same
sum whose terms are written so that it takes the general path (each next-to(X, n) found on the
whole board and counted in each item, then added list by list), on random boards of every shipped
rule set and random positions. TERRAIN is a terrain of the board, one of few hexes where it has one."""

from __future__ import annotations

import random

from conftest import RULE_SETS, compile_expr, random_ctx, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.game import Game

#: Each sum's terms (X, n): a plain sum, and the same with `| own & !own` in each count, which
#: adds no hex but makes a term no longer a plain next-to(X, n).
TERMS = [
    [("own", n) for n in range(1, 7)],
    [("other", 2), ("other", 2), ("other", 5)],
    [("empty", 3), ("empty", 1)],
]
SUMS = [" + ".join(f"count(next-to({x}, {n}))" for x, n in terms) for terms in TERMS]
SLOW = [" + ".join(f"count(next-to({x}, {n}) | own & !own)" for x, n in terms) for terms in TERMS]
FORMS = [
    "rank(SUM over hex where count(terrain(TERRAIN)) == 1 & SUM >= 1 pays 5, 2)",
    "sum(SUM over settlement)",
    "max(SUM over hex where count(terrain(TERRAIN)) == 1)",
    "2 per settlement where SUM >= 2",
]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(RULE_SETS),
    st.integers(0, 10**6),
    st.sampled_from(range(len(SUMS))),
    st.sampled_from(range(len(FORMS))),
)
def test_a_sum_of_neighbour_counts_is_the_general_sum(name, seed, which, form):
    rules = shipped(name)
    players = rules.players[0]
    t = Game.new(rules, players=players, seed=seed).tables
    rng = random.Random(seed)
    few = sorted(x for x, m in t.terrain.items() if 0 < m.bit_count() <= 8)
    terrain = rng.choice(few or sorted(t.terrain))
    fast, slow = (
        compile_expr(FORMS[form].replace("SUM", f"({s})").replace("TERRAIN", terrain), set(t.terrain))
        for s in (SUMS[which], SLOW[which])
    )
    for _ in range(3):
        c = random_ctx(t, rng, players, [0, 3, 6, 20, 60])
        for p in range(players):
            c.p = p
            assert fast(c) == slow(c), (name, terrain, p)
