"""`kbdsl simulate --jobs 2` when a worker process dies (issue 20 item 12): the lost batch is
played again once by a fresh worker, a batch that loses its worker twice stops the run with a
clear error and a non-zero exit, and no game is ever lost or the run left hanging. Each run is a
subprocess bounded by a timeout (a hang fails the test)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A plug-in bot that plays as the random bot, but whose process kills itself with SIGKILL on its
# first move: every time (KILLER_ALWAYS), or only in the first process to claim the marker file.
KILLER = """
import os, signal
from kbdsl.bots import RandomBot

class Bot(RandomBot):
    def choose(self, state):
        if os.environ.get("KILLER_ALWAYS") or _claim(os.environ["KILLER_MARK"]):
            os.kill(os.getpid(), signal.SIGKILL)
        return super().choose(state)

def _claim(path):
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True
"""


def simulate(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / "killer.py").write_text(KILLER)
    environ = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", **env}
    argv = [sys.executable, "-m", "kbdsl", "simulate", "--players", "2", "--seed", "3", "--no-progress", *args]
    return subprocess.run(argv, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=180)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_killed_worker_s_games_are_played_again_and_the_rows_are_complete(tmp_path):
    mark = tmp_path / "mark"
    argv = ["--games", "12", "--bots", "killer:Bot,random", "--batch", "2"]
    two = simulate(tmp_path, *argv, "--jobs", "2", "--out", str(tmp_path / "two.jsonl"), KILLER_MARK=str(mark))
    assert two.returncode == 0, two.stderr
    assert mark.exists()  # a worker did die
    assert "a worker process died (killed by signal 9 (SIGKILL)) while playing games" in two.stderr
    assert ": playing them again" in two.stderr and two.stderr.count("died") == 1
    one = simulate(tmp_path, *argv, "--jobs", "1", "--out", str(tmp_path / "one.jsonl"), KILLER_MARK=str(mark))
    assert one.returncode == 0, one.stderr
    assert [r["game"] for r in rows(tmp_path / "two.jsonl")] == list(range(12))
    assert rows(tmp_path / "two.jsonl") == rows(tmp_path / "one.jsonl")


def test_a_batch_that_loses_its_worker_twice_stops_the_run_with_an_error(tmp_path):
    out = tmp_path / "rows.jsonl"
    done = simulate(
        tmp_path, "--games", "4", "--bots", "killer:Bot", "--jobs", "2", "--out", str(out), KILLER_ALWAYS="1"
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("kbdsl simulate: a worker process died (killed by signal 9 (SIGKILL)) while playing game")
    assert "for the second time" in last and "Traceback" not in done.stderr
    assert not out.exists()  # nothing half-written


def workers_of(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(x) for x in children.read_text().split()] if children.exists() else []


def test_a_worker_killed_from_outside_mid_run_does_not_hang_or_lose_games(tmp_path):
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        import pytest

        pytest.skip("needs /proc/PID/task/PID/children to find the workers")
    out = tmp_path / "two.jsonl"
    argv = [sys.executable, "-m", "kbdsl", "simulate", "--players", "2", "--seed", "5", "--no-progress"]
    argv += ["--games", "16", "--bots", "greedy", "--batch", "1"]
    proc = subprocess.Popen(
        [*argv, "--jobs", "2", "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while len(workers_of(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(0.5)  # both workers are playing their first games
        victims = workers_of(proc.pid)
        assert victims, "no worker process found"
        os.kill(victims[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=180)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    one = subprocess.run(
        [*argv, "--jobs", "1", "--out", str(tmp_path / "one.jsonl")], cwd=ROOT, capture_output=True, timeout=180
    )
    assert one.returncode == 0
    assert rows(out) == rows(tmp_path / "one.jsonl") and len(rows(out)) == 16
