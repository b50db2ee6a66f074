"""State.from_json refuses positions no play reaches, naming the field (issue 20, item 13), and
State.arrange refuses pieces where no action puts them (kbdsl.engine.possible)."""

from __future__ import annotations

import json

import pytest
from conftest import shipped

from kbdsl.bots import RandomBot
from kbdsl.errors import SetupError
from kbdsl.game import Game, State


def played(rules: str = "base", moves: int = 12):
    game = Game.new(shipped(rules), 2, preset="first-game" if rules == "base" else None, seed=3)
    state = game.new_state()
    bot = RandomBot("8")
    while len(state.log) < moves or state.current != 0:
        state.apply_action(bot.choose(state))
    return game, state


def hex_of(game, terrain: str | None = None, location: bool = False) -> str:
    t = game.tables
    return next(
        t.ids[i]
        for i in range(t.n)
        if (t.location_of[i] is not None) == location and (terrain is None or t.terrain_at(i) == terrain)
    )


def tamper(data: dict, change) -> dict:
    data = json.loads(json.dumps(data))
    change(data)
    return data


def put(where):
    return lambda g: lambda d: d["settlements"][0].__setitem__(0, where(g))


CASES = {
    "a settlement on water": (
        put(lambda g: hex_of(g, "water")),
        "settlements: player 0 has a settlement on .* \\(water\\)",
    ),
    "a settlement on a castle": (put(lambda g: hex_of(g, "castle")), "settlements: .* \\(castle\\)"),
    "a settlement on a location hex": (
        put(lambda g: hex_of(g, location=True)),
        "settlements: .* where no action puts one",
    ),
    "a settlement on a mountain": (put(lambda g: hex_of(g, "mountain")), "settlements: .* \\(mountain\\)"),
    "the same hex twice": (
        lambda g: lambda d: d["settlements"][0].append(d["settlements"][0][0]),
        "settlements: .* named twice",
    ),
    "a taken hex twice": (
        lambda g: lambda d: d["taken"][0].extend([hex_of(g, location=True)] * 2),
        "taken: .* named twice",
    ),
    "over with nobody finished": (lambda g: lambda d: d.__setitem__("over", True), "over: a game ends after"),
    "an empty log with pieces": (
        lambda g: lambda d: d.__setitem__("log", []),
        "log: pieces on the board that no move put",
    ),
    "idle_turns of 10^9": (lambda g: lambda d: d.__setitem__("idle_turns", 10**9), "idle_turns must be 0 to 2"),
    "a round of idle turns not over": (lambda g: lambda d: d.__setitem__("idle_turns", 2), "idle_turns must be 0 to 2"),
    "the wrong seat to move": (
        lambda g: lambda d: d.__setitem__("current", 1),
        "current: seat 1 is not to move in turn",
    ),
    "too many mandatory builds left": (
        lambda g: lambda d: d.__setitem__("mandatory_left", 4),
        "mandatory_left must be 0 to 3",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_from_json_refuses_a_position_no_play_reaches(name):
    game, state = played()
    data = state.to_json()
    assert State.from_json(data, game) == state  # the untouched save loads
    change, message = CASES[name]
    broken = tamper(data, change(game))
    with pytest.raises(SetupError, match=f"^not a saved state of this game: {message}"):
        State.from_json(broken, game)


def test_a_neutral_piece_where_no_action_places_it_is_refused():
    game, state = played("nomads", moves=40)
    data = state.to_json()
    assert State.from_json(data, game) == state
    broken = tamper(data, lambda d: d["neutral"]["wall"].append(hex_of(game, "water")))
    broken["stock"]["wall"] -= 1
    with pytest.raises(SetupError, match="neutral: a wall stands on .* \\(water\\), where no action puts one"):
        State.from_json(broken, game)


def test_an_arranged_position_round_trips_and_says_so():
    game = Game.new(shipped("base"), 2, preset="first-game", seed=3)
    grass = [hex_of(game, "grass")]
    s = State.arrange(game, [grass])
    data = s.to_json()
    assert data["arranged"] is True and data["log"] == []
    assert State.from_json(data, game) == s
    assert "arranged" not in game.new_state().to_json()  # a game from its start is not arranged
    del data["arranged"]
    with pytest.raises(SetupError, match="log: pieces on the board that no move put there"):
        State.from_json(data, game)


@pytest.mark.parametrize("terrain", ["castle", "mountain"])
def test_arrange_refuses_a_settlement_where_no_action_puts_one(terrain):
    """Where no action of the rule set puts one: water is allowed (the Harbor moves settlements there,
    on a board that has it), a castle or a mountain is not."""
    game = Game.new(shipped("base"), 2, preset="first-game", seed=3)
    with pytest.raises(SetupError, match=f"settlements: player 1 has a settlement on .* \\({terrain}\\)"):
        State.arrange(game, [[], [hex_of(game, terrain)]])


def test_arrange_refuses_a_piece_of_a_kind_where_no_action_puts_it():
    game = Game.new(shipped("crossroads"), 2, seed=3)
    t = game.tables
    inland = next(t.ids[i] for i in range(t.n) if t.terrain_at(i) == "water" and t.nbr_mask[i].bit_count() == 6)
    with pytest.raises(SetupError, match="kinds: player 0 has a city-hall on .* \\(water\\), where no action puts one"):
        State.arrange(game, kinds={"city-hall": [[inland]]})
