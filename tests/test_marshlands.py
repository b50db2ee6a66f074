"""Marshlands (rules/marshlands) and the primitives of issue 21 it is written with: terrain cards
of several choices, deck removals, given tiles, take-back and next-turn modifiers, rays, forced
use and families of declarations."""

import random
import textwrap
from collections import Counter

import pytest

from kbdsl.bots import RandomBot, play_out
from kbdsl.determinize import determinize, unseen_cards
from kbdsl.engine.state import State
from kbdsl.errors import IllegalMove, RuleError, SetupError
from kbdsl.game import Game
from kbdsl.protocol import describe
from kbdsl.ruleset import load


@pytest.fixture(scope="module")
def marsh():
    return load("rules/marshlands")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_finish(marsh, players):
    for seed in range(3):
        game = Game.new(marsh, players=players, seed=seed, preset="marshlands" if seed else None)
        state = play_out(game.new_state(), [RandomBot(f"{seed}:{p}") for p in range(players)])
        assert state.over
        assert State.from_json(state.to_json(), game) == state  # saves round-trip, invariants hold
        again = game.new_state()
        for code in state.log:  # the same seed and moves give the same game
            assert code in again.legal_actions()
            again.apply_action(code)
        assert again == state


def test_double_cards_are_played_in_random_games(marsh):
    played, counts = set(), set()
    for seed in range(6):
        game = Game.new(marsh, players=3, seed=seed, preset="marshlands")
        state = game.new_state()
        rng = random.Random(seed)
        while not state.over:
            if state.wild is not None and state.built == 1:
                played.add(state.wild)
                counts.add((state.hand[state.current] == "swamp", state.mand_left))
            state.apply_action(state.sample_action(rng))
    assert played and played <= set(marsh.faces)
    assert (True, 1) in counts and (False, 2) in counts  # swamp builds two in all, the other terrain three


def test_scouts_takes_a_terrain_out_of_the_deck(marsh):
    game = Game.new(marsh, players=2, seed=4, cards=["scouts", "fishermen", "lords"])
    gone = game.picks["scouts"]
    assert gone in ("grass", "canyon", "desert", "flower", "forest")
    state = game.new_state()
    cards = state.deck + [c for c in state.hand if c is not None]
    assert not [c for c in cards if gone in marsh.card_terrains(c)]
    assert sorted(state.removed) == sorted(
        c for c, n in marsh.deck.items() if gone in marsh.card_terrains(c) for _ in range(n)
    )
    with pytest.raises(SetupError):  # no card of that terrain is left to put in a hand
        State.arrange(game, hand=[gone, None])


def test_without_scouts_the_deck_is_whole(marsh):
    game = Game.new(marsh, players=2, seed=4, cards=["fishermen", "lords", "miners"])
    state = game.new_state()
    assert game.picks == {} and state.removed == []
    assert len(state.deck) + 2 == sum(marsh.deck.values())


def test_double_card_view_hides_the_card_behind_the_terrain(marsh):
    game = Game.new(
        marsh,
        players=2,
        seed=0,
        sections=["temple", "canoe", "refuge", "oracle"],
        cards=["scouts", "fishermen", "lords"],
    )
    state = State.arrange(game, [["7,3"], []], hand=["swamp-grass", "grass"])
    state.play({"do": "build", "to": "6,4"})
    assert state.hand[0] == "swamp" and state.wild == "swamp-grass"
    assert state.view(0)["wild"] == "swamp-grass" and state.view(1)["wild"] is None
    state.play({"do": "build", "to": "6,5"})
    state.play({"do": "end"})
    assert state.discard[-1] == "swamp-grass" and state.wild is None  # the card itself is discarded


def test_the_card_behind_the_terrain_is_the_turn_players_in_a_reaction(marsh):
    """Player 0 plays swamp-grass as grass and takes the Refuge hex's last tile: player 1 reacts with
    the Canoe inside player 0's turn. The card stays player 0's (views, saves, determinisations)."""
    game = Game.new(
        marsh,
        players=2,
        seed=0,
        sections=["temple", "canoe", "refuge", "oracle"],
        cards=["scouts", "fishermen", "lords"],
    )
    state = State.arrange(
        game,
        [[], ["6,11", "7,11"]],
        hand=["swamp-grass", "grass"],
        tiles=[[], [{"tile": "canoe", "at": "7,12"}]],
        location_supply={"13,7": 1},
    )
    state.play({"do": "build", "to": "13,6"})
    assert (state.current, state.turn_player, state.wild, state.hand[0]) == (1, 0, "swamp-grass", "grass")
    assert state.played_card(0) == "swamp-grass" and state.played_card(1) == "grass"
    assert state.view(1)["wild"] is None and state.view(0)["wild"] == "swamp-grass"  # hidden from the reactor
    assert State.from_json(state.to_json(), game) == state
    for viewer in (0, 1):
        view = state.view(viewer)
        for seed in range(3):
            d = determinize(game, view, random.Random(seed))
            assert d.view(viewer) == view and d.wild in marsh.faces and d.hand[0] == "grass"
    state.play({"do": "canoe-reaction", "to": "6,10"})
    state.play({"do": "end"})  # the reaction's turn is over: player 0 goes on with their card
    assert (state.current, state.wild, state.hand[0], state.mand_left) == (0, "swamp-grass", "grass", 2)


def test_a_determinisation_plays_a_hidden_card_as_another_terrain_too(marsh):
    """An opponent plays a double card as one of its terrains: the view says so (`wild: null`) but
    not which card. A determinisation deals them a double card of the deck's unseen ones, played as
    the terrain they built on, so its view is the real one's."""
    game = Game.new(
        marsh,
        players=2,
        seed=0,
        sections=["temple", "canoe", "refuge", "oracle"],
        cards=["scouts", "fishermen", "lords"],
    )
    state = State.arrange(game, [["7,3"], []], hand=["swamp-grass", "grass"])
    state.play({"do": "build", "to": "6,4"})  # a swamp hex: the card is played as swamp
    view = state.view(1)
    assert "wild" in view and view["wild"] is None and view["hand"][0] is None
    unseen = Counter(unseen_cards(game, view))
    for seed in range(6):
        d = determinize(game, view, random.Random(seed))
        assert d.view(1) == view
        assert d.wild in marsh.faces and d.hand[0] == "swamp" and "swamp" in game.faces[d.wild]
        assert Counter(d.deck) + Counter([d.wild]) == unseen  # only unseen cards are dealt
        assert d.legal_actions() == state.legal_actions()  # the second swamp build is due, as in the real game


def test_describe_lists_terrain_cards_and_placeholders(marsh):
    data = describe(marsh)
    cards = {c["name"]: c for c in data["terrain_cards"]}
    assert set(cards) == {f"swamp-{t}" for t in ("grass", "canyon", "desert", "flower", "forest")}
    assert cards["swamp-desert"]["choices"] == [{"terrain": "swamp", "count": 2}, {"terrain": "desert", "count": 3}]
    sections = {s["name"]: s for b in data["boards"] for s in b["sections"]}
    for name in ("temple", "canoe", "refuge"):
        assert "placeholder" in sections[name]["title"].lower()
        assert sections[name]["texts"][0].startswith("PLACEHOLDER")
    assert "terrain_cards" not in describe(load("base"))


def _rules(tmp_path, text: str, manifest: str = ""):
    (tmp_path / "game.yaml").write_text(
        "name: t\nextends: base\nfiles: ['x.kb']\n" + textwrap.dedent(manifest), encoding="utf-8"
    )
    (tmp_path / "x.kb").write_text(textwrap.dedent(text), encoding="utf-8")
    return load(tmp_path)


def test_family_members_names_titles_letters(tmp_path):
    rules = _rules(
        tmp_path,
        """
        list pair = grass, canyon
        family t in pair {
          tile dig "Dig" { letter: xy  supply: 2  action: build on terrain(t) adjacent-if-possible }
        }
        family k in (grass, desert) { card near "Near" { score: 1 per settlement where next-to(terrain(k)) } }
        """,
    )
    assert rules.tiles["dig-grass"].letter == "x" and rules.tiles["dig-canyon"].letter == "y"
    assert rules.tiles["dig-canyon"].title == "Dig (Canyon)" and rules.tiles["dig-canyon"].family == "t = canyon"
    assert rules.legend["y"] == ("location", "dig-canyon")
    assert rules.cards["near-desert"].score.where.args[0].args[0].name == "desert"
    assert "dig-grass" in {t["name"] for t in describe(rules)["tiles"]}


def test_family_errors_are_located(tmp_path):
    with pytest.raises(RuleError) as e:
        _rules(tmp_path, "family t in colours { card c { score: 1 } }\n")
    assert [d.code for d in e.value.diagnostics] == ["E101"] and "unknown list 'colours'" in str(e.value)
    with pytest.raises(RuleError) as e:
        _rules(tmp_path, "family t in (grass, canyon, desert) { tile d { letter: xy supply: 2 action: gold 1 } }\n")
    assert e.value.diagnostics[0].code == "E103" and e.value.diagnostics[0].pos.line == 1
    with pytest.raises(RuleError) as e:  # two members of one name
        _rules(tmp_path, "family t in (grass, grass) { card c { score: 1 } }\n")
    assert e.value.diagnostics[0].code == "E102"


def test_terrain_card_errors(tmp_path):
    with pytest.raises(RuleError) as e:
        _rules(tmp_path, "terrain-card mix { choices: 2 on swamp, 3 on grass }\n", "deck: {mix: 1}\n")
    assert "unknown terrain 'swamp'" in str(e.value)
    with pytest.raises(RuleError) as e:
        _rules(tmp_path, "terrain-card mix { choices: 2 on grass }\n", "deck: {mix: 1}\n")
    assert e.value.diagnostics[0].code == "E107"
    with pytest.raises(RuleError) as e:
        _rules(tmp_path, "terrain-card mix { choices: on grass, on canyon  tile-use: sometimes }\n")
    assert "tile-use is one of fixes-choice, leaves-choice" in str(e.value)


def test_held_in_a_target(tmp_path):
    rules = _rules(
        tmp_path,
        """
        tile lookout { letter: x  supply: 2  action: build on buildable & (edge | held(lookout) >= 2) }
        section look { grid:
          | G G G G G G G G G G
          |  G G G G G G G G G G
          | G G G G G G G G G G
          |  G G G G G G G G G G
          | G G G G x G G G G G
          |  G G G G G G G G G G
          | G G G G G G G G G G
          |  G G G G G G G G G G
          | G G G G G x G G G G
          |  G G G G G G G G G G
        }
        """,
    )
    game = Game.new(
        rules, players=2, seed=0, sections=["look", "farm", "oasis", "tower"], cards=["lords", "miners", "knights"]
    )
    one = State.arrange(game, [["4,5"], []], hand=["grass", "grass"], tiles=[[{"tile": "lookout", "at": "4,4"}], []])
    assert "4,6" not in one.targets("lookout") and "0,0" in one.targets("lookout")
    two = State.arrange(
        game, [["4,5", "8,4"], []], hand=["grass", "grass"],
        tiles=[[{"tile": "lookout", "at": "4,4"}, {"tile": "lookout", "at": "8,5"}], []],
    )  # fmt: skip
    assert "4,6" in two.targets("lookout")


def test_next_turn_modifiers_add_up_and_round_trip(marsh):
    game = Game.new(
        marsh,
        players=2,
        seed=0,
        sections=["temple", "canoe", "refuge", "oracle"],
        cards=["scouts", "fishermen", "lords"],
    )
    state = State.arrange(
        game, [["2,1", "1,1"], ["8,1"]], hand=["grass", "grass"], built=3, tiles=[[{"tile": "temple", "at": "2,2"}], []]
    )
    state.play({"do": "temple", "to": "1,1"})
    state.play({"do": "temple.later"})
    state.delay(0, 2, True)
    assert state.later[0] == (3, True)
    assert State.from_json(state.to_json(), game) == state
    assert state.to_json()["later"] == [{"extra": 3, "ignore": True}, None]
    assert "later" not in Game.new(load("base"), players=2, seed=0).new_state().to_json()


def test_next_turn_ignore_frees_the_first_settlement_of_the_next_turn(tmp_path):
    rules = _rules(
        tmp_path,
        """
        tile herald { letter: x  supply: 2  action: next-turn ignore adjacent-if-possible }
        section look { grid:
          | G G G G G G G G G G
          |  G G G G G G G G G G
          | G G G G G G G G G G
          |  G G G G G G G G G G
          | G G G G x G G G G G
          |  G G G G G G G G G G
          | G G G G G G G G G G
          |  G G G G G G G G G G
          | G G G G G G G G G G
          |  G G G G G G G G G G
        }
        """,
    )
    game = Game.new(
        rules, players=2, seed=0, sections=["look", "farm", "oasis", "tower"], cards=["lords", "miners", "knights"]
    )
    state = State.arrange(
        game, [["4,5"], ["19,19"]], hand=["grass", "grass"], built=3, tiles=[[{"tile": "herald", "at": "4,4"}], []],
        deck=["grass", "grass"],
    )  # fmt: skip
    state.play({"do": "herald"})
    assert state.targets("build") == []  # this turn's mandatory action is done: the modifier waits
    state.play({"do": "end"})
    for _ in range(3):
        state.play({"do": "build", "to": state.targets("build")[0]})
    state.play({"do": "end"})
    assert state.current == 0 and state.waived
    free = state.targets("build")
    assert "0,0" in free and "4,6" in free  # not only the hexes next to 4,5
    state.play({"do": "build", "to": "0,0"})
    assert "0,9" not in state.targets("build")  # the second settlement is bound again


def test_forced_use_names_the_tile(tmp_path):
    nomads = load("nomads")
    game = Game.new(nomads, players=2, seed=0, sections=["caravan", "garden", "quarry", "village"],
                    cards=["lords", "miners", "knights"], options={"nomad-tiles-forced": True})  # fmt: skip
    state = State.arrange(
        game, [["2,3"], []], hand=["grass", "grass"], built=3, tiles=[[{"tile": "outpost", "at": "3,3"}], []]
    )
    assert {m.do for m in state.legal_moves()} == {"outpost"}
    with pytest.raises(IllegalMove, match="Outpost tile must be used"):
        state.play({"do": "end"})


def test_a_stock_tile_the_board_cannot_give_is_left_out(marsh):
    """A tile given from a stock whose condition reads only the tiles held of kinds this board
    cannot give never comes: the game leaves it out (Holdings.gain looks at no condition then), and
    plays as it does with every stock tile kept."""
    left_out = set()
    for seed in range(12):
        game = Game.new(marsh, players=3, seed=seed)
        for kind in set(marsh.given) - set(game.given):
            reads = marsh.held_reads[marsh.given[kind]]
            assert reads and not any(map(game._on_board, reads))
            left_out.add(kind)
        whole = Game.new(marsh, players=3, seed=seed)
        whole.given = dict(marsh.given)
        a, b = (play_out(g.new_state(), [RandomBot(f"{seed}:{p}") for p in range(3)]) for g in (game, whole))
        assert a.log == b.log and a.scores() == b.scores()
    assert left_out  # (some board of these seeds lacks a stock tile's kind)


def test_given_tiles_are_looked_for_only_after_takings_their_conditions_read(marsh):
    """Where the stock tiles' conditions read only held tiles of kinds none given and no given tile
    leaves a hand (`given_by`), Holdings.gain looks for them only after taking a tile of a kind
    they read: games play as they do when it looks after every taking."""
    narrowed = 0
    for seed in range(8):
        game = Game.new(marsh, players=4, seed=seed)
        if game.given_by is None:
            continue
        narrowed += 1
        reads = set().union(*(marsh.held_reads[when] for when in game.given.values()))
        assert game.given_by == reads
        every = Game.new(marsh, players=4, seed=seed)
        every.given_by = None
        a, b = (play_out(g.new_state(), [RandomBot(f"{seed}:{p}") for p in range(4)]) for g in (game, every))
        held = [[[(x.kind, x.at, x.status) for x in ts] for ts in s.tiles] for s in (a, b)]
        assert a.log == b.log and held[0] == held[1] and a.scores() == b.scores()
    assert narrowed
