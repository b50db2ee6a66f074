"""Hex sets as Python ints: bit i is hex i of the board's index. The hot loops live on these."""

from __future__ import annotations

from collections.abc import Sequence


def bit_list(mask: int) -> list[int]:
    """Indexes of the set bits, lowest first."""
    out = []
    append = out.append
    while mask:
        low = mask & -mask
        append(low.bit_length() - 1)
        mask ^= low
    return out


def dilate(mask: int, nbr_mask: Sequence[int]) -> int:
    """Every hex next to a hex of `mask` (the mask itself not included unless adjacent)."""
    out = 0
    while mask:
        low = mask & -mask
        out |= nbr_mask[low.bit_length() - 1]
        mask ^= low
    return out


def components(mask: int, nbr_mask: Sequence[int]) -> list[int]:
    """Connected parts of `mask` (adjacency restricted to hexes of the mask)."""
    out = []
    while mask:
        seed = mask & -mask
        comp = frontier = seed
        while frontier:
            grown = dilate(frontier, nbr_mask) & mask & ~comp
            comp |= grown
            frontier = grown
        out.append(comp)
        mask &= ~comp
    return out
