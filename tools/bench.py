"""Benchmark the turn engine: random-bot 4-player games on the first-game setup, one core.

    python tools/bench.py [--seconds S] [--rules base] [--preset first-game] [--compare DIR]
Last line: `random games/s: N`. `--compare DIR` measures this checkout and another one (say, the
commit before a change) in turns, in subprocesses, per second of CPU time, and prints both medians
and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbdsl.bots import RandomBot, play_out  # noqa: E402
from kbdsl.game import Game  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rules", default="base")
    ap.add_argument("--preset", default="first-game")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--compare", metavar="DIR", help="another checkout to measure in turns with this one")
    ap.add_argument("--rounds", type=int, default=3, help="turns per checkout with --compare")
    args = ap.parse_args()
    if args.compare:
        compare(args)
        return
    rules = load(args.rules)
    game = Game.new(rules, players=args.players, preset=args.preset, seed=0)
    games = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        state = game.new_state()
        bots = [RandomBot(f"{games}:{p}") for p in range(args.players)]
        play_out(state, bots)
        games += 1
        moves += len(state.log)
    elapsed = time.perf_counter() - start
    print(
        f"setup: {args.rules} / {args.preset}, {args.players} players; "
        f"{games} games, {moves / games:.0f} moves per game"
    )
    print(f"moves/s: {moves / elapsed:.0f}")
    print(f"random games/s: {games / elapsed:.0f}")


#: One measurement in a subprocess, importing kbdsl from the tree it runs in: random games per
#: second of CPU time (a busy machine slows the wall clock of both trees unevenly, not their CPU time).
PROBE = """
import sys, time
sys.path.insert(0, ".")
from kbdsl.bots import RandomBot, play_out
from kbdsl.game import Game
from kbdsl.ruleset import load
rules, players, seconds = load(sys.argv[1]), int(sys.argv[3]), float(sys.argv[4])
game = Game.new(rules, players=players, preset=sys.argv[2], seed=0)
games, start = 0, time.process_time()
while time.process_time() - start < seconds:
    play_out(game.new_state(), [RandomBot(f"{games}:{p}") for p in range(players)])
    games += 1
print(games / (time.process_time() - start))
"""


def compare(args: argparse.Namespace) -> None:
    """Alternate runs of both checkouts so both see the same machine load; medians of CPU-time rates."""
    here = Path(__file__).resolve().parent.parent
    trees = {"other": Path(args.compare).resolve(), "this": here}
    rates: dict[str, list[float]] = {k: [] for k in trees}
    argv = [args.rules, args.preset, str(args.players), str(args.seconds)]
    for _ in range(args.rounds):
        for name, tree in trees.items():
            out = subprocess.run(
                [sys.executable, "-c", PROBE, *argv], cwd=tree, capture_output=True, text=True, check=True
            ).stdout
            rates[name].append(float(out.strip().splitlines()[-1]))
    other, this = (statistics.median(rates[k]) for k in ("other", "this"))
    for name, rate in (("other", other), ("this", this)):
        runs = ", ".join(f"{r:.0f}" for r in rates[name])
        print(f"{name} ({trees[name]}): {rate:.0f} random games per CPU second (runs: {runs})")
    print(f"ratio this/other: {this / other:.2f}")
    print(f"random games/s: {this:.0f}")


if __name__ == "__main__":
    main()
