"""A card's `on build` trigger where `built` is one hex: `k * count(built & next-to(B))` and
`k * count(built & !next-to(B))` (either way round) are one test of the hex's neighbours in B
(kbdsl.expr.Compiler._built_in); the gold must be that of the trigger compiled for any `built`,
for every hex built on, on random boards of every shipped rule set and random positions."""

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
#: Forms the shortcut leaves to the general path (the same gold either way).
OTHERS = ["count(built & TERRAIN)", "count(built) + count(built & next-to(other))", "count(built & next-to(own, 2))"]


def triggers(text: str, terrains: set[str]):
    """The trigger compiled for one hex built (`one_hex`) and for any `built`, and whether the first is a shortcut."""
    (decl,) = parse(f"define x = {text}")
    comp = Compiler(Vocabulary(terrains, set(), set(), {}))
    one, general = comp.trigger(decl.expr, one_hex=True), comp.trigger(decl.expr)
    assert not comp.diagnostics, comp.diagnostics
    return one, general, comp._built_in(decl.expr) is not None


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from(TRIGGERS + OTHERS))
def test_one_hex_trigger_as_any_built(name, seed, form):
    rules = shipped(name)
    players = rules.players[0]
    t = Game.new(rules, players=players, seed=seed).tables
    rng = random.Random(seed)
    text = form.replace("TERRAIN", f"terrain({rng.choice(sorted(t.terrain))})")
    one, general, shortcut = triggers(text, set(t.terrain))
    assert shortcut == (form in TRIGGERS)
    for _ in range(3):
        c = random_ctx(t, rng, players, [0, 3, 20, 60])
        c.p = rng.randrange(players)
        for i in rng.sample(range(t.n), 40):
            c.built = 1 << i
            assert one(c) == general(c), (name, text, i)
