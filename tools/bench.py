"""Benchmark the turn engine: random-bot 4-player games on the first-game setup, one core.

    python tools/bench.py [--seconds S] [--rules base] [--preset first-game]
Last line: `random games/s: N`.
"""

from __future__ import annotations

import argparse
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
