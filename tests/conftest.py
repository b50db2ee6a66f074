"""Shared fixtures and helpers for the kbdsl unit, property and fuzz tests.

- `base_rules`: the shipped base rule set, loaded once per session.
- `rules_copy`: a private copy of rules/base in tmp_path, to break on purpose.
- `mini`: a tiny self-contained rule set (one 2x3 section) whose files the test writes,
  so positions in error tests never depend on the shipped rule files.
- `scaled(n)`: example counts for hypothesis; KBDSL_TEST_SCALE=10 runs ten times as many.
- `random_position(rules, players, seed, moves)`: a position some random moves into a new game.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import shutil
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from kbdsl.errors import Diagnostic, RuleError
from kbdsl.expr import Compiler, Ctx, Vocabulary
from kbdsl.game import Game, State
from kbdsl.lang.parser import parse
from kbdsl.ruleset import RuleSet, load

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "rules" / "base"
# Every rule set under rules/, the scenario fixtures included (resources.shipped() leaves them out).
RULE_SETS = sorted(str(p.parent.relative_to(ROOT / "rules")) for p in (ROOT / "rules").rglob("game.yaml"))

settings.register_profile(
    "kbdsl",
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("KBDSL_HYPOTHESIS_PROFILE", "kbdsl"))


def scaled(n: int) -> int:
    """An example count, multiplied by KBDSL_TEST_SCALE (default 1) for longer runs."""
    return max(1, int(n * float(os.environ.get("KBDSL_TEST_SCALE", "1"))))


class Hang(Exception):
    """Raised inside a `no_hang` block that ran out of time."""


def random_position(rules: RuleSet, players: int, seed: int, moves: int) -> tuple[State, random.Random]:
    """A new game of `rules` seeded with `seed`, `moves` actions into it (fewer if it ends) drawn by
    sample_action from a stream seeded alike; returns the position and the stream."""
    state = Game.new(rules, players=players, seed=seed).new_state()
    rng = random.Random(seed)
    for _ in range(moves):
        if state.over:
            break
        state.apply_action(state.sample_action(rng))
    return state, rng


def compile_expr(text: str, terrains: set[str]):
    """A rule expression compiled alone (as `define x = text`) over these terrains: its function of a Ctx."""
    (decl,) = parse(f"define x = {text}")
    comp = Compiler(Vocabulary(terrains, set(), set(), {}))
    fn = comp.compile(decl.expr).fn
    assert not comp.diagnostics, comp.diagnostics
    return fn


def walked_runs(t, mask: int, n: int, axes: tuple[int, ...]) -> int:
    """Hexes of mask on n consecutive hexes of mask along one of the axes (either way), hex by hex:
    the reference for straight runs."""
    out = 0
    for i in range(t.n):
        if not mask >> i & 1:
            continue
        for d in axes:
            run = 1
            for step in (t.steps[d], t.steps[d + 3]):
                j = step[i]
                while j >= 0 and mask >> j & 1:
                    run += 1
                    j = step[j]
            if run >= n:
                out |= 1 << i
    return out


def walked_ends(t, mask: int, n: int) -> int:
    """Hexes from which n steps in one direction stay on hexes of mask, hex by hex: the reference for
    line-end."""
    out = 0
    for i in range(t.n):
        for step in t.steps:
            j, run = i, 0
            while run < n and (j := step[j]) >= 0 and (mask >> j) & 1:
                run += 1
            if run == n:
                out |= 1 << i
    return out


def random_ctx(t, rng: random.Random, players: int, sizes: list[int], cover: list[int] | None = None) -> Ctx:
    """A context on tables `t` where each player owns a random share of the hexes (as many as one of
    `sizes`, disjoint), and now and then player 0 also one of the `cover` items whole."""
    free = list(range(t.n))
    rng.shuffle(free)
    own = [sum(1 << i for i in free[k::players][: rng.choice(sizes)]) for k in range(players)]
    if cover and rng.random() < 0.5:
        own[0] |= rng.choice(cover)
    occ = 0
    for m in own:
        occ |= m
    return Ctx(t, own, occ, {})


def play_random_and_sampled(state, seed: int, until: int):
    """Two copies of `state` played to turn `until` (or the end), one by `play_random`, one by
    `sample_action` in a loop, the streams seeded alike per seat: asserts the same moves, the same
    position and the same streams afterwards, and returns both copies."""
    ours, theirs = state.clone(), state.clone()
    mine = [random.Random(f"{seed}:{p}") for p in range(state.players)]
    other = [random.Random(f"{seed}:{p}") for p in range(state.players)]
    ours.play_random(mine, stop_turn=until)
    while not theirs.over and theirs.turn < until:
        theirs.apply_action(theirs.sample_action(other[theirs.current]))
    assert ours.log == theirs.log and ours.key() == theirs.key()
    assert [r.getstate() for r in mine] == [r.getstate() for r in other]
    return ours, theirs


@contextlib.contextmanager
def no_hang(seconds: float):
    """Fail (raise Hang) instead of hanging when the block runs longer than `seconds`."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:  # pragma: no cover - non-POSIX or worker thread: no guard
        yield
        return

    def on_alarm(signum, frame):
        raise Hang(f"still running after {seconds}s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def locate(text: str, needle: str, nth: int = 0, offset: int = 0) -> tuple[int, int]:
    """1-based (line, col) of the nth occurrence of `needle` in `text`, plus `offset` characters."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return line, col


def load_error(where) -> RuleError:
    """Load a rule folder that must fail; return the RuleError (and check its shape)."""
    result = None
    with pytest.raises(RuleError) as info:
        result = load(where)
    assert result is None  # nothing half-loaded comes back
    err = info.value
    assert err.diagnostics, "a RuleError must carry diagnostics"
    assert all(isinstance(d, Diagnostic) for d in err.diagnostics)
    return err


def where(d: Diagnostic) -> tuple[str, int, int]:
    return (d.pos.path, d.pos.line, d.pos.col)


@dataclass
class RuleDir:
    """A writable rule folder in tmp_path with helpers to edit files and load them."""

    root: Path

    def path(self, name: str) -> Path:
        return self.root / name

    def file(self, name: str) -> str:
        """The path string diagnostics use for a file of this folder."""
        return str((self.root / name).resolve())

    def read(self, name: str) -> str:
        return (self.root / name).read_text(encoding="utf-8")

    def write(self, name: str, text: str) -> str:
        p = self.root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        return text

    def edit(self, name: str, old: str, new: str) -> str:
        """Replace the first `old` in file `name` by `new`; return the new text."""
        text = self.read(name)
        assert old in text, f"{old!r} not in {name}"
        return self.write(name, text.replace(old, new, 1))

    def load(self) -> RuleSet:
        return load(self.root)

    def error(self) -> RuleError:
        return load_error(self.root)

    def diag_at(self, name: str, needle: str, nth: int = 0, offset: int = 0) -> tuple[str, int, int]:
        """(path, line, col) of a needle in a file of this folder, as a Diagnostic would name it."""
        return (self.file(name), *locate(self.read(name), needle, nth, offset))


MINI_MANIFEST = """\
# A tiny rule set for loader tests.
name: mini
title: Mini
files: ["*.kb"]
players: {min: 2, max: 3}
settlements: 6
cards_in_play: 1
deck: {grass: 2, desert: 2}
boards:
  - name: main
    grid: [1, 1]
options:
  some-option:
    default: false
    text: An option for tests.
"""

MINI_TERRAIN = """\
terrain grass  "Grass"  { letter: G  buildable }
terrain desert "Desert" { letter: D  buildable }
terrain water  "Water"  { letter: W }
"""

MINI_RULES = """\
tile well "Well" {
  letter: w  supply: 1
  action: build on terrain(grass) adjacent-if-possible
}
turn {
  mandatory: build 1 on terrain(card) adjacent-if-possible
}
card hermits "Hermits" {
  score: 1 per area
}
define wet = next-to(terrain(water))
"""

MINI_SECTION = """\
section one "One" {
  grid:
    | G D W
    |  D w G
}
"""


@functools.cache
def shipped(name: str) -> RuleSet:
    """A shipped rule set (rules/<name>), loaded once. Hypothesis tests call this instead of
    taking a fixture, so a falsifying example does not print the whole RuleSet."""
    return load(ROOT / "rules" / name)


@pytest.fixture(scope="session")
def base_rules() -> RuleSet:
    return shipped("base")


@pytest.fixture
def rules_copy(tmp_path) -> RuleDir:
    """A copy of rules/base (without its scenarios) to edit."""
    dst = tmp_path / "base"
    shutil.copytree(BASE, dst, ignore=shutil.ignore_patterns("scenarios", "__pycache__"))
    return RuleDir(dst)


@pytest.fixture
def mini(tmp_path) -> RuleDir:
    """The tiny rule set in tmp_path/mini (loads cleanly as written)."""
    d = RuleDir(tmp_path / "mini")
    d.write("game.yaml", MINI_MANIFEST)
    d.write("terrain.kb", MINI_TERRAIN)
    d.write("rules.kb", MINI_RULES)
    d.write("section.kb", MINI_SECTION)
    return d
