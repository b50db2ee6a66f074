"""Benchmark final scoring: a full random 4-player position (160 settlements, 3 cards + castles).

    python tools/bench_score.py [--runs N]
Last line: `score ms: N` (median over runs, fresh positions each run, one core).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbdsl.bitset import bit_list  # noqa: E402
from kbdsl.game import Game  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402
from kbdsl.scoring import score  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--rules", default="base")
    args = ap.parse_args()
    rules = load(args.rules)
    times = []
    for run in range(args.runs):
        rng = random.Random(run)
        game = Game.new(rules, players=4, seed=run)  # random sections (turned at random) and 3 random cards
        t = game.tables
        free = bit_list(t.buildable)
        rng.shuffle(free)
        own = [sum(1 << i for i in free[p * 40 : (p + 1) * 40]) for p in range(4)]
        start = time.perf_counter()
        score(rules, t, own, game.setup.cards, game.options)
        times.append((time.perf_counter() - start) * 1000)
    print(f"positions: {args.runs}, cards drawn at random per position, castles always")
    print(f"mean ms: {statistics.fmean(times):.3f}  p90 ms: {sorted(times)[int(len(times) * 0.9)]:.3f}")
    print(f"score ms: {statistics.median(times):.3f}")


if __name__ == "__main__":
    main()
