"""A build or place target `A & next-to(own)` whose A reads at most the card is found as A, once
per board and card, & the neighbourhood the engine keeps (CompiledAction.near_own,
Targets.near_own_part): it must be the whole target evaluated in a context, for every such
action of every shipped rule set, in random positions of random games."""

from __future__ import annotations

import dataclasses

from conftest import RULE_SETS, random_position, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.bitset import bit_list


def test_the_shipped_rules_have_such_targets():
    found = {name for name, a in shipped("combined").actions.items() if a.near_own is not None}
    assert found


def has_near_own(name: str) -> bool:
    """Whether the rule set has such a target (6 of the 16 rule sets): the others would check nothing."""
    return any(a.near_own is not None for a in shipped(name).actions.values())


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE_SETS).filter(has_near_own), st.integers(0, 10**6), st.integers(0, 300))
def test_near_own_part_and_the_neighbourhood_are_the_target(name, seed, moves):
    rules = shipped(name)
    actions = [a for a in rules.actions.values() if a.near_own is not None]
    assert actions
    players = rules.players[0]
    state, _ = random_position(rules, players, seed, moves)
    for a in actions:
        for p in range(players):
            want = a.target(state.ctx(p)) & state.game.tables.all
            assert state.near_own_part(a, p) & state.nb[p] == want, (name, p)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["harvest", "combined"]), st.integers(0, 10**6), st.integers(0, 300))
def test_lifted_moves_onto_near_own_are_those_of_the_whole_target(name, seed, moves):
    """The moves of a move onto `A & next-to(own)` (Harvest's silo moves) are found per source as
    A's free hexes next to the other pieces; they must be those of the target evaluated with
    each piece lifted (the same action without near_own)."""
    rules = shipped(name)
    actions = [a for a in rules.actions.values() if a.near_own is not None and a.kind == "move"]
    assert actions
    players = rules.players[0]
    state, _ = random_position(rules, players, seed, moves)
    for a in actions:
        slow = dataclasses.replace(a, near_own=None)
        for p in range(players):
            sources = state.move_sources(a, p)
            fast, want = (state._lifted_targets(x, p, sources) for x in (a, slow))
            assert [(1 << s, m) for b, m in fast for s in bit_list(b)] == want, (name, p)  # (fast: blocks of sources)
