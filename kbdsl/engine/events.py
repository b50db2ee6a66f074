"""What a move changed, as plain JSON events for front ends (animations, logs, narration).

Events are derived by comparing the state before and after a checked `State.play`, so the
hot path (`apply_action`, used by bots and simulations) pays nothing for them. They carry
only public information: a drawn card is announced, never named.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from kbdsl.bitset import bit_list

if TYPE_CHECKING:
    from kbdsl.engine.turn import Turn

Event = dict[str, Any]


def snapshot(state: Turn) -> tuple:
    """The facts events are computed from (cheap to take, compared by `changes`)."""
    return (
        list(state.own),
        dict(state.neutral),
        [dict(x) for x in state.gold],
        [Counter((x.kind, x.at) for x in ts) for ts in state.tiles],
        len(state.removed),
        state.reshuffles,
        state.ending,
        state.over,
        state.current,
        state.turn,
    )


def changes(before: tuple, state: Turn) -> list[Event]:
    """Events between `before` (a snapshot) and the state as it is now, in the order they happen."""
    own, neutral, gold, tiles, removed, reshuffles, ending, over, current, turn = before
    ids = state.game.tables.ids
    out: list[Event] = []
    for p, (old, new) in enumerate(zip(own, state.own, strict=True)):
        gone, came = old & ~new, new & ~old
        if gone and came:
            out.append({"event": "moved", "player": p, "from": ids[_index(gone)], "to": ids[_index(came)]})
        elif came:
            out.append({"event": "built", "player": p, "hex": ids[_index(came)]})
        elif gone:
            out.append({"event": "removed", "player": p, "hex": ids[_index(gone)]})
    for kind, m in state.neutral.items():
        for i in bit_list(m & ~neutral.get(kind, 0)):
            out.append({"event": "placed", "piece": kind, "hex": ids[i]})
    for p, (old, new) in enumerate(zip(gold, state.gold, strict=True)):
        for source, amount in new.items():
            if amount != old.get(source, 0):
                out.append({"event": "gold", "player": p, "source": source, "gold": amount - old.get(source, 0)})
    for p, (old, ts) in enumerate(zip(tiles, state.tiles, strict=True)):
        now = Counter((x.kind, x.at) for x in ts)
        for kind, at in (now - old).elements():
            out.append({"event": "tile_gained", "player": p, "tile": kind, "at": ids[at]})
        for kind, at in (old - now).elements():
            out.append({"event": "tile_lost", "player": p, "tile": kind, "at": ids[at]})
    if state.ending and not ending:
        out.append({"event": "end_triggered", "player": current})
    if state.turn != turn or state.over != over:
        out.append({"event": "turn_ended", "player": current})
    if state.reshuffles != reshuffles:
        out.append({"event": "deck_reshuffled"})
    for card in state.removed[removed:]:
        out.append({"event": "card_removed", "card": card, "player": state.current})
    if state.over and not over:
        out.append({"event": "game_over", "winners": state.winners()})
    elif state.turn != turn:
        out.append({"event": "turn_started", "player": state.current, "turn": state.turn})
    return out


def _index(mask: int) -> int:
    return mask.bit_length() - 1
