"""An aggregate's items that a conjunct of its `where` rules out on the board alone are left out
once per board (kbdsl.expr.Compiler._board_kept): the values must be those of the same aggregate
whose conjunct is written so that it reads the pieces (and so is evaluated item by item, for
every player), on random boards of every shipped rule set and random positions."""

from __future__ import annotations

import random

from conftest import RULE_SETS, compile_expr, random_ctx, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.game import Game


#: (aggregate with a board-only conjunct, the same whose conjunct also reads the pieces); TERRAIN
#: is replaced by a terrain of the rule set. `count(own) < 0` never holds: the second form has the
#: same meaning, but the conjunct reads the pieces and is not kept per board.
PAIRS = [
    (
        "rank(count(next-to(own)) over hex where count(terrain(TERRAIN)) == 1 & count(next-to(own)) >= 1 pays 5, 2)",
        "rank(count(next-to(own)) over hex where (count(terrain(TERRAIN)) == 1 | count(own) < 0)"
        " & count(next-to(own)) >= 1 pays 5, 2)",
    ),
    (
        "sum(count(own) over line where count(terrain(TERRAIN)) >= 2)",
        "sum(count(own) over line where count(terrain(TERRAIN)) >= 2 | count(own) < 0)",
    ),
    (
        "max(count(own) over sector where count(own) >= 1 & count(terrain(TERRAIN)) >= 3)",
        "max(count(own) over sector where count(own) >= 1 & (count(terrain(TERRAIN)) >= 3 | count(own) < 0))",
    ),
    (
        "sum(1 over hex where terrain(TERRAIN) & own & count(terrain(TERRAIN)) == 1)",
        "sum(1 over hex where terrain(TERRAIN) & own & (count(terrain(TERRAIN)) == 1 | count(own) < 0))",
    ),
    (
        "sum(count(next-to(own)) over hex where count(terrain(TERRAIN)) < 1 & count(own) == 0 & count(edge) != 0)",
        "sum(count(next-to(own)) over hex where (count(terrain(TERRAIN)) < 1 | count(own) < 0) & count(own) == 0"
        " & (count(edge) != 0 | count(own) < 0))",
    ),
]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from(range(len(PAIRS))))
def test_items_kept_per_board_give_the_values_of_all_items(name, seed, which):
    rules = shipped(name)
    players = rules.players[0]
    t = Game.new(rules, players=players, seed=seed).tables
    rng = random.Random(seed)
    terrain = rng.choice(sorted(t.terrain))
    fast, slow = (compile_expr(x.replace("TERRAIN", terrain), set(t.terrain)) for x in PAIRS[which])
    for _ in range(3):
        c = random_ctx(t, rng, players, [0, 3, 20, 60])
        for p in range(players):
            c.p = p
            assert fast(c) == slow(c), (name, terrain, p)
