"""An OpenSpiel game of any rule set: importing this module registers `python_kbdsl`.

    game = pyspiel.load_game("python_kbdsl", {"rules": "base", "players": 3})

Parameters: `rules` (a shipped rule set's name or a folder), `players`, `options` (rule options
as `name=true,other=false`), `reward` ("win": +1 for a winner, -1 for the others; "margin": the
final gold margin) and `setups` (how many set-ups the first chance node chooses among).

Chance nodes: the first chooses the set-up (sections, cards, the first hands and the order the
deck is shuffled in, all from one kbdsl seed); then, before any player acts while the top card
of the deck is not yet fixed, a chance node fixes it (its outcome is the card's terrain, with
the probability of the cards of that terrain left in the deck), so every card drawn at the end
of a turn is a chance outcome. Cards a single move draws beyond the top one (a card replaced
under RULINGS 8, a reshuffled deck's first card) come from the set-up's seed.

Players act with the environments' action space (kbdsl.envs.actions). Observations are the
kbdsl.envs.encoding vector; information states add the player's card history. Strings hold
what the player's view holds (everything public and its own cards), information-state strings
also the whole move log and the player's card history, so they have perfect recall.
`resample_from_infostate` deals the unseen cards at random (kbdsl.determinize), for ISMCTS and
other determinising search; `seeded_resampler` makes OpenSpiel's Python ISMCTS repeatable.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from kbdsl.determinize import determinize
from kbdsl.envs.actions import ActionSpace, Choice
from kbdsl.envs.encoding import Encoding
from kbdsl.envs.episode import REWARDS, returns_of, rule_set
from kbdsl.game import Game, State

SHORT_NAME = "python_kbdsl"
DEFAULTS = {"rules": "base", "players": 2, "options": "", "reward": "win", "setups": 1000}

_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Kingdom Builder (kbdsl)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def parse_options(text: str) -> dict[str, bool]:
    """`name=true,other=false` (or a bare `name`, meaning true) as a dict."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if value.lower() not in ("", "true", "false", "1", "0", "on", "off"):
            raise ValueError(f"option {name!r}: {value!r} is not true or false")
        out[name.strip()] = value.lower() in ("", "true", "1", "on")
    return out


class KbdslGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None):
        p = DEFAULTS | dict(params or {})
        rules = rule_set(p["rules"])
        players = int(p["players"])
        lo, hi = rules.players
        if not lo <= players <= hi:
            raise ValueError(f"{rules.title} is for {lo} to {hi} players, not {players}")
        if p["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}")
        self.rules, self.reward, self.setups = rules, p["reward"], int(p["setups"])
        self.options = parse_options(p["options"])
        self.enc = Encoding(rules, players)
        self.deck = list(rules.deck)
        num_actions = len(self.enc.kinds) * self.enc.grid.cells + 4
        bound = 1.0 if self.reward == "win" else 500.0
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions,
            max_chance_outcomes=max(self.setups, len(self.deck)),
            num_players=players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=None,
            max_game_length=20 * players * rules.settlements + 1000,
        )
        super().__init__(_TYPE, info, p)
        self._observers: dict[tuple[int, int], Any] = {}  # (id of a kbdsl game, player) -> Observer
        self._spaces: dict[int, ActionSpace] = {}
        self._games: dict[int, Game] = {}

    def new_initial_state(self) -> KbdslState:
        return KbdslState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> KbdslObserver:
        perfect = iig_obs_type is not None and iig_obs_type.perfect_recall
        return KbdslObserver(self, perfect)

    # caches shared by the states of this game (a kbdsl game is immutable)
    def kbdsl_game(self, setup: int) -> Game:
        if setup not in self._games:
            if len(self._games) > 64:
                self._games.clear()
            players = self.num_players()
            self._games[setup] = Game.new(self.rules, players=players, seed=setup, options=self.options)
        return self._games[setup]

    def space(self, game: Game) -> ActionSpace:
        key = id(game)
        if key not in self._spaces:
            self._spaces[key] = ActionSpace(self.enc, game)
        return self._spaces[key]

    def observer_of(self, game: Game, player: int):
        key = (id(game), player)
        if key not in self._observers:
            if len(self._observers) > 256:
                self._observers.clear()
            self._observers[key] = self.enc.observer(game, player)
        return self._observers[key]


class Position:
    """The kbdsl side of a state: copied with the engine's cheap clone, never deep-copied."""

    __slots__ = ("state", "choice", "partial", "fixed", "seen")

    def __init__(self, state: State | None = None):
        self.state = state
        self.choice: Choice | None = None
        self.partial: list[int] = []  # the actions of the move being chosen
        self.fixed = False  # whether a chance node has fixed the top card of the deck
        self.seen: list[list[str]] = []  # per player, the cards it has held, in order

    def __deepcopy__(self, memo) -> Position:
        other = Position(self.state.clone() if self.state is not None else None)
        other.choice = self.choice.copy() if self.choice is not None else None
        other.partial, other.fixed = list(self.partial), self.fixed
        other.seen = [list(x) for x in self.seen]
        return other


class KbdslState(pyspiel.State):
    def __init__(self, game: KbdslGame):
        super().__init__(game)
        self._pos = Position()

    # -- the state machine ---------------------------------------------------
    def current_player(self) -> int:
        pos = self._pos
        if pos.state is None:
            return pyspiel.PlayerId.CHANCE
        if pos.state.over:
            return pyspiel.PlayerId.TERMINAL
        if not pos.fixed:
            return pyspiel.PlayerId.CHANCE
        return pos.state.current

    def _legal_actions(self, player: int) -> list[int]:
        return self._pos.choice.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        pos, game = self._pos, self.get_game()
        if pos.state is None:
            return [(i, 1.0 / game.setups) for i in range(game.setups)]
        counts = Counter(pos.state.deck)
        n = len(pos.state.deck)
        return [(i, counts[c] / n) for i, c in enumerate(game.deck) if counts[c]]

    def _apply_action(self, action: int) -> None:
        pos, game = self._pos, self.get_game()
        if pos.state is None:
            pos.state = game.kbdsl_game(int(action)).new_state()
            pos.seen = [[] for _ in range(game.num_players())]
            self._after_move()
            return
        if not pos.fixed:  # put a card of the chosen terrain on top of the deck
            deck = pos.state.deck
            j = max(i for i, c in enumerate(deck) if c == game.deck[action])
            deck[j], deck[-1] = deck[-1], deck[j]
            pos.fixed = True
            return
        code = pos.choice.take(int(action))
        if code is None:
            pos.partial.append(int(action))
            return
        s = pos.state
        size, shuffles = len(s.deck), s.reshuffles
        s.apply_action(code)
        if len(s.deck) < size or s.reshuffles != shuffles:
            pos.fixed = False
        self._after_move()

    def _after_move(self) -> None:
        """A new move begins: its choice, and each player's card history brought up to date."""
        pos, s = self._pos, self._pos.state
        game = self.get_game()
        pos.partial = []
        pos.choice = None if s.over else Choice.first(game.space(s.game), s)
        if not s.deck:
            pos.fixed = True  # nothing to fix: the next draw reshuffles (from the set-up's seed)
        for p, seen in enumerate(pos.seen):
            held = _held(s, p)
            if held and (not seen or seen[-1] != held):
                seen.append(held)

    def _action_to_string(self, player: int, action: int) -> str:
        pos, game = self._pos, self.get_game()
        if player == pyspiel.PlayerId.CHANCE:
            return f"setup {action}" if pos.state is None else f"top card {game.deck[action]}"
        space = game.space(pos.state.game) if pos.state is not None else None
        return space.describe(action) if space is not None else str(action)

    @classmethod
    def at(cls, game: KbdslGame, state: State) -> KbdslState:
        """A state of `game` at a kbdsl position (a bot's determinisation), its top card fixed."""
        out = cls(game)
        out._pos.state, out._pos.fixed = state, True
        out._pos.seen = [[] for _ in range(game.num_players())]
        out._after_move()
        return out

    def step_code(self, action: int) -> int | None:
        """Take a player's action: the engine code it completed, or None while choosing."""
        code = self._pos.choice.copy().take(int(action))
        if code is None:
            self.apply_action(action)
        return code

    def is_terminal(self) -> bool:
        return self._pos.state is not None and self._pos.state.over

    def returns(self) -> list[float]:
        s, game = self._pos.state, self.get_game()
        if s is None or not s.over:
            return [0.0] * game.num_players()
        return returns_of(s, game.reward)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> KbdslState:
        """A state `player_id` cannot tell from this one: the unseen cards dealt at random."""
        pos = self._pos
        other = KbdslState(self.get_game())
        if pos.state is None:
            return other
        rng = random.Random(int(probability_sampler() * 2**53))
        state = determinize(pos.state.game, pos.state.view(player_id), rng)
        new = other._pos
        new.state, new.fixed, new.seen = state, pos.fixed, [list(x) for x in pos.seen]
        for p in range(len(new.seen)):
            if p != player_id:  # their history is theirs: keep only what player_id can know
                new.seen[p] = []
        other._after_move()
        for a in pos.partial:
            new.choice.take(a)
        new.partial = list(pos.partial)
        return other

    def __str__(self) -> str:
        s = self._pos.state
        if s is None:
            return "(set-up not dealt)"
        return json.dumps(s.view(None), sort_keys=True, separators=(",", ":"))


def seeded_resampler(seed: int) -> Callable[[KbdslState, int], KbdslState]:
    """A resampler for OpenSpiel's Python ISMCTS (`bot.set_resampler(seeded_resampler(seed))`)
    that deals from a seeded generator. Without one, the bot hands every resampling a fresh
    `pyspiel.UniformProbabilitySampler(0., 1.)` (open_spiel/python/algorithms/ismcts.py, line
    224 in 2.0.2), which seeds itself from the clock (open_spiel/spiel_utils.h, line 386), so
    the same search from the same seeds is not repeatable."""
    draw = random.Random(seed).random

    def resample(state: KbdslState, player: int) -> KbdslState:
        return state.resample_from_infostate(player, draw)

    return resample


def _held(s: State, p: int) -> tuple[str, ...]:
    cards = [s.hand[p], *s.spare[p]]
    return tuple(c for c in cards if c is not None)


class KbdslObserver:
    """Observation (or, with perfect recall, information-state) tensors and strings of a player."""

    def __init__(self, game: KbdslGame, perfect_recall: bool):
        self.game, self.perfect = game, perfect_recall
        enc = game.enc
        pieces = [("observation", enc.size)]
        if perfect_recall:
            pieces.append(("cards-held", len(game.deck)))  # how often the player has held each terrain
        self.tensor = np.zeros(sum(n for _, n in pieces), np.float32)
        self.dict, at = {}, 0
        for name, n in pieces:
            self.dict[name] = self.tensor[at : at + n]
            at += n

    def set_from(self, state: KbdslState, player: int) -> None:
        pos = state._pos
        if pos.state is None:
            self.tensor.fill(0)
            return
        c = pos.choice
        args = (c.stage, c.kind, c.source) if c is not None else ()
        self.dict["observation"][:] = self.game.observer_of(pos.state.game, player).update(pos.state, *args)
        if self.perfect:
            counts = Counter(card for held in pos.seen[player] for card in held)
            self.dict["cards-held"][:] = [counts[t] for t in self.game.deck]

    def string_from(self, state: KbdslState, player: int) -> str:
        """Everything public, the player's own cards and (with perfect recall) the move log and the
        player's card history; search trees key their nodes by it, so it is built from the state's
        fields directly rather than from the JSON view (the same information, tests/test_envs.py)."""
        pos = state._pos
        s = pos.state
        if s is None:
            return f"p{player} (set-up not dealt)"
        c = pos.choice
        public = (
            s.own, sorted(s.neutral.items()), sorted(s.kind_own.items()), sorted(s.kind_supply.items()),
            sorted(s.stock.items()), s.supply, [sorted(g.items()) for g in s.gold], s.blocked,
            [[(x.kind, x.at, x.used, x.new) for x in ts] for ts in s.tiles], s.taken,
            sorted(s.loc_supply.items()), sorted(s.dealt.items()), s.discard, s.removed, len(s.deck),
            [len(x) for x in s.spare], s.choosing, s.drawn, s.turn, s.current, s.start_player,
            s.mand_left, s.built, s.mand_built, s.pending, s.pending_left, s.pending_up_to, s.hit,
            s.waived, s.ending, s.over, s.idle, s.turn_supply,
            (c.stage, c.kind, c.source) if c is not None else None,
        )  # fmt: skip
        private = (s.hand[player], s.spare[player], s.wild if player == s.turn_player else None)
        text = f"p{player} {public!r} {private!r}"
        if self.perfect:
            text += f" log={s.log!r} held={pos.seen[player]!r}"
        return text


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(_TYPE, KbdslGame)
