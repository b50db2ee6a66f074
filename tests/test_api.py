"""The public game API: Game.new, State.play with Move / dict / text, illegal-move messages,
clone, scores, winners, targets, replay, and the Move notation."""

from __future__ import annotations

import pytest

from kbdsl.bots import RandomBot, play_out
from kbdsl.errors import IllegalMove, SetupError
from kbdsl.game import Game, State, replay
from kbdsl.moves import END, Move

FIRST = ["tavern", "paddock", "oasis", "farm"]


@pytest.fixture
def game(base_rules) -> Game:
    return Game.new(base_rules, players=3, preset="first-game", seed=7)


@pytest.fixture
def state(game) -> State:
    return game.new_state()


def nbrs(game: Game, h: str) -> list[str]:
    t = game.tables
    return [t.ids[j] for j in t.nbr[t.index[h]]]


def far_from(game: Game, h: str, targets: list[str]) -> str:
    """A target not next to h."""
    near = set(nbrs(game, h))
    return next(x for x in targets if x not in near and x != h)


# ---- setup -------------------------------------------------------------------------------


def test_new_game_from_preset(game, base_rules):
    assert game.setup.players == 3
    assert game.setup.cards == ("fishermen", "knights", "merchants")
    assert game.setup.layout.to_json() == {"main": FIRST}
    assert game.tables.n == 400


def test_new_game_draws_setup_from_the_seed(base_rules):
    a = Game.new(base_rules, players=2, seed=99)
    b = Game.new(base_rules, players=2, seed=99)
    assert a.setup == b.setup
    assert len(set(a.setup.cards)) == 3 and set(a.setup.cards) <= set(base_rules.cards)
    ((board, placed),) = a.setup.layout.boards
    assert board == "main" and len({p.name for p in placed}) == 4
    setups = {Game.new(base_rules, players=2, seed=s).setup.to_json()["sections"]["main"][0] for s in range(30)}
    assert len(setups) > 1  # the seed matters


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"players": 1}, "for 2 to 4 players, not 1"),
        ({"players": 5}, "for 2 to 4 players, not 5"),
        ({"cards": ["knights", "knights", "lords"]}, "each Kingdom Builder card may be used once"),
        ({"cards": ["knights", "castles", "lords"]}, "unknown card 'castles'"),
        ({"preset": "nope"}, "unknown preset 'nope'"),
        ({"options": {"nope": True}}, "unknown rule option 'nope'"),
        ({"sections": ["oracle", "oracle", "farm", "barn"]}, "each section may be used once"),
    ],
)
def test_bad_setups(base_rules, kwargs, message):
    with pytest.raises(SetupError, match=message):
        Game.new(base_rules, **({"players": 2, "seed": 1} | kwargs))


def test_start_state(state, base_rules):
    assert state.players == 3 and state.current == 0 and state.turn == 1
    assert state.supply == [base_rules.settlements] * 3
    assert all(h in base_rules.deck for h in state.hand)
    assert state.mand_left == 3 and not state.over
    assert all(m.do == "build" for m in state.legal_moves())  # the mandatory action comes first or tiles
    assert state.targets("build") == [m.to for m in state.legal_moves()]


# ---- play: the three move forms ---------------------------------------------------------------


def test_play_accepts_move_dict_and_text(state):
    target = state.targets("build")[0]
    forms = [Move("build", target), {"do": "build", "to": target}, f"build {target}", f"  BUILD   {target} "]
    results = []
    for form in forms:
        s = state.clone()
        s.play(form)
        results.append(s.key())
        assert s.settlements(0) == [target]
    assert all(r == results[0] for r in results)
    assert state.settlements(0) == []  # only the clones moved


def test_play_a_whole_turn(state):
    for _ in range(3):
        state.play(Move("build", state.targets("build")[0]))
    assert state.mand_left == 0 and Move("end") in state.legal_moves()
    hand_before = state.hand[0]
    state.play("end")
    assert state.current == 1 and state.turn == 2
    assert state.discard[-1] == hand_before
    assert len(state.settlements(0)) == 3 and state.supply[0] == 37


def test_tile_moves_in_text_and_json():
    m = Move.parse("paddock 3,4 3,6")
    assert m == Move("paddock", "3,6", "3,4") and str(m) == "paddock 3,4 3,6"
    assert Move.from_json(m.to_json()) == m and m.to_json() == {"do": "paddock", "from": "3,4", "to": "3,6"}
    d = Move.parse("harbor 1,1 -> 2,2 discard=used")
    assert d == Move("harbor", "2,2", "1,1", "used") and Move.parse(str(d)) == d
    assert Move.parse("end") == END and END.to_json() == {"do": "end"}


@pytest.mark.parametrize("text", ["", "build 1,2 3,4 5,6"])
def test_bad_move_text(text):
    with pytest.raises(ValueError):
        Move.parse(text)


@pytest.mark.parametrize("data", [{"to": "1,1"}, {"do": 3}, {"do": "build", "to": "1,1", "extra": 1}, "build"])
def test_bad_move_json(data):
    with pytest.raises(ValueError):
        Move.from_json(data)


@pytest.mark.parametrize(
    "form",
    [
        {"do": "build", "to": "1,1", "extra": 1},
        {"do": 3},
        {"to": "1,1"},
        "",
        "build",
        "fly 1,1",
        "build 99,99",
        "build x",
        Move("build", None),
        Move("build", "1,1", "2,2"),
        Move("paddock", "1,1"),
        "build 1,2 3,4 5,6",
    ],
)
def test_malformed_moves_are_illegal_moves(state, form):
    before = state.key()
    with pytest.raises(IllegalMove):
        state.play(form)
    assert state.key() == before


def test_a_json_move_with_a_number_for_a_hex_is_an_illegal_move(state):
    before = state.key()
    with pytest.raises(IllegalMove, match="'to' must be a string"):
        state.play({"do": "build", "to": 5})
    with pytest.raises(IllegalMove, match="a move is a Move"):
        state.play(None)
    with pytest.raises(IllegalMove, match="end takes no hex"):
        state.play({"do": "end", "to": "3,4"})
    assert state.key() == before


# ---- illegal moves name the rule they break ----------------------------------------------------------


def test_end_before_the_mandatory_action(state):
    with pytest.raises(IllegalMove) as info:
        state.play("end")
    assert str(info.value) == (
        "illegal move end: the mandatory action is not finished (3 settlements still to "
        "build) [rulebook: Mandatory Action]"
    )


def test_build_on_an_occupied_hex(state):
    target = state.targets("build")[0]
    state.play(f"build {target}")
    with pytest.raises(IllegalMove, match=r"is already occupied \[rulebook: Building Rules\]") as info:
        state.play(f"build {target}")
    assert info.value.reason == f"{target} is already occupied [rulebook: Building Rules]"


def test_build_on_the_wrong_terrain(state, game, base_rules):
    card = state.hand[0]
    wrong = next(h for h in game.tables.ids if game.board.graph.nodes[h]["terrain"] not in (card, None))
    terrain = base_rules.terrains[game.board.graph.nodes[wrong]["terrain"]].title
    with pytest.raises(IllegalMove) as info:
        state.play(Move("build", wrong))
    assert info.value.reason == (
        f"{wrong} ({terrain}) is not a hex the mandatory build allows: terrain(card); "
        f"the played card is {base_rules.terrains[card].title}"
    )


def test_build_away_when_adjacent_is_possible(state, game):
    first = state.targets("build")[0]
    state.play(Move("build", first))
    near = state.targets("build")
    assert all(set(nbrs(game, h)) & {first} for h in near)  # RULINGS 7: only hexes next to it remain
    legal_before = set(near)
    away = next(
        h
        for h in game.tables.ids
        if game.board.graph.nodes[h]["terrain"] == state.hand[0] and h not in legal_before and h != first
    )
    with pytest.raises(IllegalMove, match=r"not next to your settlements.*RULINGS 7"):
        state.play(Move("build", away))


def test_build_after_the_mandatory_action(state):
    for _ in range(3):
        state.play(Move("build", state.targets("build")[0]))
    with pytest.raises(IllegalMove, match=r"already done this turn \[rulebook: Mandatory Action\]"):
        state.play(Move("build", state.targets("build")[0] if state.targets("build") else "0,0"))


def test_a_tile_not_held(state):
    with pytest.raises(IllegalMove, match=r"you hold no Paddock tile \[rulebook: Location Hex and Location Tile\]"):
        state.play("paddock 1,1 1,3")


def tile_position(game: Game, tile: str, built: int = 3, **kw) -> tuple[State, str]:
    """Player 0 with one settlement next to a location hex of `tile`, holding that tile,
    after `built` of the mandatory builds."""
    t = game.tables
    loc = t.names(t.locations[tile])[0]
    home = next(h for h in nbrs(game, loc) if game.board.graph.nodes[h]["buildable"])
    st = State.arrange(game, [[home]], tiles=[[{"tile": tile, "at": loc, **kw}]], built=built)
    return st, home


def test_a_tile_used_twice_in_a_turn(game):
    state, _ = tile_position(game, "oasis")
    target = state.targets("oasis")[0]
    state.play(Move("oasis", target))
    with pytest.raises(IllegalMove, match=r"the Oasis tile was already used this turn \[RULINGS 9\]"):
        state.play(Move("oasis", state.targets("build")[0] if state.targets("build") else target))


def test_a_tile_taken_this_turn(game):
    state, _ = tile_position(game, "oasis", new=True)
    with pytest.raises(IllegalMove, match=r"the Oasis tile was taken this turn.*\[RULINGS 9\]"):
        state.play(Move("oasis", "0,0"))


def test_tiles_not_between_the_mandatory_builds(game):
    state, _ = tile_position(game, "oasis", built=1)
    assert state.mand_left == 2
    with pytest.raises(IllegalMove, match=r"not between its builds \[rulebook: Extra Action; RULINGS 6\]"):
        state.play(Move("oasis", "0,0"))


def test_move_from_a_hex_without_own_settlement(game):
    state, home = tile_position(game, "paddock")
    with pytest.raises(IllegalMove, match="0,0 holds no piece of yours for the Paddock action to move"):
        state.play(Move("paddock", "0,2", "0,0" if home != "0,0" else "0,1"))


def test_the_game_is_over(base_rules):
    game = Game.new(base_rules, players=2, preset="first-game", seed=1)
    state = play_out(game.new_state(), [RandomBot(1), RandomBot(2)])
    assert state.over and state.legal_moves() == []
    with pytest.raises(IllegalMove, match="the game is over"):
        state.play("end")


def test_illegal_move_attributes(state):
    with pytest.raises(IllegalMove) as info:
        state.play("end")
    e = info.value
    assert e.move == END and "Mandatory Action" in e.reason


def test_needless_discard_is_explained(state):
    target = state.targets("build")[0]
    with pytest.raises(IllegalMove) as info:
        state.play(Move("build", target, discard="used"))
    assert "adjacent" not in str(info.value) and "discard" in info.value.reason


# ---- clone, scores, winners ----------------------------------------------------------------------


def test_clone_is_independent(state):
    state.play(Move("build", state.targets("build")[0]))
    copy = state.clone()
    assert copy == state and copy is not state
    before = state.to_json()
    copy.play(Move("build", copy.targets("build")[0]))
    copy.play(Move("build", copy.targets("build")[0]))
    copy.play("end")
    assert state.to_json() == before
    assert copy != state and copy.current == 1 and state.current == 0


def test_clone_copies_tiles_and_deck(game):
    state, _ = tile_position(game, "oasis")
    copy = state.clone()
    before = state.to_json()
    copy.play(Move("oasis", copy.targets("oasis")[0]))
    assert copy.tiles[0][0].used and not state.tiles[0][0].used
    copy.play("end")
    assert len(copy.deck) == len(state.deck) - 1 and len(copy.discard) == len(state.discard) + 1
    assert state.to_json() == before


def test_states_of_different_games_are_not_equal(base_rules):
    a = Game.new(base_rules, players=2, seed=1)
    b = Game(base_rules, a.setup)
    assert a.new_state() != b.new_state()  # equal only within one Game
    assert a.new_state().key() == b.new_state().key()


def test_scores_have_every_card_castles_and_total(state, game):
    for _ in range(3):
        state.play(Move("build", state.targets("build")[0]))
    sheets = state.scores()
    assert len(sheets) == 3
    for sheet in sheets:
        assert list(sheet) == ["fishermen", "knights", "merchants", "castles", "total"]
        assert sheet["total"] == sum(v for k, v in sheet.items() if k != "total")
    assert sheets[0]["knights"] >= 2  # three settlements on at most three lines: the best line has one or more
    assert sheets[1]["total"] == sheets[2]["total"] == 0


def lonely_hexes(game: Game) -> list[str]:
    """Buildable hexes with no castle, water, mountain or location next to them, on distinct lines."""
    g = game.board.graph
    out, lines = [], set()
    for h in game.tables.ids:
        a = g.nodes[h]
        if not a["buildable"] or a["line"] in lines:
            continue
        if any(g.nodes[n]["special"] or g.nodes[n]["terrain"] in ("water", "mountain") for n in g.neighbors(h)):
            continue
        out.append(h)
        lines.add(a["line"])
    return out


def test_winners_share_a_tie(base_rules):
    game = Game.new(base_rules, players=3, sections=FIRST, cards=["knights", "discoverers", "hermits"], seed=1)
    start = game.new_state()
    assert start.winners() == [0, 1, 2]  # nobody has gold yet: all tie
    a, b, c = lonely_hexes(game)[:3]
    tie = State.arrange(game, [[a], [b], []])
    totals = [s["total"] for s in tie.scores()]
    assert totals == [4, 4, 0]  # knights 2, discoverers 1, hermits 1
    assert tie.winners() == [0, 1]
    lead = State.arrange(game, [[a], [b], [c, lonely_hexes(game)[3]]])
    totals = [s["total"] for s in lead.scores()]
    assert totals[:2] == [4, 4] and totals[2] > 4  # two lines for discoverers
    assert lead.winners() == [2]


# ---- replay and JSON -----------------------------------------------------------------------------


def test_replay_stops_at_the_first_illegal_move(game, state):
    moves = [Move("build", state.targets("build")[0])]
    assert replay(game, moves).settlements(0) == [moves[0].to]
    with pytest.raises(IllegalMove):
        replay(game, moves + ["end"])


def test_json_round_trip_at_the_start_and_mid_turn(state, game):
    assert State.from_json(state.to_json(), game) == state
    state.play(Move("build", state.targets("build")[0]))
    data = state.to_json()
    assert data["mandatory_left"] == 2
    assert data["log"] == [{"do": "build", "to": state.settlements(0)[0]}]
    assert State.from_json(data, game) == state


def test_arrange_refuses_bad_positions(game):
    with pytest.raises(SetupError, match="holds two settlements"):
        State.arrange(game, [["3,4"], ["3,4"]])
    with pytest.raises(SetupError):
        State.arrange(game, [["99,99"]])
    with pytest.raises(SetupError, match="is not a location hex of tile"):
        State.arrange(game, [[]], tiles=[[{"tile": "oasis", "at": "0,0"}]])
