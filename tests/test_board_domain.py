"""Shortcuts over the board's own domains, checked against the general path on random boards of
every shipped rule set and random positions.

`min(count(X) over D) == 0` and `max(count(X) over D) >= k` (and the comparisons that say the same
or the opposite) over a domain of the board are found by looking for one item without a hex of X
(with k of them), and for min() of X = !S among the items whose top hex is in S
(kbdsl.expr.Compiler._some_item): the truth must be that of the same comparison written so that
every item is counted (`+ 0`), on random boards of every shipped rule set and random positions,
some of which cover an item. `N per board where C` is C's truth with the whole board as the
item (Compiler._per): the gold must be that of `sum(N over board where C)`."""

from __future__ import annotations

import random

from conftest import RULE_SETS, compile_expr, random_ctx, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.game import Game

DOMAINS = ["field", "side", "line", "sector", "board"]
FORMS = [
    "min(count(!own) over D) OP",
    "min(count(own) over D) OP",
    "min(count(!own & !TERRAIN) over D) OP",
    "max(count(own) over D) OP",
    "max(count(own & TERRAIN) over D) OP",
]
#: Comparisons with a number: those of the shortcut and some it leaves alone.
TESTS = ["== 0", "!= 0", "<= 0", "< 1", "> 0", ">= 1", ">= 3", "> 2", "< 3", "<= 2", ">= 0", "== 2", "< 0"]


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(RULE_SETS),
    st.integers(0, 10**6),
    st.sampled_from(DOMAINS),
    st.sampled_from(FORMS),
    st.sampled_from(TESTS),
)
def test_some_item_as_every_item_counted(name, seed, domain, form, test):
    rules = shipped(name)
    players = rules.players[0]
    t = Game.new(rules, players=players, seed=seed).tables
    rng = random.Random(seed)
    terrain = rng.choice(sorted(t.terrain))
    text = form.replace("D", domain).replace("OP", test).replace("TERRAIN", f"terrain({terrain})")
    fast = compile_expr(text, set(t.terrain))
    slow = compile_expr(text.replace(f") {test}", f") + 0 {test}"), set(t.terrain))
    items = {"field": t.fields, "side": t.sides, "line": t.lines, "sector": t.sectors, "board": [t.all]}[domain]
    for _ in range(4):
        c = random_ctx(t, rng, players, [0, 3, 20, 60], cover=items)  # an item covered now and then
        for p in range(players):
            c.p = p
            assert fast(c) == slow(c), (name, text, p)


WHERES = [
    "count(own & next-to(own, 6)) >= 1",
    "count(own & next-to(own, 2)) >= 3",
    "min(count(!own) over field) == 0",
    "max(count(own) over side) >= 3",
    "count(own) >= 10 & count(!own) > 5",
]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from(WHERES))
def test_per_board_as_a_sum_over_the_board(name, seed, where):
    rules = shipped(name)
    players = rules.players[0]
    t = Game.new(rules, players=players, seed=seed).tables
    rng = random.Random(seed)
    fast = compile_expr(f"7 per board where {where}", set(t.terrain))
    slow = compile_expr(f"sum(7 over board where {where})", set(t.terrain))
    for _ in range(4):
        c = random_ctx(t, rng, players, [0, 3, 20, 60, 150])
        for p in range(players):
            c.p = p
            assert fast(c) == slow(c), (name, where, p)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(RULE_SETS),
    st.integers(0, 10**6),
    st.sampled_from(["own", "special", "TERRAIN", "!own"]),
    st.integers(1, 6),
    st.booleans(),
)
def test_and_next_to_n_as_the_whole_neighbourhood(name, seed, a, n, turned):
    """`A & next-to(B, n)` (Compiler._and_touching, the shifts' intersection started at A for n = 6)
    must be `A & !!next-to(B, n)`, whose second side is found on the whole board."""
    rules = shipped(name)
    players = rules.players[0]
    t = Game.new(rules, players=players, seed=seed).tables
    rng = random.Random(seed)
    a = a.replace("TERRAIN", f"terrain({rng.choice(sorted(t.terrain))})")
    near = f"next-to(own, {n})"
    fast = compile_expr(f"count({near} & {a})" if turned else f"count({a} & {near})", set(t.terrain))
    slow = compile_expr(f"count({a} & !!{near})", set(t.terrain))
    for _ in range(4):
        c = random_ctx(t, rng, players, [0, 3, 60, 150, t.n])
        for p in range(players):
            c.p = p
            assert fast(c) == slow(c), (name, a, n, p)
