"""Move-generation counts, as chess engines check their move generators ("perft").

`perft(state, depth)` counts the move sequences of the given length from a position
(the deck order is part of the state, so turn ends are deterministic too). A rule
author pins these numbers in a scenario (`expect: perft:`); a change in any rule
that alters what is legal changes them.
"""

from __future__ import annotations

from kbdsl.engine.state import State


def perft(state: State, depth: int) -> int:
    """Number of legal move sequences of length `depth` (a finished game ends a sequence early)."""
    if depth <= 0 or state.over:
        return 1
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for code in actions:
        child = state.clone()
        child.apply_action(code)
        total += perft(child, depth - 1)
    return total


def divide(state: State, depth: int) -> dict[str, int]:
    """perft split by first move (text notation), to find which move's subtree differs."""
    out = {}
    for code in state.legal_actions():
        child = state.clone()
        child.apply_action(code)
        out[str(state.game.decode(code))] = perft(child, depth - 1)
    return out
