"""Saved games: a state's JSON (or YAML) with its move log, checked by replaying it."""
from __future__ import annotations

import json
from pathlib import Path

from kbdsl.errors import IllegalMove, KbdslError
from kbdsl.game import Game, Setup, State
from kbdsl.ruleset import RuleSet, load
from kbdsl.yamlio import read_yaml, validate


def save(state: State, path: str | Path) -> None:
    """Write the whole state (as State.to_json) to a .json or .yaml file."""
    data = state.to_json()
    path = Path(path)
    if path.suffix in (".yaml", ".yml"):
        import yaml
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    else:
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def load_game(path: str | Path, rules: RuleSet | None = None) -> tuple[Game, dict]:
    """The Game a save was played in, and the saved data (validated against schemas/game.schema.json)."""
    doc = read_yaml(path)
    validate(doc, "game")
    data = doc.data
    if rules is None:
        ref = Path(path).parent / data["rules"]
        rules = load(ref if ref.exists() else data["rules"])
    try:
        game = Game(rules, Setup.from_json(data["setup"], rules))
    except KbdslError as e:
        raise doc.error(f"the saved setup cannot be played: {e}", "setup") from None
    return game, data


def replay_save(path: str | Path, rules: RuleSet | None = None) -> State:
    """Replay a saved game's log from the start and check it reaches the saved state."""
    game, data = load_game(path, rules)
    doc_state = game.new_state()
    for i, move in enumerate(data["log"]):
        try:
            doc_state.play(move)
        except IllegalMove as e:
            raise KbdslError(f"{path}: move {i + 1} of the log ({e.move}) is illegal: {e.reason}") from None
    saved = {k: v for k, v in data.items() if k != "viewer"}
    if "settlements" in saved and doc_state.to_json() != saved:
        diff = sorted(k for k, v in doc_state.to_json().items() if saved.get(k) != v)
        raise KbdslError(f"{path}: replaying the log does not reach the saved state (differs in {', '.join(diff)})")
    return doc_state
