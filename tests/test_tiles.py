"""The bookkeeping of held tiles (kbdsl.engine.tiles): status twins made once and shared by copies."""

from __future__ import annotations

from kbdsl.engine.tiles import Tile
from kbdsl.game import Game, State


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
