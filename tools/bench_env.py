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

`--compare DIR` (with `--env`) measures this checkout and another one in turns, each in a
subprocess that imports its tree's kbdsl and this checkout's bench, so both replay the same
recorded games (the other tree records them with its own environment: the same seeds and
actions), and prints both side by side with their ratios.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

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


def measure(rules: str, players: int, games: int, rounds: int, seed: int = 0) -> dict:
    """Processor us per engine move of each way (medians of `rounds`), and the run's sizes."""
    ep = Episode(rules, players)
    recorded = record(ep, games, seed)
    moves = sum(len(c) for _, _, c in recorded)
    steps = sum(len(a) for _, a, _ in recorded)
    times: dict[str, list[float]] = {w: [] for w in WAYS}
    for _ in range(rounds):
        for w in WAYS:
            times[w].append(run(ep, recorded, w))
    per = {w: statistics.median(t) / moves * 1e6 for w, t in times.items()}
    return {"per": per, "moves": moves, "steps": steps, "size": ep.enc.size, "actions": ep.num_actions}


def bar(per: dict[str, float], step: str = "step") -> float:
    """env step + mask + observation / (2 x apply_action + observation update): the issue's bar is <= 1.
    With step="runs", the same for an environment that would cost nothing beyond the engine's
    legal_runs + apply_action (its step and mask free): the least any masked environment can get."""
    obs = per["observe"] - per["step"]
    return (per[step] + obs) / (2 * per["apply"] + obs)


def bench(rules: str, players: int, games: int, rounds: int, seed: int = 0) -> list[str]:
    m = measure(rules, players, games, rounds, seed)
    per, moves, steps = m["per"], m["moves"], m["steps"]
    obs = per["observe"] - per["step"]
    lines = [
        f"{rules}, {players} players: {games} random games, {moves} engine moves, {steps} env steps "
        f"({steps / moves:.2f} a move); observation {m['size']} floats, {m['actions']} actions; "
        f"median of {rounds} rounds, processor us per engine move:",
        *(f"  {WAYS[w]:<45} {per[w]:8.1f}" for w in WAYS),
        f"  env step + mask / apply_action: {per['step'] / per['apply']:.2f}, "
        f"/ (legal_runs + apply_action): {per['step'] / per['runs']:.2f}; "
        f"observation update {obs:.1f} us ({obs / (per['scratch'] - per['step']):.2f} of encoding from scratch); "
        f"env step + mask + observation / (2 x apply_action + observation update): {bar(per):.2f}",
        f"  the bar, with the observation update on both sides: env step + mask {per['step']:.1f} us <= "
        f"2 x apply_action {2 * per['apply']:.1f} us? The engine's legal_runs + apply_action alone "
        f"are {per['runs'] / per['apply']:.2f} x apply_action; the environment's own part "
        f"(step + mask less legal_runs + apply_action) {per['step'] - per['runs']:.1f} us; the bar with "
        f"that part free (legal_runs + apply_action + observation update): {bar(per, 'runs'):.2f}",
    ]
    return lines


def main(rules: str = "base", players: int = 2, games: int = 20, rounds: int = 3, compare: str | None = None) -> None:
    if compare:
        for line in side_by_side(Path(compare), rules, players, games, rounds):
            print(line)
        return
    for line in bench(rules, players, games, rounds):
        print(line)


#: One measurement in a subprocess: the tree's kbdsl (its working directory), this checkout's
#: bench (argv[1]: its tools folder); prints measure()'s figures as JSON.
PROBE = """
import sys, json
sys.path.insert(0, ".")
import kbdsl.envs
sys.path.insert(0, sys.argv[1])
import bench_env
print(json.dumps(bench_env.measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), 1)))
"""


def side_by_side(other: Path, rules: str, players: int, games: int, rounds: int) -> list[str]:
    """This checkout and `other` measured in turns (`rounds` runs each, one round a run), medians."""
    here, tools = Path(__file__).resolve().parent.parent, str(Path(__file__).resolve().parent)
    trees = {"other": other.resolve(), "this": here}
    runs: dict[str, list[dict[str, float]]] = {"other": [], "this": []}
    for _ in range(rounds):
        for name, tree in trees.items():
            argv = [sys.executable, "-c", PROBE, tools, rules, str(players), str(games)]
            out = subprocess.run(argv, cwd=tree, capture_output=True, text=True, check=True).stdout
            runs[name].append(json.loads(out)["per"])
    med = {name: {w: statistics.median(r[w] for r in rs) for w in WAYS} for name, rs in runs.items()}
    lines = [
        f"{rules}, {players} players, {games} random games; other: {trees['other']}; this: {here}; "
        f"medians of {rounds} runs each, in turns; processor us per engine move",
        f"  {'':<45}{'other':>8}{'this':>8}{'this/other':>11}",
    ]
    for w in WAYS:
        o, t = med["other"][w], med["this"][w]
        lines.append(f"  {WAYS[w]:<45}{o:8.1f}{t:8.1f}{t / o:11.2f}")
    for label, key in (("env step + mask / apply_action", "step"), ("legal_runs + apply / apply", "runs")):
        o, t = (med[name][key] / med[name]["apply"] for name in ("other", "this"))
        lines.append(f"  {label:<45}{o:8.2f}{t:8.2f}")
    lines.append(f"  {'the bar (<= 1): see bench_env.bar':<45}{bar(med['other']):8.2f}{bar(med['this']):8.2f}")
    o, t = bar(med["other"], "runs"), bar(med["this"], "runs")
    label = "the bar with the environment's own part free"
    lines.append(f"  {label:<45}{o:8.2f}{t:8.2f}")
    return lines
