"""Simulation for balance studies: rows per game, reports, outputs, backends."""

from __future__ import annotations

import csv
import json

import pytest

from kbdsl.cli import main
from kbdsl.simulate import Plan, Summary, simulate


def test_per_game_rows_are_the_same_whatever_the_number_of_workers(tmp_path, capsys):
    rows = []
    for jobs in ("1", "2"):
        out = tmp_path / f"{jobs}.jsonl"
        argv = ["simulate", "--games", "6", "--players", "2", "--bots", "random,greedy", "--seed", "1"]
        assert main([*argv, "--jobs", jobs, "--batch", "2", "--out", str(out), "--no-progress"]) == 0
        rows.append(out.read_text())
    capsys.readouterr()
    assert rows[0] == rows[1]
    games = [json.loads(line) for line in rows[0].splitlines()]
    assert [g["game"] for g in games] == list(range(6)) and [g["seed"] for g in games] == list(range(1, 7))
    assert all(g["bots"] == ["random", "greedy"] and len(g["totals"]) == 2 for g in games)


def test_the_report_counts_bots_seats_cards_and_shared_wins_from_the_rows():
    plan = Plan("base", 3, ("random", "greedy"), seed=5, preset="first-game", rotate=True)
    summary = simulate(plan, 6)
    rows, report = summary.rows, summary.report()
    assert [r["bots"] for r in rows[:2]] == [["random", "greedy", "random"], ["greedy", "random", "greedy"]]
    wins = {"random": 0.0, "greedy": 0.0}
    for r in rows:
        for p in r["winners"]:
            wins[r["bots"][p]] += 1 / len(r["winners"])
        assert r["totals"] == [sum(g.values()) for g in r["gold"]]
    for name, b in report["bots"].items():
        assert b["seats_played"] == 9
        assert b["win_rate"]["rate"] == round(wins[name] / 9, 4)
        assert b["win_rate"]["low"] <= b["win_rate"]["rate"] <= b["win_rate"]["high"]
    assert report["shared_wins"] == sum(len(r["winners"]) > 1 for r in rows)
    assert set(report["cards"]) == {"fishermen", "knights", "merchants", "castles"}
    knights = [g["knights"] for r in rows for g in r["gold"]]
    assert report["cards"]["knights"]["mean_gold"]["mean"] == round(sum(knights) / len(knights), 3)
    assert sorted(report["card_report"]["by_mean_gold"]) == sorted(report["cards"])
    tiles = sum(sum(u.values()) for r in rows for u in r["tile_uses"])
    assert sum(report["tile_uses_per_game"].values()) == pytest.approx(tiles / 6, abs=0.05)


def test_gold_one_player_alone_won_during_play_counts_zero_for_the_others():
    """A sheet names gold won during play (a tile's) only where it was won; the report reads it as
    0 for the others, whichever seat won it (it once raised KeyError, or left the source out)."""
    row = {
        "bots": ["random", "random"],
        "tile_uses": [{}, {}],
        "sections": {"main": ["a", "b"]},
        "moves": 9,
        "turns": 4,
    }
    rows = [
        {**row, "winners": [1], "totals": [3, 7], "gold": [{"lords": 3}, {"lords": 5, "treasure": 2}]},
        {**row, "winners": [0], "totals": [9, 4], "gold": [{"lords": 6, "treasure": 3}, {"lords": 4}]},
    ]
    cards = Summary(rows).report()["cards"]
    assert cards["treasure"]["games"] == 2
    assert cards["treasure"]["mean_gold"]["mean"] == round((2 + 3) / 4, 3)
    assert cards["treasure"]["leader_win_rate"] == 1.0
    assert cards["lords"]["mean_gold"]["mean"] == round((3 + 5 + 6 + 4) / 4, 3)


def test_an_empty_summary_reports_zero_games():
    assert Summary().report()["games"] == 0


def test_csv_has_one_line_per_game_and_seat(tmp_path, capsys):
    out = tmp_path / "games.csv"
    assert main(["simulate", "--games", "3", "--players", "2", "--seed", "3", "--out", str(out), "--no-progress"]) == 0
    lines = list(csv.DictReader(out.open()))
    assert [(r["game"], r["seat"]) for r in lines] == [(str(g), str(p)) for g in range(3) for p in range(2)]
    assert all(r["bot"] == "random" and int(r["total"]) >= 0 for r in lines)
    assert "3 games of base" in capsys.readouterr().out


def test_progress_is_plain_lines_when_not_a_terminal(capsys):
    assert main(["simulate", "--games", "2", "--players", "2", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "simulate: 2/2 games" in captured.err
    assert json.loads(captured.out)["games"] == 2


def test_simulate_refuses_unknown_bots_and_outputs(capsys):
    assert main(["simulate", "--games", "1", "--bots", "nobody"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    assert main(["simulate", "--games", "1", "--out", "rows.txt"]) == 2
    assert "name a .jsonl or a .csv file" in capsys.readouterr().err


def test_plots_are_written_as_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    folder = tmp_path / "plots"
    assert main(["simulate", "--games", "3", "--players", "2", "--plot", str(folder), "--no-progress"]) == 0
    capsys.readouterr()
    for name in ("scores.png", "gold.png", "length.png"):
        assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_dask_backend_gives_the_local_rows():
    pytest.importorskip("dask.distributed")
    plan = Plan("base", 2, ("random",), seed=9)
    local = simulate(plan, 4).rows
    assert simulate(plan, 4, backend="dask", jobs=1, batch=2).rows == local


def test_a_local_dask_cluster_of_worker_processes_gives_the_local_rows_and_closes_them():
    """Its workers are processes of ours (forked with the rule set, no nannies): every batching gives
    the rows of this process, and closing the backend ends them."""
    pytest.importorskip("dask.distributed")
    from kbdsl.simulate import start_workers

    plan = Plan("base", 3, ("random", "greedy"), seed=4, rotate=True)
    local = simulate(plan, 9).rows
    dask = start_workers(plan, 2, backend="dask")
    try:
        assert dask.jobs == 2 and len(dask.procs) == 2
        for batch in (None, 1, 4):
            assert simulate(plan, 9, 2, batch=batch, pool=dask).rows == local
    finally:
        dask.close()
    assert not any(p.is_alive() for p in dask.procs)


def test_a_dask_run_goes_on_with_the_workers_left_and_stops_with_an_error_when_none_is():
    pytest.importorskip("dask.distributed")
    import signal

    from kbdsl.errors import KbdslError
    from kbdsl.simulate import start_workers

    plan = Plan("base", 2, ("random",), seed=2)
    local = simulate(plan, 4).rows
    dask = start_workers(plan, 2, backend="dask")
    try:
        for p in dask.procs:
            p.kill()
            p.join()
            assert p.exitcode == -signal.SIGKILL
            if p is dask.procs[0]:  # one left: it plays every batch
                assert simulate(plan, 4, 2, pool=dask).rows == local
        with pytest.raises(KbdslError, match="every Dask worker process died while playing game"):
            simulate(plan, 4, 2, pool=dask)
    finally:
        dask.close()


def test_guided_batches_shrink_to_an_even_end_in_few_tasks():
    """Where a task costs a round trip through a scheduler: the games in order, each once, in batches
    that only shrink, none over the cap, at most about 30 a worker, the last a 64th of a worker's share."""
    import math

    from kbdsl.simulate import guided, split

    for games in (1, 7, 200, 2000, 10**5):
        for workers in (1, 2, 16):
            work = list(guided(games, workers))
            assert [i for b in work for i in b] == list(range(games))
            sizes = [len(b) for b in work]
            assert sizes == sorted(sizes, reverse=True) and max(sizes) <= 256
            assert len(work) <= 32 * workers or min(sizes[:-1], default=256) == 256, (games, workers)
            assert sizes[-1] <= max(1, math.ceil(games / (64 * workers))), (games, workers)

    class Pool:
        jobs, guided = 2, True

    assert split(2000, Pool()) == list(guided(2000, 2)) and split(10, Pool(), batch=4) == [
        range(0, 4),
        range(4, 8),
        range(8, 10),
    ]
    Pool.guided = False
    assert len(split(2000, Pool())) == 63


def test_warm_workers_serve_several_runs_with_the_rows_of_one_process():
    """Workers started once play several plans; every batch size gives the rows of this process."""
    from kbdsl.simulate import start_workers

    plans = [Plan("base", 2, ("random", "greedy"), seed=3), Plan("base", 3, ("random",), seed=8, rotate=True)]
    workers = start_workers(plans[0], 2, backend="process")
    try:
        for plan in plans:
            local = simulate(plan, 7).rows
            for batch in (None, 1, 3, 7):
                assert simulate(plan, 7, 2, batch=batch, pool=workers).rows == local
    finally:
        workers.close()
    assert all(not w.proc.is_alive() for w in workers.pool)


def test_a_batch_size_leaves_every_worker_many_short_tasks():
    """About 32 tasks a worker (so the run's end is even) unless a task would pass 64 games."""
    import math

    from kbdsl.simulate import batch_size

    for games in (1, 10, 200, 2000, 10**6):
        for jobs in (1, 2, 4, 16):
            size = batch_size(games, jobs)
            tasks = math.ceil(games / size)
            assert 1 <= size <= 64 and (size == 1 or size == 64 or tasks >= 16 * jobs), (games, jobs)
            assert size == 64 or tasks <= 32 * jobs or size == 1, (games, jobs)


def test_a_bot_error_in_a_worker_is_raised_here_and_the_workers_stay_usable(tmp_path, capsys):
    """A plug-in bot that chooses an illegal move fails the run with its message, as in one process."""
    from kbdsl.errors import KbdslError
    from kbdsl.simulate import start_workers

    plan = Plan("base", 2, ("tests.test_simulate:wrong_bot", "random"), seed=1)
    workers = start_workers(plan, 2, backend="process")
    try:
        with pytest.raises(KbdslError, match="which is not a legal move here"):
            simulate(plan, 4, 2, pool=workers)
        good = Plan("base", 2, ("random",), seed=1)
        assert simulate(good, 4, 2, pool=workers).rows == simulate(good, 4).rows
    finally:
        workers.close()


def wrong_bot(seat):
    """A plug-in that always ends its turn at once, legal or not."""
    return "end"


def test_a_local_dask_cluster_runs_its_worker_processes_without_the_statistical_profiler():
    """Dask's per-worker profiler (a stack sample of every thread every 10 ms) cost processor time a
    game, and so did the cyclic collector walking the workers' large heaps: those are frozen once
    the worker has started."""
    pytest.importorskip("dask.distributed")
    from kbdsl.backends import Dask

    backend = Dask(2)
    try:
        found = backend.client.run(lambda: __import__("dask").config.get("distributed.worker.profile.enabled"))
        frozen = backend.client.run(__import__("gc").get_freeze_count)
    finally:
        backend.close()
    assert len(found) == 2 and not any(found.values())
    assert len(frozen) == 2 and min(frozen.values()) > 10_000
