"""OpenSpiel's own ISMCTS as a kbdsl bot, so the ladder can measure kbdsl's bots against it.

    python tools/ladder.py --pair kbdsl.envs.openspiel_bots:OpenSpielIsmcts,ismcts

The search is OpenSpiel's information-set MCTS (`open_spiel.python.algorithms.ismcts`, single
observer, UCT, a fresh determinisation per simulation from `resample_from_infostate`) on the
`python_kbdsl` game; its leaves are valued by one random playout to the end of the game, played
by the engine (`State.play_random`), as OpenSpiel's RandomRolloutEvaluator would but without a
Python call per move. The budget is `simulations` a decision (kbdsl.bots.base.PLAYOUTS, kbdsl's ismcts's playouts). A
move that takes several actions of the environments' space is searched action by action. Like
every kbdsl bot it sees only its player's view (kbdsl.bots.base.Seat).

(OpenSpiel's C++ ISMCTSBot cannot search a game written in Python: open_spiel 2.0.2's Python
state trampoline does not forward ResampleFromInfostate, and `ISMCTSBot.step` releases the GIL
before calling back into Python; this module uses the Python port of the same algorithm.)
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from kbdsl.bots.base import PLAYOUTS, Seat, SeatBot
from kbdsl.envs.episode import returns_of
from kbdsl.envs.openspiel import KbdslGame, KbdslState


class PlayoutEvaluator:
    """OpenSpiel's evaluator interface: a leaf's value is one random playout to the end."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def evaluate(self, state: KbdslState) -> np.ndarray:
        pos = state._pos
        s = pos.state.clone()
        if pos.choice is not None and not s.over:
            s.apply_action(self.rng.choice(pos.choice.codes))  # finish the move being chosen
        s.play_random([random.Random(self.rng.getrandbits(63)) for _ in range(s.players)])
        return np.array(returns_of(s, state.get_game().reward))

    def prior(self, state: KbdslState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class OpenSpielIsmcts(SeatBot):
    name = "openspiel-ismcts"
    simulations = PLAYOUTS
    uct_c = 2.0

    _games: dict[tuple[str, int], KbdslGame] = {}  # (rule set, players) -> the OpenSpiel game

    def act(self, seat: Seat) -> int:
        key = (seat.game.rules.ref, seat.game.setup.players)
        if key not in self._games:
            self._games[key] = pyspiel.load_game("python_kbdsl", {"rules": key[0], "players": key[1]})
        game = self._games[key]
        state = KbdslState.at(game, seat.public.clone())
        bot = ismcts.ISMCTSBot(
            game,
            PlayoutEvaluator(self.rng.getrandbits(63)),
            self.uct_c,
            self.simulations,
            random_state=np.random.RandomState(self.rng.getrandbits(32)),
        )
        while True:
            code = state.step_code(bot.step(state))
            if code is not None:
                return code
