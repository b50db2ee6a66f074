"""What every bot shares: the seat it plays from (its view of the game), the bot interface,
and playing a game out with bots.

A bot never reads hidden information: it is given a `Seat`, which holds one determinisation of
its player's position (other hands, deck order and seed dealt anew from the unseen cards) and
offers the legal moves, more determinisations (kbdsl.determinize) and the JSON view.
"""

from __future__ import annotations

import random
from typing import Protocol

from kbdsl.caches import ByOwner
from kbdsl.determinize import redeal, unseen_in
from kbdsl.errors import KbdslError
from kbdsl.game import Game, State
from kbdsl.moves import Move
from kbdsl.bots.random_bot import RandomBot


class Seat:
    """One player's view of a position, with the legal moves and determinisations of it.

    `public` is one determinisation (the unseen cards dealt by a fixed seed): what bots search
    from, as legal moves depend only on what the player sees. `view`, the JSON view, is built
    only when asked for (plug-ins read it; the built-in bots never do)."""

    def __init__(self, game: Game, player: int, public: State, unseen: list[str], actions: list[int] | None = None):
        self.game, self.player, self.public, self._unseen = game, player, public, unseen
        self._actions = actions
        self._view: dict | None = None

    @classmethod
    def of(cls, state: State, actions: list[int] | None = None) -> Seat:
        """The seat of the player to move in `state` (`actions`: its legal moves, if known). No
        JSON: a copy of the state whose every hidden thing (other hands, deck order, seed, future
        reshuffles) is dealt anew from the cards the player has not seen, exactly as
        `determinize(view)` deals them, for a fraction of the cost."""
        game, player = _seedless(state.game), state.current
        unseen = unseen_in(state, player)
        public = state.clone()
        public.game = game  # the game without its seed, which would foretell the deck
        redeal(public, player, unseen, len(state.deck), random.Random(0))
        return cls(game, player, public, unseen, actions)

    @property
    def view(self) -> dict:
        """The player's JSON view (docs/protocol.md): the same as the real state's."""
        if self._view is None:
            self._view = self.public.view(self.player)
        return self._view

    def legal_actions(self) -> list[int]:
        if self._actions is None:
            self._actions = self.public.legal_actions()
        return list(self._actions)

    def legal_moves(self) -> list[Move]:
        return self.public.legal_moves()

    def sample(self, rng: random.Random) -> State:
        """A determinisation: the position with the unseen cards dealt at random."""
        state = self.public.clone()
        redeal(state, self.player, self._unseen, len(self.public.deck), rng)  # no JSON view
        return state

    def code(self, move: Move | dict | str | int) -> int:
        """The action code of a move given as a code, a Move, its JSON or its text."""
        if isinstance(move, int):
            return move
        if isinstance(move, dict):
            move = Move.from_json(move)
        elif isinstance(move, str):
            move = Move.parse(move)
        return self.game.to_code(move)


_SEEDLESS: ByOwner[Game] = ByOwner()  # (games come and go: simulations play thousands)


def _seedless(game: Game) -> Game:
    """`game.with_seed(0)`, made once per game (a bot decides many times in one game)."""
    return _SEEDLESS.get(game) or _SEEDLESS.put(game, (), game.with_seed(0))


class Bot(Protocol):
    """What the engine asks of a bot: `choose(state)` returns the action code of its move for the
    player to move. Built-in bots derive from SeatBot, which only passes on that player's Seat."""

    name: str

    def choose(self, state: State) -> int: ...


#: The search bots' budget a decision (montecarlo, ismcts, and the ladder's OpenSpiel ISMCTS): scorer
#: calls for kbdsl's, simulations for OpenSpiel's.
PLAYOUTS = 200


class SeatBot:
    """Base of the built-in bots: `act(seat)` decides from the player's view alone."""

    name = "bot"
    forced_too = False  # whether act() is asked when only one move is legal (plug-ins are)

    def __init__(self, seed: int | str = 0):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        if state.over:
            raise KbdslError("the game is over: there is no move to choose")
        actions = state.legal_actions()  # the same as the player's seat would give
        if len(actions) == 1 and not self.forced_too:  # a forced move needs no seat, a built-in bot no thought
            return actions[0]
        seat = Seat.of(state, actions)
        return seat.code(self.act(seat))

    def act(self, seat: Seat) -> int | Move:
        raise NotImplementedError


def play_out(state: State, bots: list[Bot], max_moves: int = 100_000) -> State:
    """Let bots play `state` to the end (in place) and return it."""
    if all(type(bot) is RandomBot for bot in bots):  # their moves depend on their streams alone
        state.play_random([bot.rng for bot in bots], max_moves=max_moves)
        return state
    moves = 0
    while not state.over and moves < max_moves:
        state.apply_action(bots[state.current].choose(state))
        moves += 1
    return state
