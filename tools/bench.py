"""Benchmark the turn engine: random-bot 4-player games on the first-game setup, one core.

    python tools/bench.py [--seconds S] [--rules base] [--preset first-game] [--compare DIR]
Last line: `random games/s: N`. `--compare DIR` runs this bench and the one of another checkout
(say, the commit before a change) in turns, in subprocesses, and prints both medians and their ratio.
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


def compare(args: argparse.Namespace) -> None:
    """Alternate runs of both checkouts' benches so both see the same machine load."""
    here = Path(__file__).resolve().parent.parent
    trees = {"other": Path(args.compare).resolve(), "this": here}
    rates: dict[str, list[float]] = {k: [] for k in trees}
    flags = ["--seconds", str(args.seconds), "--rules", args.rules, "--preset", args.preset]
    flags += ["--players", str(args.players)]
    for _ in range(args.rounds):
        for name, tree in trees.items():
            out = subprocess.run(
                [sys.executable, str(tree / "tools" / "bench.py"), *flags],
                cwd=tree,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            rates[name].append(float(out.strip().splitlines()[-1].split(":")[1]))
    other, this = (statistics.median(rates[k]) for k in ("other", "this"))
    print(
        f"other ({trees['other']}): {other:.0f} random games/s (runs: {', '.join(f'{r:.0f}' for r in rates['other'])})"
    )
    print(f"this ({here}): {this:.0f} random games/s (runs: {', '.join(f'{r:.0f}' for r in rates['this'])})")
    print(f"ratio this/other: {this / other:.2f}")
    print(f"random games/s: {this:.0f}")


if __name__ == "__main__":
    main()
