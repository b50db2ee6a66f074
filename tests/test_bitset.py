"""The bitset helpers of the hot loops (kbdsl.bitset) against plain Python on the same ints."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import scaled
from kbdsl.bitset import bit_list, extend_bits, nth_bit

masks = st.one_of(
    st.integers(1, (1 << 70) - 1),  # one or two words
    st.sets(st.integers(0, 599), min_size=1, max_size=40).map(lambda s: sum(1 << i for i in s)),  # sparse, long
    st.integers(1, (1 << 600) - 1),  # dense, long
)


@settings(max_examples=scaled(300))
@given(mask=masks, data=st.data())
def test_nth_bit_is_the_kth_of_the_listed_bits(mask, data):
    listed = [i for i in range(mask.bit_length()) if (mask >> i) & 1]
    assert bit_list(mask) == listed
    k = data.draw(st.integers(0, len(listed) - 1))
    assert nth_bit(mask, k) == listed[k]
    assert nth_bit(mask, 0) == listed[0] and nth_bit(mask, len(listed) - 1) == listed[-1]
    assert [nth_bit(mask, j) for j in range(len(listed))] == listed  # each path: either end, words or not
    out: list[int] = [7]
    extend_bits(out, 1000, mask)
    assert out == [7] + [1000 + i for i in listed]
