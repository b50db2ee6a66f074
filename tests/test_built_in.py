"""A card's trigger `k * count(built & next-to(B))` or `k * count(built & !next-to(B))` (either way
round) where `built` is one hex, as at each build, is one test of the hex's neighbours in B
(kbdsl.expr.Compiler._built_in); the gold must be that of the trigger counted as written, for one
hex built, several or none, on random boards of every shipped rule set and random positions."""

from __future__ import annotations

import random

from conftest import RULE_SETS, random_ctx, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.expr import Compiler, Vocabulary
from kbdsl.game import Game
from kbdsl.lang.parser import parse

TRIGGERS = [
    "count(built & next-to(other))",
    "2 * count(built & !next-to(empty & same-terrain(built)))",
    "count(next-to(own) & built) * 3",
    "count(!next-to(TERRAIN) & built)",
    "4 * count(built & next-to(occupied & !TERRAIN)) * 2",
]
#: Forms the shortcut leaves to the general path.
OTHERS = ["count(built & TERRAIN)", "count(built) + count(built & next-to(other))", "count(built & next-to(own, 2))"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from(TRIGGERS + OTHERS))
def test_one_hex_built_as_counted(name, seed, form):
    rules = shipped(name)
    players = rules.players[0]
    t = Game.new(rules, players=players, seed=seed).tables
    rng = random.Random(seed)
    text = form.replace("TERRAIN", f"terrain({rng.choice(sorted(t.terrain))})")
    (decl,) = parse(f"define x = {text}")
    comp = Compiler(Vocabulary(set(t.terrain), set(), set(), {}))
    fast = comp.trigger(decl.expr)
    comp._trigger = True  # the trigger counted as written
    general = comp.compile(decl.expr).fn
    assert not comp.diagnostics, comp.diagnostics
    assert (comp._built_in(decl.expr, general) is not None) == (form in TRIGGERS)
    for _ in range(3):
        c = random_ctx(t, rng, players, [0, 3, 20, 60])
        c.p = rng.randrange(players)
        for i in rng.sample(range(t.n), 30):
            c.built = 1 << i
            assert fast(c) == general(c), (name, text, i)
        for built in (0, sum(1 << i for i in rng.sample(range(t.n), rng.choice([2, 3, 10])))):
            c.built = built
            assert fast(c) == general(c), (name, text, built)
