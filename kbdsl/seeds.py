"""Seeds, and the separate random streams a game draws from its seed.

A game has one integer seed. Each use of randomness has a stream of its own (`setup` for the
drawn sections and cards, `deck:K` for the K-th shuffle of the terrain deck), seeded by a
SHA-256 digest of the stream's name and the seed. What one stream shows says nothing about
another: the public setup does not narrow the deck order, except by guessing the seed itself.
A game made without a seed gets 128 bits from the operating system (`secrets`), which cannot
be guessed; a small seed chosen by a person can be, so the deck is only as hidden as the seed.
"""

from __future__ import annotations

import _random
import random
import secrets
from collections.abc import Callable

try:  # CPython's own SHA-256: the digest hashlib's gives, without OpenSSL's set-up a call (a new
    from _sha256 import sha256  # game's stream is cold: 1.6 against 2.5 us in the bench's loop)
except ImportError:  # (3.12 and later name it _sha2)
    from hashlib import sha256

SEED_BITS = 128


def new_seed() -> int:
    """An unpredictable seed for a game whose creator gave none."""
    return secrets.randbits(SEED_BITS)


def stream(seed: int, name: str) -> random.Random:
    """The random stream `name` of a game's seed (the same seed and name, the same draws)."""
    digest = sha256(f"kbdsl/{name}/{seed}".encode()).digest()
    rng = _new(random.Random)  # random.Random(n), seeded by its C base: an int seeds it as is, so
    _seed(rng, int.from_bytes(digest, "big"))  # the same state without __init__'s and seed()'s Python checks
    rng.gauss_next = None
    return rng


_new, _seed = random.Random.__new__, _random.Random.seed


def below(getrandbits: Callable[[int], int], n: int) -> int:
    """`randrange(n)` (n > 0) of the Random whose `getrandbits` this is: the draw of CPython's
    Random._randbelow_with_getrandbits. Hot loops (`shuffle`, kbdsl.engine.turn's playouts) write
    it out, a call per draw being a tenth of a random game; tests/test_draws.py checks they agree."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list) -> None:
    """`rng.shuffle(items)`: the same order from the same stream, its draws written out (a Python
    call per card was most of a new game's set-up; tests/test_draws.py checks the two agree), each
    position with the width of its draw found once per length (`_STEPS`)."""
    n = len(items)
    steps = _STEPS.get(n)
    if steps is None:
        steps = _STEPS[n] = tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1))
    getrandbits = rng.getrandbits
    for i, width in steps:  # below(getrandbits, i + 1), written out
        j = getrandbits(width)
        while j > i:
            j = getrandbits(width)
        items[i], items[j] = items[j], items[i]


_STEPS: dict[int, tuple[tuple[int, int], ...]] = {}  # shuffle's (position, draw width) pairs per length
