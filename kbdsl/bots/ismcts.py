"""Information-set Monte Carlo tree search (single observer, Cowling, Powley and Whitehouse 2012).

Each iteration deals the unseen cards at random (a determinisation) and walks down one tree
shared by all determinisations over the rest of the player's turn: UCB1 over the children legal
in this determinisation, counting how often each was available. A node opens its children one by
one in the order of greedy's ranking (progressive widening), so a small budget goes to whole
turns that start well rather than to 30 first moves; past the tree greedy finishes the turn
(its rankings are kept for the decision), and every player's worth (margin plus held tiles)
where the turn ends is backed up. Optionally play goes on at random to a later horizon, and the
walks cycle through a few deals and dice (common random numbers), so sibling moves meet the
same luck. By default neither (README: Strength): a walk then costs at most one scoring, and no
random turn of the next player blurs the judgement that the deals were there to average.
"""

from __future__ import annotations

import heapq
import math
import random
import time

from kbdsl.bots.base import PLAYOUTS, Seat, SeatBot
from kbdsl.bots.playout import Judge, rollout
from kbdsl.game import State


class Node:
    __slots__ = ("code", "player", "children", "visits", "avail", "value")

    def __init__(self, code: int, player: int):
        self.code, self.player = code, player  # the move that leads here, and who made it
        self.children: dict[int, Node] = {}
        self.visits = self.avail = 0
        self.value = 0.0


class IsmctsBot(SeatBot):
    """The budget, `playouts`, counts the calls of the scorers a decision may make: one at the end
    of each walk and one per move greedy judges below the root (the root's ranking is free, as for
    the Monte Carlo bot), so the time per decision is bounded whatever the position. With `reuse`, a
    position is scored once a decision (the turn's moves in another order, another deal of the same
    cards) and a walk that repeats a deal and a line of moves reuses the end it reached, at no cost
    to the budget, which thus buys more walks (at most `walk_cap` a playout); without, every walk
    and judgement is made anew (with `horizon=2, deals=16`: the bot before issue 24). A node with n
    visits may have `widen * (n + 1) ** alpha` children, greedy's favourites first; below the root
    only `cap` moves of a long list are judged. A player's worth is its margin plus `tile_gold` per
    tile it holds more than the best other (the scorers give a tile no gold, though it is worth a
    settlement a turn), divided by `scale`; `c` is the UCB1 exploration constant; `horizon` the
    turns played before the scorers judge (1: where this turn ends; None: to the end of the game);
    `deals` the deals and dice the walks cycle through (0: a fresh one each; one is enough at
    horizon 1, where only the turn's own draws, if any, are dealt; the defaults were `horizon=2,
    deals=16` until issue 24, item 4). `ms`, if given, replaces the count: walks go on until the
    decision has spent that many milliseconds of processor time (as many as the machine affords, so
    not reproducible). With `keep` (and `reuse`), the next decision of the same turn goes on from
    the tree below the move played, with its deals, walk ends and scorings, rather than anew
    (`keep=0, horizon=2, deals=16`: the moves of issue 24's second round)."""

    name = "ismcts"
    walk_cap = 2  # walks a budgeted playout at most: repeated walks are cheap but not free

    def __init__(
        self,
        seed: int | str = 0,
        playouts: int = PLAYOUTS,
        horizon: int | None = 1,
        c: float = 0.4,
        scale: float = 10.0,
        widen: float = 1.0,
        alpha: float = 0.5,
        cap: int = 24,
        deals: int = 1,
        tile_gold: float = 3.0,
        ms: float | None = None,
        reuse: bool = True,
        keep: bool = True,
        bank: bool = True,
        lend: float = 1.0,
    ):
        super().__init__(seed)
        self.playouts, self.horizon, self.c, self.scale = playouts, horizon, c, scale
        self.widen, self.alpha, self.cap, self.deals, self.tile_gold = widen, alpha, cap, deals, tile_gold
        self.ms, self.reuse, self.keep, self.bank, self.lend = ms, reuse, keep, bank, lend
        self._bank = 0.0  # processor seconds that timed decisions left unspent, for later ones: see _more
        self._kept: tuple | None = None  # the last decision's search, for the next one of the turn: see _resume
        self._priors: dict[tuple[int, ...], dict[int, float]] = {}  # per decision: see _rank
        self._spent = 0  # scorer calls spent on this decision
        self._judge = Judge(tile_gold)  # per decision: see `reuse`
        self.walks = 0  # how many the last decision made

    def act(self, seat: Seat) -> int:
        actions = seat.legal_actions()
        if len(actions) == 1:
            return actions[0]
        start = time.process_time()
        deadline = None
        if self.ms is not None:  # this decision's share, and what earlier ones left unspent (at most `lend` more)
            extra = min(self._bank, self.lend * self.ms / 1000) if self.bank else 0.0
            self._bank -= extra
            deadline = start + self.ms / 1000 + extra
        rng, turn = self.rng, seat.public.turn
        until = turn + self.horizon if self.horizon is not None else None
        self._spent = 0
        resumed = self._resume(seat)
        if resumed is None:
            root = Node(-1, -1)
            self._priors, self._judge = {}, Judge(self.tile_gold, self.reuse)
            seeds = [rng.getrandbits(64) for _ in range(self.deals)] if self.deals else None
            ends: dict[tuple, list[float]] = {}  # (deal, moves of the turn) -> worth at the horizon
            known: dict[tuple, tuple] = {}  # (deal, moves of the turn) -> (legal moves, mover), () past the turn
            orders: dict[tuple, list[int]] = {}  # (deal, moves of the turn) -> legal moves, greedy's favourite first
        else:
            root, self._priors, ends, known, orders, seeds, self._judge = resumed
        self._rank((), seat.public, actions, root=True)
        walks = 0
        while self._more(walks, deadline, root, start):
            deal = (walks if self.reuse else self._spent) % self.deals if seeds else -1
            walks += 1
            state = dice = None  # dealt when first needed: a walk along a known deal and line needs none
            node, path, key, grown = root, [root], (), False
            while True:  # the tree holds the rest of this turn
                here = known.get((deal, key))
                if here is None:
                    if state is None:
                        state, dice = self._deal(seat, seeds, deal, key)
                    here = (state.legal_actions(), state.current) if not state.over and state.turn == turn else ()
                    if seeds and self.reuse:
                        known[deal, key] = here
                if not here:
                    break
                legal, mover = here
                order = orders.get((deal, key))
                if order is None:  # sorted once per deal and line: a walk along a known one only looks it up
                    if state is None and any(a not in self._priors.get(key, ()) for a in legal):
                        state, dice = self._deal(seat, seeds, deal, key)
                    prior = self._rank(key, state, legal)
                    order = sorted(legal, key=lambda a: -prior[a])  # stable: ties in the legal order
                    if seeds and self.reuse:
                        orders[deal, key] = order
                if grown:  # past the tree, greedy finishes the turn
                    code = order[0]
                else:
                    window = order[: self._width(node.visits)]
                    code = None
                    for a in window:
                        child = node.children.get(a)
                        if child is not None:
                            child.avail += 1
                        elif code is None:
                            code = a
                    if code is not None:
                        node.children[code] = child = Node(code, mover)
                        child.avail, grown = 1, True
                        path.append(child)
                    else:
                        node = max((node.children[a] for a in window), key=self._ucb)
                        code = node.code
                        path.append(node)
                if state is not None:
                    state.apply_action(code)
                key += (code,)
            values = ends.get((deal, key))
            if values is None:  # one deal and one line of moves always end in the same place
                if state is None:
                    state, dice = self._deal(seat, seeds, deal, key)
                calls = self._judge.calls
                values = self._judge(rollout(state, dice, until))
                self._spent += self._judge.calls - calls
                if seeds and self.reuse:
                    ends[deal, key] = values
            for n in path:
                n.visits += 1
                if n.player >= 0:
                    n.value += values[n.player] / self.scale
        self.walks = walks
        if deadline is not None and self.bank:
            self._bank += max(deadline - time.process_time(), 0.0)
        code = max(root.children.values(), key=lambda n: (n.visits, n.value)).code
        if self.keep and self.reuse and seeds:
            kept = (seat.game, turn, seat.player, list(seat.public.log), sorted(seat._unseen))
            self._kept = (*kept, root, self._priors, ends, known, orders, seeds, self._judge)
        return code

    def _resume(self, seat: Seat) -> tuple | None:
        """The last decision's tree below the moves played since, with its rankings, deals, walk
        ends and scorings, if it was this player's in this turn and nothing new has been seen
        (the same unseen cards, so the same deals): the next decision of a turn goes on from the
        walks already made through its position instead of starting anew."""
        kept, self._kept = self._kept, None
        state = seat.public
        if kept is None or kept[0] is not seat.game or kept[1:3] != (state.turn, seat.player):
            return None
        _, _, _, log, unseen, node, priors, ends, known, orders, seeds, judge = kept
        if unseen != sorted(seat._unseen):
            return None
        if state.log[: len(log)] != log:
            return None
        moves = tuple(state.log[len(log) :])
        for code in moves:
            node = node.children.get(code)
            if node is None:
                return None
        n = len(moves)
        priors = {key[n:]: prior for key, prior in priors.items() if key[:n] == moves}
        ends = {(deal, key[n:]): value for (deal, key), value in ends.items() if key[:n] == moves}
        known = {(deal, key[n:]): value for (deal, key), value in known.items() if key[:n] == moves}
        # the root's moves are all ranked anew (below it only `cap` were): its orders are sorted again
        orders = {(deal, key[n:]): value for (deal, key), value in orders.items() if key[:n] == moves and key[n:]}
        return node, priors, ends, known, orders, seeds, judge

    def _deal(
        self, seat: Seat, seeds: list[int] | None, deal: int, key: tuple[int, ...]
    ) -> tuple[State, random.Random]:
        """Deal `deal` (its dice as they stand after dealing) with the moves `key` played on it."""
        dice = random.Random(seeds[deal]) if seeds else self.rng
        state = seat.sample(dice)
        for code in key:
            state.apply_action(code)
        return state, dice

    def _rank(self, key: tuple[int, ...], state: State, legal: list[int], root: bool = False) -> dict[int, float]:
        """The mover's worth after each legal move of the position that the moves `key` reach
        this turn (kept for the decision; ties broken by a tiny random amount, so neither the
        widening nor greedy favours the first hexes of the board)."""
        prior = self._priors.setdefault(key, {})
        new = [code for code in legal if code not in prior or (root and prior[code] == -math.inf)]  # root: all
        if not new:
            return prior
        if not root and len(new) > self.cap:
            self.rng.shuffle(new)
            for code in new[self.cap :]:
                prior[code] = -math.inf
            new = new[: self.cap]
        me, jitter, calls = state.current, self.rng.random, self._judge.calls
        for code in new:
            trial = state.clone()
            trial.apply_action(code)
            prior[code] = self._judge(trial)[me] + jitter() * 1e-3
        if not root:
            self._spent += self._judge.calls - calls
        return prior

    def _more(self, walks: int, deadline: float | None, root: Node, start: float) -> bool:
        """Whether the decision walks once more: until the scorer calls reach the budget (at most
        `walk_cap` walks a call, as walks that repeat a known deal and line cost no call), or
        the processor time reaches the deadline (at least one walk). With `bank`, a timed search
        also stops once the walks left at this pace could not change the move it plays (the most
        visited): the time saved goes to later decisions."""
        if deadline is None:
            return self._spent < self.playouts and walks < self.walk_cap * self.playouts
        if not walks:
            return True
        now = time.process_time()
        if now >= deadline:
            return False
        if not self.bank or walks % 8 or now <= start:
            return True
        top = heapq.nlargest(2, (n.visits for n in root.children.values()))
        left = walks * (deadline - now) / (now - start)  # walks still to come at this decision's pace
        return len(top) > 1 and top[0] - top[1] <= left or len(top) == 1 and top[0] <= left

    def _width(self, visits: int) -> int:
        return max(1, math.ceil(self.widen * (visits + 1) ** self.alpha))

    def _ucb(self, n: Node) -> float:
        return n.value / n.visits + self.c * math.sqrt(math.log(n.avail) / n.visits)
