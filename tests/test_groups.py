"""Moves of many pieces counted and drawn without listing them (kbdsl.engine.groups), against the
plain listing: for each source s in order, the codes base + s * stride + t for t in table[s] & free."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import scaled
from kbdsl.bitset import bit_list
from kbdsl.engine.groups import MoveGroup, OriginTable, SameMoves
from kbdsl.game import Game

N = 96  # hexes of a made-up board


def listed(table: list[int], sources: int, free: int, base: int) -> list[int]:
    return [base + s * N + t for s in bit_list(sources) for t in bit_list(table[s] & free)]


@st.composite
def tables(draw) -> list[int]:
    """A table by origin: either a few fixed offsets (like a straight line) or arbitrary targets."""
    if draw(st.booleans()):
        offsets = draw(st.lists(st.integers(-30, 30).filter(bool), min_size=1, max_size=6, unique=True))
        keep = draw(st.integers(0, (1 << N) - 1))
        return [sum(1 << (s + o) for o in offsets if 0 <= s + o < N and (keep >> (s + o)) & 1) for s in range(N)]
    return draw(st.lists(st.integers(0, (1 << N) - 1), min_size=N, max_size=N))


@settings(max_examples=scaled(200))
@given(
    table=tables(),
    sources=st.integers(0, (1 << N) - 1),
    occ=st.integers(0, (1 << N) - 1),
    base=st.integers(0, 9),
    split=st.sampled_from([0, 1, 40, N - 1]),
)
def test_a_group_counts_lists_and_draws_its_moves_in_code_order(table, sources, occ, base, split):
    """(`split`: where a later part of the board would start, whose offsets are counted apart.)"""
    origins = OriginTable(list(table), split)
    origins.learn(sources & 0x5555)  # learnt in two parts, as the origins of a game come to be used
    origins.learn(sources)
    free = ~(occ | sources)  # a piece's own hex is taken
    expected = listed(table, sources, free, base)
    assert origins.count(sources, free) == len(expected)
    group = MoveGroup(origins, sources, free, len(expected), N)
    out: list[int] = []
    group.extend(out, base)
    assert out == expected
    assert [base + group.nth(k) for k in range(len(expected))] == expected


@settings(max_examples=scaled(200))
@given(sources=st.integers(1, (1 << N) - 1), targets=st.integers(1, (1 << N) - 1), base=st.integers(0, 9))
def test_sources_with_the_same_targets_count_list_and_draw_their_moves_in_code_order(sources, targets, base):
    expected = listed([targets] * N, sources, targets, base)
    group = SameMoves(sources, targets, N)
    assert group.bit_count() == len(expected)
    out: list[int] = []
    group.extend(out, base)
    assert out == expected
    assert [base + group.nth(k) for k in range(len(expected))] == expected


def test_the_paddock_shape_is_a_few_offsets_on_the_base_board(base_rules):
    """A two-hex straight line is six offsets of the board's index, whatever the source, so the
    moves of all of a player's pieces are counted in six masked shifts."""
    game = Game.new(base_rules, players=2, preset="first-game", seed=0)
    state = game.new_state()
    move = next(a for a in game.rules.actions.values() if a.kind == "move" and "origin" in a.reads)
    state.own[0] = game.tables.all  # every hex a source, for the shape's sake
    origins, sources, _ = state.origin_moves(move, 0)
    assert sources == game.tables.all and origins.known == sources
    assert len(origins.by_offset) == 6
