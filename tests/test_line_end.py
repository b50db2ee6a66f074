"""line-end(S, n): the compiled whole-mask function (kbdsl.expr._line_end) against each hex walking
its own steps, on random layouts of every shipped rule set, and compiled once per board shape."""

from __future__ import annotations

import random

from conftest import RULE_SETS, shipped, walked_ends
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.board import assemble
from kbdsl.expr import _line_end, later_parts
from kbdsl.game import Game
from kbdsl.position import Board, Layout
from kbdsl.tables import Tables


def random_tables(name: str, seed: int) -> Tables:
    rules = shipped(name)
    rng = random.Random(seed)
    options = {o: rng.random() < 0.5 for o in rules.options}
    return Game.new(rules, players=rules.players[0], seed=seed, options=options).tables


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 10**6), st.sampled_from([5, 30, 120, 300]))
def test_line_end_is_walking_each_hexs_steps(name, seed, size):
    t = random_tables(name, seed)
    mask = sum(1 << i for i in random.Random(seed).sample(range(t.n), min(size, t.n)))
    for n in (1, 2, 3, 4):
        assert _line_end(mask, n, t) == walked_ends(t, mask, n), (n, t.names(mask))


def test_line_end_is_compiled_once_per_board_shape(base_rules):
    """Boards of one shape share their step lists, so a new layout compiles nothing again; tables
    with steps of their own (compiled from the assembled graph) get their own function."""
    opts = base_rules.option_defaults()
    a = Board(base_rules, Layout.of(base_rules, ["oracle", "paddock", "harbor", "farm"]), opts).tables
    b = Board(base_rules, Layout.of(base_rules, ["tavern", "tower", "barn", "oasis"]), opts).tables
    own = Tables.from_graph(
        assemble(base_rules, Layout.of(base_rules, ["tavern", "tower", "barn", "oasis"]).as_dict(), opts)
    )
    assert a.steps is b.steps and own.steps is not a.steps
    rng = random.Random(3)
    for _ in range(10):
        mask = sum(1 << i for i in rng.sample(range(a.n), 60))
        assert _line_end(mask, 3, a) == _line_end(mask, 3, b) == _line_end(mask, 3, own) == walked_ends(a, mask, 3)
    assert a.shape_cache[("line-end", 3)] is b.shape_cache[("line-end", 3)]
    assert own.shape_cache[("line-end", 3)] is not a.shape_cache[("line-end", 3)]


def test_a_detached_board_is_a_later_part_of_its_own():
    """A board no step joins to the main one starts a part (kbdsl.expr.later_parts), whose
    line-end code is its own; one board of regular rows is one part."""
    t = random_tables("island", 1)
    split = later_parts(t)
    assert split and t.ids[split].startswith("island:") and not t.ids[split - 1].startswith("island:")
    assert later_parts(random_tables("base", 1)) == 0
