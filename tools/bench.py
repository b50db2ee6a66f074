"""Benchmark the turn engine on one core, side by side with a hand-written playout.

    python tools/bench.py [--seconds S] [--rules base|all|base,nomads,my/folder|nomads+island] [--players 4]
                          [--preset NAME]

Every game is played on a new random setup (sections, cards and so the deck order drawn from the
game's number, `Game.new(rules, players, seed=k)`; `--preset` fixes what a preset fixes), and a
game's time runs from `new_state()` to its final score sheet (`scores()`), so games/s includes
final scoring. The same setups are played, game by game in turns, by a hand-written
mandatory-only playout (three settlements a turn on the card's terrain, next to one's own if
possible, straight on the compiled tables: no rule language, no tiles) that scores its final
position with the engine's scorer (`kbdsl.scoring.score`), so both sides pay for scoring alike.
Building the setup (`Game.new`, and the playout compiled for its tiles in play where none was
yet: once a process) is timed apart. The random bots are seeded once per measurement (a
`random.Random` costs about 8 us to seed, a few percent of a game) and go on drawing from game
to game; the hand-written playout shuffles its deck with one stream alike.

With one rule set it prints the games/s of both, their ratio, then clone(), legal_actions() and
apply_action() in microseconds, playouts/s from mid-game positions and Game.new in ms. With
`--rules all` it prints one table: every shipped rule set at every player count (with a comma list
of rule sets, those beside base), each row with its ratio to the hand-written playout measured in
the same run and to base at the same player count, timed in slices beside the row's own. A name
joined by `+` (`nomads+crossroads+island`) is those boxes together, as a folder extending each would
be. All times are processor time of this process, so
other work on a shared machine does not inflate them. Last line: `random games/s: N` (of the first row).

`--compare DIR` instead measures this checkout and another one (say, the commit before a change)
in turns, in subprocesses, per second of CPU time, and prints both medians and their ratio, for
random games (this bench's games, the other tree's engine) and for Game.new of new random setups.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbdsl.bitset import bit_list  # noqa: E402
from kbdsl.bots import RandomBot, play_out  # noqa: E402
from kbdsl.game import Game  # noqa: E402
from kbdsl.resources import shipped_path  # noqa: E402
from kbdsl.ruleset import RuleSet, load, shipped  # noqa: E402
from kbdsl.scoring import score  # noqa: E402

try:  # (--compare runs this bench with an older tree's kbdsl: one from before the compiled playout has none)
    from kbdsl.engine.compiled import compiled
except ImportError:
    compiled = None


@functools.cache
def load_rules(name: str) -> RuleSet:
    """A rule set by name or folder, or a combination of them joined by `+` (`nomads+crossroads`):
    a rule folder made for the run whose manifest extends each, as `rules/combined` extends every
    shipped box, so a designer can time boxes together without writing the folder. Loaded once a
    run (the table asks for a rule set at each of its player counts)."""
    if "+" not in name:
        return load(name)
    parts = [(shipped_path(p) or Path(p)).resolve() for p in name.split("+")]
    with tempfile.TemporaryDirectory() as folder:
        manifest = {
            "name": name.replace("+", "-"),
            "title": name,
            "text": f"{name}, together",
            "extends": [str(p) for p in parts],
        }
        (Path(folder) / "game.yaml").write_text(json.dumps(manifest))  # JSON is YAML
        return load(folder)


def engine_game(game: Game, bots: list[RandomBot]) -> int:
    """One random game through the engine, final scoring included; returns its number of moves."""
    state = game.new_state()
    play_out(state, bots)
    state.scores()
    return len(state.log)


def hand_written_game(game: Game, rng: random.Random) -> int:
    """Mandatory builds only (three on the card's terrain, next to one's own if possible), written
    directly on the tables: no rule language, no tiles, then the engine's final scoring of the
    settlements. What the engine is measured against. Returns the number of settlements built."""
    t, rules = game.tables, game.rules
    nbr_mask, terrain = t.nbr_mask, t.terrain
    players = game.setup.players
    deck = [k for k, n in rules.deck.items() for _ in range(n)]
    supply0, per_turn = rules.settlements, game.mandatory.count
    rng.shuffle(deck)
    discard: list[str] = []
    own, nb, supply = [0] * players, [0] * players, [supply0] * players
    occ, p, ending = 0, 0, False
    while True:
        if not deck:
            deck, discard = discard, []
            rng.shuffle(deck)
        card = deck.pop()
        free = terrain.get(card, 0) & ~occ
        for _ in range(per_turn):
            if not supply[p] or not free:
                break
            near = free & nb[p]
            cand = bit_list(near or free)
            i = cand[rng.randrange(len(cand))]
            bit = 1 << i
            own[p] |= bit
            occ |= bit
            free &= ~bit
            nb[p] |= nbr_mask[i]
            supply[p] -= 1
        discard.append(card)
        ending = ending or not supply[p]
        p = (p + 1) % players
        if ending and p == 0:
            break
    score(rules, t, own, game.setup.cards, game.options, occ)
    return occ.bit_count()


@dataclass
class Row:
    """One measurement: a rule set at a player count, engine and hand-written on the same setups."""

    rules: str
    players: int
    games: int
    moves: int
    engine_s: float  # CPU seconds of the engine's games
    hand_s: float  # CPU seconds of the hand-written playout's games (the same setups)
    new_s: float  # CPU seconds of Game.new of those setups

    @property
    def rate(self) -> float:
        return self.games / self.engine_s

    @property
    def hand_rate(self) -> float:
        return self.games / self.hand_s


def measure(rules: RuleSet, name: str, players: int, seconds: float, preset: str | None = None, first: int = 0) -> Row:
    """Games on new random setups (seeds first + 1, first + 2, ...) until the engine has spent
    `seconds` of CPU time, each setup played by the engine and by the hand-written playout in
    turns (which goes first alternates), so whatever else the machine does slows both alike."""
    clock = time.process_time
    bots = [RandomBot(first + p) for p in range(players)]  # seeded once: they draw on from game to game
    rng = random.Random(-1 - first)
    for seed in range(-3, 0):  # warm-up: the first layouts compile the shapes' tables
        game = Game.new(rules, players=players, seed=seed, preset=preset)
        engine_game(game, bots)
        hand_written_game(game, rng)
    games = moves = 0
    engine_s = hand_s = new_s = 0.0
    while engine_s < seconds:
        games += 1
        t0 = clock()
        game = Game.new(rules, players=players, seed=first + games, preset=preset)
        if compiled is not None:  # its playout made the first time its tiles in play need one: once a process
            compiled(game)
        t1 = clock()
        if games % 2:
            moves += engine_game(game, bots)
            t2 = clock()
            hand_written_game(game, rng)
            t3 = clock()
            engine_s, hand_s = engine_s + t2 - t1, hand_s + t3 - t2
        else:
            hand_written_game(game, rng)
            t2 = clock()
            moves += engine_game(game, bots)
            t3 = clock()
            engine_s, hand_s = engine_s + t3 - t2, hand_s + t2 - t1
        new_s += t1 - t0
    return Row(name, players, games, moves, engine_s, hand_s, new_s)


def per_call_us(fn, seconds: float) -> float:
    calls, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        fn()
        calls += 1
    return (time.process_time() - start) / calls * 1e6


def table(which: str, seconds: float, passes: int) -> list[Row]:
    """Every rule set of `which` (see `rows`) at every player count it allows, base first, each measured in
    `passes` slices of the time spread over the run. Beside each slice of another rule set, a
    slice of base at the same player count (before it in one pass, after it in the next), so its
    "vs base" compares games timed seconds apart: the machine's load moves between rows timed
    minutes apart, and had moved that column by a tenth from run to run."""
    specs = [(name, n, load_rules(name)) for name, n in rows(which, 0)]
    base_rules = next(rules for name, _, rules in specs if name == "base")
    counts = {n for name, n, _ in specs if name == "base"}
    found = [Row(name, n, 0, 0, 0.0, 0.0, 0.0) for name, n, _ in specs]
    beside = [Row("base", n, 0, 0, 0.0, 0.0, 0.0) for _, n, _ in specs]  # base timed beside each row
    for k in range(passes):
        for row, near, (name, n, rules) in zip(found, beside, specs, strict=True):
            pair = [(row, rules, name)]
            if name != "base" and n in counts:
                pair.insert(k % 2, (near, base_rules, "base"))
            for into, what, called in pair:
                r = measure(what, called, n, seconds / passes, first=k * 10**6)
                into.games, into.moves = into.games + r.games, into.moves + r.moves
                into.engine_s, into.hand_s = into.engine_s + r.engine_s, into.hand_s + r.hand_s
                into.new_s += r.new_s
    w = max(18, *(len(r.rules) + 2 for r in found))  # the rule set's column
    print(
        f"{'rules':<{w}}{'players':>8}{'games':>7}{'moves/game':>11}{'games/s':>9}"
        f"{'hand-written/s':>15}{'engine/hand':>12}{'vs base':>8}{'Game.new ms':>12}"
    )
    for r, near in zip(found, beside, strict=True):
        vs = "1.00" if r.rules == "base" else f"{r.rate / near.rate:.2f}" if near.games else "-"
        print(
            f"{r.rules:<{w}}{r.players:>8}{r.games:>7}{r.moves / r.games:>11.0f}{r.rate:>9.0f}"
            f"{r.hand_rate:>15.0f}{r.rate / r.hand_rate:>12.2f}{vs:>8}{r.new_s / r.games * 1000:>12.2f}"
        )
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, help="engine CPU time of each measurement (default 10; 2 with all)")
    ap.add_argument(
        "--rules",
        default="base",
        help="a rule set (boxes together: nomads+island); `all` or a comma list (base,nomads,my/folder): a table",
    )
    ap.add_argument("--preset", help="fix what this preset fixes of the random setups")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--compare", metavar="DIR", help="another checkout to measure in turns with this one")
    ap.add_argument("--rounds", type=int, default=3, help="turns per checkout with --compare; passes with all")
    ap.add_argument("--env", action="store_true", help="an environment step against the engine (tools/bench_env.py)")
    args = ap.parse_args()
    if args.env:
        import bench_env  # tools/, beside this script

        bench_env.main(args.rules, args.players, rounds=args.rounds, compare=args.compare)
        return
    if args.compare:
        compare(args)
        return
    if is_table(args.rules):
        found = table(args.rules, 2.0 if args.seconds is None else args.seconds, args.rounds)
        print(f"random games/s: {found[0].rate:.0f}")
        return
    seconds = 10.0 if args.seconds is None else args.seconds
    rules = load_rules(args.rules)
    row = measure(rules, args.rules, args.players, seconds, args.preset)
    small = max(seconds / 10, 0.2)

    # Mid-game figures average over 20 positions (halfway through 20 random games on random
    # setups), so that two engines whose random streams differ are still measured on alike positions.
    mids = []
    for k in range(20):
        mid = Game.new(rules, players=args.players, seed=10**6 + k, preset=args.preset).new_state()
        bots = [RandomBot(f"mid:{k}:{p}") for p in range(args.players)]
        while len(mid.log) < row.moves / row.games / 2:
            mid.apply_action(bots[mid.current].choose(mid))
        mids.append((mid, mid.legal_actions(), bots))
    rng = random.Random(1)
    pick = iter(range(10**9))

    def one() -> tuple:
        return mids[next(pick) % len(mids)]

    def apply_one() -> None:
        mid, actions, _ = one()
        mid.clone().apply_action(rng.choice(actions))

    clone_us = per_call_us(lambda: one()[0].clone(), small)
    legal_us = per_call_us(lambda: one()[0].legal_actions(), small)
    apply_us = per_call_us(apply_one, small) - clone_us
    mean_moves = sum(len(a) for _, a, _ in mids) / len(mids)

    def playout() -> None:
        mid, _, bots = one()
        play_out(mid.clone(), bots).scores()

    playouts = 1e6 / per_call_us(playout, small * 3)
    again_ms = per_call_us(lambda: Game.new(rules, players=args.players, seed=1, preset=args.preset), small) / 1000

    print(
        f"setup: {args.rules}, a new random setup a game{f' (preset {args.preset})' if args.preset else ''}, "
        f"{args.players} players; {row.games} games, {row.moves / row.games:.0f} moves per game"
    )
    print(f"hand-written mandatory-only playout games/s (final scoring included): {row.hand_rate:.0f}")
    print(f"engine / hand-written: {row.rate / row.hand_rate:.2f}")
    print(f"clone() us: {clone_us:.1f}")
    print(f"legal_actions() us (mid-game, {mean_moves:.0f} moves on average): {legal_us:.1f}")
    print(f"apply_action() us: {apply_us:.1f}")
    print(f"playouts/s from mid-game (clone, random play to the end, score): {playouts:.0f}")
    print(f"Game.new ms (random setup, new seed each time): {row.new_s / row.games * 1000:.2f}")
    print(f"Game.new ms (a layout seen before): {again_ms:.3f}")
    print(f"moves/s: {row.moves / row.engine_s:.0f}")
    print(f"random games/s: {row.rate:.0f}")


#: Measurements in a subprocess, importing kbdsl from the tree it runs in and then this
#: checkout's bench (argv[1]: its tools folder), so both trees play the same games; one line a
#: rule set and player count: random games per second of CPU time (a busy machine slows the wall
#: clock of both trees unevenly, not their CPU time), the hand-written playout's, Game.new in ms.
PROBE = """
import sys
sys.path.insert(0, ".")
import kbdsl.bitset, kbdsl.bots, kbdsl.game, kbdsl.ruleset, kbdsl.scoring
sys.path.insert(0, sys.argv[1])
import bench
preset, players, seconds = sys.argv[3] or None, int(sys.argv[4]), float(sys.argv[5])
for name, n in bench.rows(sys.argv[2], players):
    row = bench.measure(bench.load_rules(name), name, n, seconds, preset)
    print(name, n, row.rate, row.hand_rate, row.new_s / row.games * 1000, flush=True)
"""


def is_table(which: str) -> bool:
    """Whether `--rules` names several rule sets (`all`, or a comma list): a table of them."""
    return which == "all" or "," in which


def rows(which: str, players: int) -> list[tuple[str, int]]:
    """The (rule set, players) measured: `which` at `players`; for `all` every shipped rule set,
    for a comma list (`base,nomads,path/to/folder`, `all,nomads+island`) each one named, at every
    player count it allows, base first (every other row is timed beside it)."""
    if not is_table(which):
        return [(which, players)]
    names = {"base", *which.split(",")}
    if "all" in names:
        names = names - {"all"} | set(shipped())
    out = []
    for name in sorted(names, key=lambda n: (n != "base", n)):
        lo, hi = load_rules(name).players
        out += [(name, n) for n in range(lo, hi + 1)]
    return out


def compare(args: argparse.Namespace) -> None:
    """Alternate runs of both checkouts so both see the same machine load; medians of CPU-time
    rates, per rule set and player count (`--rules all`: the whole table in each run)."""
    here = Path(__file__).resolve().parent.parent
    trees = {"other": Path(args.compare).resolve(), "this": here}
    seconds = (2.0 if is_table(args.rules) else 4.0) if args.seconds is None else args.seconds
    argv = [str(here / "tools"), args.rules, args.preset or "", str(args.players), str(seconds)]
    runs: dict[tuple[str, str, int], list[tuple[float, float, float]]] = {}
    for _ in range(args.rounds):
        for tree_name, tree in trees.items():
            out = subprocess.run(
                [sys.executable, "-c", PROBE, *argv], cwd=tree, capture_output=True, text=True, check=True
            ).stdout
            for line in out.strip().splitlines():
                name, n, rate, hand, new_ms = line.split()
                runs.setdefault((tree_name, name, int(n)), []).append((float(rate), float(hand), float(new_ms)))
    print(f"other: {trees['other']}; this: {trees['this']}; medians of {args.rounds} runs each, in turns")
    w = max(18, *(len(name) + 2 for name, _ in rows(args.rules, args.players)))  # the rule set's column
    print(
        f"{'rules':<{w}}{'players':>8}{'other/s':>9}{'this/s':>9}{'this/other':>11}"
        f"{'other/hand':>11}{'this/hand':>10}{'new ms other':>13}{'new ms this':>12}"
    )
    median = statistics.median
    for name, n in rows(args.rules, args.players):
        o, t = runs[("other", name, n)], runs[("this", name, n)]
        o_rate, t_rate = median(r for r, _, _ in o), median(r for r, _, _ in t)
        o_hand, t_hand = median(r / h for r, h, _ in o), median(r / h for r, h, _ in t)
        o_new, t_new = median(x for _, _, x in o), median(x for _, _, x in t)
        print(
            f"{name:<{w}}{n:>8}{o_rate:>9.0f}{t_rate:>9.0f}{t_rate / o_rate:>11.2f}"
            f"{o_hand:>11.2f}{t_hand:>10.2f}{o_new:>13.2f}{t_new:>12.2f}"
        )
    name, n = rows(args.rules, args.players)[0]
    print(f"random games/s: {median(r for r, _, _ in runs[('this', name, n)]):.0f}")


if __name__ == "__main__":
    main()
