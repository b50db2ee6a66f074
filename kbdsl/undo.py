"""Taking back moves: which moves of the turn may be undone, and undoing the last one.

A player may take back their own moves of the current turn, last first, while nothing
hidden has come to light: a move after which a card was drawn from the deck stands, and
so does every move before it, and nothing of an earlier turn can be undone.

Undo replays the move log from the position it started at, one move short. The same
seed gives the same shuffles, so the replayed state is exactly the one before that move;
the state passed in is never changed, so undo is atomic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbdsl.errors import IllegalMove, SetupError
from kbdsl.moves import END_TURN, Move

if TYPE_CHECKING:
    from kbdsl.engine.state import State


def undoable(state: State, start: State | None = None) -> list[Move]:
    """The moves of the current turn that may be taken back, in the order they were played.

    `start` is the position the log begins at (default: the game's first position)."""
    first = _first_undoable(state, start)
    return [state.game.decode(code) for code in state.log[first:]]


def undo(state: State, start: State | None = None) -> State:
    """The state before the last move of the turn; IllegalMove if it may not be undone.

    The given state is left as it was (the caller swaps in the returned one)."""
    first = _first_undoable(state, start)
    if first >= len(state.log):
        raise IllegalMove("undo", _why_not(state))
    before = _origin(state, start)
    for code in state.log[len(before.log) : -1]:
        before.apply_action(code)
    return before


def _origin(state: State, start: State | None) -> State:
    base = start.clone() if start is not None else state.game.new_state()
    if base.game is not state.game or state.log[: len(base.log)] != base.log:
        raise SetupError("undo needs the position this game's moves were played from")
    return base


def _first_undoable(state: State, start: State | None) -> int:
    """Index in the log of the first move that may be undone (len(log) when none may).

    Replays the whole log once: the moves of this turn follow the last end of a turn, and
    a move that drew from the deck (or reshuffled it), or after which another player is to move,
    fixes itself and everything before."""
    s = _origin(state, start)
    first = len(s.log)
    if state.over:
        return len(state.log)
    split = state.game.split
    for i in range(len(s.log), len(state.log)):
        code = state.log[i]
        deck, who = (len(s.deck), s.reshuffles), s.current
        s.apply_action(code)
        # (a move that hands the move to another player, such as a reaction's, fixes itself too)
        if split(code)[0] == END_TURN or (len(s.deck), s.reshuffles) != deck or s.current != who:
            first = i + 1
    if s != state:
        raise SetupError("undo needs the position this game's moves were played from")
    return first


def _why_not(state: State) -> str:
    if state.over:
        return "the game is over"
    if not state.log or state.game.split(state.log[-1])[0] == END_TURN:
        return "you have made no move this turn"
    return "a card was drawn from the deck after that move, so it stands"
