"""Bot strength ladder: games per pairing on random setups, with a fair seat rotation.

    python tools/ladder.py [--games 200] [--players 2] [--jobs 2] [--seed 0] [--out ladder.md]
        [--pair greedy,random --pair montecarlo,greedy ...] (default: the README's pairings)
        [--openspiel] (also, or with no --pair only: OpenSpiel's ISMCTS against kbdsl's ismcts)
        [--log games.jsonl] (each game's result as it finishes, so a stopped run keeps its games)
    python tools/ladder.py --table games.jsonl [more.jsonl ...]   (the rows of logs, stopped runs' too;
        runs of the same pairing on other seeds pooled into one row)

With n players, bot A plays one seat and bot B every other one. Games n*k to n*k+n-1 of a pairing
share the random setup of seed `seed + k`, and A sits in seat i % n of game i: every seat once a
setup, so neither bot gains from the first move or the board (two players: the seats are swapped). A
bot is named as for `make_bot`, optionally with budget settings: `montecarlo/playouts=64/horizon=2`,
`ismcts/reuse=0/horizon=2/deals=16` (the tree search before issue 24). `SPEC@DIR` is a bot of
another checkout of kbdsl in DIR (e.g. `git archive 3f98ef3 | tar -x -C /tmp/old`), played through
tools/bot_bridge.py, its processor time measured in its own process; `ms` gives even a bot without a
time budget of its own (the tree search of that commit) one. Budgets counted in playouts make the
table the same on any machine; the processor time per decision it took here is measured and printed
(processor time, so that other work on a shared machine inflates it less). A time budget,
`ismcts/ms=40` (processor milliseconds a decision), compares bots at equal time, but its games
depend on the machine and its load: such a row is not reproducible.
Game i is seeded by its number alone, so with deterministic bots (kbdsl's) the first k games of
a long run are those of `--games k` (OpenSpiel's ISMCTS does not replay a game exactly across processes).
A win counts 1, a win shared by k players 1/k; the interval is Wilson's 95% score interval (a
bot as strong as B wins 1/n).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbdsl.bots import make_bot  # noqa: E402
from kbdsl.game import Game  # noqa: E402
from kbdsl.simulate import rules_for, wilson  # noqa: E402
from tools.bot_bridge import BridgeBots  # noqa: E402

PAIRS = [  # easy, medium and hard (kbdsl.bots.LEVELS) are greedy, montecarlo and ismcts
    ("greedy", "random"),
    ("montecarlo", "greedy"),
    ("ismcts", "montecarlo"),
]

# OpenSpiel's own ISMCTS (kbdsl.envs.openspiel_bots, the `rl` extra) against kbdsl's, both at
# kbdsl.bots.base.PLAYOUTS simulations (playouts) a decision: a reference implementation nobody here wrote.
OPENSPIEL = ("kbdsl.envs.openspiel_bots:OpenSpielIsmcts", "ismcts")


def build(spec: str, seed: str):
    """A bot from `name/key=value/...` (budget settings passed to its constructor)."""
    name, *settings = spec.split("/")
    bot = make_bot(name, seed)
    for item in settings:
        key, _, value = item.partition("=")
        if not hasattr(bot, key):
            raise SystemExit(f"bot {name} has no setting {key!r}")
        setattr(bot, key, None if value == "None" else float(value) if "." in value else int(value))
    return bot


def seats(a: str, b: str, i: int, players: int) -> tuple[int, list[str]]:
    """A's seat in game i and the bot of every seat: the rotation that makes the ladder fair."""
    a_seat = i % players
    return a_seat, [a if p == a_seat else b for p in range(players)]


def play(args: tuple[str, str, int, int, str, int]) -> dict:
    """Game i of pairing a-b: the result for a, and per-decision times of A and of the B seats."""
    a, b, i, seed, rules, players = args
    game = Game.new(rules_for(rules), players=players, seed=seed + i // players)
    a_seat, specs = seats(a, b, i, players)
    bots = {p: build(spec, f"{seed}:{i}:{p}") for p, spec in enumerate(specs) if "@" not in spec}
    away = {p: (*reversed(spec.rsplit("@", 1)), f"{seed}:{i}:{p}") for p, spec in enumerate(specs) if "@" in spec}
    bridged = BridgeBots(rules, players, seed + i // players, away) if away else None
    state = game.new_state()
    times: list[list[float]] = [[] for _ in range(players)]
    while not state.over:
        p = state.current
        if p in bots:
            start = time.process_time()
            code = bots[p].choose(state)
            times[p].append(time.process_time() - start)
        else:  # the other checkout's server times its own decision
            code, cpu = bridged.choose(p, state)
            times[p].append(cpu)
        if bridged:
            bridged.played(state, code)
        state.apply_action(code)
    winners = state.winners()
    score = 1 / len(winners) if a_seat in winners else 0.0
    return {"score": score, "a": times[a_seat], "b": [t for p in range(players) if p != a_seat for t in times[p]]}


def ms(times: list[float]) -> str:
    times = sorted(times)
    return f"{statistics.mean(times) * 1000:.0f} / {times[int(len(times) * 0.99)] * 1000:.0f}"


def row(a: str, b: str, results: list[dict]) -> str:
    """The table's row of pairing a-b from its games' results."""
    rate = wilson(sum(r["score"] for r in results), len(results))
    return (
        f"| {a} | {b} | {rate['rate']:.1%} | {rate['low']:.1%} - {rate['high']:.1%} | "
        f"{ms([t for r in results for t in r['a']])} | {ms([t for r in results for t in r['b']])} |"
    )


def rows_of(logs: list[str]) -> None:
    """Print the rows of --log files, one per pairing, in the order they began, with the games each has:
    runs of one pairing on other seeds pool into one row, its interval over all their games."""
    pairs: dict[str, list[dict]] = {}
    for log in logs:
        for text in Path(log).read_text().splitlines():
            result = json.loads(text)
            pairs.setdefault(result["pair"], []).append(result)
    for pair, results in pairs.items():
        print(row(*pair.split(",", 1), results), f"({len(results)} games)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per pairing (a multiple of --players)")
    ap.add_argument("--players", type=int, default=2, help="A in one seat, B in the others (default 2)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="base")
    ap.add_argument("--pair", action="append", help="A,B: A's win rate against B (repeatable)")
    ap.add_argument("--out", help="also write the table (markdown) to this file")
    ap.add_argument("--openspiel", action="store_true", help=f"add the row {OPENSPIEL[0]} against {OPENSPIEL[1]}")
    ap.add_argument("--log", help="append each game's result (JSON lines) to this file as it finishes")
    ap.add_argument(
        "--table", metavar="LOG", nargs="+", help="print the rows of --log files, a pairing's runs pooled (no games)"
    )
    args = ap.parse_args()
    if args.table:
        return rows_of(args.table)
    pairs = [tuple(p.split(",")) for p in args.pair] if args.pair else PAIRS
    if args.openspiel:
        pairs = [*(pairs if args.pair else []), OPENSPIEL]
    lines = [
        f"{args.games} {args.players}-player games per pairing, {args.rules} rules, random setups (seed {args.seed}), "
        f"A in each seat once a setup (B in the others); a win shared by k counts 1/k; chance {1 / args.players:.0%}; "
        "CPU ms per decision (mean / 99th percentile, one core of this machine)",
        "",
        "| bot A | bot B | A's win rate | 95% interval | A ms/decision | B ms/decision |",
        "|---|---|---|---|---|---|",
    ]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.jobs) as pool:
        for a, b in pairs:
            start = time.time()
            work = [(a, b, i, args.seed, args.rules, args.players) for i in range(args.games)]
            results = []
            for i, r in enumerate(pool.imap(play, work, chunksize=1)):  # a running tally, for runs that take hours
                results.append(r)
                if args.log:
                    with open(args.log, "a") as log:
                        log.write(json.dumps({"pair": f"{a},{b}", "game": i, **r}) + "\n")
                if len(results) % max(args.games // 10, 1) == 0:
                    so_far = wilson(sum(x["score"] for x in results), len(results))
                    print(
                        f"  {a} vs {b}: {len(results)}/{args.games} games, {so_far['rate']:.1%} "
                        f"({so_far['low']:.1%} - {so_far['high']:.1%}), {time.time() - start:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )
            lines.append(row(a, b, results))
            print(lines[-1], f"({time.time() - start:.0f} s)", flush=True)
    table = "\n".join(lines)
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n")


if __name__ == "__main__":
    main()
