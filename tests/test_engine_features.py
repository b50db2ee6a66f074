"""General primitives that no base content uses yet: several-settlement tiles, rule checks,
saved games. Each rule folder here is written on the fly, as a rule author would."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from kbdsl.cli import main
from kbdsl.errors import IllegalMove, KbdslError, RuleError
from kbdsl.game import Game, State
from kbdsl.ruleset import load
from kbdsl.saves import replay_save, save

GRASS_SECTION = (
    'section meadow "Meadow" {\n  grid:\n'
    + "".join(
        f"    | {' ' if r % 2 else ''}" + " ".join("x" if (r, c) == (2, 2) else "G" for c in range(10)) + "\n"
        for r in range(10)
    )
    + "}\n"
)


def folder(tmp_path: Path, kb: str, manifest: str = "") -> Path:
    root = tmp_path / "exp"
    root.mkdir()
    (root / "game.yaml").write_text("name: exp\nextends: base\nfiles: ['*.kb']\n" + manifest)
    (root / "content.kb").write_text(textwrap.dedent(kb))
    return root


def meadow_game(tmp_path: Path, tile: str, action: str, settlements: list[list[str]]) -> State:
    """A game on the all-grass test section, the player to move holding `tile` (its hex is 2,2)."""
    kb = f'tile {tile} "{tile.title()}" {{ letter: x  supply: 2\n  action: {action} }}\n' + GRASS_SECTION
    game = Game.new(
        load(folder(tmp_path, kb)),
        players=2,
        sections=["meadow", "oasis", "farm", "tavern"],
        cards=["fishermen", "knights", "lords"],
    )
    return State.arrange(game, settlements, tiles=[[{"tile": tile, "at": "2,2"}]], hand=["desert", "desert"])


def test_a_tile_that_builds_two_settlements_finishes_first(tmp_path):
    s = meadow_game(tmp_path, "double", "build 2 on terrain(grass) adjacent-if-possible", [["1,1"]])
    game = s.game
    s.play("double 1,2")
    assert s.to_json()["pending"] == {"tile": "double", "left": 1}
    assert {m.do for m in s.legal_moves()} == {"double"}  # nothing else until it is done
    before = s.key()
    with pytest.raises(IllegalMove, match="Double action is not finished"):
        s.play("build 9,9")
    with pytest.raises(IllegalMove, match="not next to your settlements"):
        s.play("double 0,0")
    assert s.key() == before
    s.play("double 0,1")
    assert s.to_json()["pending"] is None and s.supply[0] == 37
    assert State.from_json(s.to_json(), game) == s
    assert "double" not in {m.do for m in s.legal_moves()}  # one use per turn


def test_two_mandatory_actions_are_refused(tmp_path):
    root = folder(tmp_path, "turn { mandatory: build 1 on buildable mandatory: build 1 on edge }\n")
    with pytest.raises(RuleError) as err:
        load(root)
    codes = {(d.code, d.message.split(" (")[0]) for d in err.value.diagnostics}
    assert ("E102", "a rule set has one turn block") in codes  # base already has one


def test_grid_rows_may_end_in_a_comment(tmp_path):
    kb = GRASS_SECTION.replace("x G G G G G G G\n", "x G G G G G G G   # the double tile's hex\n")
    kb = 'tile double "Double" { letter: x  supply: 2  action: build on buildable }\n' + kb
    assert "# the double" in kb
    rules = load(folder(tmp_path, kb))
    assert len(rules.sections["meadow"].rows[2]) == 10


def test_a_definition_with_straight_serves_move_targets_only(tmp_path):
    ok = load(
        folder(
            tmp_path,
            "define hop = buildable & straight(3)\n"
            'tile hopper "Hopper" { letter: x supply: 2 action: move to hop }\n' + GRASS_SECTION,
        )
    )
    assert "hopper" in ok.tiles
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "game.yaml").write_text("name: bad\nextends: base\nfiles: ['*.kb']\n")
    (bad / "c.kb").write_text("define hop = buildable & straight(3)\ncard hops { score: 1 per hex where hop }\n")
    with pytest.raises(RuleError) as err:
        load(bad)
    assert any("straight() only makes sense in the target of a move" in d.message for d in err.value.diagnostics)


def test_saves_replay_and_tampering_is_caught(tmp_path):
    game = Game.new(load("base"), players=2, seed=4)
    s = game.new_state()
    for _ in range(12):
        s.play(s.legal_moves()[0])
    path = tmp_path / "g.json"
    save(s, path)
    assert replay_save(path).key() == State.from_json(json.loads(path.read_text()), game).key()
    data = json.loads(path.read_text())
    data["supply"][1] -= 1
    path.write_text(json.dumps(data))
    with pytest.raises(KbdslError, match="differs in supply"):
        replay_save(path)


def test_a_game_nobody_can_finish_ends_after_a_round_without_a_new_settlement(tmp_path):
    """A small custom board fills up before anyone's supply runs out: the game still ends."""
    root = tmp_path / "tiny"
    root.mkdir()
    (root / "game.yaml").write_text(
        "name: tiny\nfiles: ['*.kb']\nplayers: {min: 2, max: 2}\nsettlements: 40\ncards_in_play: 1\n"
        "deck: {grass: 3}\nboards:\n  - {name: main, grid: [1, 1]}\n"
    )
    (root / "tiny.kb").write_text(
        'terrain grass "Grass" { letter: G  buildable }\n'
        "turn { mandatory: build 3 on terrain(card) adjacent-if-possible }\n"
        "card lone { score: 1 per area }\n"
        'section patch "Patch" { grid:\n  | G G G\n  |  G G G\n}\n'
    )
    game = Game.new(load(root), players=2, seed=1)
    state = game.new_state()
    moves = 0
    while not state.over and moves < 1000:
        state.play(state.legal_moves()[0])
        moves += 1
    assert state.over and moves < 1000
    assert sum(len(state.settlements(p)) for p in range(2)) == 6  # the board is full
    assert state.supply == [37, 37] and not state.ending


def test_perft_command_divides_by_first_move(capsys):
    path = Path(__file__).resolve().parent.parent / "rules/base/scenarios/perft/first-build-canyon.yaml"
    assert main(["perft", str(path), "--depth", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "perft 2: 130"
    per_move = dict(line.rsplit(": ", 1) for line in lines[:-1])
    assert len(per_move) == 55 and sum(map(int, per_move.values())) == 130
    assert main(["perft", str(path), "--depth", "9"]) == 2


def test_origin_names_the_moved_settlements_hex(tmp_path):
    s = meadow_game(tmp_path, "hop", "move to buildable & within(2, origin)", [["5,5"]])
    # all-grass section: every hex at distance 1 or 2 of 5,5 (6 + 12), the settlement itself excluded
    assert len(s.targets("hop", "5,5")) == 18
    assert "5,7" in s.targets("hop", "5,5") and "5,8" not in s.targets("hop", "5,5")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "game.yaml").write_text("name: bad\nextends: base\nfiles: ['*.kb']\n")
    (bad / "c.kb").write_text("card near { score: 1 per hex where origin }\n")
    with pytest.raises(RuleError, match="'origin' only makes sense in the target of a move"):
        load(bad)


def test_override_replaces_a_parent_declaration(tmp_path):
    root = folder(
        tmp_path,
        'override card workers "Workers" { score: 2 per settlement where next-to(site) }\n'
        "override turn { mandatory: build 2 on terrain(card) adjacent-if-possible }\n",
    )
    rules = load(root)
    assert rules.cards["workers"].override and rules.mandatory[0].count == 2
    game = Game.new(rules, players=2, preset="first-game", cards=["workers", "knights", "lords"])
    s = State.arrange(game, [["3,4"]])  # grass next to the Tavern section's castle at 3,3
    base = Game.new(load("base"), players=2, preset="first-game", cards=["workers", "knights", "lords"])
    assert State.arrange(base, [["3,4"]]).scores()[0]["workers"] == 1
    assert s.scores()[0]["workers"] == 2
    (root / "content.kb").write_text('override card nobody "Nobody" { score: 1 per area }\n')
    with pytest.raises(RuleError) as err:
        load(root)
    assert [d.code for d in err.value.diagnostics] == ["E108"]
    assert "there is no earlier card or scoring of that name to replace" in err.value.diagnostics[0].message


def test_slide_stops_before_the_first_blocked_hex(tmp_path):
    # 5,5 slides east along row 5 until 5,8 (5,9 holds the other player's settlement), west to 5,0
    # (the board's left edge); the location hex 2,2 blocks nothing on these lines.
    s = meadow_game(tmp_path, "sled", "move to slide(buildable & empty)", [["5,5"], ["5,9"]])
    targets = s.targets("sled", "5,5")
    assert "5,8" in targets and "5,0" in targets
    assert "5,6" not in targets and "5,7" not in targets  # only the last free hex of each direction
    assert len(targets) == 6  # one per direction on an open grass section


def test_play_reports_what_changed():
    game = Game.new(load("base"), players=2, preset="first-game")
    s = State.arrange(game, [["3,4"]], hand=["grass", "grass"], built=2, supply=[1, 40])
    events = s.play("build 3,5")  # the last settlement of the supply ends the mandatory action
    assert events[0] == {"event": "built", "player": 0, "hex": "3,5"}
    assert {"event": "end_triggered", "player": 0} in events
    events = s.play("end")
    assert events[0] == {"event": "turn_ended", "player": 0}
    assert events[-1] == {"event": "turn_started", "player": 1, "turn": 2}
    assert all("card" not in e for e in events)  # the card drawn stays hidden


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_events_match_the_moves_of_random_games(seed):
    import random

    rng = random.Random(seed)
    state = Game.new(load("base"), players=3, seed=seed).new_state()
    while not state.over:
        move = rng.choice(state.legal_moves())
        tiles_before = sum(len(ts) for ts in state.tiles)
        events = state.play(move)
        kinds = [e["event"] for e in events]
        if move.do == "end":
            assert "turn_ended" in kinds
        elif move.frm is not None:
            assert {"event": "moved", "player": events[0]["player"], "from": move.frm, "to": move.to} == events[0]
        else:
            assert events[0]["event"] == "built" and events[0]["hex"] == move.to
        gained, lost = kinds.count("tile_gained"), kinds.count("tile_lost")
        assert sum(len(ts) for ts in state.tiles) == tiles_before + gained - lost
        assert ("game_over" in kinds) == state.over


def test_a_save_names_a_custom_rule_folder_relative_to_itself(tmp_path):
    root = folder(tmp_path, 'card lone "Lone" { score: 1 per area }\n')
    game = Game.new(load(root), players=2, seed=3, cards=["lone", "fishermen", "knights"])
    state = game.new_state()
    state.play(state.legal_moves()[0])
    (tmp_path / "saves").mkdir()
    path = tmp_path / "saves" / "g.json"
    save(state, path)
    assert json.loads(path.read_text())["rules"] == "../exp"
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (root).rename(moved / "exp")
    (tmp_path / "saves").rename(moved / "saves")
    assert replay_save(moved / "saves" / "g.json").key() == state.key()


def test_from_json_refuses_data_that_is_not_a_state_of_the_game():
    game = Game.new(load("base"), players=2, seed=5)
    good = game.new_state().to_json()
    for broken in (
        {k: v for k, v in good.items() if k != "supply"},
        dict(good, hand=["grass"]),
        dict(good, settlements=[["3,4"], ["3,4"]]),
        dict(good, settlements=[["99,99"], []]),
        dict(good, tiles=[[{"tile": "oracle"}], []]),
    ):
        with pytest.raises(KbdslError, match="not a saved state of this game|no hex 99,99"):
            State.from_json(broken, game)


# ---- tile lifecycles other than the base game's ------------------------------------------------


def lifecycle_game(tmp_path: Path, settings: str, action: str = "build on terrain(grass)") -> Game:
    """The all-grass test section, its tile 'hop' following the base lifecycle with `settings` changed."""
    kb = f"override lifecycle location-tile {{ {settings} }}\n"
    kb += f'tile hop "Hop" {{ letter: x  supply: 2\n  action: {action} }}\n' + GRASS_SECTION
    return Game.new(
        load(folder(tmp_path, kb)),
        players=2,
        sections=["meadow", "oasis", "farm", "tavern"],
        cards=["fishermen", "knights", "lords"],
    )


def finish_turn(s: State) -> None:
    """The player to move builds the first legal hexes until the mandatory action is done, then ends."""
    while s.mandatory_open():
        s.play(next(m for m in s.legal_moves() if m.do == "build"))
    s.play("end")


def test_a_tile_kept_for_good_survives_moving_away(tmp_path):
    game = lifecycle_game(tmp_path, "keep: for-good", "move to terrain(grass)")
    s = State.arrange(game, [["2,3"]], tiles=[[{"tile": "hop", "at": "2,2"}]], hand=["desert", "desert"])
    s.play("hop 2,3 6,6")
    assert [(x.kind, x.used) for x in s.tiles[0]] == [("hop", True)]  # no settlement touches 2,2 any more


def test_a_single_use_tile_leaves_the_game_when_used(tmp_path):
    game = lifecycle_game(tmp_path, "use: once")
    s = State.arrange(game, [["2,3"]], tiles=[[{"tile": "hop", "at": "2,2"}]], hand=["desert", "desert"])
    s.play("hop 6,6")
    assert s.tiles[0] == [] and s.to_json()["location_supply"]["2,2"] == 1
    assert State.from_json(s.to_json(), game) == s


@pytest.mark.parametrize("first_use, usable", [("next-turn", False), ("this-turn", True)])
def test_first_use(tmp_path, first_use, usable):
    game = lifecycle_game(tmp_path, f"first-use: {first_use}")
    s = State.arrange(game, hand=["grass", "grass"])
    for h in ("2,3", "2,4", "2,5"):  # 2,3 touches the tile's hex 2,2
        s.play(f"build {h}")
    assert [x.kind for x in s.tiles[0]] == ["hop"]
    assert ("hop" in {m.do for m in s.legal_moves()}) is usable


def test_a_tile_kept_until_the_end_of_the_next_turn(tmp_path):
    game = lifecycle_game(tmp_path, "keep: until-end-of-next-turn", "move to terrain(grass)")
    s = State.arrange(game, hand=["grass", "grass"])
    for h in ("2,3", "2,4", "2,5"):
        s.play(f"build {h}")
    s.play("end")
    finish_turn(s)  # player 1
    assert s.current == 0 and [x.kind for x in s.tiles[0]] == ["hop"]
    s.play("hop 2,3 7,7")  # leaves the hex: the tile is not lost by that
    assert [x.kind for x in s.tiles[0]] == ["hop"]
    finish_turn(s)
    assert s.tiles[0] == [] and s.to_json()["location_supply"]["2,2"] == 1


def hand_game(tmp_path: Path, settings: str, seed: int = 5) -> Game:
    """A base game whose turn block states other card zones (`settings`: lines of the turn)."""
    kb = (
        "override turn {\n  mandatory: build 3 on terrain(card) adjacent-if-possible\n"
        + "".join(f"  {line}\n" for line in settings.splitlines())
        + "}\n"
    )
    return Game.new(load(folder(tmp_path, kb)), players=3, seed=seed)


def cards_everywhere(s: State) -> list[str]:
    data = s.to_json()
    held = [c for c in data["hand"] if c is not None] + [c for x in data["spare"] for c in x]
    return sorted(held + data["deck"] + data["discard"] + data["removed"])


def test_the_turn_states_the_hand_dealt_at_setup(tmp_path):
    game = hand_game(tmp_path, "hand: 3")
    s = State.start(game)
    data = s.to_json()
    assert [len(x) for x in data["spare"]] == [2, 2, 2]  # three cards each: the played one and two beside
    assert data["choosing"] is True
    assert len(data["deck"]) == 25 - 9
    assert cards_everywhere(s) == sorted(c for c, k in game.rules.deck.items() for _ in range(k))


def test_draw_at_the_start_of_the_turn_leaves_hands_empty_between_turns(tmp_path):
    game = hand_game(tmp_path, "hand: 2\ndraw: start-of-turn")
    s = State.start(game)
    assert [h is not None for h in s.hand] == [True, False, False] and [len(x) for x in s.spare] == [1, 0, 0]
    for _ in range(3):
        s.play(next(m for m in s.legal_moves() if m.do == "build"))
    s.play("end")
    assert s.hand[0] is None and s.spare[0] == [] and len(s.discard) == 2  # both cards, nothing drawn
    assert s.hand[1] is not None and len(s.spare[1]) == 1  # player 1 fills their hand now
    assert len(s.deck) == 25 - 4
    assert State.from_json(s.to_json(), game) == s


@pytest.mark.parametrize("discard", ["all", "played"])
def test_discard_says_which_cards_leave_the_hand_at_the_end_of_the_turn(tmp_path, discard):
    game = hand_game(tmp_path, f"hand: 2\ndiscard: {discard}")
    s = State.start(game)
    s.play(s.legal_moves()[0])  # the first build plays one card of the two
    played, unplayed = s.hand[0], s.spare[0][0]
    for _ in range(2):
        s.play(next(m for m in s.legal_moves() if m.do == "build"))
    s.play("end")
    data = s.to_json()
    assert data["discard"] == ([played] if discard == "played" else [unplayed, played])
    if discard == "played":
        assert data["hand"][0] == unplayed  # kept in hand, and played first next turn
    assert len(data["spare"][0]) == 1  # two cards in hand again
    assert cards_everywhere(s) == sorted(c for c, k in game.rules.deck.items() for _ in range(k))
    assert State.from_json(data, game) == s


@pytest.mark.parametrize("turn_hand, drawn", [(1, 2), (3, 3)])
def test_a_tile_hand_is_the_largest_of_the_turn_and_the_tiles_held(tmp_path, turn_hand, drawn):
    kb = (
        'tile wide "Wide" { letter: x  supply: 2\n  hand: 2\n}\n'
        f"override turn {{\n  mandatory: build 3 on terrain(card) adjacent-if-possible\n  hand: {turn_hand}\n}}\n"
    )
    rules = load(folder(tmp_path, kb + GRASS_SECTION))
    game = Game.new(
        rules, players=2, sections=["meadow", "oasis", "farm", "tavern"], cards=["fishermen", "knights", "lords"]
    )
    s = State.arrange(game, [["1,1"]], tiles=[[{"tile": "wide", "at": "2,2"}]], hand=["desert", "desert"], built=3)
    s.play("end")
    assert 1 + len(s.spare[0]) == drawn and 1 + len(s.spare[1]) == turn_hand


def test_a_sword_victim_has_no_rulings_11_choice_to_make():
    """The position of rules/nomads/scenarios/sword-victim-keeps-the-other-copy.yaml: the Sword's
    moves carry no discard variant, because the victim's two Caravan tiles are alike."""
    rules = load(Path(__file__).parent.parent / "rules" / "nomads")
    game = Game.new(rules, players=2, sections=["caravan", "garden", "quarry", "village"])
    tiles = [[{"tile": "sword", "at": "3,3"}], [{"tile": "caravan", "at": "6,2"}, {"tile": "caravan", "at": "7,6"}]]
    s = State.arrange(game, [[], ["7,5", "6,1"]], hand=["grass", "grass"], built=3, tiles=tiles)
    sword = [m for m in s.legal_moves() if m.do == "sword"]
    assert sorted(m.to for m in sword) == ["6,1", "7,5"] and all(m.discard is None for m in sword)
    assert {x.status for x in s.tiles[1]} == {"unused"}
