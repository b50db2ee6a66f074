"""Count the machine instructions a random game costs, with valgrind's callgrind: a figure that
other work on a shared machine cannot disturb, for speed work whose steps are a few percent.

    python tools/icount.py [--tree DIR ...] [--games 10 40] [--rules base] [--preset first-game]

For each checkout (this one by default), plays the bench's random 4-player games (`engine_game` of
this checkout's `tools/bench.py` with the tree's kbdsl: RandomBot through play_out, final scoring,
a new random setup a game, Game.new and its compiled playout left out) twice under callgrind, `--games` A and B of them,
each run after B - A games on other setups (so that what is made once, as a card's scorer compiled
for a board shape the first time the card is dealt, is mostly made before either run counts), and prints
(instructions(B) - instructions(A)) / (B - A): the cost of one game, start-up, imports and what is
made once left out.
The hand-written mandatory-only playout of tools/bench.py is counted alike with `--hand-written`.
Needs valgrind (`apt-get install valgrind`); about 30 s per run on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Plays N games of this checkout's bench (argv[1]: its tools folder) with the kbdsl of the tree
#: it runs in, engine or hand-written playout, each on a new random setup; no timing. Both runs
#: make the same setups (argv[7] of them, Game.new compiling their sections' tables, and their
#: playouts compiled for their tiles in play) and first
#: play as many games on other setups as only the longer run counts (argv[8]), so that what is
#: made once per board shape or rule set (a card's compiled scorer, tables by origin) is mostly
#: in place before either counts: the difference between them is the games alone.
PROBE = """
import sys
sys.path.insert(0, ".")
import kbdsl.bitset, kbdsl.bots, kbdsl.game, kbdsl.ruleset, kbdsl.scoring
sys.path.insert(0, sys.argv[1])
import random, bench
rules, preset, hand = bench.load_rules(sys.argv[2]), sys.argv[3] or None, sys.argv[6] == "1"
players, games = int(sys.argv[4]), int(sys.argv[5])
made, warm = int(sys.argv[7]), int(sys.argv[8])
setups = [bench.Game.new(rules, players=players, seed=g, preset=preset) for g in range(made + warm)]
for game in setups if bench.compiled is not None and not hand else ():
    bench.compiled(game)  # (each setup's playout, as the bench makes it: outside what is counted)
bots, rng = [bench.RandomBot(p) for p in range(players)], random.Random(-1)
for game in setups[made:] + setups[:games]:
    bench.hand_written_game(game, rng) if hand else bench.engine_game(game, bots)
"""


def instructions(tree: Path, args: argparse.Namespace, games: int) -> int:
    """Instructions callgrind counts for one run of PROBE in `tree`."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", PROBE]
    tools = str(Path(__file__).resolve().parent)
    cmd += [tools, args.rules, args.preset or "", str(args.players), str(games), "1" if args.hand_written else "0"]
    cmd += [str(max(args.games)), str(max(args.games) - min(args.games))]
    env = dict(os.environ, PYTHONHASHSEED="0")  # the same string hashes, so the same dict probes
    out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True).stderr
    found = re.search(r"Collected : (\d+)", out)
    if found is None:
        raise SystemExit(f"callgrind printed no count for {tree}:\n{out[-2000:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, action="append", help="checkout to count (repeat for several)")
    ap.add_argument("--games", type=int, nargs=2, default=(10, 40), metavar=("A", "B"))
    ap.add_argument("--rules", default="base")
    ap.add_argument("--preset", help="fix what this preset fixes of the random setups")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--hand-written", action="store_true", help="count the bench's hand-written playout")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("tools/icount.py needs valgrind (apt-get install valgrind)")
    a, b = args.games
    if not 0 <= a < b:
        raise SystemExit("--games A B needs 0 <= A < B")
    for tree in args.tree or [Path(__file__).resolve().parent.parent]:
        per_game = (instructions(tree, args, b) - instructions(tree, args, a)) / (b - a)
        print(f"{tree}: {per_game / 1e6:.2f}M instructions per game")


if __name__ == "__main__":
    main()
