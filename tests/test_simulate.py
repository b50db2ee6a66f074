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
