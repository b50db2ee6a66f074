"""`kbdsl simulate`: many bot games for balance studies, with progress, per-game rows and plots."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from kbdsl.cli.play import SEATS_HELP
from kbdsl.errors import KbdslError
from kbdsl.wording import counted


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play many bot games and summarise balance (bots, cards, tiles, seats)")
    p.add_argument("--rules", default="base", help="rule folder or shipped name (default: base)")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--players", type=int, help="number of players (default: the number of --bots entries, or 4)")
    p.add_argument("--bots", default="random", help=f"bots by name or plug-in module:attribute, {SEATS_HELP}")
    p.add_argument("--rotate-seats", action="store_true", help="game i moves every bot i seats on")
    p.add_argument("--seed", type=int, default=0, help="game i uses seed+i")
    p.add_argument("--sections", help="fixed main-board sections (else drawn per game)")
    p.add_argument("--cards", help="fixed cards (else drawn per game)")
    p.add_argument("--preset")
    p.add_argument("--option", action="append", default=[], metavar="NAME=true|false")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    p.add_argument("--backend", choices=["local", "process", "dask"], help="default: process if --jobs > 1")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://10.0.0.5:8786")
    p.add_argument(
        "--batch",
        type=int,
        help="games per task (default: about 32 batches a worker, at most 64 games; "
        "on Dask, batches that shrink from a quarter of a worker's share)",
    )
    p.add_argument("--out", metavar="FILE", help="one row per game: FILE.jsonl (JSON lines) or FILE.csv")
    p.add_argument("--plot", metavar="DIR", help="PNG plots into DIR (needs matplotlib, the plot extra)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(run=cmd_simulate)


def cmd_simulate(args) -> int:
    from kbdsl.cli.play import parse_options, parse_seats, split_list
    from kbdsl.simulate import Plan, rules_for, simulate, start_workers

    if not split_list(args.bots):
        raise KbdslError("--bots names no bot")
    bots = tuple(parse_seats(args.players, args.bots, default=4, people=False))
    players = len(bots)
    if args.games < 1 or args.jobs < 1 or (args.batch is not None and args.batch < 1):
        raise KbdslError("--games, --jobs and --batch must be at least 1")
    if args.out and Path(args.out).suffix not in (".jsonl", ".csv"):
        raise KbdslError(f"--out {args.out}: name a .jsonl or a .csv file")
    if args.plot:
        _need_matplotlib()
    rules_for(args.rules)  # report rule errors once, here, rather than in every worker
    split = lambda v: tuple(split_list(v)) if v else None  # noqa: E731
    plan = Plan(
        args.rules,
        players,
        bots,
        args.seed,
        split(args.sections),
        split(args.cards),
        args.preset,
        parse_options(args.option),
        args.rotate_seats,
    )
    backend = args.backend or ("dask" if args.scheduler else None)
    begun = time.perf_counter()
    tell = lambda text: print(f"kbdsl simulate: {text}", file=sys.stderr)  # noqa: E731
    pool = start_workers(plan, args.jobs, backend=backend, address=args.scheduler, notice=tell)
    try:  # the clock starts once every worker is up and warm (kbdsl.simulate.warm_up)
        start = time.perf_counter()
        with Progress(args.games, enabled=not args.no_progress) as progress:
            summary = simulate(plan, args.games, args.jobs, batch=args.batch, progress=progress, pool=pool)
        seconds = round(time.perf_counter() - start, 2)
    finally:
        pool.close()
    if args.out:
        write_rows(summary.rows, Path(args.out))
    report = summary.report()
    report["seconds"] = seconds
    report["start_seconds"] = round(start - begun, 2)
    if args.plot:
        plot(summary.rows, report, Path(args.plot))
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        print(text_report(report, args, bots))
    return 0


class Progress:
    """A tqdm bar (rate, time left) on a terminal; plain lines every tenth of the run otherwise."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.enabled, self.bar, self.next_line = total, enabled, None, 0
        self.start = time.perf_counter()
        if enabled and sys.stderr.isatty():
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="game", file=sys.stderr)
            except ImportError:
                pass

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(done - self.bar.n)
        elif done >= self.next_line or done == self.total:
            rate = done / max(time.perf_counter() - self.start, 1e-9)
            left = (self.total - done) / rate if rate else 0
            print(f"simulate: {done}/{self.total} games, {rate:.1f} games/s, {left:.0f} s left", file=sys.stderr)
            self.next_line = done + max(self.total // 10, 1)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()


CSV_FIELDS = ["game", "seed", "sections", "cards", "moves", "turns", "winners", "seat", "bot", "total", "gold", "tiles"]


def write_rows(rows: list[dict], path: Path) -> None:
    """JSON lines: one game per line, as play_one returns it. CSV: one line per game and seat
    (a spreadsheet's natural shape), gold and tile uses as `name=value` lists."""
    with path.open("w", newline="") as f:
        if path.suffix == ".jsonl":
            for row in rows:
                f.write(json.dumps(row, sort_keys=True) + "\n")
            return
        out = csv.DictWriter(f, CSV_FIELDS)
        out.writeheader()
        for row in rows:
            for p, bot in enumerate(row["bots"]):
                out.writerow(
                    {
                        "game": row["game"],
                        "seed": row["seed"],
                        "sections": " ".join(f"{b}={','.join(s)}" for b, s in row["sections"].items()),
                        "cards": ",".join(row["cards"]),
                        "moves": row["moves"],
                        "turns": row["turns"],
                        "winners": ",".join(map(str, row["winners"])),
                        "seat": p,
                        "bot": bot,
                        "total": row["totals"][p],
                        "gold": " ".join(f"{k}={v}" for k, v in row["gold"][p].items()),
                        "tiles": " ".join(f"{k}={v}" for k, v in row["tile_uses"][p].items()),
                    }
                )


def text_report(report: dict, args, bots: tuple[str, ...]) -> str:
    ci = lambda d: f"{d['mean']:.1f} ({d['low']:.1f}-{d['high']:.1f})"  # noqa: E731
    lines = [
        f"{report['games']} games of {args.rules}, {len(bots)} players ({', '.join(bots)}), "
        f"{report['seconds']} s (worker processes started in {report['start_seconds']} s); "
        f"{ci(report['turns_per_game'])} turns, {ci(report['moves_per_game'])} moves a game; "
        f"{report['shared_wins']} shared wins",
        "win rate by seat:  " + "  ".join(f"P{p} {w:.1%}" for p, w in enumerate(report["win_rate_by_seat"])),
        "by bot (95% intervals):",
    ]
    for name, b in report["bots"].items():
        w = b["win_rate"]
        lines.append(
            f"  {name:<22} win {w['rate']:.1%} ({w['low']:.1%}-{w['high']:.1%}) of {b['seats_played']} seats, "
            f"{b['shared_wins']} shared; score {ci(b['score'])}"
        )
    lines.append("card report (gold per player in games with it; leader's win rate minus chance):")
    for name in report["card_report"]["by_mean_gold"]:
        c = report["cards"][name]
        lines.append(
            f"  {name:<22}{ci(c['mean_gold']):>20}  effect {c['win_rate_effect']:+.3f}  ({counted(c['games'], 'game')})"
        )
    lines.append("most decisive first: " + ", ".join(report["card_report"]["by_win_rate_effect"]))
    lines.append("tile uses per game:")
    for name, uses in report["tile_uses_per_game"].items():
        lines.append(f"  {name:<22}{uses:>8}")
    return "\n".join(lines)


def _need_matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise KbdslError('--plot needs matplotlib: python3 -m pip install ".[plot]" in the kbdsl folder') from None
    return plt


def plot(rows: list[dict], report: dict, folder: Path) -> list[Path]:
    """scores.png (score distribution per bot), gold.png (mean gold per card with 95% intervals),
    length.png (turns per game)."""
    plt = _need_matplotlib()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    fig, ax = plt.subplots(figsize=(7, 4))
    by_bot: dict[str, list[int]] = {}
    for row in rows:
        for p, bot in enumerate(row["bots"]):
            by_bot.setdefault(bot, []).append(row["totals"][p])
    for bot, scores in sorted(by_bot.items()):
        ax.hist(scores, bins=30, alpha=0.6, label=bot)
    ax.set(xlabel="final gold", ylabel="players", title="Score distribution by bot")
    ax.legend()
    written.append(_save(fig, folder / "scores.png", plt))
    fig, ax = plt.subplots(figsize=(7, 4))
    names = report["card_report"]["by_mean_gold"]
    means = [report["cards"][n]["mean_gold"]["mean"] for n in names]
    errs = [report["cards"][n]["mean_gold"]["high"] - report["cards"][n]["mean_gold"]["mean"] for n in names]
    ax.barh(names, means, xerr=errs)
    ax.invert_yaxis()
    ax.set(xlabel="mean gold per player (95% interval)", title="Gold per card")
    written.append(_save(fig, folder / "gold.png", plt))
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.hist([r["turns"] for r in rows], bins=20)
    ax.set(xlabel="turns", ylabel="games", title="Game length")
    written.append(_save(fig, folder / "length.png", plt))
    return written


def _save(fig, path: Path, plt) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
