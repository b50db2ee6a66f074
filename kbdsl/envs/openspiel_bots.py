"""OpenSpiel's own ISMCTS (and MCTS) as kbdsl bots, so the ladder can measure kbdsl's bots against them.

    python tools/ladder.py --pair kbdsl.envs.openspiel_bots:OpenSpielIsmcts,ismcts

The search is OpenSpiel's information-set MCTS (`open_spiel.python.algorithms.ismcts`, single
observer, UCT, a fresh determinisation per simulation from `resample_from_infostate`) on the
`python_kbdsl` game, resampling from a seeded generator (kbdsl.envs.openspiel.seeded_resampler)
so that a search repeats itself; its leaves are valued by one random playout to the end of the game, played
by the engine (`State.play_random`), as OpenSpiel's RandomRolloutEvaluator would but without a
Python call per move. The budget is `simulations` a decision (kbdsl.bots.base.PLAYOUTS, kbdsl's ismcts's playouts). A
move that takes several actions of the environments' space is searched action by action. Like
every kbdsl bot it sees only its player's view (kbdsl.bots.base.Seat).

`OpenSpielMcts` is OpenSpiel's (perfect-information) MCTS, `open_spiel.python.algorithms.mcts`,
run on one determinisation of the player's view per decision, so it never sees a hidden card.

(OpenSpiel's C++ ISMCTSBot cannot search a game written in Python: the Python state trampoline
`PyState` (open_spiel/python/pybind11/python_games.h, 1.6.1 to 2.0.2) does not forward
`ResampleFromInfostate`, so every search stops with "ResampleFromInfostate() not implemented.",
and in 2.0.2 `ISMCTSBot.step` also releases the GIL, so the first call back into Python (the
information-state string) crashes the process; this module uses the Python port of the same
algorithm. docs/envs.md has the details.)
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kbdsl.bots.base import PLAYOUTS, Seat, SeatBot
from kbdsl.envs.episode import returns_of
from kbdsl.envs.openspiel import KbdslGame, KbdslState, seeded_resampler


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


_GAMES: dict[tuple[str, int], KbdslGame] = {}  # (rule set, players) -> the OpenSpiel game


def _game_of(seat: Seat) -> KbdslGame:
    key = (seat.game.rules.ref, seat.game.setup.players)
    if key not in _GAMES:
        _GAMES[key] = pyspiel.load_game("python_kbdsl", {"rules": key[0], "players": key[1]})
    return _GAMES[key]


def _search(state: KbdslState, bot) -> int:
    """The engine move an OpenSpiel bot chooses from `state`, searched action by action."""
    while True:
        code = state.step_code(bot.step(state))
        if code is not None:
            return code


class OpenSpielIsmcts(SeatBot):
    name = "openspiel-ismcts"
    simulations = PLAYOUTS
    uct_c = 2.0

    def act(self, seat: Seat) -> int:
        game = _game_of(seat)
        state = KbdslState.at(game, seat.public.clone())
        bot = ismcts.ISMCTSBot(
            game,
            PlayoutEvaluator(self.rng.getrandbits(63)),
            self.uct_c,
            self.simulations,
            random_state=np.random.RandomState(self.rng.getrandbits(32)),
        )
        bot.set_resampler(seeded_resampler(self.rng.getrandbits(63)))  # (its own is seeded by the clock)
        return _search(state, bot)


class OpenSpielMcts(SeatBot):
    """OpenSpiel's MCTS (UCT, leaves valued by one engine playout) on a determinisation of the
    player's view drawn anew each decision: the search sees the cards it was dealt, never the
    real hidden ones."""

    name = "openspiel-mcts"
    simulations = PLAYOUTS
    uct_c = 2.0

    def act(self, seat: Seat) -> int:
        game = _game_of(seat)
        state = KbdslState.at(game, seat.sample(self.rng))
        bot = mcts.MCTSBot(
            game,
            self.uct_c,
            self.simulations,
            PlayoutEvaluator(self.rng.getrandbits(63)),
            solve=False,
            random_state=np.random.RandomState(self.rng.getrandbits(32)),
        )
        return _search(state, bot)
