"""Benchmark the turn engine on one core, side by side with a hand-written playout.

    python tools/bench.py [--seconds S] [--rules base] [--preset first-game] [--players 4]

Prints, in one run: random-bot games/s and moves/s through the engine (full rules, tiles
included), a hand-written mandatory-only playout over the same compiled tables (the speed of
light for this board in Python) and the ratio, then clone(), legal_actions() and apply_action()
in microseconds, playouts/s from a mid-game position and Game.new in ms (new random setups of
known sections). All times are processor time of this process, so other work on a shared
machine does not inflate them. Last line: `random games/s: N`.

`--compare DIR` instead measures this checkout and another one (say, the commit before a change)
in turns, in subprocesses, per second of CPU time, and prints both medians and their ratio, for
random games and for Game.new of new random setups.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbdsl.bitset import bit_list  # noqa: E402
from kbdsl.bots import RandomBot, play_out  # noqa: E402
from kbdsl.game import Game  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402


def engine_games(game: Game, players: int, seconds: float, first: int = 0) -> tuple[int, int, float]:
    games = moves = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_state()
        play_out(state, [RandomBot(f"{first + games}:{p}") for p in range(players)])
        games += 1
        moves += len(state.log)
    return games, moves, time.process_time() - start


def hand_written_games(game: Game, players: int, seconds: float, first: int = 0) -> tuple[int, float]:
    """Mandatory builds only (three on the card's terrain, next to one's own if possible), written
    directly on the tables: no rule language, no tiles. What the engine is measured against."""
    t, rules = game.tables, game.rules
    nbr_mask, terrain = t.nbr_mask, t.terrain
    cards = [k for k, n in rules.deck.items() for _ in range(n)]
    supply0, per_turn = rules.settlements, game.mandatory.count
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        rng = random.Random(first + games)
        deck = cards[:]
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
        games += 1
    return games, time.process_time() - start


def per_call_us(fn, seconds: float) -> float:
    calls, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        fn()
        calls += 1
    return (time.process_time() - start) / calls * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="time for each of the two game loops")
    ap.add_argument("--rules", default="base")
    ap.add_argument("--preset", default="first-game")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--compare", metavar="DIR", help="another checkout to measure in turns with this one")
    ap.add_argument("--rounds", type=int, default=3, help="turns per checkout with --compare")
    ap.add_argument("--env", action="store_true", help="an environment step against the engine (tools/bench_env.py)")
    args = ap.parse_args()
    if args.env:
        import bench_env  # tools/, beside this script

        bench_env.main(args.rules, args.players, rounds=args.rounds)
        return
    if args.compare:
        compare(args)
        return
    rules = load(args.rules)
    game = Game.new(rules, players=args.players, preset=args.preset, seed=0)
    small = max(args.seconds / 10, 0.2)

    # The two loops take turns in half-second slices, so whatever else the machine does
    # slows both alike and the ratio stays meaningful.
    games = moves = hand = 0
    elapsed = hand_elapsed = 0.0
    while elapsed < args.seconds:
        g, m, e = engine_games(game, args.players, 0.5, games)
        h, he = hand_written_games(game, args.players, 0.5, hand)
        games, moves, elapsed, hand, hand_elapsed = games + g, moves + m, elapsed + e, hand + h, hand_elapsed + he
    rate, hand_rate = games / elapsed, hand / hand_elapsed

    # Mid-game figures average over 20 positions (halfway through 20 random games), so that two
    # engines whose random streams differ are still measured on alike positions.
    mids = []
    for k in range(20):
        mid = game.new_state()
        bots = [RandomBot(f"mid:{k}:{p}") for p in range(args.players)]
        while len(mid.log) < moves / games / 2:
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
    seeds = iter(range(1, 10**9))
    new_ms = per_call_us(lambda: Game.new(rules, players=args.players, seed=next(seeds)), small) / 1000
    again_ms = per_call_us(lambda: Game.new(rules, players=args.players, preset=args.preset), small) / 1000

    print(
        f"setup: {args.rules} / {args.preset}, {args.players} players; "
        f"{games} games, {moves / games:.0f} moves per game"
    )
    print(f"hand-written mandatory-only playout games/s: {hand_rate:.0f}")
    print(f"engine / hand-written: {rate / hand_rate:.2f}")
    print(f"clone() us: {clone_us:.1f}")
    print(f"legal_actions() us (mid-game, {mean_moves:.0f} moves on average): {legal_us:.1f}")
    print(f"apply_action() us: {apply_us:.1f}")
    print(f"playouts/s from mid-game (clone, random play to the end, score): {playouts:.0f}")
    print(f"Game.new ms (random setup, new seed each time): {new_ms:.2f}")
    print(f"Game.new ms (a layout seen before): {again_ms:.3f}")
    print(f"moves/s: {moves / elapsed:.0f}")
    print(f"random games/s: {rate:.0f}")


#: One measurement in a subprocess, importing kbdsl from the tree it runs in: random games per
#: second of CPU time (a busy machine slows the wall clock of both trees unevenly, not their CPU time),
#: then Game.new's CPU time in ms for new random setups (the sections' parts compiled in this run).
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
rate = games / (time.process_time() - start)
news, start = 0, time.process_time()
while time.process_time() - start < seconds / 4:  # Game.new of new random setups, in ms
    news += 1
    Game.new(rules, players=players, seed=news)
print(rate, (time.process_time() - start) / news * 1000)
"""


def compare(args: argparse.Namespace) -> None:
    """Alternate runs of both checkouts so both see the same machine load; medians of CPU-time rates."""
    here = Path(__file__).resolve().parent.parent
    trees = {"other": Path(args.compare).resolve(), "this": here}
    rates: dict[str, list[float]] = {k: [] for k in trees}
    news: dict[str, list[float]] = {k: [] for k in trees}
    argv = [args.rules, args.preset, str(args.players), str(args.seconds)]
    for _ in range(args.rounds):
        for name, tree in trees.items():
            out = subprocess.run(
                [sys.executable, "-c", PROBE, *argv], cwd=tree, capture_output=True, text=True, check=True
            ).stdout
            rate, new_ms = out.strip().splitlines()[-1].split()
            rates[name].append(float(rate))
            news[name].append(float(new_ms))
    other, this = (statistics.median(rates[k]) for k in ("other", "this"))
    for name, rate in (("other", other), ("this", this)):
        runs = ", ".join(f"{r:.0f}" for r in rates[name])
        new_runs = ", ".join(f"{r:.2f}" for r in news[name])
        print(f"{name} ({trees[name]}): {rate:.0f} random games per CPU second (runs: {runs})")
        print(f"{name}: Game.new ms, a new random setup: {statistics.median(news[name]):.2f} (runs: {new_runs})")
    print(f"ratio this/other: {this / other:.2f}")
    print(f"Game.new ratio other/this: {statistics.median(news['other']) / statistics.median(news['this']):.1f}")
    print(f"random games/s: {this:.0f}")


if __name__ == "__main__":
    main()
