"""What one client may cost the web table: how many tables it holds, how often it asks for costly
answers, how long a table lives without a change. One `Limits` value carries every setting, so the
command line, the app and the tests name them the same way.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The web table's limits (defaults are `kbdsl serve --http`'s)."""

    max_tables: int = 500  # open tables on the server
    per_client: int = 20  # open tables created from one client address
    idle_timeout: float = 3600.0  # seconds without a change before an unfinished table is closed
    finished_timeout: float = 600.0  # seconds after the last move before a finished table is closed
    costly_burst: int = 30  # costly requests (board, rules, replayed pictures and steps, history) at once
    costly_rate: float = 10.0  # and each second after that, per socket or per client address
    origins: tuple[str, ...] = ()  # origins besides the server's own that may create tables and open sockets
    hosts: tuple[str, ...] = ("*",)  # names a request's Host may give ("*": any); see `served_hosts`


#: The names a server bound to a loopback address answers to by default (a Host names IPv6 in brackets).
LOOPBACK = ("localhost", "127.0.0.1", "[::1]")


def served_hosts(bind: str, allowed: list[str]) -> tuple[str, ...]:
    """The Host names the server answers. A page of another site whose name is made to resolve to a
    loopback address (DNS rebinding) still sends its own name as Host: so a server on a loopback address
    answers only the loopback names and the `--allow-host` ones, a server bound to one other address
    that address and those, and one bound to every address (0.0.0.0, ::) any name unless `--allow-host`
    names them."""
    if bind in ("0.0.0.0", "::", ""):
        return tuple(allowed) or ("*",)
    name = f"[{bind}]" if ":" in bind else bind
    names = LOOPBACK if bind in ("localhost", "::1") or bind.startswith("127.") else ()
    return tuple(dict.fromkeys([*names, name, *allowed]))


#: Methods whose answers are large or slow to make: a client asks for them once per page.
COSTLY = ("board", "rules")


class Bucket:
    """A token bucket: `burst` calls at once, then `rate` a second."""

    def __init__(self, burst: int, rate: float, clock: Callable[[], float] = time.monotonic):
        self.burst, self.rate, self.clock = burst, rate, clock
        self.tokens, self.at = float(burst), clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Buckets:
    """One bucket per client key, the least recently used forgotten past `keep` keys (memory stays bounded)."""

    def __init__(self, burst: int, rate: float, keep: int = 10_000):
        self.burst, self.rate, self.keep = burst, rate, keep
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, key: str) -> bool:
        bucket = self.buckets.pop(key, None) or Bucket(self.burst, self.rate)
        self.buckets[key] = bucket
        while len(self.buckets) > self.keep:
            self.buckets.popitem(last=False)
        return bucket.take()
