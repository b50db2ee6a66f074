"""The random playout compiled per rule set: `Turn.play_random`'s loop without the branches the rules cannot take.

`compiled(game)` returns a function `run(state, rngs, stop_turn, max_moves)` that plays exactly
the moves of `sample_action` applied in a loop, with the same draws from the same streams (as
`Turn.play_random` promises), for every rule set with a mandatory action: Python source made from
one template (`_TEMPLATE` and its parts, and `_TAKE`), keeping the lines whose conditions
(`_conditions`: flags read from the game's rules and options, never a name) hold, compiled once
per set of conditions and cached; the game's tables are read into locals once per call. What it
compiles:

- the turn's skeleton: the checks for a choice of cards, tiles or grants usable between the
  mandatory builds, reactions and phases of grants are left out where the rules have none, and
  the end of the turn and the next one's start are written out (`_end_turn`, `_new_turn`; the
  latter called where cards are drawn at the start of the turn) without next-turn modifiers,
  grants given, hands of several cards or end-of-turn tile checks where there are none; where
  the board grants actions every turn, the tiles and grants usable at a decision found in line;
- the mandatory action: its count; where its target is a table per board (it reads at most the
  card), the target straight on the table in the turns where no card is chosen, with the
  adjacency test only if the action has one; where builds also trigger nothing
  (`mandatory_lean`), the draws and the builds in one loop (`_BUILDS`, auras included), else
  the builds one by one through `_mandatory_build` (`take_builds`, `_TAKE`: the only copy of
  that loop);
- a decision of a turn with tiles or a choice of cards (`_pick` over `_runs`): while the player
  chooses, the mandatory targets of every card (`mandatory_targets`; of one card of several
  choices, each choice's table in line) and the card-using tile actions through the interpreter's
  `_steps` and `build_targets`, the first build playing its card (`_play_card`; one card of several
  choices in line) before the builds go on in line; each tile's build on a board table as straight
  bitset code, a move with the same targets from every source, or to `A & next-to(own)` (each
  piece losing the hexes next to it alone), as one run counted by a formula (`SameRun`), a move
  with targets per board and origin as one run counted source by source (`OriginRun`, or the
  board's learnt `MoveGroup`), from all of the player's pieces or from a source of board hexes,
  with pieces of several kinds and under auras alike (a piece with an aura, whose lift unblocks
  hexes, listed on its own between the others: `aura_runs`), a placement of a player-owned kind, a
  return and an action on no hex (`place_targets`, `return_targets`, one move; without `_steps`),
  the draw written out, and a drawn mandatory build, tile build or tile move of one step applied
  in line (a move's tile gains and losses as `_move` checks them), as is a draw with a build due
  after it (`draw then build`: the card drawn, the build's targets found and one of them drawn);
  the last of the granted actions usable every turn, where each is a build on `A & next-to(own)`
  or a move with the same targets from every source (`inline_grants`: by the action's parsed
  shape), listed by code written for it with its board tables found once a run, after the held
  tiles (their moves found first, before the decision: where they have none and no tile is usable,
  the mandatory builds alone or the end of the turn alone go on as where nothing is granted);
  while the player holds a tile usable any time, unused, a decision is listed so too (between the
  mandatory builds: the builds and that tile's steps, `_runs`' `_any_time`) and the drawn move
  applied by `apply_action`, one at a time;
- reactions on other players' turns: a build that takes a hex's last tile (in line, in
  `take_builds` or through `apply_action`) hands the turn to the reactors (`_react`) right after
  its card replacement, as `apply_action` does, and the loop leaves for the outer one, which
  plays the reactions through `sample_action` until the turn's player goes on.

What falls back to the interpreter, per construct: a move while the player reacts, or, where a
grant is usable at any time, holds a tile or grant usable so and no tile action of several steps
goes on (`sample_action`, `apply_action`; a decision while such an action goes on is listed in
line, `_PENDING`, and its move applied by `apply_action`); any other tile action, a
slide whose lifted piece has an aura, and a move whose piece alone touches a tile's hex with
discard variants (`_steps`); applying a tile action of several steps (but a move's first step,
which sets the rest pending) or with another due after it, a move listed source by source, or
a draw while the player chooses among cards (`apply_action`; there, a plain tile build or move
that uses the card plays its hex's card first, `_play_card`, and goes on in line); card
replacement (`_settle`), tile gains and losses, phases of grants, the game's end.
"""

from __future__ import annotations

import linecache
from operator import attrgetter
from collections.abc import Callable

from kbdsl.bitset import bit_list, bits, extend_bits, nth_bit
from kbdsl.caches import ByOwner
from kbdsl.engine.groups import MoveGroup, WalkRun
from kbdsl.engine.phases import PHASES, REACT, TURNS
from kbdsl.engine.setup import lifecycles
from kbdsl.engine.targets import CARD, CARD_ORIGIN
from kbdsl.engine.tiles import Holdings, fresh_of, kind_of, usable_kind
from kbdsl.errors import KbdslError
from kbdsl.expr import _touching
from kbdsl.moves import BUILD, END_TURN
from kbdsl.tables import Tables

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
    faces = g.faces  # ?faces
    faced = id(maction) in g.card_actions  # (the mandatory targets read the card)  # ?faces
    terrain_at, face_count = g.tables.terrain_at, g.face_count  # ?faces
    hand_tiles = g.hand_tiles.keys()  # ?!plain_hand one_card
    card_actions = g.card_actions  # ?choosing
    shapes, every, tcache, stride = move_shapes(g), g.tables.all, g.tables.cache, g.tables.n
    bit_of = hex_bits(stride)  # 1 << i by hex (kbdsl.bitset.bits: read, not shifted)
    grants, turn_uses = g.grants, g.grants_plain[TURNS]  # (the uses give_grants gives at a turn's start)  # ?grants
    turn_grants = g.turn_grants  # usable_tiles, in line where the board grants actions every turn  # ?turns
    any_time = g.any_time  # ?any_time
    players = len(own)
    plain_builds = plain_tile_actions(g, "build")  # ?lean
    plain_moves, single_use = plain_tile_actions(g, "move"), g.single_use
    tile_plain = plain_tile_actions(g, None)  # the tables below, by kind, in one call  # ?choosing
    tile_plain = plain_tile_actions(g, None)  # ?!choosing steps
    free_builds = tile_plain["build-free"]  # ?lean choosing
    free_moves = tile_plain["move-free"]  # ?choosing
    first_steps, draws = tile_plain["steps"], tile_plain["draws"]  # ?steps
    plain_kinds, auras = plain_kind_actions(g), g.aura_kinds  # ?kinds
    lose_now, nbrs = g.lose_now, g.tables.nbr
    lose_later, expiring = g.lose_later, g.expiring  # ?refresh
    instead = g.instead  # ?grants
    unmoved = [self.kind_own[k] for k in g.unmoved_kinds]  # per kind, by player (updated in place)  # ?kinds
    kind_all = self.kind_all  # per player, the hexes of their pieces of kinds (updated in place)  # ?kinds
    footprints, past_auras = g.footprints, g.past_auras  # ?kinds
    @@inline_setup@@  # ?inline
    on_build = g.on_build  # ?lean on_build
    bits = [rng.getrandbits for rng in rngs]
    moves = 0
    ready = 0  # the mandatory targets the turn's start found (reused by its first decision)  # ?ready
    while not self.over and self.turn < stop_turn and moves < max_moves:
        p = self.current
        rng, getrandbits = rngs[p], bits[p]
        if (
            self.pending_left
            or self.react_saved is not None  # ?reactions
            or ((self.tiles[p] or grants) and self._holds_any_time(p))  # ?any_time timed
        ):
            ready = 0  # ?ready
            moves += 1
            @@pending@@  # ?pending
            self.apply_action(self.sample_action(rng))  # ?!pending
            continue
        while moves < max_moves:
            held_kinds = {}  # the held tiles' kinds usable now, in order (usable_tiles' first part)  # ?held_kinds
            for x in tiles_of[p]:  # (a loop over so few costs less than map, filter and fromkeys)  # ?held_kinds
                if x.usable:  # ?held_kinds
                    held_kinds[x.usable] = None  # ?held_kinds
            # a tile usable any time, unused: between the builds it is offered too (_pick below)  # ?any_tile
            anytime = held_kinds and not any_time.isdisjoint(held_kinds)  # ?any_tile
            if (tiles_of[p] or grants) and self._holds_any_time(p):  # ?any_time timed
                break  # ?any_time timed
            moves += 1
            usable = None  # ?!turns
            usable = (self.usable_tiles(p) if self.phase else [  # usable_tiles, in line  # ?turns !inline
                *held_kinds, *filter(self.grant_left[p].get, turn_grants),  # ?turns !inline
            ])  # ?turns !inline
            mand_left = self.mand_left  # ?inline
            self._risky = -1  # (_pick's, before the grants' moves are listed)  # ?inline
            fixed = -1  # ?inline kinds
            if self.phase:  # ?inline
                usable = self.usable_tiles(p)  # ?inline
                granted = 0  # ?inline
            else:  # usable_tiles, in line, but the grants listed in line: their moves (granted)  # ?inline
                left = self.grant_left[p]  # ?inline
                usable = [*held_kinds, *filter(left.get, turn_grants)]  # ?inline !inline_all
                usable = held_kinds  # (its keys)  # ?inline_all
                @@inline_uses@@  # ?inline
            mand_left = self.mand_left  # ?!inline
            if mand_left <= 0 or not self.built:  # where a tile may be used: the kinds usable now  # ?!grants !any_tile
            if mand_left <= 0 or not self.built or anytime:  # (or one usable any time)  # ?!grants any_tile
                for x in tiles_of[p]:  # (a loop finds none cheaper than the dict's C calls)  # ?!grants
                    if x.usable:  # ?!grants
                        usable = fromkeys(filter(None, map(usable_kind, tiles_of[p])))  # ?!grants
                        break  # ?!grants
            if mand_left > 0:  # ?!any_tile
            if mand_left > 0 and not anytime:  # ?any_tile
                if not self.choosing and (  # (a choice of cards: _pick)  # ?choosing
                if (  # ?!choosing
                    self.built or not (  # usable_tiles, in line where no grant is usable now  # ?grants !turns
                        (usable := self.usable_tiles(p)) if instead or self.phase  # ?grants !turns
                        else tiles_of[p] and (  # ?grants !turns
                            usable := fromkeys(filter(None, map(usable_kind, tiles_of[p])))  # ?grants !turns
                        )  # ?grants !turns
                    )  # ?grants !turns
                    self.built or not usable  # ?turns !inline
                    self.built or not (usable or granted)  # ?inline
                    usable is None  # ?!grants
                ):
                    if ready:  # ?ready
                        targets, ready, card = ready, 0, hand[p]  # ?ready
                    else:  # ?ready
                        @@mandatory@@  # ?ready
                    @@mandatory@@  # ?!ready
                    if targets:
                        moves += take_builds(self, p, -1, getrandbits, max_moves - moves + 1, targets)  # ?!lean
                        if self.react_saved is not None:  # ?reactions !lean
                            break  # ?reactions !lean
                        if self.waived:  # ?lean
                            moves += take_builds(self, p, -1, getrandbits, max_moves - moves + 1, targets)  # ?lean
                            if self.react_saved is not None:  # ?reactions lean
                                break  # ?reactions lean
                            continue  # ?lean
                        to = -1  # ?lean
                        @@builds@@  # ?lean
                        continue
            elif not (  # ?grants !turns
                (usable := self.usable_tiles(p)) if instead or self.phase  # ?grants !turns
                else tiles_of[p] and (usable := fromkeys(filter(None, map(usable_kind, tiles_of[p]))))  # ?grants !turns
            ):  # ?grants !turns
            elif not usable:  # ?turns !inline
            elif not (usable or granted):  # ?inline
            elif usable is None:  # ?!grants
                while getrandbits(1):  # randrange(1)
                    pass
                self._mandatory = None
                log.append(end)
                @@end_turn@@
                break
            @@pick@@
"""

#: The mandatory builds while they are the only moves where `_BUILDS` does not take them (builds
#: that trigger something, or with adjacency waived): the first on hex `to` (drawn already; with
#: to < 0, drawn from `targets`, the mandatory targets), each next one drawn as sample_action would
#: (kbdsl.seeds.below, written out), each applied by `_mandatory_build`; as many as are due, the
#: card allows and `budget` (moves, the first included) leaves, up to a tile or grant usable
#: between the builds (whose moves come between them) or a last tile taken (the reactions come
#: next). Returns the number made after the first.
_TAKE = """
def take_builds(self, p, to, getrandbits, budget, targets=0):
    g = self.game
    log, supply, build = self.log, self.supply, g.code_base[BUILD]
    made = 0
    while True:
        if to < 0:
            @@draw@@
        self._mandatory = None
        log.append(build + to)
        self._mandatory_build(p, to)
        if self.mand_left <= 0 or not supply[p] or made + 1 >= budget:
            break
        if self.reacting:  # ?reactions
            break  # ?reactions
        if self.tiles[p] and not g.any_time.isdisjoint(map(kind_of, self.tiles[p])):  # ?any_time !timed
            break  # ?any_time !timed
        if self._holds_any_time(p):  # ?any_time timed
            break  # ?any_time timed
        targets = self.mandatory_targets()
        if not targets:
            break
        to = -1
        made += 1
    if self.pending_left or (self.mand_left > 0 and not (supply[p] and self.mandatory_targets())):
        self._settle()
    if self.reacting:  # ?reactions
        self._react()  # ?reactions
    return made
"""

#: The targets of the mandatory action (`mandatory_targets`), straight on its board table where it has one.
_MANDATORY = """
targets = self.mandatory_targets()  # ?!table
card = hand[p]  # ?table
try:  # ?table
    targets = mtables[card]  # ?table
except KeyError:  # ?table
    targets = self.card_table(maction, mtables, card)  # ?table
occ = self.occ  # ?table
targets ^= targets & (occ | self.blocked)  # ?table auras
targets ^= targets & occ  # ?table !auras
if not self.waived:  # ?table adjacent
    near = targets & nb[p]  # ?table adjacent
    if near:  # ?table adjacent
        targets = near  # ?table adjacent
"""

#: `_MANDATORY` where the player may choose among cards: while choosing, every card's targets
#: (`mandatory_targets`, through Hand.over_cards); for one card of several choices and no other,
#: each choice's table less the taken hexes, with its own adjacency, merged (_cards_board_targets'
#: loop, in line: no call of it, of mandatory_targets and of card_choices).
_CARDS = """
if self.choosing:  # ?table
    card = hand[p]  # ?table faces
    if self.spare[p] or card not in faces or not faced:  # ?table faces
        targets = self.mandatory_targets()  # ?table faces
    else:  # ?table faces
        taken, targets = self.occ | self.blocked, 0  # ?table faces
        for face in faces[card]:  # ?table faces
            try:  # ?table faces
                cand = mtables[face]  # ?table faces
            except KeyError:  # ?table faces
                cand = self.card_table(maction, mtables, face)  # ?table faces
            cand ^= cand & taken  # ?table faces
            if not self.waived:  # ?table faces adjacent
                near = cand & nb[p]  # ?table faces adjacent
                if near:  # ?table faces adjacent
                    cand = near  # ?table faces adjacent
            targets |= cand  # ?table faces
    targets = self.mandatory_targets()  # ?table !faces
else:  # ?table
    @@mandatory@@  # ?table
@@mandatory@@  # ?!table
"""

#: The builds of the mandatory action where they trigger nothing (`mandatory_lean`) and adjacency
#: is not waived: _mandatory_build and the board table's targets in one loop, the fields it
#: changes as locals, written back after (the first drawn from `targets` here too, where to < 0).
_BUILDS = """
occ, around, taken = self.occ, nb[p], self.taken[p]
occ0 = occ  # ?on_build
limit = mand_left
if supply[p] < limit:
    limit = supply[p]
if max_moves - moves + 1 < limit:
    limit = max_moves - moves + 1
table = mtables[card]
if self.blocked:  # ?auras
    table ^= table & self.blocked  # ?auras
count = 0
while True:
    if to < 0:
        @@draw@@
    log.append(build + to)
    occ |= bit_of[to]
    around |= nbr_mask[to]
    count += 1
    self.occ, nb[p] = occ, around  # ?on_build
    own[p] |= 1 << to  # ?on_build
    near = tile_near[to]
    if near and near ^ (near & taken):
        holdings_gain(self, p, to)  # ?!on_gain
        self._landed(p, to)  # ?on_gain
        taken = self.taken[p]
        self._pay(p, on_build, 1 << to)  # ?on_build
        if self.reacting:  # ?reactions
            break  # ?reactions
        if self.waived:  # ?on_gain
            break  # ?on_gain
        if tiles_of[p] and not any_time.isdisjoint(map(kind_of, tiles_of[p])):  # ?any_time !timed
            break  # ?any_time !timed
        if tiles_of[p] and self._holds_any_time(p):  # ?any_time timed
            break  # ?any_time timed
    else:  # ?on_build
        self._pay(p, on_build, 1 << to)  # ?on_build
    if count >= limit:
        break
    targets = table ^ (table & occ)
    near = targets & around  # ?adjacent
    if near:  # ?adjacent
        targets = near  # ?adjacent
    if not targets:
        break
    to = -1
new = occ ^ self.occ  # ?!on_build
new = occ ^ occ0  # ?on_build
own[p] |= new
self.mand_built |= new
self.occ, nb[p] = occ, around
supply[p] -= count
self.mand_left = mand_left - count
self.built += count
if not self.mand_left:  # ?on_mandatory
    self._pay(p, g.on_mandatory, self.mand_built)  # ?on_mandatory
moves += count - 1
self._mandatory = None
if not supply[p]:
    self.ending = True
if self.mand_left > 0:  # (a tile taken may have acted: the card's table read again)  # ?on_gain
    @@still_due@@  # ?on_gain
        self._settle()  # ?on_gain
if self.mand_left > 0 and not (supply[p] and table ^ (table & occ)):  # ?!on_gain
    self._settle()  # ?!on_gain
if self.reacting:  # ?reactions
    self._react()  # ?reactions
    break  # ?reactions
"""

#: A random hex `to` of `targets` as sample_action draws it (kbdsl.seeds.below, written out: the
#: bits of the count, a draw too large drawn again), the three lowest and the highest without
#: nth_bit (`targets` is not read after).
_DRAW = """
n = targets.bit_count()
k = n.bit_length()
r = getrandbits(k)
while r >= n:
    r = getrandbits(k)
if r < 3:
    if r:
        targets &= targets - 1
        if r == 2:
            targets &= targets - 1
    to = (targets ^ (targets - 1)).bit_length() - 1
elif r == n - 1:
    to = targets.bit_length() - 1
elif r < 8 and r + r < n:  # nth_bit's short cases, in line: the r lowest cleared
    while r:
        targets &= targets - 1
        r -= 1
    to = (targets ^ (targets - 1)).bit_length() - 1
elif n - r < 9 and r + r >= n:  # ... or the n - 1 - r highest
    r = n - 1 - r
    while r:
        targets ^= 1 << (targets.bit_length() - 1)
        r -= 1
    to = targets.bit_length() - 1
else:
    to = nth_bit(targets, r)
"""

#: The end of the turn and the start of the next one (`_end_turn`, `_new_turn`), outside phases of grants.
_END_TURN = """
if self.phase:  # ?grants
    self._end_turn()  # ?grants
    break  # ?grants
if self.spare[p] or self.wild is not None:  # ?plain_hand !faces
if self.spare[p]:  # (a card of several choices played as one: itself discarded below)  # ?plain_hand faces
held = tiles_of[p]  # ?!plain_hand one_card
restated = self.spare[p] or self.wild is not None  # ?!plain_hand one_card !faces
restated = self.spare[p]  # ?!plain_hand one_card faces
if not restated:  # a tile held that restates the hand (a loop over so few costs less than map)  # ?!plain_hand one_card
    for x in held:  # ?!plain_hand one_card
        if x.kind in hand_tiles:  # ?!plain_hand one_card
            restated = True  # ?!plain_hand one_card
            break  # ?!plain_hand one_card
if restated:  # ?!plain_hand one_card
    self.refill(p)  # ?one_card
else:  # one card, and no tile held restates the hand: Hand.refill's discard_and_draw  # ?one_card
    card = hand[p]  # ?one_card !faces
    card = self.wild  # the card played, as one of its choices (Hand.played_card's: p's turn)  # ?one_card faces
    if card is None:  # ?one_card faces
        card = hand[p]  # ?one_card faces
    else:  # ?one_card faces
        self.wild = None  # ?one_card faces
    if card is not None:  # ?one_card
        self.discard.append(card)  # ?one_card
    deck = self.deck  # ?one_card
    hand[p] = deck.pop() if deck else self.draw()  # ?one_card
self.refill(p)  # ?!one_card
held = tiles_of[p]  # ?plain_hand
held = tiles_of[p]  # ?!plain_hand !one_card
if held:
    if lose_later:  # ?refresh
        self.refresh_tiles(p)  # ?refresh
    else:  # refresh_tiles where nothing is lost: the tiles usable again, in place, until one expires  # ?refresh
        for i, x in enumerate(held):  # ?refresh
            if x.kind in expiring:  # refresh_tiles (the tiles before it are usable again already)  # ?refresh
                self.refresh_tiles(p)  # ?refresh
                break  # ?refresh
            if x.fresh is not x:  # ?refresh
                held[i] = x.fresh  # ?refresh
    tiles_of[p] = list(map(fresh_of, held))  # ?!refresh
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
self._new_turn()  # ?draw_start
self.turn_supply = supply[after]  # ?!draw_start
self.mand_left = mcount  # ?!draw_start
self.built = self.mand_built = 0  # (nothing is pending: the inner loop runs only while nothing is)  # ?!draw_start
self.waived = False  # ?!draw_start
if self.drawn is not None:  # ?!draw_start
    self.set_drawn(None)  # ?!draw_start
if self.later[after] is not None:  # modifiers waiting for this turn (kbdsl.engine.later)  # ?!draw_start delayed
    extra, self.waived = self.take_later(after)  # ?!draw_start delayed
    if mcount > 0:  # ?!draw_start delayed
        self.mand_left += extra  # ?!draw_start delayed
self.choosing = True if self.spare[after] else hand[after] in faces  # ?!draw_start choosing faces
self.choosing = True if self.spare[after] else False  # (no card of several choices)  # ?!draw_start choosing !faces
if turn_uses is not None:  # give_grants, in line where each is given once a turn (phase TURNS)  # ?!draw_start grants
    self.grant_left[after].update(turn_uses)  # ?!draw_start grants
else:  # ?!draw_start grants
    self.give_grants(after)  # ?!draw_start grants
if mcount > 0:  # ?!draw_start !delayed
if self.mand_left > 0:  # ?!draw_start delayed
    p = after  # ?!draw_start
    targets = 0  # ?!draw_start
    if supply[p]:  # ?!draw_start
        @@mandatory@@  # ?!draw_start !choosing
        @@cards@@  # ?!draw_start choosing
        ready = targets  # ?ready
    if not targets:  # ?!draw_start
        self._settle()  # ?!draw_start
"""

#: One decision among the moves of a turn with tiles (`_pick` over `_runs`, with no tile action
#: going on and no choice of cards), and the move applied.
_PICK = """
out = []
total = 0  # the moves of the runs in out, counted as they are added
self._risky = -1  # ?!inline
choosing = self.choosing  # ?choosing
fixed = -1  # ?kinds !inline
stop = False
if mand_left > 0:
    if ready:  # ?ready
        targets, ready, card = ready, 0, hand[p]  # ?ready
    else:  # ?ready
        @@mandatory@@  # ?ready !choosing
        @@cards@@  # ?ready choosing
    @@mandatory@@  # ?!ready !choosing
    @@cards@@  # ?!ready choosing
    if targets:
        out.append((build, targets))
        total += targets.bit_count()
    stop = self.built
    if stop and anytime:  # between the builds: the tiles usable any time (_runs' _any_time)  # ?any_tile
        for tile in usable:  # ?any_tile
            if tile in any_time:  # ?any_tile
                for name, action, base, by_card in plan[tile]:  # ?any_tile
                    total += steps(self, name, action, out)  # ?any_tile
if not stop:
    if usable is None:  # ?!turns
        usable = self.usable_tiles(p)  # ?grants !turns
        usable = fromkeys(filter(None, map(usable_kind, tiles_of[p])))  # ?!grants
    plain = supply[p] > 0
    for tile in usable:
        for name, action, base, by_card in plan[tile]:
            @@tile_runs@@
    if granted:  # the grants' moves, listed before the decision  # ?inline
        out += grant_runs  # ?inline
        total += granted  # ?inline
    if self.mand_left <= 0:  # ?!forced
    if self.mand_left <= 0 and not self._forced_use(out):  # ?forced
        out.append((end, 1))
        total += 1
@@draw_run@@
if anytime:  # the drawn move alone (apply_action): the tile is offered again before the next  # ?any_tile
    ready = 0  # ?any_tile ready
    self.apply_action(base + k)  # ?any_tile
    break  # (the turn may have ended: the outer loop reads the player again)  # ?any_tile
if base == build and self.mand_left > 0:
    if choosing:  # the first build plays the card of its terrain  # ?choosing
        self._play_card(p, k)  # ?choosing !faces
        card = hand[p]  # ?choosing faces
        if self.spare[p] or card not in faces:  # ?choosing faces
            self._play_card(p, k)  # ?choosing faces
        else:  # one card of several choices: _play_card's, in line  # ?choosing faces
            self.choosing = False  # ?choosing faces
            terrain = terrain_at(k)  # ?choosing faces
            if terrain in faces[card]:  # ?choosing faces
                self.wild = card  # ?choosing faces
                hand[p] = terrain  # ?choosing faces
                n = face_count.get((card, terrain))  # the choice's own number of builds  # ?choosing faces
                if n is not None and not self.built:  # ?choosing faces
                    self.mand_left += n - mcount  # ?choosing faces
        self._mandatory = None  # (mandatory_targets kept the cards' targets)  # ?choosing
        mand_left = self.mand_left  # ?choosing lean
        card = hand[p]  # ?choosing lean
        if card not in mtables:  # ?choosing lean
            self.card_table(maction, mtables, card)  # ?choosing lean
    moves += take_builds(self, p, k, getrandbits, max_moves - moves + 1)  # ?!lean
    if self.react_saved is not None:  # ?reactions !lean
        break  # ?reactions !lean
    if self.waived:  # ?lean
        moves += take_builds(self, p, k, getrandbits, max_moves - moves + 1)  # ?lean
        if self.react_saved is not None:  # ?reactions lean
            break  # ?reactions lean
        continue  # ?lean
    to = k  # ?lean
    @@builds@@  # ?lean
    continue
tile = plain_builds.get(base)  # ?lean
if tile is not None and mask.__class__ is int:  # ?lean
    self._mandatory = None  # ?lean
    if choosing and base not in free_builds:  # ?lean choosing
        if hand[p] not in g.leave_choice:  # it uses the card of its hex's terrain: apply_action's  # ?lean choosing
            self._play_card(p, k)  # ?lean choosing
            if hand[p] not in mtables:  # ?lean choosing
                self.card_table(maction, mtables, hand[p])  # ?lean choosing
    log.append(base + k)  # ?lean
    if tile in grants:  # a grant's use (mark_used's, in line)  # ?lean grants
        self.grant_left[p][tile] -= 1  # ?lean grants
    else:  # ?lean grants
        @@mark_used@@  # ?lean grants
    @@mark_used@@  # ?lean !grants
    bit = bit_of[k]  # ?lean
    own[p] |= bit  # ?lean
    self.occ |= bit  # ?lean
    nb[p] |= nbr_mask[k]  # ?lean
    supply[p] -= 1  # ?lean
    self.waived = False  # ?lean
    if not supply[p]:  # ?lean
        self.ending = True  # ?lean
    near = tile_near[k]  # (as _BUILDS: gain takes nothing by the tile hexes p took from)  # ?lean
    if near and near ^ (near & self.taken[p]):  # ?lean
        holdings_gain(self, p, k)  # ?lean !on_gain
        self._landed(p, k)  # ?lean on_gain
    self._pay(p, on_build, bit)  # ?lean on_build
    if self.mand_left > 0:  # ?lean
        @@still_due@@  # ?lean
            self._settle()  # ?lean
    if self.reacting:  # ?lean reactions
        self._react()  # ?lean reactions
        break  # ?lean reactions
    continue  # ?lean
tile = plain_moves.get(base)
if tile is not None:  # apply_action of a tile move's step, in line (_move, move_piece, _without written out)
    self._mandatory = None
    if choosing and base not in free_moves:  # ?choosing
        if hand[p] not in g.leave_choice:  # it uses the card of its hex's terrain: apply_action's  # ?choosing
            self._play_card(p, k % stride)  # ?choosing
            if hand[p] not in mtables:  # ?choosing table
                self.card_table(maction, mtables, hand[p])  # ?choosing table
    log.append(base + k)
    if tile in grants:  # a grant's use (mark_used's, in line)  # ?grants
        self.grant_left[p][tile] -= 1  # ?grants
    else:  # ?grants
        @@mark_used@@  # ?grants
    if tile in instead:  # ?grants
        self.mand_left = 0  # ?grants
    @@mark_used@@  # ?!grants
    frm = k // stride
    to = k - frm * stride
    if frm != to:  # (else, by the move-may-stay option, nothing changes on the board)
        swap = bit_of[frm] | bit_of[to]
        mine = own[p] ^ swap
        own[p] = mine
        self.occ ^= swap
        around = nb[p]
        for j in nbrs[frm]:  # the hexes next to frm alone drop out
            if not nbr_mask[j] & mine:
                around ^= bit_of[j]
        nb[p] = around | nbr_mask[to]
        if (kind_all[p] >> frm) & 1:  # a kind's piece  # ?kinds
            kind_all[p] ^= swap  # ?kinds
            for kind, masks in self.kind_own.items():  # move_kind, in line  # ?kinds
                if (masks[p] >> frm) & 1:  # ?kinds
                    masks[p] ^= swap  # ?kinds
                    if kind in auras:  # ?kinds auras
                        self._block()  # ?kinds auras
                    break  # ?kinds
        near = tile_near[to]
        if near and near ^ (near & self.taken[p]):
            holdings_gain(self, p, to)  # ?!on_gain
            self._landed(p, to)  # ?on_gain
        if lose_now and tile_near[frm]:  # lose(), where some tile is lost
            for x in tiles_of[p]:
                if x.kind in lose_now and not nbr_mask[x.at] & own[p]:
                    self.lose(p, None, lose_now)
                    break
    step = first_steps.get(base)  # ?steps
    if step is not None:  # the first of several: the next go on (apply_action's pending)  # ?steps
        self.pending, self.pending_up_to, self.pending_left = step  # ?steps
        self._settle()  # ?steps
        if self.reacting:  # ?steps reactions
            self._react()  # ?steps reactions
        break  # (the outer loop plays them)  # ?steps
    if self.mand_left > 0:
        @@still_due@@
            self._settle()
    if self.reacting:  # ?reactions
        self._react()  # ?reactions
        break  # ?reactions
    continue
if base == end:  # apply_action of the end of the turn, in line
    self._mandatory = None
    log.append(end)
    @@end_turn@@
    break
kind_tile = plain_kinds.get(base)  # ?kinds
if kind_tile is not None:  # apply_action of a placement or return of a player-owned kind, in line  # ?kinds
    self._mandatory = None  # ?kinds
    log.append(base + k)  # ?kinds
    tile, piece, placing = kind_tile  # ?kinds
    if tile in grants:  # a grant's use (mark_used's, in line)  # ?kinds grants
        self.grant_left[p][tile] -= 1  # ?kinds grants
    else:  # ?kinds grants
        @@mark_used@@  # ?kinds grants
    if tile in instead:  # ?kinds grants
        self.mand_left = 0  # ?kinds grants
    @@mark_used@@  # ?kinds !grants
    if placing:  # _do's, in line  # ?kinds
        cover = self.place_kind(p, piece, k)  # ?kinds
        pays = g.on_build and piece not in g.unpaid_kinds  # ?kinds on_build
        for i in (k,) if cover == 1 << k else bit_list(cover):  # each hex covered arrives like a build  # ?kinds
            if tile_near[i]:  # (as _build: gain takes nothing elsewhere)  # ?kinds
                self._landed(p, i)  # ?kinds
            if pays:  # ?kinds on_build
                self._pay(p, g.on_build, 1 << i)  # ?kinds on_build
    else:  # ?kinds
        self.return_kind(p, k)  # ?kinds
        if lose_now:  # ?kinds
            self.lose(p, None, lose_now)  # ?kinds
    if self.mand_left > 0:  # ?kinds
        @@still_due@@  # ?kinds
            self._settle()  # ?kinds
    if self.reacting:  # ?kinds reactions
        self._react()  # ?kinds reactions
        break  # ?kinds reactions
    continue  # ?kinds
drawing = draws.get(base)  # a draw then a build (plain_tile_actions' "draws"), in line  # ?steps !any_time
if drawing is not None and not choosing:  # ?steps !any_time choosing
if drawing is not None:  # ?steps !any_time !choosing
    tile, after, then, then_base = drawing  # ?steps !any_time
    self._mandatory = None  # apply_action of the draw: _do's, the build set pending  # ?steps !any_time
    log.append(base + k)  # ?steps !any_time
    self.mark_used(p, tile)  # ?steps !any_time
    if tile in g.instead:  # ?steps !any_time
        self.mand_left = 0  # ?steps !any_time
    self.set_drawn(self.draw())  # ?steps !any_time
    if self.drawn is not None:  # ?steps !any_time
        self.discard.append(self.drawn)  # ?steps !any_time
    self.pending, self.pending_left, self.pending_up_to = after, 1, False  # ?steps !any_time
    self._risky = -1  # _settle's: the build's targets (_steps'), none ending the action  # ?steps !any_time
    targets = self.build_targets(then, p) if supply[p] > 0 else 0  # ?steps !any_time
    if not targets:  # ?steps !any_time
        self._end_pending()  # ?steps !any_time
    if self.mand_left > 0:  # ?steps !any_time
        @@still_due@@  # ?steps !any_time
            self._settle()  # (a card replaced: the outer loop plays the build, if any)  # ?steps !any_time
            if self.pending_left:  # ?steps !any_time
                break  # ?steps !any_time
    if not targets:  # ?steps !any_time
        continue  # ?steps !any_time
    ready = 0  # ?steps !any_time ready
    if moves >= max_moves:  # ?steps !any_time
        break  # ?steps !any_time
    moves += 1  # the build, drawn as sample_action draws it from the one run  # ?steps !any_time
    @@draw@@  # ?steps !any_time
    self._mandatory = None  # apply_action of the build  # ?steps !any_time
    log.append(then_base + to)  # ?steps !any_time
    self._end_pending()  # ?steps !any_time
    self._build(p, to)  # ?steps !any_time
    if self.mand_left > 0 and not (supply[p] and self.mandatory_targets()):  # ?steps !any_time
        self._settle()  # ?steps !any_time
    if self.reacting:  # ?steps !any_time reactions
        self._react()  # ?steps !any_time reactions
        break  # ?steps !any_time reactions
    continue  # ?steps !any_time
self.apply_action(base + k)
if self.pending_left:  # ?!reactions
if self.pending_left or self.react_saved is not None:  # ?reactions
    break
"""


#: One tile action's runs at a decision (`_runs`' per action, written out by shape): the body of
#: the loop over `plan[tile]`, in `_PICK` and `_PENDING`.
_TILE_RUNS = """
if choosing and id(action) in card_actions:  # each card's targets: as _runs has them  # ?choosing
    if by_card is None:  # ?choosing
        total += steps(self, name, action, out)  # ?choosing
    elif plain and (targets := self.build_targets(action, p)):  # ?choosing
        out.append((base, targets))  # ?choosing
        total += targets.bit_count()  # ?choosing
    continue  # ?choosing
if by_card is None:
    shape = shapes[name]
    if shape == TILE_BUILD:  # a build whose target is no board table
        if plain:
            if action.near_own is not None:  # A & next-to(own): build_targets', in line
                try:  # near_own_part's table, in line
                    targets = tcache[("near-own", id(action), hand[p] if "card" in action.reads else None)]
                except KeyError:
                    targets = self.near_own_part(action, p)
                targets &= nb[p]
                targets ^= targets & (self.occ | self.blocked)  # ?auras
                targets ^= targets & self.occ  # ?!auras
            else:
                targets = self.build_targets(action, p)
            if targets:
                out.append((base, targets))
                total += targets.bit_count()
        continue
    if shape <= 0:  # OTHER: through _steps; PLACE, RETURN, NO_HEX, STOCK, RETURN_OWN: _steps' targets in line
        if not shape:
            total += steps(self, name, action, out)
        elif shape == PLACE:
            if self.kind_supply[action.piece][p] > 0:
                table = None if action.reads or action.piece in footprints else tcache.get((id(action), None))
                if table is None or table[-1] is None:
                    targets = self.place_targets(action, p)
                else:  # place_targets' and kind_targets' of a piece on one hex, on board_target's table, in line
                    targets = table[-1]
                    targets ^= targets & (self.occ | (0 if action.piece in past_auras else self.blocked))  # ?auras
                    targets ^= targets & self.occ  # ?!auras
                    if action.adjacent or action.required:
                        near = targets & nb[p]
                        if near or action.required:
                            targets = near
                if targets:
                    out.append((base, targets))
                    total += targets.bit_count()
        elif shape == RETURN:  # return_targets' pieces of one hex from any hex, in line
            targets = self.kind_own[action.piece][p]
            if targets and (action.source is not None or action.piece in footprints):
                targets = self.return_targets(action, p)
            if targets:
                out.append((base, targets))
                total += targets.bit_count()
        elif shape == STOCK:
            if self.stock[action.piece] > 0 and (targets := self.build_targets(action, p)):
                out.append((base, targets))
                total += targets.bit_count()
        elif shape == RETURN_OWN:
            if targets := self.return_targets(action, p):
                out.append((base, targets))
                total += targets.bit_count()
        else:
            out.append((base, 1))
            total += 1
        continue
    sources = own[p] if action.source is None else self.move_sources(action, p)  # ?!kinds
    if action.piece is None:  # move_sources, in line  # ?kinds
        sources = own[p]  # ?kinds
        if action.source is not None:  # a source of board hexes (else the shape is OTHER)  # ?kinds
            try:  # ?kinds
                sources &= tcache[("source", id(action))]  # ?kinds
            except KeyError:  # ?kinds
                sources = self.move_sources(action, p)  # ?kinds
        if sources:  # (none on a source of board hexes: the kinds are not read)  # ?kinds
            if fixed < 0:  # p's pieces no move of any kind lifts, found once a decision  # ?kinds
                fixed = 0  # unmovable(p, None), in line  # ?kinds
                for masks in unmoved:  # ?kinds
                    fixed |= masks[p]  # ?kinds
            sources ^= sources & fixed  # ?kinds
    elif action.source is None:  # a move of one kind: its pieces (move_sources')  # ?kinds
        sources = self.kind_own[action.piece][p]  # ?kinds
    else:  # ?kinds
        sources = self.move_sources(action, p)  # ?kinds
    if not sources:  # no piece to lift: no move, whatever the shape
        continue
    full = self.occ | self.blocked  # ?auras
    full = self.occ  # ?!auras
    lifting = self.blocked and sources & self.aura_own(p)  # ?auras
    if lifting:  # lifting one unblocks hexes: its targets are its own (aura_runs)  # ?auras
        sources ^= lifting  # ?auras
    run = None
    if shape == SAME:
        table = tcache.get((id(action), hand[p] if "card" in action.reads else None))  # board_table's
        cand = None if table is None else table[-1]
        if cand is None:
            cand = self.board_target(action, hand[p])
        cand ^= cand & full
        if cand and sources:
            run = same_run(sources, cand, nb[p] if action.adjacent else 0, g.tables, own[p])
    elif shape < WALK:  # ORIGIN, ORIGIN_CARD: a target per board and origin
        ocard = hand[p] if shape == ORIGIN_CARD else None
        free = every ^ full
        origins = None if action.by_shape else tcache.get(("by-offset", id(action), ocard))
        if action.by_shape:
            run = shape_run(self, action, ocard, sources, free, stride)
            if run is not None:
                table, free = run.origins.table, run.free
        elif origins is not None and not sources ^ (sources & origins.known):
            table = origins.table
            size = origins.count(sources, free)
            if size:
                run = MoveGroup(origins, sources, free, size, stride)
        else:
            run = origin_run(self, action, ocard, sources, free, stride)
            if run is not None:
                table = run.table
    elif shape == WALK:  # one slide or ray from the moving piece: counted by directions
        run = walk_run(self, action, sources, stride)
        if run is None:  # (a walk onto taken hexes: listed)
            total += steps(self, name, action, out)
            continue
        if not run.size:  # (the lifted pieces' moves, if any: aura_runs)
            run = None
    else:  # NEAR: A & next-to(own): near_own_part's free hexes next to a piece not lifted
        cand = self.near_own_part(action, p)
        cand ^= cand & full
        if cand & nb[p]:
            run = near_run(sources, cand, nb[p], g.tables, own[p])
    if lifting:  # ?auras
        total += aura_runs(self, out, g.kind_index[name], action, base, run, lifting)  # ?auras
        continue  # ?auras
    if run is None:
        continue
    @@risky@@
    risky = self._risky & sources
    if risky:  # a piece alone touching a tile's hex: its moves may offer discard variants
        total += split_run(self, out, g.kind_index[name], base, run, risky)
    else:
        out.append((base, run))
        total += run.size
    continue
if not plain:
    continue
card = hand[p]
try:
    targets = by_card[card]
except KeyError:
    targets = self.card_table(action, by_card, card)
targets ^= targets & (self.occ | self.blocked)  # ?auras
targets ^= targets & self.occ  # ?!auras
if action.adjacent and not self.waived:
    near = targets & nb[p]
    if near:
        targets = near
if targets:
    out.append((base, targets))
    total += targets.bit_count()
"""

#: A move drawn from the runs in `out` (`total` moves) as `_pick` draws it: its code base and
#: offset (`base`, `k`).
_DRAW_RUN = """
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
if mask.__class__ is not int:
    k = mask.nth(k)
elif k < 3:  # the three lowest and the highest without nth_bit, as _DRAW finds them
    if k:
        mask &= mask - 1
        if k == 2:
            mask &= mask - 1
    k = (mask ^ (mask - 1)).bit_length() - 1
elif k == size - 1:
    k = mask.bit_length() - 1
else:
    k = nth_bit(mask, k)
"""

#: A decision while a tile action of several steps goes on (`_runs`' first part, in line but in a
#: reaction): the action's next steps, as `_settle` found them, then, where it may stop there
#: (`pending_up_to`), the mandatory builds, the other tile actions and the end of the turn, and the
#: tiles usable any time where the action must finish first or the builds go on (`_any_time`); the
#: move drawn applied by `apply_action`. The outer loop's other decisions (a reaction's, or one
#: with a tile or grant usable any time held, where such grants exist) go through `sample_action`.
_PENDING = """
if self.react_saved is not None or not self.pending_left:  # (a reaction: sample_action's)  # ?reactions
if not self.pending_left:  # (a tile usable any time held: sample_action's)  # ?!reactions any_time timed
    self.apply_action(self.sample_action(rng))  # ?sampled
    continue  # ?sampled
going = g.kinds[self.pending]
self._risky = -1
seen = self._pending_runs
if seen is not None and seen[0] == (len(log), p, self.occ, hand[p], self.mand_left, self.drawn):
    out = seen[1]
    total = 0
    for base, mask in out:
        total += mask.bit_count()
else:
    out = []
    total = steps(self, going, g.rules.actions[going], out)
self._pending_runs = None
beside = not self.pending_up_to  # the action is finished first: beside it, the tiles usable any time  # ?any_time
if self.pending_up_to:
    choosing = self.choosing  # ?choosing
    fixed = -1  # ?kinds
    stop = False
    if self.mand_left > 0:
        targets = self.mandatory_targets()
        if targets:
            out.append((build, targets))
            total += targets.bit_count()
        stop = self.built
        beside = stop  # (between the mandatory builds: ditto)  # ?any_time
    if not stop:
        plain = supply[p] > 0
        for tile in fromkeys(filter(None, map(usable_kind, tiles_of[p]))):  # ?!grants
        for tile in self.usable_tiles(p):  # ?grants
            for name, action, base, by_card in plan[tile]:
                if name == going:
                    continue
                @@tile_runs@@
        if self.mand_left <= 0:  # ?!forced
        if self.mand_left <= 0 and not self._forced_use(out):  # ?forced
            out.append((end, 1))
            total += 1
if beside:  # ?any_time
    first = len(out)  # ?any_time
    self._any_time(out, going)  # ?any_time
    for base, mask in out[first:]:  # ?any_time
        total += mask.bit_count()  # ?any_time
@@draw_run@@
self.apply_action(base + k)
"""

#: Whether the mandatory build can still be made after an action applied in line: the card's board
#: table (every card's while the player chooses: `mandatory_targets`) less the taken and blocked
#: hexes, all read after the action (where a tile acts when taken, the card's table is made if it
#: is new: mandatory_targets' table_build_targets, less the adjacency, which leaves a target where
#: there is one). The `if` line whose body, written after the part, settles the turn (`_settle`)
#: where it cannot.
_STILL_DUE = """
table = self.mandatory_targets() if self.choosing else mtables[hand[p]]  # ?table !on_gain choosing
table = mtables[hand[p]]  # ?table !on_gain !choosing
table = self.mandatory_targets() if self.choosing else mtables.get(hand[p])  # ?table on_gain choosing
table = mtables.get(hand[p])  # ?table on_gain !choosing
if table is None:  # ?table on_gain
    table = self.card_table(maction, mtables, hand[p])  # ?table on_gain
table ^= table & self.blocked  # ?table auras
if not (supply[p] and table ^ (table & self.occ)):  # ?table
if not (supply[p] and self.mandatory_targets()):  # ?!table
"""

#: The pieces whose move may lose a tile (`sole_touchers`, written out: a call at most decisions
#: with a move), found once a decision.
_RISKY = """
if self._risky < 0:
    risky, held_own = 0, own[p]
    for x in tiles_of[p]:
        if x.kind in lose_now:
            touching = nbr_mask[x.at] & held_own
            if not touching & (touching - 1):
                risky |= touching
    self._risky = risky
"""

#: A held tile's use (`mark_used`, written out): the first unused tile of the kind, spent or gone.
_MARK_USED = """
held = tiles_of[p]
for i, x in enumerate(held):
    if x.usable == tile:
        break
if tile in single_use:
    del held[i]
else:
    held[i] = x.spent
"""


#: A granted action of the players' turns listed in line (`inline_grants`), appending to
#: grant_runs and counting in granted: a build on `A & next-to(own)` whose A is a table per board
#: (entry i's action, base, kind index and table: ga$i, gb$i, gk$i, gt$i, the table found once a run).
_INLINE_NEAR = """
targets = gt$i & nb[p]
if targets:  # (A next to p's pieces: mostly none, the taken hexes and the supply not read)
    targets ^= targets & (self.occ | self.blocked)  # ?auras
    targets ^= targets & self.occ  # ?!auras
    if targets and supply[p] > 0:
        grant_runs.append((gb$i, targets))
        granted += targets.bit_count()
"""

#: ... a move with the same targets from every source (SAME) of no piece kind, card or adjacency,
#: from all of p's pieces or from a source of board hexes (its table gs$i): the generic SAME
#: listing with the tables found once a run.
_INLINE_SAME = """
sources = own[p] & gs$i  # ?source
sources = own[p]  # ?!source
if sources:  # ?kinds
    if fixed < 0:  # ?kinds
        fixed = 0  # ?kinds
        for masks in unmoved:  # ?kinds
            fixed |= masks[p]  # ?kinds
    sources ^= sources & fixed  # ?kinds
if sources:
    full = self.occ | self.blocked  # ?auras
    full = self.occ  # ?!auras
    lifting = self.blocked and sources & self.aura_own(p)  # ?auras
    sources ^= lifting  # ?auras
    cand = gt$i
    cand ^= cand & full
    if not (cand and sources):
        run = None
    elif sources == gw$i[0] and cand == gw$i[1]:  # the run last found, on these hexes (never changed)
        run = gw$i[2]
    else:  # (with no adjacency it reads nothing else: nothing the moves between decisions change)
        run = same_run(sources, cand, 0, g.tables, own[p])
        gw$i = (sources, cand, run)
    if lifting:  # ?auras
        granted += aura_runs(self, grant_runs, gk$i, ga$i, gb$i, run, lifting)  # ?auras
    elif run is not None:  # ?auras
    if run is not None:  # ?!auras
        @@risky@@
        risky = self._risky & sources
        if risky:
            granted += split_run(self, grant_runs, gk$i, gb$i, run, risky)
        else:
            grant_runs.append((gb$i, run))
            granted += run.size
"""

_INLINE_KINDS = {"near": _INLINE_NEAR, "same": _INLINE_SAME, "same-source": _INLINE_SAME}


def inline_grants(g) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The granted actions of the players' turns the playout lists in line, as (grant, ((action
    name, how), ...)): the last of `turn_grants` (so they come last in `usable_tiles`, in order)
    whose every action is a build on `A & next-to(own)` with A a table per board ("near") or a
    move with the same targets from every source ("same", "same-source": of board hexes), reading
    no card and locked by none; cached per rule set and move-may-stay."""
    seen = _INLINE.get(g.rules, g.may_stay)
    if seen is None:
        shapes, rules, found = move_shapes(g), g.rules, []
        for grant in reversed(g.turn_grants):
            names = rules.entries.get(grant, ())
            hows = [_inline_how(shapes[name], rules.actions[name], g.card_actions) for name in names]
            if not names or None in hows:
                break
            found.insert(0, (grant, tuple(zip(names, hows, strict=True))))
        seen = _INLINE.put(g.rules, g.may_stay, tuple(found))
    return seen


_INLINE: ByOwner[tuple] = ByOwner()


def _inline_how(shape: int, action, card_actions: frozenset) -> str | None:
    if "card" in action.reads or id(action) in card_actions:
        return None
    if shape == TILE_BUILD and action.near_own is not None and not action.reads <= {"card"}:
        return "near"
    if shape == SAME and action.piece is None and not action.adjacent:
        return "same" if action.source is None else "same-source"
    return None


def inline_locals(g) -> tuple:
    """What the playout binds of `inline_grants`: the other grants of the turns (usable_tiles'
    list), each grant's name, then each action's (action, code base, kind index)."""
    found = inline_grants(g)
    out: list = [g.turn_grants[: len(g.turn_grants) - len(found)], *(grant for grant, _ in found)]
    for _, entries in found:
        for name, _ in entries:
            out += (g.rules.actions[name], g.code_base[g.kind_index[name]], g.kind_index[name])
    return tuple(out)


def _inline_parts(found: tuple, conds: dict[str, bool]) -> dict[str, str]:
    """The template parts of the grants listed in line: the locals bound once a run (the board
    tables they read, found then: they read no card), and at a decision where _pick would list
    them, their uses (gu$j) and their moves (`grant_runs`, `granted` moves: none lets the turn's
    shortcuts, the mandatory builds alone or the end of the turn alone, go on as where nothing is
    granted)."""
    grants = [f"gn{j}" for j in range(len(found))]
    entries = [how for _, hows in found for _, how in hows]
    bound = ["turn_grants", *grants] + [f"{x}{i}" for i in range(len(entries)) for x in ("ga", "gb", "gk")]
    setup = [f"{', '.join(bound)} = inline_locals(g)"]
    for i, how in enumerate(entries):
        if how == "near":
            setup.append(f"gt{i} = self.near_own_part(ga{i}, self.current)")
            continue
        if how == "same-source":  # move_sources' table of board hexes
            setup += [f"self.move_sources(ga{i}, self.current)", f'gs{i} = tcache[("source", id(ga{i}))]']
        setup += [f"gt{i} = self.board_target(ga{i}, None)", f"gw{i} = (0, 0, None)"]  # SAME: (sources, cand, run)
    uses = ["granted = 0", "if mand_left <= 0 or not self.built:"]
    uses.append("    try:  # (the uses a turn's start gives: every grant of the turns has its key)")
    uses += [f"        gu{j} = left[gn{j}]" for j in range(len(found))]
    uses.append("    except KeyError:  # (a position arranged or loaded without some)")
    uses += [f"        gu{j} = left.get(gn{j})" for j in range(len(found))]
    uses.append("    grant_runs = []")
    i = 0
    for j, (_, hows) in enumerate(found):
        uses.append(f"    if gu{j}:")
        for _, how in hows:
            part = _INLINE_KINDS[how].replace("$i", str(i))
            uses += ["        " + line for line in _expand(part, {**conds, "source": how == "same-source"})]
            i += 1
    return {"inline_setup": "\n".join(setup), "inline_uses": "\n".join(uses)}


def _deciding(rules) -> frozenset[str]:
    """The tiles whose being in play decides a condition (_conditions' `play`): those restating the
    hand, with an action naming a piece kind, of several steps, or with another due after it."""
    seen = _DECIDING.get(rules)
    if seen is not None:
        return seen
    tile = rules.action_tile
    out = {tile[n] for n, a in rules.actions.items() if a.piece in rules.kinds or a.steps or n in rules.follow}
    return _DECIDING.put(rules, (), frozenset(out | rules.tile_cards.keys()))


def _conditions(g, every: bool = False) -> dict[str, bool]:
    """What the template's lines are kept for, from the game's rules and options and what its
    tiles in play can do (all of the rule set's if `every`): the kinds of pieces their actions
    name, hands they restate, actions of several steps (a board whose tiles give no pieces, no
    second card and no move of several steps plays the code of a rule set without them)."""
    r, m = g.rules, g.mandatory
    life = lifecycles(r, g.options) if every else g  # (the tiles' lifecycles: a game's are those of its tiles in play)
    play = r.tiles.keys() if every else g.in_play
    acts = [a for n, a in r.actions.items() if r.action_tile[n] in play]  # the tiles' actions in play
    named = placed = r.kinds.keys()  # kinds an action in play places, moves or returns; ... places
    if not every:  # (a kind no action in play places stands nowhere)
        named = {a.piece for a in [*r.mandatory, *acts]}
        placed = {a.piece for a in [*r.mandatory, *acts] if a.kind == "place"}
    several = g.hand_size > 1 or any(n > 1 for t, n in g.hand_tiles.items() if t in play)
    table = m is not None and g.mandatory_tables is not None  # (read only where the player chooses no card)
    inline = g.turn_grants and inline_grants(g)
    choosing = several or bool(g.faces)
    out = {
        "choosing": choosing,
        "faces": bool(g.faces),
        "any_time": bool(life.any_time),
        "grants": bool(g.grants),
        "timed": not life.any_time.isdisjoint(g.grants),  # a grant usable between the mandatory builds
        "any_tile": bool(life.any_time) and life.any_time.isdisjoint(g.grants),  # ... only tiles: listed in line
        "turns": bool(g.turn_grants),  # grants usable every turn (so none instead of the mandatory action)
        "inline": bool(inline),  # ... some of them listed in line (the key adds which)
        "inline_all": bool(inline) and len(inline) == len(g.turn_grants),  # ... all of them
        "table": table,
        "lean": table and g.mandatory_lean,
        "adjacent": m is not None and m.adjacent,
        "auras": not g.aura_kinds.isdisjoint(placed),
        "forced": bool(life.forced),
        "plain_hand": not several and not g.draw_at_start,  # (Game.plain_hand, of the tiles in play)
        "one_card": g.hand_size == 1 and not g.draw_at_start,
        "refresh": bool(life.lose_later or life.expiring),
        "delayed": g.delayed,
        "draw_start": g.draw_at_start,
        # the turn's start reuses its mandatory targets: a board table, no card drawn at the start (the
        # next-turn modifiers and the turn's grants are given before the targets are found)
        "ready": table and not g.draw_at_start,
        "on_gain": bool(life.on_gain),
        "on_build": bool(g.on_build),
        "kinds": not r.kinds.keys().isdisjoint(named),
        "on_mandatory": bool(g.on_mandatory),
        # (the rule set's: a game whose reactions no one can have only never starts one, Holdings.gain)
        "reactions": any(PHASES[st.resolve(g.options)["phase"]] == REACT for st in g.rules.grant_settings.values()),
        # an action of several steps, or one due after another (the first step of a move of
        # several may be applied in line: plain_tile_actions' "steps")
        "steps": any(map(attrgetter("steps"), acts)) or any(r.action_tile[n] in play for n in r.follow),
    }
    # the held tiles' kinds usable now, found once a decision where any_tile or usable_tiles in line reads them
    out["held_kinds"] = out["turns"] or out["any_tile"]
    # ... whose later steps are drawn in line (_PENDING) where _runs lists nothing but the tiles
    out["pending"] = out["steps"]
    # ... but a reaction's, or where no step is pending a decision of a player holding a tile usable any time
    out["sampled"] = out["reactions"] or (out["any_time"] and out["timed"])
    return out


def _keep(line: str, conds: dict[str, bool]) -> str | None:
    """The line without its condition, or None if the condition fails."""
    code, sep, tail = line.partition("# ?")
    if not sep:
        return line
    for name in tail.split():
        if conds[name.lstrip("!")] == name.startswith("!"):
            return None
    return code.rstrip()


def _expand(text: str, conds: dict[str, bool], indent: str = "", parts: dict[str, str] | None = None) -> list[str]:
    out = []
    for line in text.strip("\n").splitlines():
        kept = _keep(line, conds)
        if kept is None:
            continue
        stripped = kept.strip()
        if stripped.startswith("@@") and stripped.endswith("@@"):
            pad = indent + kept[: len(kept) - len(kept.lstrip())]
            out += _expand((parts or _PARTS)[stripped.strip("@")], conds, pad, parts)
        else:
            out.append(indent + kept)
    return out


_PARTS = {
    **{"draw": _DRAW, "mandatory": _MANDATORY, "cards": _CARDS},
    **{"builds": _BUILDS, "end_turn": _END_TURN, "pick": _PICK, "mark_used": _MARK_USED},
    **{"still_due": _STILL_DUE, "risky": _RISKY},
    **{"tile_runs": _TILE_RUNS, "draw_run": _DRAW_RUN, "pending": _PENDING},
}
_CACHE: dict[tuple, Callable] = {}
#: The playout of a rule set, options and what the dealt cards decide of the conditions (whether
#: some trigger on builds or on the mandatory action: _conditions reads nothing else of them, so a
#: new set of cards, as task cards dealt by sections make nearly every game, reads no conditions again:
#: 1.7 us a game), the grants someone may have (kbdsl.engine.setup's _may_hold), what the lifecycles
#: of its tiles in play leave (acting when taken, usable any time, forced, kept a turn) and the tiles
#: in play that decide some (_deciding), with what it leaves out of the rule set's whole code (a second
#: card, auras, piece kinds: an arranged position may hold them); an entry keeps its rule set alive and
#: is used only for it.
_OF_GAME: ByOwner[tuple[Callable, tuple[bool, bool, bool] | None]] = ByOwner(4096)
_DECIDING: ByOwner[frozenset[str]] = ByOwner()  # rule set -> _deciding's tiles


def source(g, conds: dict[str, bool] | None = None) -> str:
    """The playout's Python source for this game's rules, options and tiles in play (or `conds`)."""
    conds = conds or _conditions(g)
    parts = {**_PARTS, **_inline_parts(inline_grants(g), conds)} if conds["inline"] else _PARTS
    return "\n".join(_expand(_TEMPLATE, conds, "", parts) + [""] + _expand(_TAKE, conds)) + "\n"


def compiled(g, state=None) -> Callable | None:
    """The compiled playout of this game (cached per set of conditions), or None where the
    interpreter's loop must play (no mandatory action). A `state` arranged with what no tile in
    play gives (pieces of a kind, cards beside the played one) is played by the rule set's whole code."""
    if g.mandatory is None:
        return None
    play = g.in_play & _deciding(g.rules)
    grants = (not g.grants, g.any_time.isdisjoint(g.grants))  # (what _conditions reads of the grants left)
    life = (not g.on_gain, not g.any_time, not g.forced, not g.lose_later, not g.expiring)  # (... of the lifecycles)
    game_key = (tuple(g.options.items()), not g.on_build, not g.on_mandatory, play, *grants, *life)
    seen = _OF_GAME.get(g.rules, game_key)
    if seen is None:
        narrow, whole = _conditions(g), _conditions(g, every=True)
        left = tuple(whole[c] and not narrow[c] for c in ("choosing", "auras", "kinds"))  # what it leaves out
        seen = _OF_GAME.put(g.rules, game_key, (_made(g, narrow), left if any(left) else None))
    if state is not None and seen[1] is not None:  # (what is left out may stand in an arranged position)
        cards, auras, kinds = seen[1]
        if cards and any(state.spare) or auras and state.blocked or kinds and any(map(any, state.kind_own.values())):
            return _made(g, _conditions(g, every=True))
    return seen[0]


def _made(g, conds: dict[str, bool]) -> Callable:
    """The playout made from these conditions (cached)."""
    key = (*conds.values(), inline_grants(g) if conds["inline"] else ())
    fn = _CACHE.get(key)
    if fn is None:
        scope = {
            "BUILD": BUILD,
            "TURNS": TURNS,
            "END_TURN": END_TURN,
            "nth_bit": nth_bit,
            "hex_bits": bits,
            "MoveGroup": MoveGroup,
            "KbdslError": KbdslError,
            "move_shapes": move_shapes,
            "plain_tile_actions": plain_tile_actions,
            "plain_kind_actions": plain_kind_actions,
            "bit_list": bit_list,
            "fromkeys": dict.fromkeys,
            "usable_kind": usable_kind,  # usable_tiles where the board grants nothing: the kinds of
            # the held tiles usable this turn, in order, as a dict's keys (fromkeys, filter, map: in C)
            "fresh_of": fresh_of,
            "same_run": same_run,
            "near_run": near_run,
            "inline_locals": inline_locals,
            "split_run": split_run,
            "aura_runs": aura_runs,
            "origin_run": origin_run,
            "shape_run": shape_run,
            "steps": steps,
            "SAME": SAME,
            "WALK": WALK,
            "NEAR": NEAR,
            "walk_run": walk_run,
            "ORIGIN_CARD": ORIGIN_CARD,
            "TILE_BUILD": TILE_BUILD,
            "PLACE": PLACE,
            "RETURN": RETURN,
            "STOCK": STOCK,
            "RETURN_OWN": RETURN_OWN,
            "holdings_gain": Holdings.gain,  # (a call without a method lookup)
            "kind_of": kind_of,
        }
        text, name = source(g, conds), f"<kbdsl playout {key}>"
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)  # tracebacks and profiles show its lines
        exec(compile(text, name, "exec"), scope)  # noqa: S102 (our template)
        fn = _CACHE[key] = scope["run"]
    return fn


def steps(state, name: str, action, out: list) -> int:
    """`Turn._steps` adding the runs of this action to `out`: the number of moves they hold."""
    first = len(out)
    state._steps(name, action, out)
    total = 0
    for _, mask in out[first:]:
        total += mask.bit_count()
    return total


def plain_tile_actions(g, kind: str | None) -> dict:
    """Code base -> tile, of the tile actions of this kind ("build", "move") whose move
    `apply_action` applies as one `_build` or `_move`, with no action due after it: of one step
    (the playout applies builds so where builds trigger nothing: the `lean` condition), or the
    first step of a move of several ("steps": code base -> (kind, up_to, steps left), what
    `apply_action` sets pending); and ("draws": code base -> (tile, kind, action, its code base)) a
    draw with a build of one settlement due after it (`draw then build`), the build's kind and
    action; "build-free", "move-free": the builds and moves using no card (while the player chooses
    among cards, the others play the card of their hex first); cached per rule set and board size
    (the codes' stride). `kind` None: every kind's, by kind (a lookup costs about what a table's
    use in a short game does: the playout reads several in one call)."""
    seen = _PLAIN.get(g.rules, g.tables.n)
    if seen is None:
        plain: dict[str, dict] = {"build": {}, "move": {}, "steps": {}, "draws": {}, "build-free": {}, "move-free": {}}
        for k, row in enumerate(g.kind_rows):
            if row is not None:
                _, action, tile, after = row
                if action.kind == "draw" and after is not None and not action.steps:
                    b = g.kind_index[after]
                    then = g.kind_rows[b][1]
                    if then.kind == "build" and then.count == 1 and not (then.up_to or then.steps or g.kind_rows[b][3]):
                        plain["draws"][g.code_base[k]] = (tile, b, then, g.code_base[b])
                    continue
                if action.kind not in plain or after is not None:
                    continue
                if not action.steps:
                    plain[action.kind][g.code_base[k]] = tile
                elif action.kind == "move" and not action.per_opponent:
                    plain["move"][g.code_base[k]] = tile
                    plain["steps"][g.code_base[k]] = (k, action.up_to, action.count - 1)
                else:
                    continue
                if id(action) not in g.card_actions:
                    plain[action.kind + "-free"][g.code_base[k]] = tile
        seen = _PLAIN.put(g.rules, g.tables.n, plain)
    return seen if kind is None else seen[kind]


_PLAIN: ByOwner[dict[str, dict]] = ByOwner()


def plain_kind_actions(g) -> dict[int, tuple[str, str, bool]]:
    """Code base -> (tile, kind, placing), of the tile actions placing or returning a player-owned
    piece kind that `apply_action` applies as one `_do`: of one step, nothing due after, no card
    played (cached per rule set, board size and card-locked actions)."""
    key = (g.tables.n, g.card_actions)
    seen = _PLAIN_KINDS.get(g.rules, key)
    if seen is None:
        plain: dict[int, tuple[str, str, bool]] = {}
        kinds = g.rules.kinds
        for k, row in enumerate(g.kind_rows):
            if row is not None:
                _, action, tile, after = row
                if (
                    action.kind in ("place", "return")
                    and action.piece in kinds
                    and not action.steps
                    and after is None
                    and id(action) not in g.card_actions
                ):
                    plain[g.code_base[k]] = (tile, action.piece, action.kind == "place")
        seen = _PLAIN_KINDS.put(g.rules, key, plain)
    return seen


_PLAIN_KINDS: ByOwner[dict[int, tuple[str, str, bool]]] = ByOwner()


#: How `_steps` lists a tile action's moves, by the action alone (`move_shapes`): through `_steps`
#: itself (OTHER), as a build (TILE_BUILD: `build_targets`, a target that is no board table), as
#: the same targets from every source (SAME, `move_targets`' board-only case), as targets per
#: board and origin (ORIGIN, ORIGIN_CARD: also by card; `origin_moves`' case), or as one slide or
#: ray from each source (WALK: `walk_run`), or to `A & next-to(own)` with A a table per board (NEAR:
#: `Targets._lifted_targets`' case: `near_run`).
OTHER, SAME, ORIGIN, ORIGIN_CARD, TILE_BUILD, WALK, NEAR = 0, 1, 2, 3, 4, 5, 6
#: A placement or a return of a player-owned kind (`place_targets`, `return_targets`), an action
#: on no hex (gold, ignore, draw, later: one move), a placement of a stock's piece (STOCK:
#: `build_targets` while the stock lasts) or a return of one's settlements (RETURN_OWN:
#: `return_targets`): each `_steps`' targets of one call, found without it.
PLACE, RETURN, NO_HEX, STOCK, RETURN_OWN = -1, -2, -3, -4, -5
_SHAPES: ByOwner[dict[str, int]] = ByOwner()


def move_shapes(g) -> dict[str, int]:
    """The shape of each tile action of the game's rules (cached per rule set and move-may-stay)."""
    seen = _SHAPES.get(g.rules, g.may_stay)
    if seen is None:
        seen = {name: _shape(a, g.rules.kinds, g.may_stay) for name, a in g.rules.actions.items()}
        seen.update(dict.fromkeys(g.no_hex, NO_HEX))
        _SHAPES.put(g.rules, g.may_stay, seen)
    return seen


def _shape(action, kinds, may_stay: bool) -> int:
    if action.kind == "build":
        return TILE_BUILD
    if action.kind == "place":
        return PLACE if action.piece in kinds else STOCK
    if action.kind == "return":
        return RETURN if action.piece in kinds else RETURN_OWN
    if action.kind != "move" or may_stay or action.source_reads:  # (a source of board hexes: move_sources')
        return OTHER
    reads = action.reads
    if "origin" in reads:
        if reads <= CARD_ORIGIN and not action.adjacent:
            return ORIGIN_CARD if "card" in reads else ORIGIN
        if getattr(action.target, "counter", None) is not None and not action.adjacent:
            return WALK
        return OTHER
    if action.near_own is not None and not action.adjacent:
        return NEAR
    return SAME if reads <= CARD else OTHER


#: From this many hexes of near, same_run finds those next to one piece by the board's shifts
#: (`_touching(own, 2)` and a grow: ~2.8 us whatever the size) rather than hex by hex (~0.15 us a
#: hex; replayed on a combined 4p game's calls: 16-23 hexes 3.98 -> 2.71 us, 40 and more 7.7 -> 2.8).
NEAR_LOOP = 16


class SameRun:
    """The moves of a board-only move action with the same targets `cand` from every source, as one
    run of `_runs` (what `move_targets`' runs (source, targets) are, in code order): with "adjacent
    if possible", a source's targets are the hexes of `near` still next to another of the player's
    pieces once it is lifted (all of `cand` if none). Counted without listing them: `size`.
    `touchers`: the pieces next to a hex of `single` (each such hex has one: no dilate needed)."""

    __slots__ = ("sources", "cand", "near", "single", "touchers", "nbr_mask", "stride", "size", "bit_count")

    def targets(self, s: int) -> int:
        """The targets of the piece on s."""
        near = self.near
        if not near:
            return self.cand
        kept = near ^ (near & self.single & self.nbr_mask[s])  # near & ~(single & nbr), without a negative int
        return kept or self.cand

    def movable(self) -> int:
        """The sources with a move (all but a piece that alone touches every hex of near, near_run)."""
        out = self.sources
        apart = self.touchers & out
        while apart:
            low = apart & (apart - 1)
            s = (apart ^ low).bit_length() - 1
            apart = low
            if not self.targets(s):
                out ^= 1 << s
        return out

    def extend(self, out: list[int], base: int) -> None:
        """Append the codes of every move, in code order (as MoveGroup's)."""
        stride = self.stride
        for s in bit_list(self.sources):
            extend_bits(out, base + s * stride, self.targets(s))

    def nth(self, k: int) -> int:
        """The code offset (source * stride + target) of the k-th move, in code order."""
        near, cand, rest = self.near, self.cand, self.sources
        if not near:  # the same targets from every source
            size = cand.bit_count()
            return nth_bit(rest, k // size) * self.stride + nth_bit(cand, k % size)
        single, nbr_mask, stride = self.single, self.nbr_mask, self.stride  # (single is part of near)
        # the sources next to no hex of single (most) have targets near: counted a stretch at a time
        # up to each source that is (whose targets are counted as self.targets does)
        apart = self.touchers & rest
        m = near.bit_count()
        while apart:
            low = apart & (apart - 1)
            s = (apart ^ low).bit_length() - 1
            apart = low
            plain = rest & ((1 << s) - 1)  # the sources below s
            count = plain.bit_count() * m
            if k < count:
                return nth_bit(plain, k // m) * stride + nth_bit(near, k % m)
            k -= count
            targets = near ^ (single & nbr_mask[s]) or cand  # self.targets(s), in line
            size = targets.bit_count()
            if k < size:
                return s * stride + nth_bit(targets, k)
            k -= size
            rest ^= plain | (1 << s)
        if k < rest.bit_count() * m:
            return nth_bit(rest, k // m) * stride + nth_bit(near, k % m)
        raise IndexError("move run index out of range")


def same_run(sources: int, cand: int, nb: int, t: Tables, own: int) -> SameRun:
    """The SameRun of these sources (the player's pieces `own` the action may lift) onto `cand`
    on the board of tables `t`; `nb`: the player's neighbourhood if the action is "adjacent if
    possible", else 0. A hex of near = cand & nb next to exactly one piece (`single`) is lost to
    that piece's move only, so the moves number sources * |near| - (the hexes of single next to a
    source), plus |cand| for a source that alone touches all of near."""
    run = SameRun()
    run.sources, run.cand, run.nbr_mask, run.stride = sources, cand, t.nbr_mask, t.n
    near = cand & nb
    if not near:  # the same targets from every source (most calls: a granted move's)
        run.near = run.single = run.touchers = 0
        run.size = size = sources.bit_count() * cand.bit_count()
        run.bit_count = size.__index__
        return run
    single = touchers = 0
    m = near.bit_count()
    if m < NEAR_LOOP:  # hex by hex (each hex's bit read, not isolated: 2.50 -> 2.25 us a call)
        rest, bit_of, nbr_mask = near, bits(t.n), t.nbr_mask
        while rest:  # from the top
            i = rest.bit_length() - 1
            bit = bit_of[i]
            rest ^= bit
            touching = nbr_mask[i] & own
            if not touching & (touching - 1):
                single |= bit
                touchers |= touching
    else:  # (near is part of nb: each hex has a piece next to it) by shifts of the whole board
        single = near ^ (near & _touching(own, 2, t))
        touchers = t.grow(single) & own
    size = sources.bit_count() * m
    if single:
        if touchers ^ (touchers & sources):  # a hex of single next to no source: counted hex by hex
            rest = single
            while rest:
                low = rest & (rest - 1)
                if t.nbr_mask[(rest ^ low).bit_length() - 1] & sources:
                    size -= 1
                rest = low
        else:
            size -= single.bit_count()
        if single == near and not touchers & (touchers - 1) and touchers & sources:  # one piece touches all
            size += cand.bit_count()
    run.near, run.single, run.touchers, run.size = near, single, touchers, size
    run.bit_count = size.__index__  # as MoveGroup's: a C call
    return run


def near_run(sources: int, cand: int, nb: int, t: Tables, own: int) -> SameRun:
    """same_run of a move to `A & next-to(own)` (`cand`: A's free hexes, some next to `own`), but
    a piece that alone touches every hex of near has no move (its lift leaves none next to own)."""
    run = same_run(sources, cand, nb, t, own)
    near = run.near
    if run.single == near:  # every hex of near next to one piece: to the same one?
        nbr_mask = t.nbr_mask
        low = near ^ (near & (near - 1))
        touching = nbr_mask[low.bit_length() - 1] & own
        if touching & sources and not near ^ (near & nbr_mask[touching.bit_length() - 1]):
            run.size -= cand.bit_count()  # (what same_run gave it)
            run.bit_count = run.size.__index__
    run.cand = 0
    return run


class OriginRun:
    """The moves of a move action whose targets are a table per board and origin (`table[s] & free`
    from source s), for a board whose table has not learnt these sources' offsets (OriginTable):
    counted source by source rather than by offset, in code order."""

    __slots__ = ("table", "sources", "free", "stride", "size", "bit_count")

    def nth(self, k: int) -> int:
        """The code offset (source * stride + target) of the k-th move, in code order."""
        table, free, rest = self.table, self.free, self.sources
        while rest:
            low = rest & (rest - 1)
            s = (rest ^ low).bit_length() - 1
            targets = table[s] & free
            size = targets.bit_count()
            if k < size:
                return s * self.stride + nth_bit(targets, k)
            k -= size
            rest = low
        raise IndexError("move run index out of range")


def origin_run(state, action, card: str | None, sources: int, free: int, stride: int) -> OriginRun | None:
    """The OriginRun of these sources (None if no move), filling the board's table where needed
    (as `board_target` does, one context for all the entries)."""
    table = state.board_table(action, card)
    size = 0
    rest = sources
    c = None  # the context of the entries computed here (board_target's, set up once)
    while rest:
        low = rest & (rest - 1)
        s = (rest ^ low).bit_length() - 1
        rest = low
        targets = table[s]
        if targets is None:
            if c is None:
                c = state.ctx(state.current)
                c.card, every = card, state.game.tables.all
            elif c._areas or c.memo:
                c.forget()
            c.origin = s
            targets = table[s] = action.target(c) & every
        size += (targets & free).bit_count()
    if not size:
        return None
    run = OriginRun()
    run.table, run.sources, run.free, run.stride, run.size = table, sources, free, stride, size
    run.bit_count = size.__index__
    return run


def shape_run(state, action, card: str | None, sources: int, free: int, stride: int) -> MoveGroup | None:
    """The MoveGroup of these sources (None if no move) for a move whose target splits by board
    shape (`CompiledAction.by_shape`, `Targets.shape_split`): the shape's table, and `free` without
    the hexes the target's other part leaves out."""
    origins, mask = state.shape_split(action, card, sources)
    free &= mask
    size = origins.count(sources, free)
    return MoveGroup(origins, sources, free, size, stride) if size else None


def walk_run(state, action, sources: int, stride: int) -> WalkRun | None:
    """The WalkRun of these sources for a move whose target is one slide or ray from the moving piece
    (`Targets._lifted_targets`' walk from every source, no source with an aura), or None where
    the walk's hexes hold a taken one (a walk may end there, and that end is no target) or the
    board's walks are not counted by directions (kbdsl.expr._slide_counter, _ray_counter)."""
    c = state.ctx(state.current)
    taken = state.occ
    if state.blocked:
        taken = c.occ = taken | state.blocked
    through = action.target.each[0](c)
    counter = action.target.counter(c.t)
    if through & taken or not counter:
        return None
    walks, ends = counter
    return WalkRun(sources, *walks(sources, through), ends, stride)


def split_run(
    state, out: list, kind: int, base: int, run: SameRun | OriginRun | MoveGroup | WalkRun, risky: int
) -> int:
    """Append the moves of `run` (of tile action `kind`) as `_steps` lists them where pieces on
    `risky` alone touch a tile's hex: such a piece whose move may lose a tile has its moves with
    their discard variants (`_special_runs`), and the other pieces' moves are runs between them.
    Returns the number of moves appended."""
    sources, stride, gain_zone, whole, total = run.sources, run.stride, -1, True, 0
    same = run.__class__ is SameRun or run.__class__ is WalkRun  # (targets by source: run.targets)
    table = None if same else run.table if run.__class__ is OriginRun else run.origins.table
    while risky:  # lowest first
        low = risky & (risky - 1)
        s = (risky ^ low).bit_length() - 1
        risky = low
        targets = run.targets(s) if same else table[s] & run.free
        if not targets:
            continue
        special, lifted, gain_zone = state._special_targets(s, targets, gain_zone)
        if not special:
            continue
        whole = False
        before = sources & ((1 << s) - 1)
        sources ^= before | (1 << s)
        if before and (part := _part(run, table, before)) is not None:
            out.append((base, part))
            total += part.size
        total += state._special_runs(out, kind, base + s * stride, s, targets, special, lifted)
    if whole:
        out.append((base, run))
        return run.size
    if sources and (part := _part(run, table, sources)) is not None:
        out.append((base, part))
        total += part.size
    return total


def aura_runs(
    state, out: list, kind: int, action, base: int, run: SameRun | OriginRun | MoveGroup | WalkRun | None, lifting: int
) -> int:
    """Append the moves of board-only move `action` (tile action `kind`) as `_steps` lists them
    where p's pieces on `lifting` have an aura: each such piece's moves (`move_blocks` of it
    alone: lifted, it unblocks hexes) between the runs of `run`, the moves of the other sources
    (None if none), in code order; split where a piece alone touches a tile's hex (`split_run`,
    `_special_runs`). Returns the number of moves appended."""
    first, p, stride = len(out), state.current, state.game.tables.n
    if state._risky < 0:
        state._risky = state.sole_touchers(p)
    risky = state._risky
    rest = 0 if run is None else run.sources
    table = (
        None
        if run is None or run.__class__ is SameRun or run.__class__ is WalkRun
        else run.table
        if run.__class__ is OriginRun
        else run.origins.table
    )
    while lifting:  # lowest first
        low = lifting & (lifting - 1)
        s = (lifting ^ low).bit_length() - 1
        lifting = low
        before = rest & ((1 << s) - 1)
        if before:
            rest ^= before
            if (part := _part(run, table, before)) is not None:
                split_run(state, out, kind, base, part, risky & before)
        for _, targets in state.move_blocks(action, p, 1 << s):  # (one block, or none)
            special = 0
            if (risky >> s) & 1:
                special, lifted, _ = state._special_targets(s, targets, -1)
            if special:
                state._special_runs(out, kind, base + s * stride, s, targets, special, lifted)
            else:
                out.append((base + s * stride, targets))
    if rest and (part := run if rest == run.sources else _part(run, table, rest)) is not None:
        split_run(state, out, kind, base, part, risky & rest)
    total = 0
    for _, mask in out[first:]:
        total += mask.bit_count()
    return total


def _part(
    run: SameRun | OriginRun | MoveGroup | WalkRun, table: list | None, sources: int
) -> SameRun | OriginRun | MoveGroup | WalkRun | None:
    """The moves of `run` from these of its sources alone, as a run (None if there are none)."""
    if run.__class__ is WalkRun:
        return run.part(sources)
    if run.__class__ is MoveGroup:  # counted by its table's offsets (the sources are known to it)
        size = run.origins.count(sources, run.free)
        return MoveGroup(run.origins, sources, run.free, size, run.stride) if size else None
    if table is None:  # a SameRun: |near| targets a source, but those next to a hex of single (SameRun.nth)
        near, nbr_mask = run.near, run.nbr_mask
        if not near:
            size = sources.bit_count() * run.cand.bit_count()
        else:
            m = near.bit_count()
            size = sources.bit_count() * m
            apart = run.touchers & sources
            while apart:
                low = apart & (apart - 1)
                size += run.targets((apart ^ low).bit_length() - 1).bit_count() - m
                apart = low
        if not size:
            return None
        part = SameRun()
        part.sources, part.cand, part.near, part.single, part.nbr_mask = sources, run.cand, near, run.single, nbr_mask
        part.touchers, part.stride, part.size, part.bit_count = run.touchers, run.stride, size, size.__index__
        return part
    free, size, rest = run.free, 0, sources
    while rest:
        low = rest & (rest - 1)
        size += (table[(rest ^ low).bit_length() - 1] & free).bit_count()
        rest = low
    if not size:
        return None
    part = OriginRun()
    part.table, part.sources, part.free, part.stride, part.size = table, sources, free, run.stride, size
    part.bit_count = size.__index__
    return part
