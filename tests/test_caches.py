"""kbdsl.caches: what a cache keyed by identity returns, and how far it grows."""

from kbdsl.caches import ByOwner, trim


class Owner:
    """Equal to every other Owner and hashed alike: a cache by value could not tell two apart."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Owner)

    def __hash__(self) -> int:
        return 0


def test_an_entry_serves_only_its_own_owner_and_key():
    cache: ByOwner[str] = ByOwner()
    a, b = Owner(), Owner()
    assert cache.get(a, "k") is None
    assert cache.put(a, "k", "of a") == "of a"
    assert cache.get(a, "k") == "of a"
    assert cache.get(a, "other key") is None
    assert cache.get(b, "k") is None  # equal, but not the same object
    cache.put(b, "k", "of b")
    assert (cache.get(a, "k"), cache.get(b, "k"), len(cache)) == ("of a", "of b", 2)


def test_an_entry_keeps_its_owner_alive_so_its_id_is_never_reused():
    cache: ByOwner[int] = ByOwner()
    ids = set()
    for k in range(50):
        owner = Owner()  # dropped at once by the caller: only the cache holds it
        ids.add(id(owner))
        cache.put(owner, (), k)
    assert len(ids) == 50 and len(cache) == 50


def test_caches_stay_bounded_and_drop_their_oldest_entries_first():
    cache: ByOwner[int] = ByOwner(kept=8)
    owners = [Owner() for _ in range(30)]
    for k, owner in enumerate(owners):
        cache.put(owner, (), k)
        assert len(cache) <= 8
    assert cache.get(owners[-1]) == 29 and cache.get(owners[0]) is None
    cache.clear()
    assert len(cache) == 0 and cache.get(owners[-1]) is None
    plain = dict.fromkeys(range(100))
    trim(plain, 16)
    assert list(plain) == list(range(88, 100))  # down to three quarters of 16, the newest kept
