"""The greedy bot: one move deep, judged by the real scorers of the game's cards."""

from __future__ import annotations

from kbdsl.bots.base import Seat, SeatBot
from kbdsl.bots.playout import margins
from kbdsl.game import State


def ranked(state: State, actions: list[int], me: int) -> list[tuple[int, int]]:
    """(margin after the move, move) for each action: the final-score estimate a bot maximises is
    its gold if the game ended now (every card of the game and every always-on scoring, by the real scorers)
    minus the best opponent's, best first (ties in the given order)."""
    scored = []
    for code in actions:
        trial = state.clone()
        trial.apply_action(code)
        scored.append((margins(trial)[me], code))
    scored.sort(key=lambda x: -x[0])
    return scored


class GreedyBot(SeatBot):
    """Plays the move (mandatory build, tile action or end of turn) that leaves it the best
    margin, ties broken at random."""

    name = "greedy"

    def act(self, seat: Seat) -> int:
        actions = seat.legal_actions()
        if len(actions) == 1:
            return actions[0]
        scored = ranked(seat.public, actions, seat.player)
        best = scored[0][0]
        return self.rng.choice([code for value, code in scored if value == best])
