"""Why a move is illegal, in one sentence that cites the rule it breaks.

Only called when `State.play` refuses a move, so clarity matters here, not speed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbdsl.lang.unparse import unparse
from kbdsl.moves import Move
from kbdsl.ruleset import CompiledAction

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
        left = state.pending_left
        todo = f"{left} settlement(s) still to build" if g.rules.actions[pending].kind == "build" else f"{left} step(s)"
        return f"the {g.rules.tiles[tile_of[pending]].title} action is not finished ({todo})"
    if name == "end":
        return (
            f"the mandatory action is not finished ({state.mand_left} settlement(s) still to build)"
            " [rulebook: Mandatory Action]"
        )
    if name == "build":
        if not state.mandatory_open():
            return "the mandatory action is already done this turn [rulebook: Mandatory Action]"
        return why_target(state, g.mandatory, p, t.index[g.board.hex(move.to)], "the mandatory build")
    title = g.rules.tiles[tile_of[name]].title
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


def why_step(state: Turn, action: CompiledAction, move: Move, what: str) -> str:
    """Why one step of a tile's action (a build, placement, removal or move) is not legal."""
    g, p = state.game, state.current
    t = g.tables
    if action.kind in ("gold", "ignore", "draw"):
        return f"{what} cannot be used now"
    to = t.index[g.board.hex(move.to)]
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
        return f"{move.frm} does not hold one of your settlements"
    pairs = dict(state.move_targets(action, p))
    if frm not in pairs:
        return f"the settlement on {move.frm} cannot be moved by {what}"
    if not (pairs[frm] >> to) & 1:
        if to == frm:
            return "a moved settlement must end on a different hex [RULINGS 12]"
        return why_target(state, action, p, to, what, frm)
    return (
        f"discard={move.discard} does not apply: this move loses no tile that has a same-kind twin"
        f" with status {move.discard} [RULINGS 11]"
    )


def why_target(state: Turn, action: CompiledAction, p: int, to: int, what: str, frm: int = -1) -> str:
    """Why hex `to` is not a target of `action` (occupied, filtered out, or not adjacent)."""
    hexname = state.game.tables.ids[to]
    own, occ = list(state.own), state.occ
    if frm >= 0:
        own[p] ^= 1 << frm
        occ ^= 1 << frm
    if (occ >> to) & 1:
        return f"{hexname} is already occupied [rulebook: Building Rules]"
    if (state.blocked_without(p, frm) if frm >= 0 else state.blocked) >> to & 1:
        return f"{hexname} is next to a {_blocker(state, to, frm)}, which blocks the hexes around it"
    if not (action.target(state.ctx(p, own, occ, frm)) >> to) & 1:
        attrs = state.game.board.graph.nodes[hexname]
        rules = state.game.rules
        here = rules.terrains[attrs["terrain"]].title if attrs["terrain"] else rules.tiles[attrs["location"]].title
        card = ""
        if state.game.uses_card.get(action_key(action, state.game)) and state.hand[p] in state.game.rules.terrains:
            card = f"; the played card is {state.game.rules.terrains[state.hand[p]].title}"
        return f"{hexname} ({here}) is not a hex {what} allows: {unparse(action.decl.target)}{card}"
    return (
        f"{hexname} is not next to your settlements, but other hexes {what} allows are"
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
    for i in (i for i in range(g.tables.n) if (cover >> i) & 1):
        if (state.occ >> i) & 1 or (state.blocked >> i) & 1 or not (action.target(state.ctx(p)) >> i) & 1:
            return why_target(state, action, p, i, what)
    return f"a {piece} on {hexname} would not be next to your pieces, but other hexes {what} allows are"


def _blocker(state: Turn, to: int, frm: int) -> str:
    """The title of a piece kind with an aura next to hex `to` (not the lifted piece on `frm`)."""
    g = state.game
    near = g.tables.nbr_mask[to] & ~((1 << frm) if frm >= 0 else 0)
    for k in sorted(g.aura_kinds):
        if any(m & near for m in state.kind_own[k]):
            return g.rules.pieces[k].title.lower()
    return "piece"


def action_key(action: CompiledAction, game: BaseGame) -> str:
    """'build' for the mandatory action, else the tile's name."""
    if action is game.mandatory:
        return "build"
    return next(name for name, a in game.rules.actions.items() if a is action)
