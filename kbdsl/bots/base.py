"""What every bot shares: the seat it plays from (its view of the game), the bot interface,
and playing a game out with bots.

A bot never reads hidden information: it is given a `Seat`, which holds the JSON view of its
player (other hands and the deck order hidden) and offers the legal moves and determinisations
(full states consistent with the view, hidden cards dealt at random: kbdsl.determinize).
"""

from __future__ import annotations

import random
from typing import Protocol

from kbdsl.determinize import determinize, redeal, unseen_cards
from kbdsl.errors import KbdslError
from kbdsl.game import Game, State
from kbdsl.moves import Move
from kbdsl.bots.random_bot import RandomBot


class Seat:
    """One player's view of a position, with the legal moves and determinisations of it."""

    def __init__(self, game: Game, view: dict):
        self.game = game.with_seed(0)  # the game without its seed, which would foretell the deck
        self.view = view
        self.player: int = view["viewer"]
        self._unseen = unseen_cards(self.game, view)
        # Legal moves depend only on what the player sees: any determinisation has the same ones.
        self.public = determinize(self.game, view, random.Random(0))

    @classmethod
    def of(cls, state: State) -> Seat:
        """The seat of the player to move in `state` (through its view only)."""
        return cls(state.game, state.view(state.current))

    def legal_actions(self) -> list[int]:
        return self.public.legal_actions()

    def legal_moves(self) -> list[Move]:
        return self.public.legal_moves()

    def sample(self, rng: random.Random) -> State:
        """A determinisation: the position with the unseen cards dealt at random."""
        state = self.public.clone()
        redeal(state, self.player, self._unseen, self.view["deck"], rng)
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


class Bot(Protocol):
    """What the engine asks of a bot: `choose(state)` returns the action code of its move for the
    player to move. Built-in bots derive from SeatBot, which only passes on that player's Seat."""

    name: str

    def choose(self, state: State) -> int: ...


class SeatBot:
    """Base of the built-in bots: `act(seat)` decides from the player's view alone."""

    name = "bot"

    def __init__(self, seed: int | str = 0):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        if state.over:
            raise KbdslError("the game is over: there is no move to choose")
        seat = Seat.of(state)
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
