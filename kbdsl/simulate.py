"""Many bot games in a row, summarised for designers: is a card, tile or seat out of balance?

Game i uses seed `seed + i` for its setup draws, deck and bots, so a run is reproducible and
the same whatever the number of worker processes.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from kbdsl.bots import make_bot, play_out
from kbdsl.game import Game
from kbdsl.ruleset import RuleSet, load


@dataclass(frozen=True)
class Plan:
    rules: str
    players: int
    bots: tuple[str, ...]
    seed: int = 0
    sections: tuple[str, ...] | None = None
    cards: tuple[str, ...] | None = None
    preset: str | None = None
    options: Mapping[str, bool] = field(default_factory=dict)


@dataclass
class Summary:
    """Totals over all games; `report()` turns them into averages."""

    games: int = 0
    moves: int = 0
    turns: int = 0
    wins: list[float] = field(default_factory=list)  # per seat, shared wins split
    totals: list[int] = field(default_factory=list)  # per seat, summed gold
    card_gold: Counter = field(default_factory=Counter)  # scorer -> gold over all players
    card_games: Counter = field(default_factory=Counter)  # scorer -> games it was in
    tile_uses: Counter = field(default_factory=Counter)  # action -> times played
    sections: Counter = field(default_factory=Counter)

    def add(self, game: dict) -> None:
        if not self.wins:
            self.wins = [0.0] * len(game["totals"])
            self.totals = [0] * len(game["totals"])
        self.games += 1
        self.moves += game["moves"]
        self.turns += game["turns"]
        for p in game["winners"]:
            self.wins[p] += 1 / len(game["winners"])
        for p, t in enumerate(game["totals"]):
            self.totals[p] += t
        for name, gold in game["card_gold"].items():
            self.card_gold[name] += gold
            self.card_games[name] += 1
        self.tile_uses.update(game["tile_uses"])
        self.sections.update(game["sections"])

    def report(self) -> dict:
        n, players = max(self.games, 1), len(self.wins)
        return {
            "games": self.games,
            "moves_per_game": round(self.moves / n, 1),
            "turns_per_game": round(self.turns / n, 1),
            "win_rate_by_seat": [round(w / n, 3) for w in self.wins],
            "mean_gold_by_seat": [round(t / n, 1) for t in self.totals],
            "mean_gold_per_player_by_scorer": {
                k: round(v / (self.card_games[k] * players), 2) for k, v in sorted(self.card_gold.items())
            },
            "games_by_scorer": dict(sorted(self.card_games.items())),
            "uses_per_game_by_action": {k: round(v / n, 2) for k, v in sorted(self.tile_uses.items())},
            "games_by_section": dict(sorted(self.sections.items())),
        }


_RULES: dict[str, RuleSet] = {}


def play_one(plan: Plan, i: int) -> dict:
    """Play game i of a plan and return what the summary needs."""
    rules = _RULES.get(plan.rules) or _RULES.setdefault(plan.rules, load(plan.rules))
    seed = plan.seed + i
    game = Game.new(
        rules,
        plan.players,
        list(plan.sections) if plan.sections else None,
        list(plan.cards) if plan.cards else None,
        seed,
        plan.options,
        plan.preset,
    )
    bots = [make_bot(plan.bots[p % len(plan.bots)], f"{seed}:{p}") for p in range(plan.players)]
    state = play_out(game.new_state(), bots)
    sheets = state.scores()
    card_gold: Counter = Counter()
    for sheet in sheets:
        for k, v in sheet.items():
            if k != "total":
                card_gold[k] += v
    uses = Counter(game.kinds[game.split(c)[0]] for c in state.log)
    return {
        "moves": len(state.log),
        "turns": state.turn,
        "winners": state.winners(),
        "totals": [s["total"] for s in sheets],
        "card_gold": dict(card_gold),
        "tile_uses": {k: v for k, v in uses.items() if k in rules.tiles},
        "sections": [p.name for _, placed in game.setup.layout.boards for p in placed],
    }


def _work(args: tuple[Plan, int]) -> dict:
    return play_one(*args)


def simulate(plan: Plan, games: int, jobs: int = 1) -> Summary:
    """Play `games` games (in `jobs` processes) and summarise them in game order."""
    summary = Summary()
    work = [(plan, i) for i in range(games)]
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            for result in pool.imap(_work, work, chunksize=8):
                summary.add(result)
    else:
        for item in work:
            summary.add(_work(item))
    return summary
