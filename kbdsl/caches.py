"""Bounded caches, and caches keyed by an object's identity.

The engine keeps what it derives once per rule set, game or section (a compiled playout, the
tiles' lifecycles, a score sheet's columns) beside the object it came from. Rule sets and games
are not hashable by value (or too costly to hash), so such a cache is keyed by `id()`; an entry
holds its owner too, which keeps the owner alive and its id its own for as long as the entry
lives, and a hit counts only if the stored owner *is* the one asked about.
"""

from __future__ import annotations

from collections.abc import Hashable
from itertools import islice
from typing import Generic, TypeVar

V = TypeVar("V")

#: Entries a cache keeps unless it says otherwise.
KEPT = 64


def trim(cache: dict, kept: int = KEPT) -> None:
    """Bound a cache to `kept` entries: beyond that, drop the oldest quarter at once. Dropping one
    at a time costs a scan at every insert, as a dict's deleted slots stay at its front until it
    resizes (1.8 against 0.2 us an insert at 4,096 entries)."""
    if len(cache) > kept:
        for key in list(islice(cache, len(cache) - kept * 3 // 4)):
            del cache[key]


class ByOwner(Generic[V]):
    """Values found once per owner (by identity) and key (by value), at most `kept` of them
    (`trim`): `get` returns None where nothing is kept, `put` keeps and returns the value."""

    __slots__ = ("_entries", "_kept")

    def __init__(self, kept: int = KEPT) -> None:
        self._entries: dict[tuple[int, Hashable], tuple[object, V]] = {}
        self._kept = kept

    def get(self, owner: object, key: Hashable = ()) -> V | None:
        hit = self._entries.get((id(owner), key))
        return hit[1] if hit is not None and hit[0] is owner else None

    def put(self, owner: object, key: Hashable, value: V) -> V:
        self._entries[(id(owner), key)] = (owner, value)
        trim(self._entries, self._kept)
        return value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
