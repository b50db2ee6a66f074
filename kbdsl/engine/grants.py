"""Actions the board grants (`grant` declarations) and the phases of the game that only they fill.

A grant is an action nobody holds: each turn, the players its `to` condition names (all, without
one) may use it `times` (a number, default 1), both worked out when the player's turn starts; a
grant with `use: once` gives its uses once a game. In a turn the engine offers it beside the held
tiles (`usable_tiles`), with the tiles' windows. A grant of the `end-of-game` phase is used once
the game is over but for it: each player in seat order from the start player takes one more
turn, with only those actions (and `end`), before scoring; a `start-of-game` one likewise before
the first turn. A player with no use in a phase is skipped.

A grant of the `last-tile-taken` phase is a reaction: when a move in a player's turn takes the
last tile of a hex, each other player its `to` names, in seat order from the turn's player's
left, gets a turn of their own within that turn, with only those actions (and `end`, to pass);
then the turn's player goes on where they were. `current` is the player to move; `turn_player`
the player whose turn it is. A grant that `mandatory: A or GRANT` names is used instead of the
mandatory action: only while that is due and unbuilt, and using it is the turn's mandatory action
(kbdsl.engine.turn). Reactions do not nest: a last tile taken in a reaction starts none
(`Holdings.gain` sets `reacting` only in the players' turns). Where reactions and phases hand the
move out of seat order is kept in `handoffs`, so that who made each move of the log is known
without replaying it (`Turn.movers`).
"""

from __future__ import annotations

from kbdsl.engine.phases import TURNS
from kbdsl.engine.pieces import Pieces

#: What a reaction sets aside of the turn's player's turn, to give back when it is over.
TURN_FIELDS = (
    *("current", "mand_left", "built", "mand_built", "pending", "pending_left", "pending_up_to", "hit"),
    *("waived", "choosing", "drawn", "turn_supply"),
)


class Grants(Pieces):
    """The uses of granted actions left to each player, and the phase of the game."""

    __slots__ = ()  # the attributes live in State's slots

    # per player: grant -> uses left (this turn, or this game for `once`): never negative (usable_tiles
    # reads them as truth values)
    grant_left: list[dict[str, int]]
    phase: int  # TURNS, START, END or REACT
    phase_turns: int  # players who have had their turn of the phase so far
    reacting: bool  # a move of this turn took a hex's last tile: reactions are due once it is done
    react_queue: tuple[int, ...]  # players still to be offered the reactions
    react_saved: tuple | None  # the turn's player's TURN_FIELDS while others react
    # (index in the log, player): from that move on, the player moves out of seat order (a reaction,
    # a phase's turn, the turn's player again after them); played moves only: not part of a position
    handoffs: tuple[tuple[int, int], ...]
    mand_left: int  # (kbdsl.engine.turn) settlements of the mandatory action still due
    built: int  # (kbdsl.engine.turn) settlements of it built this turn

    def _init_grants(self, players: int) -> None:
        self.grant_left = [{} for _ in range(players)] if self.game.grants else []
        self.phase = TURNS
        self.phase_turns = 0
        self.reacting = False
        self.react_queue, self.react_saved = (), None
        self.handoffs = ()

    def _copy_grants(self, s: Grants) -> None:
        s.grant_left = [dict(x) for x in self.grant_left] if self.grant_left else self.grant_left
        s.phase, s.phase_turns = self.phase, self.phase_turns
        s.reacting, s.react_queue, s.react_saved = self.reacting, self.react_queue, self.react_saved
        s.handoffs = self.handoffs

    @property
    def turn_player(self) -> int:
        """The player whose turn it is (`current`, the player to move, but during a reaction)."""
        return self.react_saved[0] if self.react_saved is not None else self.current

    def granted(self, p: int) -> list[str]:
        """The granted actions p may use now (in the current phase, with a use left; one used instead
        of the mandatory action only while that is due and none of its settlements is built)."""
        left = self.grant_left[p]
        out = [name for name in self.game.grants_in[self.phase] if left.get(name, 0) > 0]
        if self.game.instead and not self.instead_open():
            out = [name for name in out if name not in self.game.instead]
        return out

    def instead_open(self) -> bool:
        """Whether a grant may still be used instead of the mandatory action (`mandatory: A or G`)."""
        return not self.phase and self.mand_left > 0 and not self.built

    def give_grants(self, p: int) -> None:
        """The start of p's turn: the uses of the grants of this phase (`once` ones only the first time)."""
        g = self.game
        plain = g.grants_plain[self.phase]
        if plain is not None:  # (the common case: each once a turn, to everyone: one C call)
            self.grant_left[p].update(plain)
            return
        grants = g.grants
        left, c = self.grant_left[p], None
        for name in g.grants_in[self.phase]:  # (the phase's alone: the others keep their uses)
            _, to, times, once = grants[name]
            if once and name in left:
                continue
            if to is None and times is None:
                left[name] = 1
                continue
            if c is None:
                c = self.ctx(p)  # (one context for all: giving uses changes nothing they read)
            left[name] = 0 if to is not None and not to(c) else max(times(c), 0) if times is not None else 1

    def grants_json(self) -> dict:
        """The phase, the uses left and a reaction under way, for saves (only in rule sets with grants)."""
        if not self.game.grants:
            return {}
        out = {"phase": self.phase, "phase_turns": self.phase_turns, "grant_left": [dict(x) for x in self.grant_left]}
        if self.game.reactions:
            out["turn_player"] = self.turn_player
            out["reaction"] = {
                "due": self.reacting,
                "queue": list(self.react_queue),
                "saved": None if self.react_saved is None else dict(zip(TURN_FIELDS, self.react_saved, strict=True)),
            }
        return out

    def grants_from_json(self, data: dict) -> None:
        """grants_json's fields back (saves; the game's rules decide which are there)."""
        self.phase, self.phase_turns = data["phase"], data["phase_turns"]
        self.grant_left = [{k: max(v, 0) for k, v in x.items() if k in self.game.grants} for x in data["grant_left"]]
        if self.game.reactions:
            r = data["reaction"]
            self.reacting, self.react_queue = bool(r["due"]), tuple(r["queue"])
            self.react_saved = None if r["saved"] is None else tuple(r["saved"][k] for k in TURN_FIELDS)
