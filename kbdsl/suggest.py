""" "Did you mean ...?": the closest known name to a misspelt one, by edit distance."""

from __future__ import annotations

from collections.abc import Iterable


def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): a swap of two letters costs 1."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def closest(word: str, names: Iterable[str]) -> str | None:
    """The known name nearest to `word`, if it is near enough to be a typo, or the one name it
    abbreviates (else None)."""
    limit = max(1, min(3, len(word) // 3))
    best: tuple[int, str] | None = None
    for name in sorted(set(names)):
        if name == word:
            continue
        d = distance(word.lower(), name.lower())
        if d <= limit and (best is None or d < best[0]):
            best = (d, name)
    if best:
        return best[1]
    starts = [n for n in set(names) if len(word) >= 3 and n.lower().startswith(word.lower()) and n != word]
    return starts[0] if len(starts) == 1 else None  # an abbreviation of exactly one name


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for a near miss, else ''; append it to a message."""
    hit = closest(word, names)
    return f" (did you mean {hit!r}?)" if hit else ""
