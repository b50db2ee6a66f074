"""Random playouts, the inner loop of the search bots."""

from __future__ import annotations

import random

from kbdsl.game import State


def rollout(state: State, rng: random.Random, until_turn: int | None = None) -> State:
    """Play random legal moves (in place) to the end of the game, or until the turn counter
    reaches `until_turn` (a horizon: the position is then judged by the scorers)."""
    state.play_random([rng] * state.players, until_turn if until_turn is not None else 1 << 30)
    return state


def margins(state: State) -> list[int]:
    """Per player, its gold minus the best other player's (the value search bots back up)."""
    totals = [s["total"] for s in state.scores()]
    out = []
    for p, mine in enumerate(totals):
        out.append(mine - max((v for q, v in enumerate(totals) if q != p), default=0))
    return out


def worth(state: State, tile_gold: float = 0.0) -> list[float]:
    """Per player, the margin plus `tile_gold` for each location tile held more than the best
    other: the scorers give a held tile no gold, though it is worth about a settlement a turn."""
    out: list[float] = list(margins(state))
    if tile_gold:
        held = [len(ts) for ts in state.tiles]
        for p, n in enumerate(held):
            out[p] += tile_gold * (n - max((h for q, h in enumerate(held) if q != p), default=0))
    return out
