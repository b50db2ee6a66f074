"""Seeds, and the separate random streams a game draws from its seed.

A game has one integer seed. Each use of randomness has a stream of its own (`setup` for the
drawn sections and cards, `deck:K` for the K-th shuffle of the terrain deck), seeded by a
SHA-256 digest of the stream's name and the seed. What one stream shows says nothing about
another: the public setup does not narrow the deck order, except by guessing the seed itself.
A game made without a seed gets 128 bits from the operating system (`secrets`), which cannot
be guessed; a small seed chosen by a person can be, so the deck is only as hidden as the seed.
`shuffles` remembers its orders by seed: only who knows the seed can look one up.
"""

from __future__ import annotations

import functools
import hashlib
import random
import secrets
from collections.abc import Sequence
from typing import TypeVar

SEED_BITS = 128
T = TypeVar("T")


def new_seed() -> int:
    """An unpredictable seed for a game whose creator gave none."""
    return secrets.randbits(SEED_BITS)


def stream(seed: int, name: str) -> random.Random:
    """The random stream `name` of a game's seed (the same seed and name, the same draws)."""
    digest = hashlib.sha256(f"kbdsl/{name}/{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def shuffled(seed: int, name: str, items: Sequence[T]) -> list[T]:
    """`items` in the order `stream(seed, name).shuffle` leaves them."""
    return [items[i] for i in shuffles(seed, name, (len(items),))[0]]


@functools.lru_cache(maxsize=4096)
def shuffles(seed: int, name: str, sizes: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The orders in which successive shuffles by `stream(seed, name)` of lists of these sizes leave
    their items (`[items[i] for i in order]`). A shuffle's swaps depend on its list's length only,
    so they are worked out once per seed, name and sizes: games of one seed, and playouts from one
    position, shuffle alike again and again."""
    rng, out = stream(seed, name), []
    for n in sizes:
        order = list(range(n))
        rng.shuffle(order)
        out.append(tuple(order))
    return tuple(out)
