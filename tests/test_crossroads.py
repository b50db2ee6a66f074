"""Crossroads' primitives where scenarios cannot reach: task dealing at setup, hidden hands of
several cards in views, and the designer's house rule that only a piece's own tile moves it."""

from __future__ import annotations

import json

import pytest
from conftest import shipped

from kbdsl.bots import RandomBot
from kbdsl.game import Game, State
from kbdsl.moves import Move

SECTIONS = ["lighthouse", "barracks", "city-hall", "monastery"]


@pytest.fixture(scope="module")
def rules():
    return shipped("crossroads")


def tasks_of(game: Game) -> list[str]:
    return [c for c in game.setup.cards if game.rules.cards[c].deck == "tasks"]


@pytest.mark.parametrize("seed", range(6))
def test_each_crossroads_section_deals_one_distinct_task(rules, seed):
    game = Game.new(rules, players=3, seed=seed, preset="crossroads")
    assert len(tasks_of(game)) == 4 == len(set(tasks_of(game)))
    assert game.setup.cards[:3] == ("fishermen", "knights", "citizens")
    two = Game.new(rules, players=3, seed=seed, sections=["lighthouse", "tavern", "barracks@180", "farm"])
    assert len(tasks_of(two)) == 2
    none = Game.new(rules, players=3, seed=seed, sections=["tavern", "paddock", "oasis", "farm"])
    assert tasks_of(none) == [] and len(none.setup.cards) == rules.cards_in_play


def test_tasks_given_with_the_cards_are_not_dealt_again(rules):
    game = Game.new(rules, players=2, seed=1, sections=SECTIONS, cards=["fishermen", "knights", "lords", "road"])
    assert tasks_of(game) == ["road"]
    assert game.new_state().scores()[0]["road"] == 0


def test_the_spare_card_is_hidden_from_other_players(rules):
    game = Game.new(rules, players=2, seed=2, sections=SECTIONS, cards=["fishermen", "knights", "lords"])
    state = State.arrange(game, [["4,16"], []], hand=["forest", "canyon"], spare=[["grass"], []],
                          tiles=[[{"tile": "crossroads", "at": "4,17"}], []])
    assert state.view(0)["spare"] == [["grass"], None]
    assert state.view(1)["spare"] == [None, []]
    assert state.view(None)["spare"] == [None, None]
    assert "grass" not in json.dumps(state.view(1)["spare"]) and state.to_json()["spare"] == [["grass"], []]


def paddock_position(rules, own_tile: bool):
    game = Game.new(rules, players=2, seed=3, sections=["lighthouse", "barracks", "city-hall", "paddock"],
                    cards=["fishermen", "knights", "lords"], options={"meeples-move-by-own-tile": own_tile})
    t = game.tables
    paddock = t.names(t.locations["paddock"])[0]
    home = next(h for h in (t.ids[j] for j in t.nbr[t.index[paddock]]) if game.board.graph.nodes[h]["buildable"])
    return State.arrange(game, [[home], []], built=3, kinds={"warrior": [["1,11"], []]},
                         tiles=[[{"tile": "paddock", "at": paddock}], []]), home


def test_other_tiles_move_warriors_unless_the_house_rule_is_on(rules):
    state, home = paddock_position(rules, own_tile=False)
    assert set(state.sources("paddock")) == {home, "1,11"}
    to = state.targets("paddock", "1,11")[0]
    state.play(Move("paddock", to, "1,11"))
    assert state.to_json()["kinds"]["warrior"] == [[to], []]  # the piece keeps its kind
    ruled, home = paddock_position(rules, own_tile=True)
    assert ruled.sources("paddock") == [home]


def test_a_random_crossroads_game_uses_every_tile(rules):
    """Random play over a few seeds reaches every part of every Crossroads tile."""
    used = set()
    for seed in range(4):
        game = Game.new(rules, players=3, seed=seed, preset="crossroads")
        state = game.new_state()
        bot = RandomBot(seed)
        while not state.over:
            code = bot.choose(state)
            used.add(game.decode(code).do)
            state.apply_action(code)
    parts = {name for name, tile in rules.action_tile.items() if "crossroads" in rules.tiles[tile].pos.path}
    assert parts <= used, sorted(parts - used)
