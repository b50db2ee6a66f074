"""Where a random game's processor time goes, by sampling with py-spy: per function and per line
of the compiled playout, optionally side by side with another rule set.

    python tools/timeprof.py [--rules crossroads] [--against base] [--players 2] [--games 6000]
                             [--lines] [--top 30] [--self]

Exact counts (`bytecodes.py`, `icount.py`) decide small steps but under-count what an expansion
adds: Crossroads 2p ran +7.6% bytecodes and +3.7% instructions over base, yet +16-19% processor
time. This tool samples the time itself: it plays the bench's random games (a new random setup a
game, `Game.new` left out of the counts, 50 games on other setups first) in a child process under
`py-spy record` at 1,000 samples a second, then prints, per function (line numbers dropped, every
compiled playout named `run <playout>`), the milliseconds a game spends there: inclusive (the
default) or in the function's own lines (`--self`). With `--against`, the same for another rule
set, in the next column, sorted by the difference. With `--lines`, the compiled playouts' own
time line by line, summed over every variant the games ran, by the generated line's text.
Needs py-spy (`pip install py-spy`); about 10 s for 6,000 base games on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

#: Plays the games (argv: tools folder, rules, players, games, file for what it writes) with the
#: kbdsl of the tree it runs in, then writes their processor time a game (sampled, so a little
#: above the bench's) and the sources of the compiled playouts it ran.
PROBE = """
import json, linecache, sys, time
sys.path.insert(0, ".")
sys.path.insert(0, sys.argv[1])
import bench
from kbdsl.engine.compiled import compiled
rules, players, games = bench.load_rules(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
bots = [bench.RandomBot(p) for p in range(players)]
def warm_up():
    for seed in range(-50, 0):
        bench.engine_game(bench.Game.new(rules, players=players, seed=seed), bots)
warm_up()
spent = 0.0
for seed in range(games):
    game = bench.Game.new(rules, players=players, seed=seed)
    compiled(game)  # (its playout made, once a process, outside the counted samples, as bench.py does)
    start = time.process_time()
    bench.engine_game(game, bots)
    spent += time.process_time() - start
sources = {k: "".join(v[2]) for k, v in linecache.cache.items() if k.startswith("<kbdsl playout")}
json.dump({"game_ms": spent / games * 1000, "sources": sources}, open(sys.argv[5], "w"))
"""

RATE = 1000  # samples a second (not blocking the process: a few stacks come out torn, none slowed)
GAME = "engine_game"  # the bench's frame every counted sample runs under
WARM = "warm_up "  # ... and the warm-up's, which none does
PLAYOUT = re.compile(r"run \((<kbdsl playout .*>):(\d+)\)$")


def frame_name(frame: str) -> str:
    """A py-spy frame without its line number, every compiled playout under one name."""
    if frame.startswith("run (<kbdsl playout"):
        return "run <playout>"
    return re.sub(r":\d+\)$", ")", frame)


class Profile:
    """The samples of one rule set's games."""

    def __init__(self, raw: str, game_ms: float, sources: dict[str, str]) -> None:
        self.game_ms, self.sources = game_ms, sources
        self.own: Counter[str] = Counter()
        self.inclusive: Counter[str] = Counter()
        self.lines: Counter[tuple[str, int]] = Counter()
        for row in raw.splitlines():
            stack, _, n = row.rpartition(" ")
            frames = stack.split(";")
            if not any(f.startswith(GAME + " ") for f in frames) or any(f.startswith(WARM) for f in frames):
                continue  # Game.new, start-up, the warm-up games
            names = [frame_name(f) for f in frames]
            self.own[names[-1]] += int(n)
            for name in set(names):
                self.inclusive[name] += int(n)
            if found := PLAYOUT.match(frames[-1]):
                self.lines[found.group(1), int(found.group(2))] += int(n)

    @property
    def total(self) -> int:
        """Every counted sample: the games' whole time."""
        return sum(self.own.values())

    def ms(self, samples: int) -> float:
        """Milliseconds a game: the samples' share of the processor time the games took."""
        return samples / self.total * self.game_ms


def record(rules: str, players: int, games: int) -> Profile:
    """Sample one rule set's games."""
    tools = str(Path(__file__).resolve().parent)
    with tempfile.TemporaryDirectory() as tmp:
        raw, written = Path(tmp) / "raw.txt", Path(tmp) / "written.json"
        cmd = ["py-spy", "record", "-r", str(RATE), "-f", "raw", "-o", str(raw), "--nonblocking", "--"]
        cmd += [sys.executable, "-c", PROBE, tools, rules, str(players), str(games), str(written)]
        done = subprocess.run(cmd, cwd=Path(tools).parent, capture_output=True, text=True)
        if done.returncode != 0 or not raw.exists() or not written.exists():
            raise SystemExit(f"py-spy failed for {rules}:\n{done.stderr[-2000:]}")
        found = json.loads(written.read_text())
        return Profile(raw.read_text(), found["game_ms"], found["sources"])


def by_function(first: Profile, other: Profile | None, own: bool, top: int) -> None:
    """Milliseconds a game per function, with the other rule set's beside it."""
    pick = (lambda p: p.own) if own else (lambda p: p.inclusive)
    names = set(pick(first)) | (set(pick(other)) if other else set())
    cost = {n: first.ms(pick(first)[n]) for n in names}
    beside = {n: other.ms(pick(other)[n]) for n in names} if other else {}
    order = sorted(names, key=lambda n: -(cost[n] - beside[n]) if other else -cost[n])
    total = first.ms(first.total)
    print(f"{'ms/game':>9}{'other':>9}{'diff':>9}  function" if other else f"{'ms/game':>9}{'share':>7}  function")
    for n in order[:top]:
        if other:
            print(f"{cost[n]:9.4f}{beside[n]:9.4f}{cost[n] - beside[n]:+9.4f}  {n[:100]}")
        else:
            print(f"{cost[n]:9.4f}{cost[n] / total:7.1%}  {n[:100]}")


def by_line(profile: Profile, top: int) -> None:
    """The compiled playouts' own time line by line, summed over every variant by the line's text:
    a rule set's setups run up to a few tens of variants (the template less what a setup's tiles
    cannot do), each too thinly sampled alone. Lines of one text in several places add up."""
    per_text: Counter[str] = Counter()
    for (key, line), n in profile.lines.items():
        text = profile.sources.get(key, "").splitlines()
        per_text[text[line - 1].strip() if line <= len(text) else "?"] += n
    if not per_text:
        print("no compiled playout ran")
        return
    variants = len({key for key, _ in profile.lines})
    print(f"{variants} compiled playouts: {profile.ms(per_text.total()):.4f} ms a game in their own lines")
    for code, n in per_text.most_common(top):
        print(f"{profile.ms(n):9.4f}  {code[:110]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="base")
    ap.add_argument("--against", help="another rule set, profiled alike and printed beside")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=6000)
    ap.add_argument("--self", dest="own", action="store_true", help="time in a function's own lines")
    ap.add_argument("--lines", action="store_true", help="the compiled playouts' own time by line, over every variant")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    if shutil.which("py-spy") is None:
        raise SystemExit("timeprof.py needs py-spy: pip install py-spy")
    first = record(args.rules, args.players, args.games)
    other = record(args.against, args.players, args.games) if args.against else None
    print(f"{args.rules}, {args.players} players, {args.games} games: {first.ms(first.total):.3f} ms a game", end="")
    print(f"; {args.against}: {other.ms(other.total):.3f} ms" if other else "")
    by_function(first, other, args.own, args.top)
    if args.lines:
        by_line(first, args.top)


if __name__ == "__main__":
    main()
