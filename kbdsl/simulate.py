"""Many bot games, one result row per game, summarised for designers: is a card, tile, seat or
bot out of balance?

Game i uses seed `seed + i` for its setup draws, deck and bots, and nothing else: its row is the
same whatever runs it (one process, a pool of processes or a Dask cluster: kbdsl.backends) and
in whatever order, so a run is reproducible and the same for any number of worker processes.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial

from kbdsl.backends import Backend, Notice, start
from kbdsl.bots import make_bot, play_out
from kbdsl.engine.compiled import compiled
from kbdsl.game import Game
from kbdsl.ruleset import RuleSet, load


@dataclass(frozen=True)
class Plan:
    """What to simulate. Seat p of game i gets bot `bots[(p + i) % len(bots)]` when `rotate`
    (every bot in every seat in turn), else `bots[p % len(bots)]`."""

    rules: str
    players: int
    bots: tuple[str, ...]
    seed: int = 0
    sections: tuple[str, ...] | None = None
    cards: tuple[str, ...] | None = None
    preset: str | None = None
    options: Mapping[str, bool] = field(default_factory=dict)
    rotate: bool = False

    def seat_bots(self, i: int) -> list[str]:
        shift = i if self.rotate else 0
        return [self.bots[(p + shift) % len(self.bots)] for p in range(self.players)]


_RULES: dict[str, RuleSet] = {}


def rules_for(name: str) -> RuleSet:
    """The rule set of a name or folder, loaded once per process (a worker plays many games)."""
    rules = _RULES.get(name)
    if rules is None:
        rules = _RULES[name] = load(name)
    return rules


def plan_game(plan: Plan, i: int) -> Game:
    """Game i of a plan, set up from seed `plan.seed + i` where the plan leaves the setup open."""
    return Game.new(
        rules_for(plan.rules),
        plan.players,
        list(plan.sections) if plan.sections else None,
        list(plan.cards) if plan.cards else None,
        plan.seed + i,
        plan.options,
        plan.preset,
    )


def warm_up(plan: Plan) -> None:
    """Where the games will run, before the clock starts: the rule set loaded and the plan's first
    game set up with its playout compiled, which loads once a process what every game needs (the
    graph library a board's shape is compiled with, the shape's tables), so a run times its games."""
    compiled(plan_game(plan, 0))


def play_one(plan: Plan, i: int) -> dict:
    """Play game i of a plan; its row (plain JSON values, no timings)."""
    game = plan_game(plan, i)
    seed, tiles = game.setup.seed, game.rules.tiles
    names = plan.seat_bots(i)
    bots = [make_bot(names[p], f"{seed}:{p}") for p in range(plan.players)]
    state = play_out(game.new_state(), bots)
    sheets = state.scores()
    uses: list[Counter] = [Counter() for _ in range(plan.players)]
    for code, seat in zip(state.log, state.movers(), strict=True):
        kind = game.kinds[game.code_kind(code)]
        if kind in tiles:
            uses[seat][kind] += 1
    return {
        "game": i,
        "seed": seed,
        "sections": game.setup.layout.to_json(),
        "cards": list(game.setup.cards),
        "bots": names,
        "winners": state.winners(sheets),
        "totals": [s["total"] for s in sheets],
        "gold": [{k: v for k, v in s.items() if k != "total"} for s in sheets],
        "tile_uses": [dict(sorted(u.items())) for u in uses],
        "moves": len(state.log),
        "turns": state.turn,
    }


def play_batch(plan: Plan, games: Iterable[int]) -> list[dict]:
    """Rows of several games: the unit of work a backend hands to a worker."""
    return [play_one(plan, i) for i in games]


def mean_ci(values: list[float]) -> dict[str, float]:
    """Mean and normal 95% interval of the mean."""
    n = len(values)
    if not n:
        return {"mean": 0.0, "low": 0.0, "high": 0.0}
    m = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(n) if n > 1 else 0.0
    return {"mean": round(m, 3), "low": round(m - half, 3), "high": round(m + half, 3)}


def wilson(wins: float, n: int, z: float = 1.96) -> dict[str, float]:
    """A rate and Wilson's 95% score interval (sound for small counts and rates near 0 or 1)."""
    if not n:
        return {"rate": 0.0, "low": 0.0, "high": 0.0}
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {"rate": round(p, 4), "low": round(max(centre - half, 0.0), 4), "high": round(min(centre + half, 1.0), 4)}


@dataclass
class Summary:
    """The rows of a run; `report()` turns them into rates, means and intervals."""

    rows: list[dict] = field(default_factory=list)

    def add(self, row: dict) -> None:
        self.rows.append(row)

    def report(self) -> dict:
        rows = self.rows
        n = len(rows)
        players = len(rows[0]["totals"]) if rows else 0
        seat_wins = [0.0] * players
        bot_seats: Counter = Counter()
        bot_wins: Counter = Counter()
        bot_shared: Counter = Counter()
        bot_scores: dict[str, list[int]] = defaultdict(list)
        gold: dict[str, list[int]] = defaultdict(list)
        leader_wins: Counter = Counter()
        tile_uses: Counter = Counter()
        sections: Counter = Counter()
        shared = 0
        for row in rows:
            winners = row["winners"]
            shared += len(winners) > 1
            for p in winners:
                seat_wins[p] += 1 / len(winners)
            for p, name in enumerate(row["bots"]):
                bot_seats[name] += 1
                bot_scores[name].append(row["totals"][p])
                if p in winners:
                    bot_wins[name] += 1 / len(winners)
                    bot_shared[name] += len(winners) > 1
            # every source any player's sheet names (gold won during play is on its winners' sheets alone)
            for scorer in dict.fromkeys(k for g in row["gold"] for k in g):
                values = [g.get(scorer, 0) for g in row["gold"]]
                gold[scorer].extend(values)
                top = max(values)
                leaders = [p for p, v in enumerate(values) if v == top]
                leader_wins[scorer] += sum(1 for p in leaders if p in winners) / len(leaders)
            for uses in row["tile_uses"]:
                tile_uses.update(uses)
            for placed in row["sections"].values():
                sections.update(s.partition("@")[0] for s in placed)
        games_with = {k: len(v) // max(players, 1) for k, v in gold.items()}
        chance = 1 / players if players else 0.0
        cards = {
            k: {
                "games": games_with[k],
                "mean_gold": mean_ci(v),
                # How decisive the card is: how often a player leading on it wins, minus the
                # chance a seat has anyway. Near 0: it does not decide games; high: it does.
                "leader_win_rate": round(leader_wins[k] / games_with[k], 3),
                "win_rate_effect": round(leader_wins[k] / games_with[k] - chance, 3),
            }
            for k, v in gold.items()
        }
        return {
            "games": n,
            "moves_per_game": mean_ci([r["moves"] for r in rows]),
            "turns_per_game": mean_ci([r["turns"] for r in rows]),
            "shared_wins": shared,
            "win_rate_by_seat": [round(w / n, 4) if n else 0.0 for w in seat_wins],
            "bots": {
                name: {
                    "seats_played": bot_seats[name],
                    "win_rate": wilson(bot_wins[name], bot_seats[name]),
                    "shared_wins": bot_shared[name],
                    "score": mean_ci(bot_scores[name]),
                }
                for name in sorted(bot_seats)
            },
            "cards": dict(sorted(cards.items())),
            "card_report": {
                "by_mean_gold": sorted(cards, key=lambda k: -cards[k]["mean_gold"]["mean"]),
                "by_win_rate_effect": sorted(cards, key=lambda k: -cards[k]["win_rate_effect"]),
            },
            "tile_uses_per_game": {k: round(v / n, 2) for k, v in sorted(tile_uses.items())},
            "games_by_section": dict(sorted(sections.items())),
        }


def simulate(
    plan: Plan,
    games: int,
    jobs: int = 1,
    *,
    backend: str | None = None,
    batch: int | None = None,
    address: str | None = None,
    progress=None,
    notice: Notice | None = None,
    pool: Backend | None = None,
) -> Summary:
    """Play `games` games and collect their rows in game order. `backend`: "local" (this
    process), "process" (`jobs` worker processes, the default when jobs > 1) or "dask"
    (`address` of a scheduler, or a local cluster of `jobs` worker processes); or `pool`, a
    backend already started (`start_workers`), kept open for more runs. `batch`: games per task
    (None: `batch_size`). `progress(done)` is called as rows arrive; `notice(text)` when games
    whose worker died are played again."""
    summary = Summary()
    own = pool is None
    if own:
        pool = start_workers(plan, jobs, backend=backend, address=address, notice=notice)
    work = split(games, pool, batch)
    try:
        for row in pool.run(play_batch, plan, work):
            summary.add(row)
            if progress is not None:
                progress(len(summary.rows))
    finally:
        if own:
            pool.close()
    return summary


def start_workers(
    plan: Plan, jobs: int, *, backend: str | None = None, address: str | None = None, notice: Notice | None = None
) -> Backend:
    """Start where the plan's games will run, each place warmed up there first (warm_up)."""
    name = backend or ("process" if jobs > 1 else "local")
    return start(name, jobs, address, partial(warm_up, plan), notice)


def split(games: int, pool: Backend, batch: int | None = None) -> list[range]:
    """A run's batches: `batch` games each when given; else shrinking ones (`guided`) where every task
    costs a round trip through a scheduler, else even ones (`batch_size`)."""
    if batch:
        return list(batches(games, batch))
    if pool.guided:
        return list(guided(games, pool.jobs))
    return list(batches(games, batch_size(games, pool.jobs)))


def guided(games: int, jobs: int, most: int = 256) -> Iterator[range]:
    """Batches of a quarter of what is left per worker (at most `most` games), down to a 64th of a
    worker's share: a run of any length is some 30 batches a worker or fewer, most of its games in
    the first ones, and the last are short, so that every worker finishes at about the same time."""
    jobs = max(jobs, 1)
    least = max(1, games // (64 * jobs))
    first = 0
    while first < games:
        size = min(most, max(least, math.ceil((games - first) / (4 * jobs))))
        yield range(first, min(first + size, games))
        first += size


def batch_size(games: int, jobs: int) -> int:
    """Games per batch: about 32 batches a worker, so the last batches leave no worker idle for long
    (an uneven end costs at most a thirty-second of the run), and at most 64 games a task."""
    return max(1, min(64, math.ceil(games / (max(jobs, 1) * 32))))


def batches(games: int, size: int) -> Iterator[range]:
    for first in range(0, games, size):
        yield range(first, min(first + size, games))
