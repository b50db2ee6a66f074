"""What a bot decision costs: the player's seat (view and determinisation), greedy, Monte Carlo
and ISMCTS, in processor milliseconds per decision.

    python tools/bot_cost.py [--games 3] [--players 4] [--rules base] [--search-every 4]
    python tools/bot_cost.py --compare DIR [--rounds 3]   # this checkout against another, in turns
    python tools/bot_cost.py --ms 20 [--compare DIR]      # the search bots at a time budget

Greedy bots play `--games` games (seeds 0, 1, ...); at every decision of every seat the probe
times `Seat.of(state)` and `GreedyBot.choose(state)`, and at every `--search-every`-th decision
`MonteCarloBot` and `IsmctsBot` at their default budgets, or `--ms` processor milliseconds a
decision (both trees must know `ms`): then the figure to compare is the walks an ISMCTS decision
makes in that time (its mean over the decisions with a choice). Forced decisions (one legal move) count,
as they do in a game; the medians over the others are printed too. Processor time of this
process, so other work on a shared machine inflates it little. `--compare DIR` runs the same
probe in both checkouts in turns (subprocesses, the same games) and prints both figures and
their ratio side by side.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import json, sys, time
sys.path.insert(0, ".")
from kbdsl.bots import GreedyBot, IsmctsBot, MonteCarloBot, Seat
from kbdsl.game import Game
from kbdsl.ruleset import load

rules_name, players, games, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
budget = {"ms": float(sys.argv[5])} if sys.argv[5] else {}
rules = load(rules_name)
clock = time.process_time
out = {k: [] for k in ("seat", "greedy", "montecarlo", "ismcts")}
free = {k: [] for k in out}  # decisions with a choice
walks = []  # of ISMCTS's decisions with a choice
n = 0
for g in range(games):
    state = Game.new(rules, players=players, seed=g).new_state()
    bots = [GreedyBot(f"{g}:{p}") for p in range(players)]
    search = {"montecarlo": MonteCarloBot(g, **budget), "ismcts": IsmctsBot(g, **budget)}
    while not state.over:
        choice = len(state.legal_actions()) > 1
        t = clock(); Seat.of(state); dt = clock() - t
        out["seat"].append(dt)
        t = clock(); code = bots[state.current].choose(state); dg = clock() - t
        out["greedy"].append(dg)
        if choice:
            free["seat"].append(dt); free["greedy"].append(dg)
        if n % every == 0:
            for name, bot in search.items():
                t = clock(); bot.choose(state); d = clock() - t
                out[name].append(d)
                if choice:
                    free[name].append(d)
            if choice and hasattr(search["ismcts"], "walks"):
                walks.append(search["ismcts"].walks)
        n += 1
        state.apply_action(code)
print(json.dumps({"all": out, "choice": free, "walks": walks}))
"""

FIGURES = ("seat", "greedy", "montecarlo", "ismcts")


def probe(tree: Path, args: argparse.Namespace) -> dict:
    argv = [args.rules, str(args.players), str(args.games), str(args.search_every), str(args.ms or "")]
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1000 for t in times)
    return {
        "n": len(ms),
        "median": statistics.median(ms),
        "mean": statistics.fmean(ms),
        "p90": ms[int(len(ms) * 0.9)],
    }


def line(name: str, s: dict[str, float]) -> str:
    return f"{name:<28} {s['n']:>6} {s['median']:>9.3f} {s['mean']:>9.3f} {s['p90']:>9.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rules", default="base")
    ap.add_argument("--search-every", type=int, default=4, help="time the search bots at every Nth decision")
    ap.add_argument("--compare", metavar="DIR", help="another checkout, measured in turns with this one")
    ap.add_argument("--rounds", type=int, default=3, help="turns per checkout with --compare")
    ap.add_argument("--ms", type=float, help="the search bots' budget: processor ms a decision (default: playouts)")
    args = ap.parse_args()
    here = Path(__file__).resolve().parent.parent
    budget = f"{args.ms:g} ms" if args.ms else "default budgets"
    print(f"{args.games} games of {args.rules}, {args.players} greedy players; CPU ms per decision; search at {budget}")
    if not args.compare:
        result = probe(here, args)
        print(f"{'decision':<28} {'n':>6} {'median':>9} {'mean':>9} {'p90':>9}")
        for part in ("all", "choice"):
            for name in FIGURES:
                print(line(f"{name} ({part})", summary(result[part][name])))
        if result.get("walks"):
            print(f"ismcts walks a decision with a choice: mean {statistics.fmean(result['walks']):.1f}")
        return
    trees = {"other": Path(args.compare).resolve(), "this": here}
    runs: dict[str, list[dict]] = {k: [] for k in trees}
    for _ in range(args.rounds):
        for key, tree in trees.items():
            runs[key].append(probe(tree, args))
    print(f"other: {trees['other']}\nthis:  {trees['this']}\nmedians of {args.rounds} runs each, in turns")
    print(f"{'decision (median / mean ms)':<30} {'other':>17} {'this':>17} {'other/this':>12}")
    for part in ("all", "choice"):
        for name in FIGURES:
            figures = {}
            for key in trees:
                s = [summary(r[part][name]) for r in runs[key]]
                figures[key] = (statistics.median(x["median"] for x in s), statistics.median(x["mean"] for x in s))
            o, t = figures["other"], figures["this"]
            ratio = f"{o[0] / t[0]:.1f} / {o[1] / t[1]:.1f}" if t[0] and t[1] else "-"
            print(f"{name + ' (' + part + ')':<30} {o[0]:>8.3f} / {o[1]:<6.2f} {t[0]:>8.3f} / {t[1]:<6.2f} {ratio:>12}")
    walks = {key: [statistics.fmean(r["walks"]) for r in runs[key] if r.get("walks")] for key in trees}
    if all(walks.values()):
        o, t = (statistics.median(walks[key]) for key in trees)
        print(f"{'ismcts walks (choice, mean)':<30} {o:>17.1f} {t:>17.1f} {o / t:>12.2f}")


if __name__ == "__main__":
    main()
