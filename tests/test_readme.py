"""The README stays true: its quickstart is what CI runs, and its API example runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_quickstart_is_two_commands_and_ci_runs_the_test_one():
    block = re.search(r"## Quickstart\n\n```sh\n(.*?)```", README, re.S).group(1).strip().splitlines()
    assert len(block) == 2
    run_cmd, test_cmd = block
    assert "kbdsl play" in run_cmd and "pip install ." in run_cmd
    assert "pytest" in test_cmd
    assert test_cmd in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_api_example_runs(capsys):
    code = re.search(r"## The API\n\n```python\n(.*?)```", README, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("the mandatory action is not finished")
    assert out[1] == "[None, 'canyon', None]"
    assert "'total': 2" in out[2]


def test_speed_figures_are_recorded():
    assert not re.search(r"SCORE_MS|GAMES_S|MOVES_S", README), "run tools/bench*.py and record the figures"
