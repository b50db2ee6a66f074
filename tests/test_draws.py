"""The written-out random draws are those of randrange and shuffle (Turn.play_random, kbdsl.seeds),
and a stream is the random.Random of its digest."""

import hashlib
import random

import pytest

from kbdsl.seeds import below, shuffle, stream


@pytest.mark.parametrize("seed", [0, 1, "3:2", 2**100 + 7])
def test_below_draws_what_randrange_draws(seed):
    ours, theirs = random.Random(seed), random.Random(seed)
    sizes = [*range(1, 300), 2**31, 2**31 + 1, 10**12]
    drawn = [below(ours.getrandbits, n) for n in sizes for _ in range(3)]
    assert drawn == [theirs.randrange(n) for n in sizes for _ in range(3)]
    assert ours.random() == theirs.random()  # and both streams are left at the same point


def test_below_of_one_uses_the_stream_as_randrange_does():
    ours, theirs = random.Random(9), random.Random(9)
    for _ in range(50):
        assert below(ours.getrandbits, 1) == theirs.randrange(1) == 0
    assert ours.getrandbits(64) == theirs.getrandbits(64)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 25, 60, 257])
def test_shuffle_orders_as_random_shuffle(size):
    ours, theirs = list(range(size)), list(range(size))
    a, b = random.Random(f"deck:{size}"), random.Random(f"deck:{size}")
    shuffle(a, ours)
    b.shuffle(theirs)
    assert ours == theirs
    assert a.random() == b.random()


@pytest.mark.parametrize(("seed", "name"), [(0, "deck:0"), (2**127 + 5, "setup"), (12, "deck:3")])
def test_stream_is_the_random_of_its_digest(seed, name):
    digest = hashlib.sha256(f"kbdsl/{name}/{seed}".encode()).digest()
    ours, theirs = stream(seed, name), random.Random(int.from_bytes(digest, "big"))
    assert ours.getstate() == theirs.getstate()  # (gauss_next included)
    assert [ours.random() for _ in range(5)] == [theirs.random() for _ in range(5)]
    assert ours.gauss(0, 1) == theirs.gauss(0, 1) and ours.gauss(0, 1) == theirs.gauss(0, 1)
