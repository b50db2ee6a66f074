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


def scoring_key(state: State) -> tuple:
    """What the scorers and worth() read of a position (the pieces, the tiles held, the gold won
    during play; the rest is the game's): equal keys, equal worth, whatever the hidden cards."""
    return (
        tuple(state.own),
        state.occ,
        tuple(tuple((x.kind, x.at, x.used, x.new) for x in ts) for ts in state.tiles),
        tuple(tuple(sorted(g.items())) for g in state.gold),
    )


class Judge:
    """worth() of the positions of one decision, each scored once if `once` (`calls` counts the
    scorings): a search meets the same position again and again, after the moves of a turn in
    another order or another deal of the same cards."""

    def __init__(self, tile_gold: float = 0.0, once: bool = True):
        self.tile_gold, self.once, self.calls = tile_gold, once, 0
        self.known: dict[tuple, list[float]] = {}

    def __call__(self, state: State) -> list[float]:
        self.calls += 1
        if not self.once:
            return worth(state, self.tile_gold)
        key = scoring_key(state)
        value = self.known.get(key)
        if value is None:
            value = self.known[key] = worth(state, self.tile_gold)
        else:
            self.calls -= 1
        return value
