"""The targets of a move that reads the pieces (Targets._lifted_targets, with slide() and ray() of a
hex set found once a move, kbdsl.expr._once_a_move) against their definition: from each source,
the action's target evaluated in a fresh context with that piece lifted (RULINGS 12), on positions
of random games of every shipped rule set with such a move."""

from __future__ import annotations

import random

from conftest import RULE_SETS, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.bitset import bit_list
from kbdsl.bots import RandomBot
from kbdsl.game import Game


def _moves(rules) -> list:
    """The rule set's move actions whose target reads the pieces (no adjacency rule, no piece named)."""
    return [
        a
        for a in rules.actions.values()
        if a.kind == "move" and not a.reads <= {"card", "origin"} and not a.adjacent and not a.piece
    ]


WITH_MOVES = [name for name in RULE_SETS if _moves(shipped(name))]


def _by_definition(state, action, p: int) -> list[tuple[int, int]]:
    """move_targets written out for a target that reads the pieces (no aura, no adjacency rule)."""
    t = state.game.tables
    out = []
    for s in bit_list(state.move_sources(action, p)):
        owns = list(state.own)
        owns[p] ^= 1 << s
        occ = state.occ ^ (1 << s)
        c = state.ctx(p, owns, occ, s)
        if state.blocked:
            blocked = state.blocked_without(p, s)
            c.occ |= blocked
            occ |= blocked
        cand = action.target(c) & t.all & ~occ & ~(1 << s)
        if cand:
            out.append((s, cand))
    return out


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(WITH_MOVES), st.integers(0, 10**6))
def test_lifted_targets_are_the_target_from_each_source_with_its_piece_lifted(name, seed):
    rules = shipped(name)
    moves = _moves(rules)
    rng = random.Random(seed)
    players = rng.choice(range(rules.players[0], rules.players[1] + 1))
    game = Game.new(rules, players=players, seed=seed)
    state = game.new_state()
    bots = [RandomBot(f"{seed}:{p}") for p in range(players)]
    checked = 0
    while not state.over and len(state.log) < 400:
        if len(state.log) % 3 == 0 and not game.may_stay:
            for action in moves:
                for p in range(players):
                    if state.choosing:
                        continue
                    assert state.move_targets(action, p) == _by_definition(state, action, p), (name, len(state.log))
                    checked += 1
        state.apply_action(bots[state.current].choose(state))
    assert checked or game.may_stay
