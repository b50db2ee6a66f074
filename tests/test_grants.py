"""Issue 21's primitives: actions the board grants, their phases (end of game, reactions), set-up
markers and pieces given by tiles, on the rule sets that use them."""

import random

import pytest

from kbdsl.bots import RandomBot, play_out
from kbdsl.engine.setup import Setup
from kbdsl.engine.state import State
from kbdsl.errors import IllegalMove, RuleError, SetupError
from kbdsl.game import Game
from kbdsl.position import Layout
from kbdsl.protocol import describe
from kbdsl.resources import rules_path
from kbdsl.ruleset import load

REACTIONS = rules_path("base") / "scenarios" / "fixtures" / "reactions"
HARVEST = ["harvest-1-placeholder", "harvest-2-placeholder", "harvest-3-placeholder", "harvest-4-placeholder"]


@pytest.mark.parametrize("folder", ["harvest", "caves", "capitol", "combined"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_random_game_finishes_and_replays(folder, players):
    rules = load(folder)
    game = Game.new(rules, players=players, seed=players)
    state = play_out(game.new_state(), [RandomBot(f"{players}:{p}") for p in range(players)])
    assert state.over
    again = game.new_state()
    for code in state.log:
        assert code in again.legal_actions()
        again.apply_action(code)
    assert again == state and State.from_json(state.to_json(), game) == state


def _walk(rules, players: int, seed: int, seen) -> None:
    """Play a random game, checking at every position that JSON and clones round-trip, and
    calling seen(state) on each."""
    game = Game.new(rules, players=players, seed=seed)
    state, rng = game.new_state(), random.Random(seed)
    while not state.over:
        seen(state)
        assert State.from_json(state.to_json(), game) == state and state.clone() == state
        state.apply_action(rng.choice(state.legal_actions()))


def test_reactions_hand_the_move_to_other_players_and_back():
    rules = load(REACTIONS)
    phases = []

    def seen(s: State) -> None:
        view = s.view(s.current)
        assert view["current"] == s.current and view["turn_player"] == s.turn_player
        if s.react_saved is not None:
            phases.append(s.current != s.turn_player)
            assert {m.do for m in s.legal_moves()} <= {"alarm", "end"}

    for seed in range(4):
        _walk(rules, 4, seed, seen)
    assert phases and all(phases)  # reactions happened, always by another player than the turn's


def test_a_last_tile_taken_in_a_reaction_starts_no_reaction():
    """Reactions do not nest: the queue of the first goes on as it was, then the turn's player."""
    game = Game.new(load(REACTIONS), players=3, seed=0, sections=["tavern", "paddock", "oasis", "farm"])
    state = State.arrange(
        game, [[], ["8,8"], ["5,5"]], hand=["grass", "forest", "flower"], location_supply={"11,17": 1, "6,7": 1}
    )
    state.play({"do": "build", "to": "11,18"})
    assert (state.current, state.react_queue) == (1, (2,))  # the players after the turn's, from its left
    state.play({"do": "alarm", "to": "7,7"})  # the Tavern hex's last tile
    assert state.loc_supply[game.tables.index["6,7"]] == 0 and not state.reacting
    with pytest.raises(
        IllegalMove, match=r"mandatory build is not used in a reaction: player 1 is reacting in player 0's turn"
    ):
        state.play({"do": "build", "to": "10,18"})
    order = []
    while state.turn_player == 0 and state.react_saved is not None:
        order.append(state.current)
        state.play({"do": "end"})
    assert order == [1, 2] and (state.current, state.built, state.mand_left) == (0, 1, 2)


def test_the_silo_phase_comes_before_scoring_with_only_its_actions():
    rules = load("harvest")
    end = []

    def seen(s: State) -> None:
        if s.phase == 2:
            end.append(s.current)
            assert {m.do.split(".")[0] for m in s.legal_moves()} <= {"silo-harvest", "end"}

    for seed in range(3):
        _walk(rules, 3, seed, seen)
    assert end


def test_markers_follow_the_seed_and_keep_the_printed_terrain():
    rules = load("caves")
    layout = Layout.of(rules, ["tavern", "harbor", "tower", "oasis"])
    a, b = (Game(rules, Setup(2, layout, (), seed)) for seed in (0, 1))
    again = Game(rules, Setup(2, layout, (), 0))
    assert a.marks == again.marks and a.marks != b.marks
    t = a.tables
    for i in t.names(a.marks["cave"]):
        k = t.index[i]
        assert t.terrain_at(k) == "mountain" and (t.terrain["mountain"] >> k) & 1
    assert a.board.tables.terrain.get("cave") is None  # the shared board is not changed


def test_pieces_come_with_tiles_and_positions_state_any_supply():
    rules = load("crossroads")
    game = Game(rules, Setup(2, Layout.of(rules, ["lighthouse", "barracks", "city-hall", "monastery"]), ()))
    assert game.new_state().kind_supply["warrior"] == [0, 0]
    s = State.arrange(game, kind_supply={"warrior": [1, 0]})
    assert s.kind_supply["warrior"] == [1, 0]
    with pytest.raises(SetupError, match="kind_supply: warrior needs, per player, 0 to 2"):
        State.arrange(game, kinds={"warrior": [["2,13"], []]}, kind_supply={"warrior": [2, 0]})
    data = s.to_json()
    data["kind_supply"]["warrior"] = [3, 0]
    with pytest.raises(SetupError, match="at most 2"):
        State.from_json(data, game)


def test_a_grant_phase_must_be_known(tmp_path):
    (tmp_path / "game.yaml").write_text("name: t\nextends: " + str(rules_path("base")) + '\nfiles: ["x.kb"]\n')
    (tmp_path / "x.kb").write_text('grant g "G" {\n  phase: sometimes\n  action: build on buildable\n}\n')
    with pytest.raises(RuleError, match=r"x.kb:2:10: E105 phase is one of turns"):
        load(tmp_path)


CHOICE = rules_path("base") / "scenarios" / "fixtures" / "mandatory-choice"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_mandatory_choice_is_offered_and_played_in_random_games(players):
    """`mandatory: build 3 ... or resettle`: Resettle is offered exactly while the mandatory action is
    due and unbuilt, and using it does the turn's mandatory action."""
    rules = load(CHOICE)
    used = []

    def seen(s: State) -> None:
        offered = any(m.do == "resettle" for m in s.legal_moves())
        assert not offered or (s.mand_left > 0 and s.built == 0)
        if s.log and s.game.decode(s.log[-1]).do == "resettle" and s.phase == 0 and s.current == s.turn_player:
            used.append(s.mand_left)

    for seed in range(2):
        _walk(rules, players, seed, seen)
    assert used and set(used) == {0}


def test_a_mandatory_choice_shows_in_describe_and_explain():
    rules = load(CHOICE)
    d = describe(rules)["mandatory"]
    assert d == {
        "count": 3,
        "text": "build 3 on terrain(card) adjacent-if-possible or resettle",
        "instead": ["resettle"],
    }
    assert "instead" not in describe(load("base"))["mandatory"]


def test_a_mandatory_choice_must_name_a_grant_of_the_turns(tmp_path):
    (tmp_path / "game.yaml").write_text("name: t\nextends: " + str(rules_path("base")) + '\nfiles: ["x.kb"]\n')
    turn = "override turn {\n  mandatory: build 3 on terrain(card) or resetle\n}\n"
    grant = 'grant resettle "R" {\n  action: move to buildable\n}\n'
    (tmp_path / "x.kb").write_text(turn + grant)
    with pytest.raises(RuleError, match=r"x.kb:2:42: E107 mandatory: `or resetle` must name a grant .*resettle"):
        load(tmp_path)


def test_harvest_sections_are_marked_placeholders():
    rules = load("harvest")
    for name in HARVEST:
        assert "PLACEHOLDER" in rules.sections[name].title


def test_a_start_of_game_phase_lets_each_player_place_in_seat_order():
    rules = load(rules_path("base") / "scenarios" / "fixtures" / "setup-choice")
    game = Game.new(rules, players=3, seed=1)
    s = game.new_state()
    order = []
    while s.phase == 1:
        order.append(s.current)
        assert {m.do for m in s.legal_moves()} == {"stone-setting", "end"}
        s.play(next(m for m in s.legal_moves() if m.do == "stone-setting"))
        with pytest.raises(IllegalMove, match="no use of the Stone setting action left"):
            s.play(next(m for m in game.new_state().legal_moves() if m.do == "stone-setting"))
        s.play("end")
    assert order == [0, 1, 2] and s.current == 0 and s.mand_left == 3
    assert s.neutral["stone"].bit_count() == 3 and s.stock["stone"] == 2
    assert "stone-setting" not in {m.do for m in s.legal_moves()}
    assert State.from_json(s.to_json(), game) == s


def test_arranged_positions_give_the_grants_to_the_player_to_move():
    rules = load("harvest")
    game = Game(rules, Setup(2, Layout.of(rules, HARVEST), ()))
    s = State.arrange(game, [[], ["6,1"]], current=1, hand=["grass", "flower"])
    assert s.targets("farming") == ["7,0", "7,1"]


def test_pictures_show_the_markers_put_at_set_up():
    from kbdsl.render.svg import board

    rules = load("caves")
    game = Game(rules, Setup(2, Layout.of(rules, ["tavern", "harbor", "tower", "oasis"]), (), 0))
    svg = str(board(game))
    drawn = sorted(h for h in game.tables.names(game.marks["cave"]) if f'data-hex="{h}" data-marker="cave"' in svg)
    assert drawn == sorted(game.tables.names(game.marks["cave"])) and len(drawn) == 3


@pytest.mark.parametrize("folder", ["marshlands", "harvest", "combined", "base"])
def test_movers_name_who_made_each_move_reactions_and_phases_included(folder):
    """`movers()` (what simulate's per-seat tile uses read) against a replay that notes the player
    to move before each move: the same, in games whose reactions and phases of grants hand the move
    out of seat order (which counting the `end` moves alone got wrong)."""
    rules = load(folder)
    handed = 0
    for seed in range(12):
        players = 2 + seed % 3
        game = Game.new(rules, players=players, seed=seed)
        state = play_out(game.new_state(), [RandomBot(f"{seed}:{p}") for p in range(players)])
        replay, who = game.new_state(), []
        for code in state.log:
            who.append(replay.current)
            replay.apply_action(code)
        assert state.movers() == who
        handed += bool(state.handoffs)
    assert handed > 0 if folder != "base" else handed == 0
