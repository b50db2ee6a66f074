"""tools/bench.py's choice of what it times: rule sets named in a list, boxes joined by `+`."""

from __future__ import annotations

import sys
from pathlib import Path

from kbdsl.game import Game
from kbdsl.ruleset import load, shipped

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import bench  # noqa: E402


def test_boxes_joined_by_plus_load_as_one_rule_set():
    """`nomads+island` is Nomads and the Island together: both boxes' tiles, the Island's board,
    Nomads' fifth player; and games on it play to the end."""
    both = bench.load_rules("nomads+island")
    nomads, island = load("nomads"), load("island")
    assert set(nomads.tiles) | set(island.tiles) == set(both.tiles)
    assert both.players == (2, 5) and set(both.boards) == set(island.boards)
    state = Game.new(both, players=3, seed=2).new_state()
    while not state.over:
        state.apply_action(state.legal_actions()[0])
    assert sum(sheet["total"] for sheet in state.scores()) > 0


def test_a_comma_list_is_timed_beside_base_at_every_player_count():
    assert bench.rows("island,nomads", 4) == [
        ("base", 2),
        ("base", 3),
        ("base", 4),
        ("island", 2),
        ("island", 3),
        ("island", 4),
        ("nomads", 2),
        ("nomads", 3),
        ("nomads", 4),
        ("nomads", 5),
    ]
    assert bench.rows("nomads", 3) == [("nomads", 3)]


def test_all_in_a_list_is_every_shipped_rule_set_besides_the_others():
    names = [name for name, _ in bench.rows("all,nomads+island", 4)]
    assert names[0] == "base" and set(names) == {*shipped(), "nomads+island"}
