"""Flat Monte Carlo: try each promising move on many determinisations, keep the best on average."""

from __future__ import annotations

import random
import time

from kbdsl.bots.base import PLAYOUTS, Seat, SeatBot
from kbdsl.bots.greedy import ranked
from kbdsl.bots.playout import rollout, worth


class MonteCarloBot(SeatBot):
    """For each of the `width` moves the greedy ranking likes best, `playouts / width` samples:
    deal the unseen cards at random (a determinisation), play the move, play randomly for
    `horizon` more turns (None: to the end of the game), and score the margin with the real
    scorers, plus `tile_gold` per location tile held more than the best other (kbdsl.bots.playout.worth).
    Plays the move with the best mean. The budget is counted in playouts, not seconds, so a
    seed gives the same moves on any machine; `ms` instead gives each decision that many
    milliseconds of processor time (rounds of one deal for every move until it is spent: as
    many as the machine affords, so not reproducible)."""

    name = "montecarlo"

    def __init__(
        self,
        seed: int | str = 0,
        playouts: int = PLAYOUTS,
        width: int = 6,
        horizon: int | None = 2,
        tile_gold: float = 3.0,
        ms: float | None = None,
    ):
        super().__init__(seed)
        self.playouts, self.width, self.horizon, self.tile_gold, self.ms = playouts, width, horizon, tile_gold, ms

    def act(self, seat: Seat) -> int:
        actions = seat.legal_actions()
        if len(actions) == 1:
            return actions[0]
        deadline = time.process_time() + self.ms / 1000 if self.ms is not None else None
        self.rng.shuffle(actions)  # ties in the ranking are broken at random
        me = seat.player
        candidates = [code for _, code in ranked(seat.public, actions, me)[: self.width]]
        totals = [0.0] * len(candidates)
        runs = max(self.playouts // len(candidates), 1)
        until = seat.public.turn + self.horizon if self.horizon is not None else None
        # Common random numbers: every candidate meets the same deal and playout dice in a round,
        # so the comparison between moves is not drowned by the luck of the cards. One deal a
        # round, copied for each candidate, with the dice as they stood after dealing it.
        done = 0
        while done < runs if deadline is None else (not done or time.process_time() < deadline):
            rng = random.Random(self.rng.getrandbits(64))
            dealt = seat.sample(rng)
            dice = rng.getstate()
            for j, code in enumerate(candidates):
                state = dealt.clone() if j < len(candidates) - 1 else dealt
                rng.setstate(dice)
                state.apply_action(code)
                totals[j] += worth(rollout(state, rng, until), self.tile_gold)[me]
            done += 1
        best = max(range(len(candidates)), key=lambda j: totals[j])  # first wins ties: greedy's order
        return candidates[best]
