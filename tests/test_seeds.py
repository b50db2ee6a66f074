"""Random streams of a seed (kbdsl.seeds): shuffles worked out once give what the stream would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbdsl.seeds import shuffled, shuffles, stream


@given(seed=st.integers(0, 2**128), name=st.sampled_from(["deck:0", "deck:3", "deal"]), items=st.lists(st.integers()))
def test_shuffled_is_the_streams_shuffle(seed, name, items):
    expected = list(items)
    stream(seed, name).shuffle(expected)
    assert shuffled(seed, name, items) == expected
    assert shuffled(seed, name, tuple(items)) == expected  # again, from the remembered order


@given(seed=st.integers(0, 2**64), sizes=st.lists(st.integers(0, 30), max_size=4))
def test_shuffles_are_successive_shuffles_of_one_stream(seed, sizes):
    rng = stream(seed, "deal")
    expected = []
    for n in sizes:
        order = list(range(n))
        rng.shuffle(order)
        expected.append(tuple(order))
    assert shuffles(seed, "deal", tuple(sizes)) == tuple(expected)
