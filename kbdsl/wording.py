"""Counted nouns in generated text: "1 check", "2 checks", "1 copy", "3 copies", never "1 checks"."""

from __future__ import annotations


def plural(noun: str) -> str:
    """The plural of an English noun of the messages: -y after a consonant -> -ies, -s/-x/-ch/-sh -> -es."""
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def counted(n: int, noun: str, many: str | None = None) -> str:
    """`n` and the noun in the number it takes: `many` is the plural when it is irregular. A compound
    noun ("mandatory build") takes the plural on its last word."""
    if n == 1:
        return f"{n} {noun}"
    if many is None:
        head, _, last = noun.rpartition(" ")
        many = f"{head} {plural(last)}" if head else plural(last)
    return f"{n} {many}"
