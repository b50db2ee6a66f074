"""The bookkeeping of held tiles (kbdsl.engine.tiles): status twins made once and shared by copies."""

from __future__ import annotations

from pathlib import Path

from kbdsl.engine.tiles import Tile
from kbdsl.game import Game, State
from kbdsl.ruleset import load


def test_a_tile_status_is_another_tile_made_once():
    fresh = Tile("farm", 7)
    used = fresh.spent
    assert (used.kind, used.at, used.used, used.new, used.status) == ("farm", 7, True, False, "used")
    assert fresh.spent is used and used.spent is used and used.fresh is fresh and fresh.fresh is fresh
    new = Tile("farm", 7, new=True)
    assert new.status == "new" and new.fresh.status == "unused" and new.fresh.fresh is new.fresh
    assert new.spent is new.fresh.spent
    assert fresh.like(new).status == "new" and fresh.like(new).fresh is fresh
    assert new.like(used) is new.fresh.spent and used.like(fresh) is fresh


def test_copies_share_tiles_and_a_used_tile_is_unused_again_next_turn(base_rules):
    game = Game.new(base_rules, players=2, preset="first-game", seed=3)
    s = State.arrange(game, [["10,17"]], tiles=[[{"tile": "farm", "at": "11,17"}]], hand=["grass", "grass"])
    fresh = s.tiles[0][0]
    copy = s.clone()
    s.play(next(m for m in s.legal_moves() if m.do == "farm"))
    assert s.tiles[0][0] is fresh.spent and copy.tiles[0] == [fresh] and copy.usable_tiles(0) == ["farm"]
    assert s.usable_tiles(0) == []
    while s.current == 0:
        s.play(s.legal_moves()[-1])  # the mandatory builds, then the end of the turn
    assert s.tiles[0][0] is fresh and s.usable_tiles(0) == ["farm"]


def test_players_taking_from_one_hex_share_its_tile_and_lose_it_apart(base_rules):
    """A taken tile is one Tile per kind, hex and status (a player takes from a hex once): two
    players holding it hold the same object, and one losing it leaves the other's alone."""
    game = Game.new(base_rules, players=2, preset="first-game", seed=3)
    t = game.tables
    farm = t.index["11,17"]
    a, b = t.nbr[farm][:2]  # two hexes next to the farm's hex
    s = State.arrange(game, [[t.ids[a]], [t.ids[b]]], hand=["grass", "grass"])
    assert s.tiles == [[], []]  # arranged settlements take nothing
    s.gain(0, a)
    s.gain(1, b)
    assert s.tiles[0][0] is s.tiles[1][0] and s.tiles[0][0].kind == "farm" and s.loc_supply[farm] == 0
    s.take_back(0, a)
    s.lose(0, None, game.lose_now)
    assert s.tiles[0] == [] and [x.at for x in s.tiles[1]] == [farm]
    again = game.new_state()
    again.gain(0, a)  # another game's player taking from that hex holds the same tile too
    assert again.tiles[0] == s.tiles[1]


def test_a_second_tile_of_an_action_going_on_is_not_offered_again(tmp_path):
    """While a tile's action of several steps goes on, its next steps are its moves: a second tile
    of its kind would offer the same codes, so it waits (here with window any-time, whose tiles
    are also offered while an action goes on)."""
    root = Path(__file__).resolve().parent.parent / "rules" / "base"
    (tmp_path / "game.yaml").write_text(f"name: twice\nextends: {root}\nfiles: ['*.kb']\n")
    (tmp_path / "farm.kb").write_text(
        'override tile farm "Farm" {\n  letter: f  supply: 2\n  window: any-time\n'
        "  action: build 2 on terrain(grass) adjacent-if-possible\n}\n"
    )
    game = Game.new(load(tmp_path), players=2, preset="first-game", seed=3)
    farms = [{"tile": "farm", "at": "11,17"}, {"tile": "farm", "at": "15,12"}]
    s = State.arrange(game, [["10,17", "15,11"]], tiles=[farms], hand=["grass", "grass"])
    s.play(next(m for m in s.legal_moves() if m.do == "farm"))
    assert s.pending_left == 1 and s.usable_tiles(0) == ["farm"]  # the second farm, unused
    legal = s.legal_actions()
    assert legal and len(set(legal)) == len(legal)
    s.play(next(m for m in s.legal_moves() if m.do == "farm"))  # the action's second step ...
    assert not s.pending_left and s.usable_tiles(0) == ["farm"]  # ... ends it, the second farm waits
    assert any(m.do == "farm" for m in s.legal_moves())  # and may be used now


def test_losing_one_of_two_copies_gives_up_the_used_one_unless_the_move_says_otherwise():
    """RULINGS 11 default (issue 20.22): no `discard` drops the used copy; the list offers the default
    and one variant for the other status (the lost tile itself), and naming "used" is the default."""
    from kbdsl.moves import Move
    from kbdsl.scenario import scenario_position

    doc = Path(__file__).resolve().parent.parent / "rules/base/scenarios/turns/r11-discard-default.yaml"
    state = scenario_position(doc)  # the move played with no discard
    before = scenario_position(doc.with_name("r11-discard-must-match.yaml"))
    moves = [m for m in before.legal_moves() if m.do == "paddock" and m.frm == "15,13" and m.to == "15,15"]
    assert sorted(str(m.discard) for m in moves) == ["None", "unused"]
    plain, named = before.clone(), before.clone()
    plain.play(Move("paddock", "15,15", "15,13"))
    named.play({"do": "paddock", "from": "15,13", "to": "15,15", "discard": "used"})
    assert plain.to_json()["tiles"] == named.to_json()["tiles"] == state.to_json()["tiles"]
    assert [t["used"] for t in plain.to_json()["tiles"][0] if t["tile"] == "farm"] == [False]
