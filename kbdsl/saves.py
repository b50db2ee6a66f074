"""Saved games: a state's JSON (or YAML) with its move log, checked by replaying it.

A save is `State.to_json()`: the rule set's reference, the setup (nothing is drawn
again on load), the pieces, the deck and the log. Replaying the log from the setup
must reach exactly the saved state; `replay_save` checks that.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import yaml

from kbdsl.errors import IllegalMove, KbdslError
from kbdsl.game import Game, Setup, State
from kbdsl.resources import MANIFEST, rules_path
from kbdsl.ruleset import RuleSet, load
from kbdsl.yamlio import read_yaml, validate


def save(state: State, path: str | Path, seats: list[str] | None = None) -> None:
    """Write the whole state as YAML (.yaml, .yml) or JSON (anything else), with who sits in each
    seat (people and bots by name) when given, so that a resumed game has the same opponents.

    A rule folder that is not shipped is named relative to the save, so the two can move together."""
    data = state.to_json()
    if seats is not None:
        data["seats"] = list(seats)
    path = Path(path)
    if Path(data["rules"]).is_absolute():
        data["rules"] = os.path.relpath(data["rules"], path.resolve().parent)
    if path.suffix.lower() in (".yaml", ".yml"):
        text = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)
    else:
        text = json.dumps(data, indent=1) + "\n"
    tmp = path.with_name(f".{path.name}.tmp")
    try:  # write beside, then rename: a crash leaves the previous save whole
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise KbdslError(f"cannot write {path}: {e.strerror}") from None


def read_save(path: str | Path) -> dict[str, Any]:
    """A saved game's data, validated against schemas/game.schema.json (errors name file:line:col)."""
    doc = read_yaml(path)  # JSON is YAML, so one reader serves both
    validate(doc, "game")
    return doc.data


def rules_of(ref: str, save_path: str | Path) -> RuleSet:
    """The rule set a save names: a shipped name, a path, or a path relative to the save."""
    here = Path(ref)
    candidates = [here] if here.is_absolute() else [rules_path(ref), Path(save_path).parent / ref, here]
    for c in candidates:
        if (c / MANIFEST).is_file():
            return load(c)
    raise KbdslError(f"the save was played with rule set {ref!r}, which is not found here; pass its folder instead")


def game_of(data: dict[str, Any], save_path: str | Path, rules: RuleSet | None = None) -> Game:
    """The Game a save was played in: its rule set and exact setup."""
    rules = rules or rules_of(data["rules"], save_path)
    return Game(rules, Setup.from_json(data["setup"], rules))


def differences(
    state: State, data: dict[str, Any], ignore: tuple[str, ...] = ("viewer", "rules", "seats")
) -> list[str]:
    """Top-level fields where `state` differs from saved data (JSON-normalised).

    `rules` is left out by default: it is how the save names the rule set it was replayed with;
    `seats` is who played, not part of the state."""

    def normal(d: dict) -> dict:
        return {k: v for k, v in json.loads(json.dumps(d, sort_keys=True)).items() if k not in ignore}

    saved, actual = normal(data), normal(state.to_json())
    return sorted(k for k in set(saved) | set(actual) if saved.get(k) != actual.get(k))


def replay_save(path: str | Path, rules: RuleSet | None = None, data: dict[str, Any] | None = None) -> State:
    """Replay a saved game's log from the start and check it reaches the saved state
    (`data`: the save already read, else it is read from `path`)."""
    data = read_save(path) if data is None else data
    state = game_of(data, path, rules).new_state()
    for i, move in enumerate(data["log"], 1):
        try:
            state.play(move)
        except IllegalMove as e:
            raise KbdslError(f"{path}: move {i} of the log ({e.move}) is illegal: {e.reason}") from None
    diff = differences(state, data)
    if diff:
        raise KbdslError(f"{path}: replaying the log does not reach the saved state (differs in {', '.join(diff)})")
    return state
