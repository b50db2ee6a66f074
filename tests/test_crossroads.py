"""Crossroads' primitives where scenarios cannot reach: task dealing at setup, hidden hands of
several cards in views, and the designer's house rule that only a piece's own tile moves it."""

from __future__ import annotations

import json

import pytest
from conftest import shipped

from kbdsl.bots import RandomBot
from kbdsl.engine.targets import _merge_blocks
from kbdsl.errors import IllegalMove
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
    state = State.arrange(
        game,
        [["4,16"], []],
        hand=["forest", "canyon"],
        spare=[["grass"], []],
        tiles=[[{"tile": "crossroads", "at": "4,17"}], []],
    )
    assert state.view(0)["spare"] == [["grass"], []]
    assert state.view(1)["spare"] == [[None], []]  # how many cards a player holds is public, not which
    assert state.view(None)["spare"] == [[None], []]
    assert "grass" not in json.dumps(state.view(1)["spare"]) and state.to_json()["spare"] == [["grass"], []]


def paddock_position(rules, own_tile: bool):
    game = Game.new(
        rules,
        players=2,
        seed=3,
        sections=["lighthouse", "barracks", "city-hall", "paddock"],
        cards=["fishermen", "knights", "lords"],
        options={"meeples-move-by-own-tile": own_tile},
    )
    t = game.tables
    paddock = t.names(t.locations["paddock"])[0]
    home = next(h for h in (t.ids[j] for j in t.nbr[t.index[paddock]]) if game.board.graph.nodes[h]["buildable"])
    return State.arrange(
        game, [[home], []], built=3, kinds={"warrior": [["1,11"], []]}, tiles=[[{"tile": "paddock", "at": paddock}], []]
    ), home


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


def test_a_card_move_while_choosing_is_each_cards_moves_merged(rules):
    """move_blocks of a tile move on the card's terrain while p chooses among two cards (found for
    every card at once) is what Hand.over_cards finds putting each card in p's hand in turn."""
    checked = 0
    for seed in range(12):
        game = Game.new(rules, players=2 + seed % 3, seed=seed)
        state, bot = game.new_state(), RandomBot(seed)
        moves = [a for a in rules.actions.values() if a.kind == "move" and id(a) in game.card_actions]
        while not state.over:
            if state.choosing:
                p = state.current
                for action in moves:
                    merged = state.over_cards(p, lambda s=state, a=action, p=p: s.move_blocks(a, p), _merge_blocks, [])
                    assert state.move_blocks(action, p) == merged
                    checked += bool(merged)
            state.apply_action(bot.choose(state))
    assert checked > 10


def ship_position(rules) -> State:
    """Player 0's ship on 4,5 mid-way through a Lighthouse move; settlements on 6,5 and 12,4, a
    warrior on 15,12 and a city hall on 11,2 (the positions of rules/crossroads/scenarios)."""
    game = Game.new(rules, players=2, seed=1, sections=SECTIONS, cards=["fishermen", "knights", "lords"])
    state = State.arrange(
        game,
        [["6,5", "12,4"], []],
        built=3,
        kinds={"ship": [["5,4"], []], "warrior": [["15,12"], []], "city-hall": [["11,2"], []]},
        tiles=[[{"tile": "lighthouse", "at": "6,6"}], []],
    )
    state.play(Move("lighthouse.move", "4,5", "5,4"))
    return state


@pytest.mark.parametrize(
    "move, reason",
    [
        (
            Move("lighthouse.move", "7,4", "6,5"),
            "6,5 holds your settlement, and the Lighthouse action moves only your ship"
            " [move up-to 3 ship to terrain(water) & next-to(origin)]",
        ),
        (
            Move("lighthouse.move", "15,13", "15,12"),
            "15,12 holds your warrior, and the Lighthouse action moves only your ship"
            " [move up-to 3 ship to terrain(water) & next-to(origin)]",
        ),
        (
            Move("lighthouse.move", "4,7", "4,5"),
            "4,7 (Water) is not a hex the Lighthouse action allows: terrain(water) & next-to(origin)",
        ),
        (Move("lighthouse.move", "3,3", "3,4"), "3,4 holds no piece of yours for the Lighthouse action to move"),
    ],
)
def test_a_wrong_step_in_the_middle_of_a_tile_action_names_the_piece_and_the_rule(rules, move, reason):
    state = ship_position(rules)
    before = state.to_json()
    with pytest.raises(IllegalMove) as info:
        state.play(move)
    assert str(info.value) == f"illegal move {move}: {reason}"
    assert state.to_json() == before


def test_an_unfinished_action_names_what_is_still_due_and_its_rule(rules):
    game = Game.new(rules, players=2, seed=1, sections=SECTIONS, cards=["fishermen", "knights", "lords"])
    state = State.arrange(
        game, [["16,5"], []], built=3, hand=["grass", "grass"], tiles=[[{"tile": "fort", "at": "16,6"}], []]
    )
    state.play(Move("fort"))
    with pytest.raises(IllegalMove) as info:
        state.play(Move("end"))
    assert str(info.value) == (
        "illegal move end: the Fort action is not finished (1 settlement still to build), and a tile's action"
        " is done in full first [Fort: build on terrain(drawn) adjacent-if-possible]"
    )


def test_a_piece_that_never_moves_is_refused_by_name(rules):
    state, home = paddock_position(rules, own_tile=False)
    state = State.arrange(
        state.game,
        [[home], []],
        built=3,
        kinds={"city-hall": [["11,2"], []]},
        tiles=[[{"tile": "paddock", "at": state.to_json()["tiles"][0][0]["at"]}], []],
    )
    with pytest.raises(IllegalMove) as info:
        state.play(Move("paddock", "11,4", "11,2"))
    assert (
        str(info.value)
        == "illegal move paddock 11,2 11,4: your city hall on 11,2 never moves [piece city-hall: movable: no]"
    )


def terrains_of(game: Game, mask: int) -> set[str]:
    return {name for name, m in game.tables.terrain.items() if m & mask}


def test_the_engine_bounds_where_each_piece_kind_can_stand(rules):
    game = Game.new(rules, players=2, seed=1, sections=SECTIONS, cards=["fishermen", "knights", "lords"])
    land = {"canyon", "desert", "flower", "forest", "grass"}
    assert terrains_of(game, game.standable()) == land | {"water"}  # the Harbor moves onto water
    assert terrains_of(game, game.standable("wagon")) == land | {"water", "mountain"}
    assert terrains_of(game, game.standable("city-hall")) == land  # never moved: only where it is placed
    assert not game.standable("city-hall") & (game.tables.location | game.tables.special)
    ruled = Game.new(
        rules,
        players=2,
        seed=1,
        sections=SECTIONS,
        cards=["fishermen", "knights", "lords"],
        options={"meeples-move-by-own-tile": True},
    )
    assert terrains_of(ruled, ruled.standable("ship")) == {"water"}  # only the Lighthouse moves it
    assert terrains_of(ruled, ruled.standable("warrior")) == land  # placed by the Barracks, never moved


def test_the_terminal_status_shows_the_spare_card_to_its_holder_only(rules):
    from kbdsl.render.terminal import render_status

    game = Game.new(rules, players=2, seed=2, sections=SECTIONS, cards=["fishermen", "knights", "lords"])
    state = State.arrange(
        game,
        [["4,16"], []],
        hand=["forest", "canyon"],
        spare=[["grass"], []],
        tiles=[[{"tile": "crossroads", "at": "4,17"}], []],
    )
    mine, theirs = (render_status(state, ["", ""], v, False, state.view(v)).splitlines()[0] for v in (0, 1))
    assert "card: Forest or Grass" in mine
    assert "Forest" not in theirs and "Grass" not in theirs and "P0 to move" in theirs
