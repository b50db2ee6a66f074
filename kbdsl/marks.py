"""What front ends mark on a board: the current action's legal targets and the last turn's moves.

The terminal game, `kbdsl render` and web pages share these, so every front end highlights
the same hexes for the same position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbdsl.moves import END_TURN, Move

if TYPE_CHECKING:
    from kbdsl.engine.state import State


def legal_targets(state: State) -> list[str]:
    """The hexes of the action under way: the mandatory build's while it lasts, else every target."""
    moves = state.legal_moves()
    build = [m.to for m in moves if m.do == "build"]
    order = state.game.tables.index
    return build or sorted({m.to for m in moves if m.to is not None}, key=order.get)


def last_turn(state: State) -> list[Move]:
    """The moves of the turn under way, or of the turn that just ended if none was made yet."""
    log, split = state.log, state.game.split
    ends = [i for i, code in enumerate(log) if split(code)[0] == END_TURN]
    if ends and ends[-1] == len(log) - 1:  # the log ends a turn: show that turn
        start = ends[-2] + 1 if len(ends) > 1 else 0
        moves = log[start : ends[-1]]
    else:
        moves = log[ends[-1] + 1 :] if ends else log
    return [state.game.decode(code) for code in moves]


def last_turn_hexes(state: State) -> list[str]:
    """Every hex the last turn's moves built on, moved from or moved to."""
    seen: dict[str, None] = {}
    for m in last_turn(state):
        for h in (m.frm, m.to):
            if h is not None:
                seen[h] = None
    return list(seen)
