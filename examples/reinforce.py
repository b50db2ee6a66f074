"""Self-play REINFORCE on the PettingZoo environment, with numpy only (about a minute of processor time).

    python examples/reinforce.py [--games 600] [--eval 60] [--rules base] [--seed 0] [--lr 0.05]

The policy is linear and softmax over the legal actions: an action (kind, cell) is described by
its kind and by the observation's planes at its cell and summed over the cell's six neighbours
(the planes are the observer's: seat 0 is always "me", so one policy plays every seat). Both
seats play the same policy; after every batch of games each decision moves the weights along
(features of the action taken - their mean under the policy) * (the seat's final margin / 10), by
Adam: REINFORCE with a baseline of 0 (the margins of two seats sum to 0). It prints the win
rate against `random` and `greedy` before training (the untrained policy plays uniformly at
random) and after, seats swapped; a shared win counts half. Bots act through the same
environment: their engine move is taken action by action (`Episode.action_for`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbdsl.bots import make_bot  # noqa: E402
from kbdsl.envs.pettingzoo import raw_env  # noqa: E402


class Features:
    """Per legal action, a feature vector read from the observation alone."""

    def __init__(self, env: raw_env):
        enc = env.episode.enc
        self.enc, self.kinds, self.cells = enc, len(enc.kinds), enc.grid.cells
        self.planes = len(enc.planes)
        rows, cols = enc.grid.rows, enc.grid.cols
        # the six neighbours of each cell on an odd-r grid (odd rows sit half a hex to the right)
        self.nbrs = np.full((self.cells, 6), self.cells, np.int64)  # index `cells` is a zero column
        for r in range(rows):
            for c in range(cols):
                odd = r % 2
                steps = [(0, -1), (0, 1), (-1, odd - 1), (-1, odd), (1, odd - 1), (1, odd)]
                for j, (dr, dc) in enumerate(steps):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < rows and 0 <= cc < cols:
                        self.nbrs[r * cols + c, j] = rr * cols + cc
        self.size = self.kinds + 2 * self.planes + 4

    def __call__(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        planes = self.enc.plane_view(obs).reshape(self.planes, self.cells)
        padded = np.concatenate([planes, np.zeros((self.planes, 1), planes.dtype)], axis=1)
        out = np.zeros((len(legal), self.size))
        board = legal < self.kinds * self.cells
        kind, cell = np.divmod(legal[board], self.cells)
        out[np.flatnonzero(board), kind] = 1.0
        out[board, self.kinds : self.kinds + self.planes] = planes[:, cell].T
        out[board, self.kinds + self.planes : self.kinds + 2 * self.planes] = padded[:, self.nbrs[cell]].sum(2).T
        rest = np.flatnonzero(~board)
        out[rest, self.size - 4 + legal[rest] - self.kinds * self.cells] = 1.0
        return out


def policy(theta: np.ndarray, feats: np.ndarray) -> np.ndarray:
    z = feats @ theta
    z = np.exp(z - z.max())
    return z / z.sum()


def play(env: raw_env, seed: int, choose) -> list[float]:
    """One game; `choose(seat, obs, legal)` gives each action. Returns the final margins."""
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        env.step(choose(seat, obs["observation"], np.flatnonzero(obs["action_mask"])))
    return list(env.episode.returns())


def evaluate(env: raw_env, theta: np.ndarray, feats: Features, opponent: str, games: int, seed: int) -> float:
    """The policy's win rate against a kbdsl bot (actions drawn from the policy), seats swapped."""
    ep, score, rng = env.episode, 0.0, np.random.default_rng(seed)
    for g in range(games):
        me, bot, move = g % 2, make_bot(opponent, seed + g), []

        def choose(seat, obs, legal, me=me, bot=bot, move=move):
            if seat == me:
                return int(legal[rng.choice(len(legal), p=policy(theta, feats(obs, legal)))])
            if not move or ep.choice.stage == 0:  # a new move: ask the bot for it
                move[:] = [bot.choose(ep.state)]
            return ep.action_for(move[0])

        margins = play(env, seed + g, choose)
        score += 1.0 if margins[me] > 0 else 0.5 if margins[me] == 0 else 0.0
    return score / games


def train(env: raw_env, feats: Features, games: int, seed: int, lr: float, batch: int = 8) -> np.ndarray:
    """Self-play: both seats sample from the policy; every `batch` games an Adam step along the
    mean of (features taken - expected features) * margin / 10 over the batch's decisions."""
    rng = np.random.default_rng(seed)
    theta = np.zeros(feats.size)
    m, v = np.zeros_like(theta), np.zeros_like(theta)  # Adam's moments
    grad, taken, steps = np.zeros_like(theta), 0, 0
    for g in range(games):
        trace: list[tuple[int, np.ndarray]] = []

        def choose(seat, obs, legal, trace=trace, theta=theta):  # theta changes in place
            f = feats(obs, legal)
            p = policy(theta, f)
            i = rng.choice(len(legal), p=p)
            trace.append((seat, f[i] - p @ f))
            return int(legal[i])

        margins = play(env, seed + 10_000 + g, choose)
        for seat, g_log in trace:
            grad += g_log * margins[seat] / 10.0
        taken += len(trace)
        if (g + 1) % batch == 0:
            steps += 1
            grad /= taken
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad**2
            theta += lr * (m / (1 - 0.9**steps)) / (np.sqrt(v / (1 - 0.999**steps)) + 1e-8)  # ascent
            grad[:], taken = 0.0, 0
    return theta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=600, help="self-play training games")
    ap.add_argument("--eval", type=int, default=60, help="games against each bot, before and after")
    ap.add_argument("--rules", default="base")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=0.05, help="Adam's step size")
    args = ap.parse_args()
    env = raw_env(args.rules, 2, reward="margin")
    env.reset(seed=args.seed)
    feats = Features(env)
    start = time.process_time()
    untrained = np.zeros(feats.size)
    before = {b: evaluate(env, untrained, feats, b, args.eval, 1_000_000) for b in ("random", "greedy")}
    theta = train(env, feats, args.games, args.seed, args.lr)
    after = {b: evaluate(env, theta, feats, b, args.eval, 1_000_000) for b in ("random", "greedy")}
    for b in before:
        print(f"win rate against {b:<6}: before {before[b]:.0%}, after {after[b]:.0%} ({args.eval} games each)")
    print(f"{args.games} self-play games, {time.process_time() - start:.0f} s of processor time")


if __name__ == "__main__":
    main()
