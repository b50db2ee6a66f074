"""Bots: players that choose moves by themselves. Each has `choose(state) -> action code`."""

from __future__ import annotations

import random
from typing import Protocol

from kbdsl.errors import KbdslError
from kbdsl.game import State


class Bot(Protocol):
    name: str

    def choose(self, state: State) -> int: ...


class RandomBot:
    """Picks uniformly among all legal moves (a baseline, and the fuzzer of the turn engine)."""

    name = "random"

    def __init__(self, seed: int | str = 0):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        actions = state.legal_actions()
        if not actions:
            raise KbdslError("the game is over: there is no move to choose")
        return self.rng.choice(actions)


class GreedyBot:
    """Plays each move that most improves its own score minus the best opponent's, one ply deep."""

    name = "greedy"

    def __init__(self, seed: int | str = 0):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        if state.over:
            raise KbdslError("the game is over: there is no move to choose")
        me = state.current
        best, best_value = [], None
        for code in state.legal_actions():
            trial = state.clone()
            trial.apply_action(code)
            totals = [s["total"] for s in trial.scores()]
            value = totals[me] - max((v for p, v in enumerate(totals) if p != me), default=0)
            if best_value is None or value > best_value:
                best, best_value = [code], value
            elif value == best_value:
                best.append(code)
        return self.rng.choice(best)


BOTS = {cls.name: cls for cls in (RandomBot, GreedyBot)}


def make_bot(name: str, seed: int | str = 0) -> Bot:
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (choose from {', '.join(BOTS)})") from None


def play_out(state: State, bots: list[Bot], max_moves: int = 100_000) -> State:
    """Let bots play `state` to the end (in place) and return it."""
    moves = 0
    while not state.over and moves < max_moves:
        state.apply_action(bots[state.current].choose(state))
        moves += 1
    return state
