"""The ladder's bridge to another checkout's bots (tools/bot_bridge.py): exact, and budgeted in time."""

from __future__ import annotations

import sys
from pathlib import Path

from kbdsl.bots import GreedyBot, RandomBot, SeatBot
from kbdsl.game import Game

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.bot_bridge import BridgeBots, build, timed  # noqa: E402


def test_a_bridged_bot_plays_the_moves_it_plays_here(base_rules):
    """This checkout through the bridge (its own server, moves as JSON) and in this process: the
    same bot and seed choose the same move at every decision of a whole game."""
    game = Game.new(base_rules, players=2, seed=4)
    state = game.new_state()
    bridged = BridgeBots("base", 2, 4, {1: (str(ROOT), "ismcts/playouts=6", "s1")})
    here, other = build("ismcts/playouts=6", "s1"), GreedyBot(0)
    decisions = 0
    while not state.over:
        if state.current == 1:
            code, cpu = bridged.choose(1, state)
            assert code == here.choose(state) and cpu >= 0
            decisions += 1
        else:
            code = other.choose(state)
        bridged.played(state, code)
        state.apply_action(code)
    assert decisions > 20


class OldSearch(SeatBot):
    """A search whose loop reads `self._spent < self.playouts`, as the tree search's before issue 24."""

    def __init__(self, seed: int = 0, playouts: int = 1000):
        super().__init__(seed)
        self.playouts, self._spent, self.walks = playouts, 0, 0

    def act(self, seat):
        self._spent = 0
        while self._spent < self.playouts:
            self._spent += 1
        self.walks = self._spent
        return seat.legal_actions()[0]


def test_a_time_budget_stops_an_old_search_after_one_walk_at_least(base_rules):
    state = Game.new(base_rules, players=2, seed=4).new_state()
    while len(state.legal_actions()) < 2:
        state.apply_action(RandomBot(0).choose(state))
    bot = OldSearch()
    bot.choose(state)
    assert bot.walks == 1000
    timed(bot, 0.0)  # the deadline has passed at the first check: one walk, then none
    bot.choose(state)
    assert bot.walks == 1
    assert build("ismcts/ms=5", "s").ms == 5  # a bot with a time budget of its own keeps it


def test_the_ladder_seats_bot_a_once_in_every_seat_of_a_setup():
    """Games n*k to n*k+n-1 share a setup; A must sit in each of their n seats once, B in the rest."""
    from tools.ladder import seats

    for players in (2, 3, 4):
        for k in range(3):
            games = range(players * k, players * k + players)
            assert sorted(seats("A", "B", i, players)[0] for i in games) == list(range(players))
            for i in games:
                a_seat, specs = seats("A", "B", i, players)
                assert specs.count("A") == 1 and specs[a_seat] == "A"
