"""Count the Python bytecodes and calls a random game executes, per function: exact figures for
speed steps of a percent, which neither timings on a shared machine nor callgrind (about half a
percent of jitter from run to run) resolve.

    python tools/bytecodes.py [--tree DIR] [--games 30] [--top 30] [--lines FUNCTION] [--hand-written]

Plays the bench's random 4-player games (`engine_game` of this checkout's `tools/bench.py` with the
tree's kbdsl: RandomBot through play_out and final scoring, a new random setup a game, made with
its compiled playout before tracing), after as many untraced ones so that the boards' lazily
built tables are in place, under `sys.settrace` with opcode events, and prints per game the
bytecodes and Python calls in all and of the `--top` functions (qualified names);
`--lines Turn.play_random` shows one function's bytecodes line by line. `--hand-written` counts
the bench's hand-written playout instead.
Tracing is slow (about 0.1 s a game), never a timing.
"""

from __future__ import annotations

import argparse
import linecache
import sys
from collections import Counter
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent, help="checkout to count")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--lines", metavar="FUNCTION", help="one function's bytecodes line by line")
    ap.add_argument("--rules", default="base")
    ap.add_argument("--preset", help="fix what this preset fixes of the random setups")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--hand-written", action="store_true", help="count the bench's hand-written playout")
    args = ap.parse_args()
    sys.path.insert(0, str(args.tree))
    import kbdsl.bitset, kbdsl.bots, kbdsl.game, kbdsl.ruleset, kbdsl.scoring  # noqa: F401, E401 (the tree's)

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import random

    import bench  # this checkout's games, played with the tree's kbdsl

    rules = bench.load_rules(args.rules)
    bots, rng = [bench.RandomBot(p) for p in range(args.players)], random.Random(-1)
    games = {}  # the setups, made before tracing (Game.new is not counted)

    def play(first: int) -> None:
        for g in range(first, first + args.games):
            game = games.get(g) or bench.Game.new(rules, players=args.players, seed=g, preset=args.preset)
            if args.hand_written:
                bench.hand_written_game(game, rng)
            else:
                bench.engine_game(game, bots)

    for g in range(args.games):
        games[g] = bench.Game.new(rules, players=args.players, seed=g, preset=args.preset)
        if bench.compiled is not None and not args.hand_written:  # its playout made untraced, as the bench does
            bench.compiled(games[g])

    ops: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    lines: Counter[tuple[str, int]] = Counter()

    def trace(frame, event, arg):
        frame.f_trace_opcodes, frame.f_trace_lines = True, False
        name = frame.f_code.co_qualname
        if event == "opcode":
            ops[name] += 1
            if name == args.lines:
                lines[(frame.f_code.co_filename, frame.f_lineno or 0)] += 1
        elif event == "call":
            calls[name] += 1
        return trace

    play(10**6)  # warm-up: the same number of games, other seeds
    sys.settrace(trace)
    try:
        play(0)
    finally:
        sys.settrace(None)
    n = args.games
    print(f"per game: {sum(ops.values()) / n:,.0f} bytecodes, {sum(calls.values()) / n:,.0f} Python calls")
    print(f"{'bytecodes':>10} {'share':>6} {'calls':>7}  function")
    for name, count in ops.most_common(args.top):
        print(f"{count / n:10,.0f} {count / sum(ops.values()):6.1%} {calls[name] / n:7.1f}  {name}")
    if args.lines:
        print(f"\n{args.lines}, bytecodes a game by line:")
        for (path, line), count in sorted(lines.items(), key=lambda kv: kv[0][1]):
            print(f"{count / n:8,.0f} {line:5d}  {linecache.getline(path, line).rstrip()}")


if __name__ == "__main__":
    main()
