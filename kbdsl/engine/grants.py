"""Actions the board grants (`grant` declarations) and the phases of the game that only they fill.

A grant is an action nobody holds: each turn, the players its `to` condition names (all, without
one) may use it `times` (a number, default 1), both worked out when the player's turn starts; a
grant with `use: once` gives its uses once a game. In a turn the engine offers it beside the held
tiles (`usable_tiles`), with the tiles' windows. A grant of the `end-of-game` phase is used once
the game is over but for it: each player in seat order from the start player takes one more
turn, with only those actions (and `end`), before scoring; a `start-of-game` one likewise before
the first turn. A player with no use in a phase is skipped.
"""

from __future__ import annotations

from kbdsl.engine.pieces import Pieces

#: The phases of play (`State.phase`): the players' turns, and the phases of the grants.
TURNS, START, END = 0, 1, 2
PHASES = {"turns": TURNS, "start-of-game": START, "end-of-game": END}


class Grants(Pieces):
    """The uses of granted actions left to each player, and the phase of the game."""

    __slots__ = ()  # the attributes live in State's slots

    grant_left: list[dict[str, int]]  # per player: grant -> uses left (this turn, or this game for `once`)
    phase: int  # TURNS, START or END
    phase_turns: int  # players who have had their turn of the phase so far

    def _init_grants(self, players: int) -> None:
        self.grant_left = [{} for _ in range(players)] if self.game.grants else []
        self.phase = TURNS
        self.phase_turns = 0

    def _copy_grants(self, s: Grants) -> None:
        s.grant_left = [dict(x) for x in self.grant_left] if self.grant_left else self.grant_left
        s.phase, s.phase_turns = self.phase, self.phase_turns

    def granted(self, p: int) -> list[str]:
        """The granted actions p may use now (in the current phase, with a use left)."""
        left = self.grant_left[p]
        return [name for name, (phase, *_) in self.game.grants.items() if phase == self.phase and left.get(name, 0) > 0]

    def use_grant(self, p: int, name: str) -> None:
        self.grant_left[p][name] -= 1

    def give_grants(self, p: int) -> None:
        """The start of p's turn: the uses of the grants of this phase (`once` ones only the first time)."""
        g = self.game
        left = self.grant_left[p]
        for name, (phase, to, times, once) in g.grants.items():
            if phase != self.phase or (once and name in left):
                continue
            c = self.ctx(p)
            left[name] = 0 if to is not None and not to(c) else times(c) if times is not None else 1

    def grants_json(self) -> dict:
        """The phase and the uses left, for saves (only in rule sets with grants)."""
        if not self.game.grants:
            return {}
        return {"phase": self.phase, "phase_turns": self.phase_turns, "grant_left": [dict(x) for x in self.grant_left]}
