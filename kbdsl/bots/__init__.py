"""Bots: players that choose moves by themselves, from their own view of the game only.

`make_bot(name, seed)` gives a built-in bot (random, greedy, montecarlo, ismcts), a difficulty
level (easy, medium, hard) or a plug-in (`module:attribute`, see kbdsl.bots.registry). The engine
asks a bot `choose(state) -> action code`; built-in bots see only their player's Seat.
"""

from kbdsl.bots.base import Bot, Seat, SeatBot, play_out
from kbdsl.bots.greedy import GreedyBot
from kbdsl.bots.ismcts import IsmctsBot
from kbdsl.bots.montecarlo import MonteCarloBot
from kbdsl.bots.random_bot import RandomBot
from kbdsl.bots.registry import BOTS, LEVELS, bot_name, load_plugin, make_bot

__all__ = [
    "BOTS",
    "LEVELS",
    "Bot",
    "GreedyBot",
    "IsmctsBot",
    "MonteCarloBot",
    "RandomBot",
    "Seat",
    "SeatBot",
    "bot_name",
    "load_plugin",
    "make_bot",
    "play_out",
]
