"""Information-set Monte Carlo tree search (single observer, Cowling, Powley and Whitehouse 2012).

Each iteration deals the unseen cards at random (a determinisation), walks down one tree shared
by all determinisations (UCB1 over the children legal in this one, counting how often each was
available), adds one node, plays randomly to a horizon and backs up every player's margin.
"""

from __future__ import annotations

import math

from kbdsl.bots.base import Seat, SeatBot
from kbdsl.bots.greedy import ranked
from kbdsl.bots.playout import margins, rollout


class Node:
    __slots__ = ("code", "player", "children", "visits", "avail", "value")

    def __init__(self, code: int, player: int):
        self.code, self.player = code, player  # the move that leads here, and who made it
        self.children: dict[int, Node] = {}
        self.visits = self.avail = 0
        self.value = 0.0


class IsmctsBot(SeatBot):
    """`iterations` tree walks; the root keeps the `width` moves the greedy ranking likes best.
    Values are margins in gold divided by `scale`; `c` is the UCB1 exploration constant."""

    name = "ismcts"

    def __init__(
        self,
        seed: int | str = 0,
        iterations: int = 256,
        width: int = 6,
        horizon: int | None = 2,
        c: float = 0.4,
        scale: float = 10.0,
    ):
        super().__init__(seed)
        self.iterations, self.width, self.horizon, self.c, self.scale = iterations, width, horizon, c, scale

    def act(self, seat: Seat) -> int:
        actions = seat.legal_actions()
        if len(actions) == 1:
            return actions[0]
        self.rng.shuffle(actions)
        me, rng = seat.player, self.rng
        root_moves = [code for _, code in ranked(seat.public, actions, me)[: self.width]]
        root = Node(-1, -1)
        until = seat.public.turn + self.horizon if self.horizon is not None else None
        for _ in range(self.iterations):
            state = seat.sample(rng)
            node, path = root, [root]
            while not state.over and (until is None or state.turn < until):
                legal = root_moves if node is root else state.legal_actions()
                untried = [a for a in legal if a not in node.children]
                for a in legal:
                    child = node.children.get(a)
                    if child is not None:
                        child.avail += 1
                player = state.current
                if untried:
                    code = untried[rng.randrange(len(untried))]
                    node.children[code] = child = Node(code, player)
                    child.avail = 1
                    state.apply_action(code)
                    path.append(child)
                    break
                node = max((node.children[a] for a in legal), key=self._ucb)
                state.apply_action(node.code)
                path.append(node)
            values = margins(rollout(state, rng, until))
            for n in path:
                n.visits += 1
                if n.player >= 0:
                    n.value += values[n.player] / self.scale
        return max(root.children.values(), key=lambda n: n.visits).code

    def _ucb(self, n: Node) -> float:
        return n.value / n.visits + self.c * math.sqrt(math.log(n.avail) / n.visits)
