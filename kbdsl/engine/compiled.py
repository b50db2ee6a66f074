"""The random playout compiled per rule set: `Turn.play_random`'s loop with the branches a game cannot take folded away.

`playout(game)` returns a function `run(state, rngs, stop_turn, max_moves)` that plays exactly the
moves `Turn.play_random` plays (the moves of `sample_action` in a loop, with the same draws from
the same streams): Python source generated from one template (`_TEMPLATE`), keeping only the
lines whose conditions the game's rules and options meet, compiled once per distinct set of
conditions and cached. What it compiles:

- the turn's skeleton: the checks for a tile action going on, a choice of cards, tiles usable
  between the mandatory builds and actions the board grants are left out where the rule set has
  none, and so are next-turn modifiers, cards drawn at the start of the turn, hands of several
  cards, end-of-turn tile checks and expiring tiles in the end of the turn and the next one's start;
- the mandatory action: its count, and, when its target is a table per board (it reads at most
  the card) with "adjacent if possible", the target, the draw and the builds in one loop, as
  `_take_builds`' lean path does, with the adjacency test kept only if the action has it;
- the moves of a turn holding tiles: the runs of `_runs` listed in line, each tile's build on a
  board table (`tile_plan`'s by_card) as straight bitset code, the draw of `_pick` written out,
  and a drawn tile build applied in line (`apply_action` with nothing to decode, then `_build`).

What falls back to the interpreter, per construct: a move while a tile action of several steps
goes on or while the player chooses among cards (`sample_action` and `apply_action`), every tile
action that is not a build on a board table (`_steps`, then `apply_action`), builds that trigger
scoring or tiles used when gained (`_take_builds`, `_build`), phases of grants and the end of
the game (`_finish`). A rule set with reactions on other players' turns plays through the
interpreter's loop (`compiled` returns None): a move may hand the turn to others.
"""

from __future__ import annotations

from collections.abc import Callable

from kbdsl.bitset import nth_bit
from kbdsl.engine.groups import MoveGroup
from kbdsl.errors import KbdslError
from kbdsl.moves import BUILD, END_TURN

#: The playout's source (the inner loop leaves for the outer one, which plays through
#: `sample_action`, when a card replaced by `_settle` offers a choice of terrains). A line ending
#: in `# ?name` is kept only where condition `name` holds, `# ?!name` only where it does not
#: (several, space-separated: all must hold). Conditions: see _conditions.
_TEMPLATE = """
def run(self, rngs, stop_turn, max_moves):
    g = self.game
    build, end, log, plan = g.code_base[BUILD], g.code_base[END_TURN], self.log, g.tile_plan
    supply, own, nb, tiles_of, hand = self.supply, self.own, self.nb, self.tiles, self.hand
    nbr_mask, tile_near = g.tables.nbr_mask, g.tile_near
    maction, mtables, mcount = g.mandatory, g.mandatory_tables, g.mandatory.count
    faces = g.faces
    grants = g.grants  # ?grants
    players = len(own)
    bits = [rng.getrandbits for rng in rngs]
    moves = 0
    while not self.over and self.turn < stop_turn and moves < max_moves:
        p = self.current
        rng, getrandbits = rngs[p], bits[p]
        if (
            self.pending_left
            or self.choosing  # ?choosing
            or (self.tiles[p] and self._holds_any_time(p))  # ?any_time !grants
            or ((self.tiles[p] or grants) and self._holds_any_time(p))  # ?any_time grants
        ):
            moves += 1
            self.apply_action(self.sample_action(rng))
            continue
        while moves < max_moves:
            if self.choosing:  # ?choosing
                break  # ?choosing
            if tiles_of[p] and self._holds_any_time(p):  # ?any_time !grants
                break  # ?any_time !grants
            if (tiles_of[p] or grants) and self._holds_any_time(p):  # ?any_time grants
                break  # ?any_time
            moves += 1
            usable = None
            mand_left = self.mand_left
            if mand_left > 0:
                if self.built or not ((tiles_of[p] or grants) and (usable := self.usable_tiles(p))):  # ?grants
                if self.built or not (tiles_of[p] and (usable := self.usable_tiles(p))):  # ?!grants
                    targets = self.mandatory_targets()  # ?!table
                    card = hand[p]  # ?table
                    try:  # ?table
                        targets = mtables[card]  # ?table
                    except KeyError:  # ?table
                        targets = mtables[card] = self.board_target(maction, card)  # ?table
                    occ = self.occ  # ?table
                    targets ^= targets & (occ | self.blocked)  # ?table auras
                    targets ^= targets & occ  # ?table !auras
                    if not self.waived:  # ?table adjacent
                        near = targets & nb[p]  # ?table adjacent
                        if near:  # ?table adjacent
                            targets = near  # ?table adjacent
                    if targets:
                        moves += self._take_builds(p, -1, getrandbits, max_moves - moves + 1, targets)  # ?!lean
                        if self.waived or self.blocked:  # ?lean
                            moves += self._take_builds(p, -1, getrandbits, max_moves - moves + 1, targets)  # ?lean
                            continue  # ?lean
                        @@builds@@  # ?lean
                        continue
            elif not ((tiles_of[p] or grants) and (usable := self.usable_tiles(p))):  # ?grants
            elif not (tiles_of[p] and (usable := self.usable_tiles(p))):  # ?!grants
                while getrandbits(1):  # randrange(1)
                    pass
                self._mandatory = None
                log.append(end)
                @@end_turn@@
                break
            @@pick@@
"""

#: The builds of the mandatory action after the first, drawn as `_take_builds`' lean path does
#: (the first drawn from `targets` here too).
_BUILDS = """
occ, around, taken = self.occ, nb[p], self.taken[p]
limit = mand_left
if supply[p] < limit:
    limit = supply[p]
if max_moves - moves + 1 < limit:
    limit = max_moves - moves + 1
table = mtables[card]
count = 0
while True:
    n = targets.bit_count()
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    if not r:
        to = (targets ^ (targets - 1)).bit_length() - 1
    elif r == n - 1:
        to = targets.bit_length() - 1
    else:
        to = nth_bit(targets, r)
    log.append(build + to)
    occ |= 1 << to
    around |= nbr_mask[to]
    count += 1
    near = tile_near[to]
    if near and near ^ (near & taken):
        self.gain(p, to)
        taken = self.taken[p]
    if count >= limit:
        break
    targets = table ^ (table & occ)
    near = targets & around  # ?adjacent
    if near:  # ?adjacent
        targets = near  # ?adjacent
    if not targets:
        break
new = occ ^ self.occ
own[p] |= new
self.mand_built |= new
self.occ, nb[p] = occ, around
supply[p] -= count
self.mand_left = mand_left - count
self.built += count
moves += count - 1
self._mandatory = None
if not supply[p]:
    self.ending = True
if self.mand_left > 0 and not (supply[p] and self.mandatory_targets()):
    self._settle()
"""

#: The end of the turn and the start of the next one (`_end_turn`, `_new_turn`), outside phases of grants.
_END_TURN = """
if self.phase:  # ?grants
    self._end_turn()  # ?grants
    break  # ?grants
if self.spare[p] or self.wild is not None:  # ?plain_hand
    self.refill(p)  # ?plain_hand
else:  # ?plain_hand
    card = hand[p]  # ?plain_hand
    if card is not None:  # ?plain_hand
        self.discard.append(card)  # ?plain_hand
    deck = self.deck  # ?plain_hand
    hand[p] = deck.pop() if deck else self.draw()  # ?plain_hand
self.refill(p)  # ?!plain_hand
held = tiles_of[p]
if held:
    self.refresh_tiles(p)  # ?refresh
    tiles_of[p] = [x.fresh for x in held]  # ?!refresh
self.idle = 0 if supply[p] != self.turn_supply else self.idle + 1
if self.idle >= players:
    self._finish()
    break
after = p + 1
if after == players:
    after = 0
if self.ending and after == self.start_player:
    self._finish()
    break
self.current = after
self.turn += 1
self._new_turn()  # ?!plain_start
self.turn_supply = supply[after]  # ?plain_start
self.mand_left = mcount  # ?plain_start
self.built = self.mand_built = self.pending = self.pending_left = self.hit = 0  # ?plain_start
self.pending_up_to = self.waived = False  # ?plain_start
if self.drawn is not None:  # ?plain_start
    self.set_drawn(None)  # ?plain_start
self.choosing = bool(self.spare[after]) or hand[after] in faces  # ?plain_start
if self.mand_left > 0 and not (supply[after] and self.mandatory_targets()):  # ?plain_start
    self._settle()  # ?plain_start
"""

#: One decision among the moves of a turn with tiles (`_pick` over `_runs`, with no tile action
#: going on and no choice of cards), and the move applied.
_PICK = """
out = []
self._risky = -1
stop = False
if mand_left > 0:
    targets = self.mandatory_targets()
    if targets:
        out.append((build, targets))
    stop = self.built
if not stop:
    if usable is None:
        usable = self.usable_tiles(p)
    plain = supply[p] > 0
    for tile in usable:
        for name, action, base, by_card in plan[tile]:
            if by_card is None:
                self._steps(name, action, out)
                continue
            if not plain:
                continue
            card = hand[p]
            try:
                targets = by_card[card]
            except KeyError:
                targets = by_card[card] = self.board_target(action, card)
            targets ^= targets & (self.occ | self.blocked)  # ?auras
            targets ^= targets & self.occ  # ?!auras
            if action.adjacent and not self.waived:
                near = targets & nb[p]
                if near:
                    targets = near
            if targets:
                out.append((base, targets))
    if self.mand_left <= 0:  # ?!forced
    if self.mand_left <= 0 and not self._forced_use(out):  # ?forced
        out.append((end, 1))
total = 0
for _, mask in out:
    total += mask.bit_count()
if not total:
    raise KbdslError("the game is over: there is no move to choose")
w = total.bit_length()
k = getrandbits(w)
while k >= total:
    k = getrandbits(w)
for base, mask in out:
    size = mask.bit_count()
    if k < size:
        break
    k -= size
k = nth_bit(mask, k) if mask.__class__ is int else mask.nth(k)
if base == build and self.mand_left > 0:
    moves += self._take_builds(p, k, getrandbits, max_moves - moves + 1)
    continue
self.apply_action(base + k)
if base == end or self.pending_left:
    break
"""


def _conditions(g) -> dict[str, bool]:
    """What the template's lines are kept for, from the game's rules and options."""
    m = g.mandatory
    table = m is not None and g.mandatory_tables is not None and not (g.several_cards or g.faces)
    return {
        "choosing": bool(g.several_cards or g.faces),
        "any_time": bool(g.any_time),
        "grants": bool(g.grants),
        "table": table,
        "lean": table and g.mandatory_lean,
        "adjacent": m is not None and m.adjacent,
        "auras": bool(g.aura_kinds),
        "forced": bool(g.forced),
        "plain_hand": g.plain_hand,
        "refresh": bool(g.lose_later or g.expiring),
        "plain_start": not (g.delayed or g.draw_at_start or g.grants),
    }


def _keep(line: str, conds: dict[str, bool]) -> str | None:
    """The line without its condition, or None if the condition fails."""
    code, sep, tail = line.partition("# ?")
    if not sep:
        return line
    for name in tail.split():
        if conds[name.lstrip("!")] == name.startswith("!"):
            return None
    return code.rstrip()


def _expand(text: str, conds: dict[str, bool], indent: str = "") -> list[str]:
    out = []
    for line in text.strip("\n").splitlines():
        kept = _keep(line, conds)
        if kept is None:
            continue
        stripped = kept.strip()
        if stripped.startswith("@@") and stripped.endswith("@@"):
            pad = indent + kept[: len(kept) - len(kept.lstrip())]
            out += _expand(_PARTS[stripped.strip("@")], conds, pad)
        else:
            out.append(indent + kept)
    return out


_PARTS = {"builds": _BUILDS, "end_turn": _END_TURN, "pick": _PICK}
_CACHE: dict[tuple, Callable] = {}


def source(g) -> str:
    """The playout's Python source for this game's rules and options."""
    return "\n".join(_expand(_TEMPLATE, _conditions(g))) + "\n"


def compiled(g) -> Callable | None:
    """The compiled playout of this game (cached per set of conditions), or None where the
    interpreter's loop must play (reactions; no mandatory action)."""
    if g.reactions or g.mandatory is None:
        return None
    conds = _conditions(g)
    key = tuple(conds.values())
    fn = _CACHE.get(key)
    if fn is None:
        scope = {
            "BUILD": BUILD,
            "END_TURN": END_TURN,
            "nth_bit": nth_bit,
            "MoveGroup": MoveGroup,
            "KbdslError": KbdslError,
        }
        exec(compile(source(g), f"<kbdsl playout {key}>", "exec"), scope)  # noqa: S102 (our template)
        fn = _CACHE[key] = scope["run"]
    return fn
