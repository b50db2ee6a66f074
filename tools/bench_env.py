"""What an environment step costs, side by side with the engine (`tools/bench.py --env`).

Random games are played once through `kbdsl.envs.Episode` and recorded (the environment's
actions and the engine codes they made); then, in turns for `--rounds` rounds, the same games
are replayed five ways and timed in processor time per engine move:

- `apply_action`: the engine codes alone;
- `legal_actions + apply_action`: the legal moves listed one code each;
- `legal_runs + apply_action`: the legal moves as the engine's bitsets, all the mask reads
  (what any masked environment needs at least);
- `env step + mask`: the environment's actions (one to three per engine move), with the mask;
- `env step + mask + observation`: also the incremental observation of the player to act;
- `observation from scratch`: the observation encoded anew each step instead (what the
  incremental update saves).
"""

from __future__ import annotations

import random
import statistics
import time

from kbdsl.envs import Episode
from kbdsl.game import Game


def record(ep: Episode, games: int, seed: int) -> list[tuple[Game, list[int], list[int]]]:
    """(game, env actions, engine codes) of `games` random games."""
    rng, out = random.Random(seed), []
    for g in range(games):
        ep.reset(seed + g)
        actions, codes = [], []
        while not ep.over:
            a = rng.choice(ep.legal())
            actions.append(a)
            code = ep.step(a)
            if code is not None:
                codes.append(code)
        out.append((ep.game, actions, codes))
    return out


def run(ep: Episode, recorded, way: str) -> float:
    """Processor seconds to replay the recorded games `way`."""
    start = time.process_time()
    for game, actions, codes in recorded:
        if way in ("apply", "legal", "runs"):
            s = game.new_state()
            for code in codes:
                if way == "legal":
                    s.legal_actions()
                elif way == "runs":
                    s.legal_runs()
                s.apply_action(code)
            continue
        ep.start(game.new_state())
        enc = ep.enc
        for a in actions:
            ep.step(a)
            if ep.over:
                break
            ep.mask()
            if way == "observe":
                ep.observe(ep.current)
            elif way == "scratch":
                c = ep.choice
                enc.encode(ep.state, ep.current, c.stage, c.kind, c.source)
    return time.process_time() - start


WAYS = {
    "apply": "apply_action",
    "legal": "legal_actions + apply_action",
    "runs": "legal_runs + apply_action",
    "step": "env step + mask",
    "observe": "env step + mask + observation",
    "scratch": "env step + mask + observation from scratch",
}


def bench(rules: str, players: int, games: int, rounds: int, seed: int = 0) -> list[str]:
    ep = Episode(rules, players)
    recorded = record(ep, games, seed)
    moves = sum(len(c) for _, _, c in recorded)
    steps = sum(len(a) for _, a, _ in recorded)
    times: dict[str, list[float]] = {w: [] for w in WAYS}
    for _ in range(rounds):
        for w in WAYS:
            times[w].append(run(ep, recorded, w))
    per = {w: statistics.median(t) / moves * 1e6 for w, t in times.items()}
    obs = per["observe"] - per["step"]
    lines = [
        f"{rules}, {players} players: {games} random games, {moves} engine moves, {steps} env steps "
        f"({steps / moves:.2f} a move); observation {ep.enc.size} floats, {ep.num_actions} actions; "
        f"median of {rounds} rounds, processor us per engine move:",
        *(f"  {WAYS[w]:<45} {per[w]:8.1f}" for w in WAYS),
        f"  env step + mask / apply_action: {per['step'] / per['apply']:.2f}, "
        f"/ (legal_runs + apply_action): {per['step'] / per['runs']:.2f}; "
        f"observation update {obs:.1f} us ({obs / (per['scratch'] - per['step']):.2f} of encoding from scratch); "
        f"env step + mask + observation / (2 x apply_action + observation update): "
        f"{per['observe'] / (2 * per['apply'] + obs):.2f}",
        f"  the bar, with the observation update on both sides: env step + mask {per['step']:.1f} us <= "
        f"2 x apply_action {2 * per['apply']:.1f} us? The engine's legal_runs + apply_action alone "
        f"are {per['runs'] / per['apply']:.2f} x apply_action; the environment's own part "
        f"(step + mask less legal_runs + apply_action) {per['step'] - per['runs']:.1f} us",
    ]
    return lines


def main(rules: str = "base", players: int = 2, games: int = 20, rounds: int = 3) -> None:
    for line in bench(rules, players, games, rounds):
        print(line)
