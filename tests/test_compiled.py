"""The playout compiled per rule set (kbdsl.engine.compiled) plays the games sample_action plays."""

from __future__ import annotations

import random
import sys

import pytest
from conftest import ROOT, play_random_and_sampled, random_position, scaled
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kbdsl.bots import RandomBot, play_out
from kbdsl.bitset import bit_list
from kbdsl.engine.compiled import (
    _CACHE,
    NEAR,
    WALK,
    _conditions,
    compiled,
    inline_grants,
    move_shapes,
    near_run,
    shape_run,
    source,
)
from kbdsl.game import Game, State
from kbdsl.ruleset import load, shipped

NAMES = sorted(shipped())
# and a turn whose mandatory action may be a grant instead (`mandatory: A or G`): no shipped set has one
CHOICE = "base/scenarios/fixtures/mandatory-choice"
# and a reaction after builds of the lean mandatory action (Marshlands' Canoe follows double cards')
REACTIONS = "base/scenarios/fixtures/reactions"


@settings(max_examples=scaled(60), deadline=None)
@given(
    where=st.sampled_from([*NAMES, CHOICE, REACTIONS]),
    players=st.integers(2, 5),
    seed=st.integers(0, 10**6),
    start=st.integers(0, 150),
    stop=st.one_of(st.none(), st.integers(1, 60)),
    option_bits=st.integers(0, 2**8 - 1),
)
@example(where="combined", players=2, seed=0, start=0, stop=None, option_bits=2)  # farm-build-any-time: a grant
@example(where=CHOICE, players=3, seed=1, start=0, stop=None, option_bits=0)
def test_compiled_playout_plays_the_moves_sample_action_would(where, players, seed, start, stop, option_bits):
    """From a position after `start` random moves, the compiled loop and sample_action applied in a
    loop make the same moves, reach equal states and leave the streams in the same state (also with
    a grant usable between the mandatory builds, which the interpreter's loop once took the builds past)."""
    rules = load(ROOT / "rules" / where)
    lo, hi = rules.players
    options = {name: bool(option_bits >> k & 1) for k, name in enumerate(sorted(rules.options)[:8])}
    game = Game.new(rules, players=min(max(players, lo), hi), seed=seed, options=options)
    run = compiled(game)
    assert run is not None  # every rule set with a mandatory action is compiled
    state = game.new_state()
    play_out(state, [RandomBot(f"{seed}:{p}") for p in range(state.players)], max_moves=start)
    until = stop if stop is not None else 1 << 30
    ours, theirs = play_random_and_sampled(state, seed, until)
    assert ours.scores() == theirs.scores()


@pytest.mark.parametrize("where", NAMES)
def test_a_games_playout_is_made_from_its_own_conditions(where):
    """compiled() finds a game's playout by its rule set, its options and what its dealt cards
    decide of the conditions (not by the cards): the function made from the game's own conditions,
    whatever games of other cards came before (Nomads' cards trigger on builds in some games only)."""
    rules = load(ROOT / "rules" / where)
    for seed in range(16):
        game = Game.new(rules, players=rules.players[0], seed=seed)
        run = compiled(game)
        conds = _conditions(game)
        assert run is _CACHE[(*conds.values(), inline_grants(game) if conds["inline"] else ())]


def test_a_board_without_a_rule_sets_pieces_plays_the_code_without_them():
    """Crossroads on base sections alone (no tile of its gives a piece, a second card or a move of
    several steps) plays base's playout; the same board with a position arranged with a warrior and
    a spare card (which no tile in play gives) plays the rule set's whole code, and both play the
    games sample_action plays."""
    base, crossroads = (load(ROOT / "rules" / name) for name in ("base", "crossroads"))
    sections, cards = ["barn", "farm", "harbor", "oasis"], ["fishermen", "knights", "lords"]
    game = Game.new(crossroads, players=2, seed=5, sections=sections, cards=cards)
    alike = Game.new(base, players=2, seed=5, sections=sections, cards=cards)
    assert compiled(game) is compiled(alike) and source(game) == source(alike)
    assert not any(_conditions(game)[c] for c in ("kinds", "auras", "choosing", "steps"))
    play_random_and_sampled(game.new_state(), 5, 1 << 30)
    arranged = State.arrange(game, [["4,16"], []], kinds={"warrior": [["9,9"], []]}, spare=[["grass"], []])
    every = _conditions(game, every=True)
    assert compiled(game, arranged) is _CACHE[(*every.values(), ())] is not compiled(game)
    assert all(every[c] for c in ("kinds", "auras", "choosing", "steps"))
    play_random_and_sampled(arranged, 5, 1 << 30)


@pytest.mark.parametrize(("where", "seeds"), [(REACTIONS, range(3)), ("marshlands", range(4, 6))])
def test_compiled_playout_hands_the_turn_to_reactions(where, seeds):
    """A build that takes a hex's last tile (a drawn mandatory one, one of the inner loops', a
    tile's) hands the turn to the other players' reactions where apply_action would, and the
    turn's player goes on after them: whole games with reactions, played both ways, agree."""
    rules = load(ROOT / "rules" / where)
    reacted = 0
    for seed in seeds:
        game = Game.new(rules, players=4, seed=seed)
        ours, _ = play_random_and_sampled(game.new_state(), seed, 1 << 30)
        n = game.tables.n
        kinds = {game.kind_index[name] for name in game.reactions}
        reacted += sum(1 for code in ours.log if (code // (n * n)) >> 2 in kinds)
    assert reacted  # (these seeds' games have reactions)


@pytest.mark.parametrize(("where", "seeds"), [("marshlands", range(2)), ("crossroads", (1, 4)), ("combined", range(2))])
def test_compiled_playout_plays_turns_with_a_choice_of_cards(where, seeds, monkeypatch):
    """Turns in which the player chooses among cards (Marshlands' double cards, Crossroads' hand
    of two) are drawn in the compiled loop, tiles and all, and their first build plays the card
    as apply_action does: whole games agree with sample_action's, which the loop never calls
    for such a turn but for what it leaves to it anyway (a tile action going on, a reaction, a
    tile usable any time)."""
    rules = load(ROOT / "rules" / where)
    asked = []
    sample = State.sample_action

    def counted(state, rng):
        p = state.current
        if state.choosing and not (state.pending_left or state.react_saved is not None or state._holds_any_time(p)):
            asked.append(state.turn)
        return sample(state, rng)

    monkeypatch.setattr(State, "sample_action", counted)
    for seed in seeds:
        game = Game.new(rules, players=4, seed=seed)
        ours = game.new_state()
        ours.play_random([random.Random(f"{seed}:{p}") for p in range(4)])
        assert not asked  # the compiled loop drew them all
        _, theirs = play_random_and_sampled(game.new_state(), seed, 1 << 30)
        assert ours.log == theirs.log
        assert asked  # (sample_action in a loop met such turns: these games have them)
        asked.clear()


@pytest.mark.parametrize(("where", "seeds"), [("base", (2, 4)), ("nomads", (1, 3))])
def test_compiled_playout_splits_a_move_run_at_discard_variants(where, seeds, monkeypatch):
    """A tile move whose piece alone touches a tile's hex, where the move may lose it, has its
    moves with their discard variants (`_special_runs`) between runs of the other pieces' moves
    (compiled.split_run): whole games where it happens agree with sample_action's."""
    rules = load(ROOT / "rules" / where)
    special_runs, split = State._special_runs, []

    def counted(state, *args):
        split.append(sys._getframe(1).f_code.co_name == "split_run")
        return special_runs(state, *args)

    monkeypatch.setattr(State, "_special_runs", counted)
    for seed in seeds:
        game = Game.new(rules, players=4, seed=seed)
        play_random_and_sampled(game.new_state(), seed, 1 << 30)
        assert any(split)  # (the compiled loop split a run in these games)
        split.clear()


@pytest.mark.parametrize("parent", ["base", "crossroads"])
def test_compiled_playout_lists_the_boards_grants_in_line(parent, tmp_path, monkeypatch):
    """The actions the board grants every turn are listed by code written for their shape
    (inline_grants): Harvest's farm build (a build on A & next-to(own)), the cave move (the same
    targets from every piece next to a cave), and here a move of any settlement onto forest, whose
    run splits at discard variants (split_run) and, beside Crossroads' warriors, at pieces with an
    aura (aura_runs): whole games agree with sample_action's."""
    (tmp_path / "game.yaml").write_text(
        f"name: hike\ntitle: Hike\ntext: A test grant.\nextends: {ROOT / 'rules' / parent}\nfiles: [hike.kb]\n"
    )
    (tmp_path / "hike.kb").write_text(
        'grant hike "Hike" {\n  text: "Move a settlement onto forest."\n  action: move to terrain(forest)\n}\n'
    )
    assert [
        inline_grants(Game.new(load(ROOT / "rules" / where), players=4, seed=1)) for where in ("harvest", "caves")
    ] == [
        (("farming", (("farming", "near"),)),),
        (("cave-move", (("cave-move", "same-source"),)),),
    ]
    rules = load(tmp_path)
    callers = []
    special, blocks = State._special_targets, State.move_blocks

    def special_counted(state, *args):
        callers.append((sys._getframe(1).f_code.co_name, sys._getframe(1).f_locals.get("kind")))
        return special(state, *args)

    def blocks_counted(state, action, *args):
        callers.append((sys._getframe(1).f_code.co_name, action))
        return blocks(state, action, *args)

    monkeypatch.setattr(State, "_special_targets", special_counted)
    monkeypatch.setattr(State, "move_blocks", blocks_counted)
    for seed in range(2):
        game = Game.new(rules, players=4, seed=seed)
        assert inline_grants(game) == (("hike", (("hike", "same"),)),)
        ours, _ = play_random_and_sampled(game.new_state(), seed, 1 << 30)
        n, kind = game.tables.n, game.kind_index["hike"]
        assert any((code // (n * n)) >> 2 == kind for code in ours.log)  # (hikes were made)
    assert ("split_run", kind) in callers
    if parent == "crossroads":
        assert ("aura_runs", rules.actions["hike"]) in callers


def test_compiled_playout_counts_moves_next_to_the_players_other_pieces(tmp_path, monkeypatch):
    """A move to `A & next-to(own)` from every piece (Harvest's silo move; here a grant of every
    turn) is one SameRun whose pieces lose the hexes next to them alone, and a piece that alone
    touches them all has no move: whole games agree with sample_action's, also where the run
    splits at discard variants."""
    (tmp_path / "game.yaml").write_text(
        f"name: trek\ntitle: Trek\ntext: A test grant.\nextends: {ROOT / 'rules' / 'base'}\nfiles: [trek.kb]\n"
    )
    (tmp_path / "trek.kb").write_text(
        'grant trek "Trek" {\n  text: "Move a settlement onto grass next to another."\n'
        "  action: move to terrain(grass) & next-to(own)\n}\n"
    )
    rules = load(tmp_path)
    callers = []
    special = State._special_targets

    def counted(state, *args):
        callers.append((sys._getframe(1).f_code.co_name, state.game.kinds[sys._getframe(1).f_locals.get("kind", 0)]))
        return special(state, *args)

    monkeypatch.setattr(State, "_special_targets", counted)
    for seed in range(3):
        play_random_and_sampled(Game.new(rules, players=4, seed=seed).new_state(), seed, 1 << 30)
    assert ("split_run", "trek") in callers


def test_compiled_playout_lists_moves_around_pieces_with_an_aura(monkeypatch):
    """Crossroads' warriors block the hexes next to them; a tile move that may lift one lists its
    moves (`move_blocks` of it alone: lifted, it unblocks hexes) between the runs of the player's
    other pieces (compiled.aura_runs): whole games where it happens agree with sample_action's."""
    rules = load(ROOT / "rules" / "crossroads")
    move_blocks, lifted = State.move_blocks, []

    def counted(state, action, p, sources=None):
        lifted.append(sys._getframe(1).f_code.co_name == "aura_runs")
        return move_blocks(state, action, p, sources)

    monkeypatch.setattr(State, "move_blocks", counted)
    for seed in (4, 6):
        game = Game.new(rules, players=4, seed=seed)
        play_random_and_sampled(game.new_state(), seed, 1 << 30)
        assert any(lifted)  # (the compiled loop listed a warrior's moves so in these games)
        lifted.clear()


@pytest.mark.parametrize(("shape", "seeds"), [(WALK, (24, 41)), (NEAR, (14, 119))])
def test_compiled_playout_lists_walks_and_near_moves_around_pieces_with_an_aura(shape, seeds, monkeypatch):
    """A move of one slide or ray (shape WALK) or to `A & next-to(own)` (NEAR) that may lift a
    piece with an aura lists that piece's moves (`move_blocks` of it alone) between the WalkRun or
    near_run runs of the player's other pieces (compiled.aura_runs), not every piece's through
    `_steps`: whole combined games where it happens agree with sample_action's."""
    rules = load(ROOT / "rules" / "combined")
    move_blocks, lifted = State.move_blocks, []

    def counted(state, action, p, sources=None):
        frame = sys._getframe(1)
        if frame.f_code.co_name == "aura_runs":
            lifted.append(move_shapes(state.game)[state.game.kinds[frame.f_locals["kind"]]])
        return move_blocks(state, action, p, sources)

    monkeypatch.setattr(State, "move_blocks", counted)
    for seed in seeds:
        play_random_and_sampled(Game.new(rules, players=4, seed=seed).new_state(), seed, 1 << 30)
        assert shape in lifted  # (the compiled loop listed such a move's moves so in these games)
        lifted.clear()


def test_compiled_playout_applies_the_first_step_of_a_move_of_several(monkeypatch):
    """Crossroads' ships and wagons move up to 3 steps: the loop applies the first step in line and
    sets the rest pending (as apply_action does), which the outer loop plays through sample_action:
    whole games where it happens agree with sample_action's."""
    rules = load(ROOT / "rules" / "crossroads")
    settle, first = State._settle, []

    def counted(state):
        first.append(sys._getframe(1).f_code.co_name == "run" and state.pending_left > 0)
        return settle(state)

    monkeypatch.setattr(State, "_settle", counted)
    game = Game.new(rules, players=4, seed=3)
    play_random_and_sampled(game.new_state(), 3, 1 << 30)
    assert any(first)  # (the compiled loop applied such a first step in this game)


@pytest.mark.parametrize("where", ["harvest", "combined"])
def test_compiled_playout_lists_the_steps_of_a_move_beside_grants(where, monkeypatch):
    """While a move of several steps goes on where the board grants actions and tiles are usable
    any time (Harvest's silo moves, Crossroads' ships and wagons beside the farm build and Nomads'
    tiles), the compiled loop lists the next steps, the other actions and the tiles usable any time
    in line (_PENDING) and asks sample_action only in a reaction: whole games agree with
    sample_action's."""
    rules = load(ROOT / "rules" / where)
    sample, apply = State.sample_action, State.apply_action
    asked, inline = [], []

    def counted_sample(state, rng):
        if sys._getframe(1).f_code.co_name == "run" and state.pending_left and state.react_saved is None:
            asked.append(state.turn)
        return sample(state, rng)

    def counted_apply(state, code):
        if sys._getframe(1).f_code.co_name == "run" and state.pending_left and state.react_saved is None:
            inline.append(state.turn)
        return apply(state, code)

    monkeypatch.setattr(State, "sample_action", counted_sample)
    monkeypatch.setattr(State, "apply_action", counted_apply)
    for seed in range(2):
        game = Game.new(rules, players=4, seed=seed)
        ours, _ = play_random_and_sampled(game.new_state(), seed, 1 << 30)
    assert not asked
    assert inline  # (these games have such steps)


def test_compiled_playout_applies_a_draw_then_a_build(monkeypatch):
    """Crossroads' Fort draws a card, then builds on its terrain: the loop applies both in line (the
    build drawn as sample_action draws it from the one run). Whole games where it happens agree with
    sample_action's, and so does a budget of moves that ends between the draw and the build."""
    rules = load(ROOT / "rules" / "crossroads")
    set_drawn, inline = State.set_drawn, []

    def counted(state, card):
        inline.append(sys._getframe(1).f_code.co_name == "run")
        return set_drawn(state, card)

    monkeypatch.setattr(State, "set_drawn", counted)
    game = Game.new(rules, players=4, seed=1)  # (a setup with the Fort)
    ours, _ = play_random_and_sampled(game.new_state(), 1, 1 << 30)
    assert any(inline)
    n = game.tables.n
    drawn = [
        i
        for i, code in enumerate(ours.log)
        if (row := game.kind_rows[(code // (n * n)) >> 2]) and row[1].kind == "draw"
    ]
    assert drawn
    for budget in (drawn[0] + 1, drawn[-1] + 2):
        state = game.new_state()
        state.play_random([random.Random(f"1:{p}") for p in range(state.players)], max_moves=budget)
        assert state.log == ours.log[:budget]


def test_compiled_playout_applies_tiles_taken_between_lean_builds():
    """Nomads' tiles that act when taken (gold at once), taken by a build of the lean mandatory
    loop: the loop applies them as _build does (_landed). These seeds' games take one so, and fail
    when the loop only takes the tile."""
    rules = load(ROOT / "rules" / "nomads")
    for seed in (27, 44):
        game = Game.new(rules, players=4, seed=seed)
        assert game.mandatory_lean and game.on_gain
        ours, _ = play_random_and_sampled(game.new_state(), seed, 1 << 30)
        assert any(name in game.on_gain for gold in ours.gold for name in gold)


def test_compiled_playout_applies_tile_moves_that_lose_a_tile():
    """Base's one-step tile moves are applied in line (_move written out); a piece lifted from beside
    a tile's hex that it alone touched loses the tile (RULINGS 11). These seeds' games lose one so,
    played both ways, and fail when the loop only moves the piece."""
    rules = load(ROOT / "rules" / "base")
    lost = 0
    for seed in (0, 2):
        game = Game.new(rules, players=4, seed=seed)
        ours, _ = play_random_and_sampled(game.new_state(), seed, 1 << 30)
        replay, n = game.new_state(), game.tables.n
        for code in ours.log:
            row, p = game.kind_rows[(code // (n * n)) >> 2], replay.current
            held = {x.at for x in replay.tiles[p]}
            replay.apply_action(code)
            if row is not None and row[1].kind == "move":
                lost += bool(held - {x.at for x in replay.tiles[p]})
    assert lost


@settings(max_examples=scaled(20), deadline=None)
@given(where=st.sampled_from(NAMES), seed=st.integers(0, 10**6), budget=st.integers(1, 40))
def test_compiled_playout_stops_after_max_moves(where, seed, budget):
    """max_moves counts every move, the builds taken in the inner loops too."""
    rules = load(ROOT / "rules" / where)
    game = Game.new(rules, players=rules.players[0], seed=seed)
    state = game.new_state()
    state.play_random([random.Random(seed + p) for p in range(state.players)], max_moves=budget)
    assert state.over or len(state.log) == budget


def test_branches_the_rules_cannot_take_are_folded_away():
    """Base has no tile usable between the builds, no grants, no hand of several cards: its loop
    never asks; Nomads' tiles usable any time, and Harvest's grants, are asked about."""
    base = source(Game.new(load(ROOT / "rules" / "base"), players=4, seed=1))
    for absent in ("any_time", "grants", "_forced_use", "or self.choosing", "if self.choosing", "_new_turn"):
        assert absent not in base, absent
    assert "any_time.isdisjoint" in source(Game.new(load(ROOT / "rules" / "nomads"), players=4, seed=1))
    assert "grants" in source(Game.new(load(ROOT / "rules" / "harvest"), players=4, seed=1))


@settings(max_examples=scaled(30), deadline=None)
@given(where=st.sampled_from(NAMES), seed=st.integers(0, 10**6))
def test_a_move_target_split_by_board_shape_is_the_boards_table(where, seed):
    """A move target whose origin part reads the board's shape alone (Compiler.by_shape: "two
    hexes in a straight line", next-to(origin), within(2, origin)) is, origin by origin, the
    shape's table of that part masked by the rest: the board's own table (board_target), on
    random layouts, for every card; and every origin-reading target of the shipped sets that
    reads nothing but the board and the card splits so."""
    rules = load(ROOT / "rules" / where)
    game = Game.new(rules, players=rules.players[0], seed=seed)
    state = game.new_state()
    for name, action in rules.actions.items():
        if action.kind != "move" or "origin" not in action.reads or not action.reads <= {"card", "origin"}:
            continue
        assert action.by_shape is not None, name
        for card in sorted(set(rules.deck)) if "card" in action.reads else [None]:
            run = shape_run(state, action, card, game.tables.all, game.tables.all, game.tables.n)
            for s in range(game.tables.n):
                want = state.board_target(action, card, s)
                got = run.origins.table[s] & run.free if run is not None else 0
                assert got == want, (name, card, s)


@settings(max_examples=scaled(30), deadline=None)
@given(where=st.sampled_from(["harvest", "combined"]), seed=st.integers(0, 10**6), moves=st.integers(0, 250))
def test_a_move_next_to_own_is_one_run_of_the_blocks_move_blocks_lists(where, seed, moves):
    """A move to `A & next-to(own)` (shape NEAR: the silo move) is listed by `_steps` and the
    compiled playout as one near_run; its moves (extend, nth, size) and the pieces with a move
    (movable, the environments' mask) are those of the blocks move_blocks lists piece by piece."""
    rules = load(ROOT / "rules" / where)
    state, _ = random_position(rules, rules.players[-1], seed, moves)
    g, t = state.game, state.game.tables
    near = [name for name, shape in move_shapes(g).items() if shape == NEAR]
    assert near
    for name in near:
        action = rules.actions[name]
        for p in range(len(state.own)):
            sources = state.move_sources(action, p)
            if state.blocked and sources & state.aura_own(p):
                continue
            want, movable = [], 0
            for block, targets in state.move_blocks(action, p):
                movable |= block
                want += [s * t.n + j for s in bit_list(block) for j in bit_list(targets)]
            cand = state.near_own_part(action, p)
            cand ^= cand & (state.occ | state.blocked)
            if not sources or not cand & state.nb[p]:
                assert want == [], (name, p)
                continue
            run = near_run(sources, cand, state.nb[p], t, state.own[p])
            got: list[int] = []
            run.extend(got, 0)
            assert got == want == [run.nth(k) for k in range(run.size)], (name, p)
            assert run.movable() == movable, (name, p)
