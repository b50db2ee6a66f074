"""Why a move is illegal, in one sentence that cites the rule it breaks.

Only called when `State.play` refuses a move, so clarity matters here, not speed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kbdsl.engine.phases import END, REACT, START, TURNS
from kbdsl.lang import ast
from kbdsl.lang.unparse import unparse
from kbdsl.moves import Move
from kbdsl.ruleset import CompiledAction
from kbdsl.wording import counted

if TYPE_CHECKING:
    from kbdsl.engine.setup import BaseGame
    from kbdsl.engine.turn import Turn


def why_illegal(state: Turn, move: Move, code: int) -> str:
    """The reason `move` (encoded as `code`) is not legal in `state`."""
    g, p = state.game, state.current
    if state.over:
        return "the game is over"
    t = g.tables
    name = move.do
    if move.discard is not None and g.to_code(move._replace(discard=None)) in set(state.legal_actions()):
        return (
            f"discard={move.discard} does not apply: this move loses no tile that has a same-kind twin"
            f" with status {move.discard} [RULINGS 11]"
        )
    tile_of = g.rules.action_tile
    kind = g.split(code)[0]
    if state.pending_left and kind == state.pending:
        return why_step(state, g.rules.actions[name], move, f"the {g.rules.tiles[tile_of[name]].title} action")
    if state.pending_left and not state.pending_up_to and tile_of.get(name) not in g.any_time:
        pending = g.kinds[state.pending]
        action = g.rules.actions[pending]
        return (
            f"the {g.rules.tiles[tile_of[pending]].title} action is not finished"
            f" ({_still_due(g, action, state.pending_left)}), and a tile's action is done in full first"
            f" [{g.rules.tiles[tile_of[pending]].title}: {unparse(action.decl)}]"
        )
    if name == "end" and not state.mandatory_open():
        rows = [g.kind_rows[c // (4 * t.n * t.n)] for c in state.legal_actions()]
        forced = sorted({g.rules.tiles[r[2]].title for r in rows if r is not None and r[2] in g.forced})
        return (
            f"a {' or '.join(forced)} tile must be used while a use of it is legal"
            " (its lifecycle says `forced: if-legal`)"
        )
    if name == "end":
        instead = "".join(f"; or use {g.rules.tiles[x].title} instead" for x in g.instead if x in state.granted(p))
        return (
            f"the mandatory action is not finished ({_still_due(g, g.mandatory, state.mand_left)}{instead})"
            " [rulebook: Mandatory Action]"
        )
    if name == "build":
        if state.phase:
            return why_phase(state, "the mandatory build")
        if not state.mandatory_open():
            return "the mandatory action is already done this turn [rulebook: Mandatory Action]"
        return why_target(state, g.mandatory, p, t.index[g.board.hex(move.to)], "the mandatory build")
    title = g.rules.tiles[tile_of[name]].title
    if tile_of[name] in g.rules.grants:
        return why_granted(state, tile_of[name], move, title)
    if state.phase:
        return why_phase(state, f"the {title} action")
    held = [x for x in state.tiles[p] if x.kind == tile_of[name]]
    if not held:
        return f"you hold no {title} tile [rulebook: Location Hex and Location Tile]"
    if not state.tiles_allowed() and tile_of[name] not in g.any_time:
        return (
            "tiles may be used before or after the mandatory action, not between its builds"
            " [rulebook: Extra Action; RULINGS 6]"
        )
    if all(x.new for x in held if not x.used) and any(not x.used for x in held):
        return f"the {title} tile was taken this turn; it can be used from your next turn on [RULINGS 9]"
    if all(x.used for x in held):
        return f"the {title} tile was already used this turn [RULINGS 9]"
    return why_step(state, g.rules.actions[name], move, f"the {title} action")


def why_granted(state: Turn, grant: str, move: Move, title: str) -> str:
    """Why an action the board grants (kbdsl.engine.grants) is not legal (one left out of the game,
    which no one can use on its board, kbdsl.engine.setup: no use of it left)."""
    g, p = state.game, state.current
    if grant in g.grants:
        phase = g.grants[grant][0]
        if phase != state.phase:
            when = {
                TURNS: "in the players' turns",
                START: "before the first turn",
                END: "once the game ends, before scoring",
                REACT: "in another player's turn, as a reaction when a move takes a hex's last tile",
            }
            return f"the {title} action is used {when[phase]}, not now"
        if grant in g.instead and not state.instead_open():
            return (
                f"the {title} action is used instead of the mandatory action, while it is due and before any of its"
                f" builds [turn: mandatory: {unparse(g.mandatory.decl)} or {grant}]"
            )
        if not state.tiles_allowed() and grant not in g.any_time:
            return f"the {title} action is used before or after the mandatory action, not between its builds"
        if state.grant_left[p].get(grant, 0) > 0:
            return why_step(state, g.rules.actions[move.do], move, f"the {title} action")
    return f"you have no use of the {title} action left this turn (who may use it, and how often, is its rule)"


def why_phase(state: Turn, what: str) -> str:
    """Why `what`, an action of the players' turns, is refused in a phase of grants or a reaction."""
    if state.phase == REACT:
        return (
            f"{what} is not used in a reaction: player {state.current} is reacting in player {state.turn_player}'s"
            " turn (a hex's last tile was taken), with only the reaction's actions, or `end` to pass"
        )
    when = {START: "before the first turn", END: "once the game ends, before scoring"}[state.phase]
    return f"{what} is not used {when}: only the actions of this phase of the game (and `end`)"


def why_step(state: Turn, action: CompiledAction, move: Move, what: str) -> str:
    """Why one step of a tile's action (a build, placement, removal or move) is not legal."""
    g, p = state.game, state.current
    t = g.tables
    if action.kind in ("gold", "ignore", "draw", "later"):
        return f"{what} cannot be used now"
    to = t.index[g.board.hex(move.to)]
    if action.kind == "return" and action.piece == g.rules.piece_kind:
        if not (state.return_targets(action, p) >> to) & 1:
            return f"{move.to} holds no {piece_title(g, None)} of yours that {what} may take back"
        return f"{what} cannot be used now"
    if action.kind == "build":
        if state.supply[p] == 0:
            return "your supply is empty"
        return why_target(state, action, p, to, what)
    if action.kind in ("place", "return") and action.piece in g.rules.kinds:
        return why_kind(state, action, p, to, what)
    if action.kind == "place":
        if state.stock[action.piece] == 0:
            return f"no {g.rules.pieces[action.piece].title} is left in the shared supply"
        return why_target(state, action, p, to, what)
    if action.kind == "remove":
        q = state.owner(to)
        if q is None or q == p:
            return f"{move.to} holds no piece of another player"
        if (state.hit >> q) & 1 and state.pending_left:
            return f"{what} already took a piece of player {q}; it takes one of each other player"
        return f"{move.to} is not a hex {what} allows: {unparse(action.decl.target)}"
    frm = t.index[g.board.hex(move.frm)]
    if not (state.own[p] >> frm) & 1:
        return f"{move.frm} holds no piece of yours for {what} to move"
    pairs = dict(state.move_targets(action, p))
    kind = state.kind_at(p, frm) if state.kind_own else None
    piece = piece_title(g, kind)
    if frm not in pairs:
        return why_unmoved(state, action, p, frm, kind, what)
    if not (pairs[frm] >> to) & 1:
        if to == frm:
            return f"a moved {piece} must end on a different hex [RULINGS 12]"
        return why_target(state, action, p, to, what, frm)
    return (
        f"discard={move.discard} does not apply: this move loses no tile that has a same-kind twin"
        f" with status {move.discard} [RULINGS 11]"
    )


def why_unmoved(state: Turn, action: CompiledAction, p: int, frm: int, kind: str | None, what: str) -> str:
    """Why p's piece on hex `frm` (of `kind`, None for the kind `build` places) is no source of a move."""
    g = state.game
    hexname, piece = g.tables.ids[frm], piece_title(g, kind)
    if action.piece is not None and kind != action.piece:
        moved = piece_title(g, action.piece)
        return f"{hexname} holds your {piece}, and {what} moves only your {moved} [{unparse(action.decl)}]"
    if kind in g.fixed_kinds:
        return f"your {piece} on {hexname} never moves [piece {kind}: movable: no]"
    if action.piece is None and kind in g.own_tile_kinds:
        return (
            f"your {piece} on {hexname} is moved only by a tile that names its kind, not by {what}"
            f" [piece {kind}: movable: by-own-tile]"
        )
    if action.source is not None and not (action.source(state.ctx(p)) >> frm) & 1:
        return f"{hexname} is not a hex {what} moves from: {unparse(action.decl.source)}"
    return f"your {piece} on {hexname} has no hex to go to that {what} allows: {unparse(action.decl.target)}"


def piece_title(game: BaseGame, kind: str | None) -> str:
    """The lower-case title of a piece kind (None: the kind `build` places), as sentences name it."""
    pieces = game.rules.pieces
    kind = kind or game.rules.piece_kind
    return pieces[kind].title.lower() if kind in pieces else kind


def _still_due(game: BaseGame, action: CompiledAction | None, left: int) -> str:
    """What an unfinished action still asks for, naming the piece kind it builds or places."""
    if action is None or action.kind in ("build", "place"):
        piece = piece_title(game, action.piece if action is not None else None)
        verb = "build" if action is None or action.kind == "build" else "place"
        return f"{counted(left, piece)} still to {verb}"
    if action.kind == "move":
        return f"{counted(left, 'step')} still to move" + (
            f" your {piece_title(game, action.piece)}" if action.piece else ""
        )
    return f"{counted(left, 'step')} still due"


def why_target(state: Turn, action: CompiledAction, p: int, to: int, what: str, frm: int = -1) -> str:
    """Why hex `to` is not a target of `action` (occupied, filtered out, or not adjacent)."""
    hexname = state.game.tables.ids[to]
    own, occ = list(state.own), state.occ
    if frm >= 0:
        own[p] ^= 1 << frm
        occ ^= 1 << frm
    if (occ >> to) & 1:
        return f"{hexname} is already occupied [rulebook: Building Rules]"
    if action.kind == "place" and action.piece in state.game.past_auras:
        blocked = 0
    else:
        blocked = state.blocked_without(p, frm) if frm >= 0 else state.blocked
    if blocked >> to & 1:
        kind = _blocker(state, to, frm)
        return (
            f"{hexname} is next to a {piece_title(state.game, kind)}, which blocks the hexes around it"
            f" [piece {kind}: aura: blocks-next-to]"
        )
    if not (action.target(state.ctx(p, own, occ, frm)) >> to) & 1:
        attrs = state.game.board.graph.nodes[hexname]
        rules = state.game.rules
        here = rules.terrains[attrs["terrain"]].title if attrs["terrain"] else rules.tiles[attrs["location"]].title
        card = ""
        if state.game.uses_card.get(action_key(action, state.game)) and state.hand[p] in state.game.rules.terrains:
            card = f"; the played card is {state.game.rules.terrains[state.hand[p]].title}"
        return f"{hexname} ({here}) is not a hex {what} allows: {unparse(action.decl.target)}{card}"
    return (
        f"{hexname} is not next to your {piece_title(state.game, None)}s, but other hexes {what} allows are"
        " (adjacent if possible) [rulebook: Building Rules; RULINGS 7]"
    )


def why_kind(state: Turn, action: CompiledAction, p: int, to: int, what: str) -> str:
    """Why a piece of a player-owned kind may not be placed on, or taken back from, hex `to`."""
    g = state.game
    piece = g.rules.pieces[action.piece].title.lower()
    hexname = g.tables.ids[to]
    if action.kind == "return":
        return f"{hexname} holds no {piece} of yours that {what} may take back"
    if not state.kind_supply[action.piece][p]:
        return f"you have no {piece} left to place"
    if action.piece in g.footprints and not state.cover(action.piece, to):
        return f"a {piece} centred on {hexname} would not lie on the board"
    cover = state.cover(action.piece, to)
    blocked = 0 if action.piece in g.past_auras else state.blocked
    for i in (i for i in range(g.tables.n) if (cover >> i) & 1):
        if (state.occ >> i) & 1 or (blocked >> i) & 1 or not (action.target(state.ctx(p)) >> i) & 1:
            return why_target(state, action, p, i, what)
    return f"a {piece} on {hexname} would not be next to your pieces, but other hexes {what} allows are"


def _blocker(state: Turn, to: int, frm: int) -> str:
    """A piece kind with an aura next to hex `to` (not the lifted piece on `frm`)."""
    g = state.game
    near = g.tables.nbr_mask[to] & ~((1 << frm) if frm >= 0 else 0)
    return next((k for k in sorted(g.aura_kinds) if any(m & near for m in state.kind_own[k])), min(g.aura_kinds))


def action_key(action: CompiledAction, game: BaseGame) -> str:
    """'build' for the mandatory action, else the tile's name."""
    if action is game.mandatory:
        return "build"
    return next(name for name, a in game.rules.actions.items() if a is action)


@dataclass(frozen=True)
class Refusal:
    """Why a move is refused, as fields a front end shows next to the board (not only a sentence).

    `kind` is "hex" when the action could be played now but not on that hex (then `rule` is the
    action's declaration whose target the hex fails, `card` the played card's terrain if the
    target names it, `nearest` the closest hex the action allows, `fits` whether the hex is in the
    target and only the adjacency rule or a blocking piece keeps it out), "occupied" when a piece
    stands there, else "other" (the action itself cannot be played now: only `reason` applies)."""

    reason: str
    do: str
    kind: str
    hex: str | None = None
    terrain: str | None = None
    location: str | None = None
    rule: ast.Action | None = None
    card: str | None = None
    nearest: str | None = None
    fits: bool = False


def refusal(state: Turn, move: Move) -> Refusal:
    """The refusal of an illegal `move` in `state`: `why_illegal`'s sentence and what it is about."""
    g = state.game
    reason = why_illegal(state, move, g.to_code(move))
    if move.to is None:
        return Refusal(reason, move.do, "other")
    hexname = g.board.hex(move.to)
    attrs = g.board.graph.nodes[hexname]
    here = {"hex": hexname, "terrain": attrs["terrain"], "location": attrs["location"]}
    same = [m for m in state.legal_moves() if m.do == move.do and m.to and (move.frm is None or m.frm == move.frm)]
    if not same or state.over:
        return Refusal(reason, move.do, "other", **here)
    i = g.tables.index[hexname]
    if (state.occ >> i) & 1 and not (move.frm and g.board.hex(move.frm) == hexname):
        return Refusal(reason, move.do, "occupied", **here, nearest=_nearest(g, hexname, same))
    action = g.mandatory if move.do == "build" else g.rules.actions[move.do]
    card = state.hand[state.current] if g.uses_card.get(action_key(action, g)) else None
    fits = action.target is not None and bool((action.target(state.ctx(state.current)) >> i) & 1)
    nearest = _nearest(g, hexname, same)
    return Refusal(reason, move.do, "hex", **here, rule=action.decl, card=card, nearest=nearest, fits=fits)


def _nearest(game: BaseGame, hexname: str, moves: list[Move]) -> str | None:
    """The target of `moves` fewest steps from `hexname` (on the same board first), ties by name."""
    nodes = game.board.graph.nodes
    a = nodes[hexname]

    def steps(h: str) -> tuple[int, int, str]:
        b = nodes[h]
        dq, dr = a["q"] - b["q"], a["r"] - b["r"]
        return (a["board"] != b["board"], (abs(dq) + abs(dr) + abs(dq + dr)) // 2, h)

    targets = {m.to for m in moves if m.to}
    return min(targets, key=steps) if targets else None
