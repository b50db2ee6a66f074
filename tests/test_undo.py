"""Undo: a player's own moves this turn, last first, until a card is drawn or the turn passes."""

import random

import pytest

from conftest import shipped
from kbdsl.errors import IllegalMove, SetupError
from kbdsl.game import Game, State
from kbdsl.moves import END
from kbdsl.undo import undo, undoable


def test_undo_takes_back_the_turns_builds_one_by_one():
    state = Game.new(shipped("base"), 2, preset="first-game", seed=4).new_state()
    history = [state.clone()]
    for _ in range(3):
        state.play(state.legal_moves()[0])
        history.append(state.clone())
    assert undoable(state) == [state.game.decode(c) for c in state.log]
    for expected in reversed(history[:-1]):
        kept = state.key()
        state_before = undo(state)
        assert state.key() == kept  # the state passed in is untouched
        assert state_before == expected
        state = state_before
    assert undoable(state) == []
    with pytest.raises(IllegalMove, match="no move this turn"):
        undo(state)


def test_nothing_of_an_earlier_turn_can_be_undone():
    state = Game.new(shipped("base"), 2, preset="first-game", seed=4).new_state()
    for _ in range(3):
        state.play(state.legal_moves()[0])
    state.play(END)
    assert undoable(state) == []
    state.play(state.legal_moves()[0])
    assert len(undoable(state)) == 1
    assert undo(state).current == 1


def drawn_after_tile_build(mini) -> tuple[State, State]:
    """Mini board: P0 holds the well tile and the grass card; P1 stands on the other grass hex.
    Building on the last grass hex with the tile leaves the card with no hex, so one is drawn."""
    rules = mini.load()
    game = Game.new(rules, 2, sections=["one"], seed=4)  # a seed whose next card is not grass
    start = State.arrange(game, [[], ["1,2"]], hand=["grass", "desert"], tiles=[[{"tile": "well", "at": "1,1"}]])
    state = start.clone()
    deck = len(state.deck)
    state.play("well 0,0")
    assert len(state.deck) == deck - 1 and state.hand[0] != "grass"  # a hidden card came to light
    return start, state


def test_a_move_after_which_a_card_was_drawn_stands(mini):
    start, state = drawn_after_tile_build(mini)
    assert undoable(state, start) == []
    with pytest.raises(IllegalMove, match="a card was drawn"):
        undo(state, start)
    before = state.clone()
    build = state.legal_moves()[0]
    state.play(build)
    assert undoable(state, start) == [build]  # a later move of the turn may still be taken back
    assert undo(state, start) == before


def test_undo_needs_the_position_the_moves_started_from(mini):
    start, state = drawn_after_tile_build(mini)
    with pytest.raises(SetupError, match="position this game's moves were played from"):
        undoable(state)


def test_undo_is_exact_through_random_games():
    """Every undoable move, undone by replay, gives back exactly the state before it."""
    rng = random.Random(7)
    for seed in range(3):
        state = Game.new(shipped("base"), 3, seed=seed).new_state()
        checked = 0
        while not state.over and len(state.log) < 120:
            before = state.clone()
            state.apply_action(rng.choice(state.legal_actions()))
            if undoable(state):
                assert undo(state) == before
                checked += 1
        assert checked > 10
