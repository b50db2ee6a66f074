"""Bots by name: the built-in ones, difficulty levels for people, and plug-ins by dotted name.

A plug-in is named `package.module:attribute` (e.g. `--bots mypkg.mybot:Bot,greedy`). The
attribute is either
- a function from the player's view to a move: `f(seat) -> move`, or
- a class whose instances have such an `act(seat)` method (built with the seed if it takes one),
  or a class with the engine's own `choose(state) -> action code`.
`seat` is a kbdsl.bots.Seat: `seat.view` (the player's JSON view), `seat.legal_moves()`,
`seat.legal_actions()`, `seat.sample(rng)` (a determinisation); a move may be a Move, its JSON,
its text or an action code.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

from kbdsl.bots.base import Bot, Seat, SeatBot
from kbdsl.bots.greedy import GreedyBot
from kbdsl.bots.ismcts import IsmctsBot
from kbdsl.bots.montecarlo import MonteCarloBot
from kbdsl.bots.random_bot import RandomBot
from kbdsl.errors import KbdslError

Factory = Callable[[int | str], Bot]

#: Built-in bots and difficulty levels, by name (each takes a seed).
BOTS: dict[str, Factory] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "montecarlo": MonteCarloBot,
    "ismcts": IsmctsBot,
    "easy": GreedyBot,
    "medium": MonteCarloBot,
    "hard": IsmctsBot,
}
#: Levels for people, weakest first, as the ladder measured them (README: Strength).
LEVELS = {"easy": "greedy", "medium": "montecarlo", "hard": "ismcts"}


def make_bot(name: str, seed: int | str = 0) -> Bot:
    """A bot by built-in name, level or plug-in name (`module:attribute`); ValueError otherwise."""
    if name in BOTS:
        return BOTS[name](seed)
    if ":" in name:
        return load_plugin(name, seed)
    raise ValueError(f"unknown bot {name!r} (choose from {', '.join(BOTS)}, or name a plug-in as module:attribute)")


def bot_name(text: str) -> str:
    """The canonical name of a bot named on a command line (built-in names in any case), after
    checking that it exists (a plug-in is imported); ValueError names the problem."""
    if ":" in text:
        load_plugin(text)
        return text
    name = text.lower()
    if name not in BOTS:
        raise ValueError(f"unknown bot {text!r} (choose from {', '.join(BOTS)}, or name a plug-in as module:attribute)")
    return name


def load_plugin(spec: str, seed: int | str = 0) -> Bot:
    module, _, attr = spec.partition(":")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as e:
        raise ValueError(f"cannot load bot {spec!r}: {e}") from None
    if inspect.isclass(obj):
        takes_seed = len(inspect.signature(obj).parameters) > 0
        inst = obj(seed) if takes_seed else obj()
        if hasattr(inst, "choose") and not hasattr(inst, "act"):
            return inst
        obj = inst.act
    if not callable(obj):
        raise ValueError(f"cannot load bot {spec!r}: it is neither a class nor a function")
    return PluginBot(spec, obj, seed)


class PluginBot(SeatBot):
    """A plug-in function `f(seat) -> move` as a bot, asked at every decision (forced ones too)."""

    forced_too = True

    def __init__(self, name: str, fn: Callable[[Seat], object], seed: int | str = 0):
        super().__init__(seed)
        self.name, self.fn = name, fn

    def act(self, seat: Seat):
        move = self.fn(seat)
        try:
            code = seat.code(move)
        except (ValueError, KbdslError) as e:
            raise KbdslError(f"bot {self.name} chose {move!r}, which is not a move: {e}") from None
        if code not in seat.legal_actions():
            raise KbdslError(f"bot {self.name} chose {move!r}, which is not a legal move here")
        return code
