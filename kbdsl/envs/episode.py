"""One game played action by action: what the three environments share.

An `Episode` holds the engine state, the move being chosen (kbdsl.envs.actions.Choice), one
incremental Observer per seat, and the rewards at the end. The frameworks' wrappers only
translate their APIs to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kbdsl.envs.actions import ActionSpace, Choice
from kbdsl.envs.encoding import Encoding, Observer
from kbdsl.game import Game, State
from kbdsl.ruleset import RuleSet, load

REWARDS = ("margin", "win")


def rule_set(rules: str | RuleSet) -> RuleSet:
    return load(rules) if isinstance(rules, str) else rules


def returns_of(s: State, reward: str) -> list[float]:
    """Per seat at the end: its gold minus the best other seat's ("margin"), or +1 for a winner
    (shared wins too) and -1 for the others ("win")."""
    totals = [sheet["total"] for sheet in s.scores()]
    if reward == "win":
        best = max(totals)
        return [1.0 if t == best else -1.0 for t in totals]
    return [float(t - max(v for q, v in enumerate(totals) if q != p)) for p, t in enumerate(totals)]


class Episode:
    """A game of one rule set and player count, from `reset(seed)` to its end."""

    def __init__(self, rules: str | RuleSet = "base", players: int = 2, reward: str = "margin", **setup: Any):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.rules = rule_set(rules)
        lo, hi = self.rules.players
        if not lo <= players <= hi:
            raise ValueError(f"{self.rules.title} is for {lo} to {hi} players, not {players}")
        self.players, self.reward, self.setup = players, reward, setup
        self.enc = Encoding(self.rules, players)
        self.game: Game | None = None
        self.state: State | None = None
        self.space: ActionSpace | None = None
        self.choice: Choice | None = None
        self.observers: list[Observer | None] = []  # per seat, made when it first observes

    @property
    def num_actions(self) -> int:
        """The size of the action space (the same for every game of the rule set)."""
        return len(self.enc.kinds) * self.enc.grid.cells + 4

    def reset(self, seed: int) -> None:
        """A new game: its setup (sections, cards not given) and deck drawn from `seed`."""
        self.start(Game.new(self.rules, players=self.players, seed=seed, **self.setup).new_state())

    def start(self, state: State) -> None:
        """Play on from `state` (a new game's first state, or a determinisation)."""
        if self.game is not state.game:
            self.game = state.game
            self.space = ActionSpace(self.enc, self.game)
            self.observers = [None] * self.players
        self.state = state
        self._new_choice()

    def _new_choice(self) -> None:
        s = self.state
        self.choice = None if s.over else Choice.first(self.space, s)

    @property
    def current(self) -> int:
        return self.state.current

    @property
    def over(self) -> bool:
        return self.state.over

    def legal(self) -> list[int]:
        return self.choice.legal() if self.choice is not None else []

    def mask(self) -> np.ndarray:
        """The legal actions as an int8 array over the action space (a new array). (Keeping the
        array between steps and flipping only the bytes that changed, 15 of 4,004 a step on
        average in random base games, measured no cheaper than unpacking the bitset anew.)"""
        c = self.choice
        return self.space.array(c.mask) if c is not None else np.zeros(self.num_actions, np.int8)

    def step(self, action: int) -> int | None:
        """Take one action of the player to move: the engine code it completed (applied), or None
        while the move is still being chosen. ValueError for an illegal action."""
        c = self.choice
        if c is None:
            raise ValueError("the game is over")
        code = c.take(int(action))
        if code is not None:
            s = self.state
            s.apply_action(code)
            self.choice = None if s.over else Choice.first(self.space, s)  # (_new_choice, inline)
        return code

    def action_for(self, code: int) -> int:
        """The action of this stage that leads to engine move `code` (a bot's choice, or a move
        to imitate): taking it stage after stage plays the move."""
        return self.space.key(code, self.choice.stage)

    def play_code(self, code: int) -> None:
        """Apply a whole engine move (a bot's choice) for the player to move."""
        self.state.apply_action(code)
        self._new_choice()

    def observe(self, player: int) -> np.ndarray:
        """`player`'s observation now (a fresh array)."""
        c, obs = self.choice, self.observers[player]
        if obs is None:
            obs = self.observers[player] = self.enc.observer(self.game, player)
        return (obs.update(self.state) if c is None else obs.update(self.state, c.stage, c.kind, c.source)).copy()

    def returns(self) -> list[float]:
        """Per seat: its final gold minus the best other seat's ("margin"), or 1 for a winner
        (shared wins included) and -1 for the others ("win"); 0 before the end."""
        return returns_of(self.state, self.reward) if self.state.over else [0.0] * self.players

    def scores(self) -> list[Mapping[str, int]]:
        return self.state.scores()
