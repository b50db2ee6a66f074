"""Where simulated games run: this process, a pool of processes, or a Dask cluster.

Work comes as batches of games and a picklable task that plays one batch (kbdsl.simulate gives
`play_batch`), so a worker loads the rule set once and each task runs for about a second rather
than a few milliseconds; rows come back in game order whatever finishes first. Each game's row
depends only on the plan and its index, so every backend gives the same rows. This module knows
nothing of games: it sits below kbdsl.simulate.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kbdsl.errors import KbdslError

BACKENDS = ("local", "process", "dask")


#: A batch task: (plan, range of game indices) -> one row per game, in order.
Task = Callable[[Any, range], list[dict]]


def run(
    task: Task, plan: Any, work: Sequence[range], backend: str, jobs: int, address: str | None = None
) -> Iterator[dict]:
    """The rows of `task(plan, b)` for every batch `b` of `work`, in order."""
    if backend == "local":
        for b in work:
            yield from task(plan, b)
    elif backend == "process":
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            for rows in pool.imap(_batch, [(task, plan, b) for b in work]):
                yield from rows
    elif backend == "dask":
        yield from _dask(task, plan, work, jobs, address)
    else:
        raise KbdslError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")


def _batch(args: tuple[Task, Any, range]) -> list[dict]:
    task, plan, b = args
    return task(plan, b)


def _dask(task: Task, plan: Any, work: Sequence[range], jobs: int, address: str | None) -> Iterator[dict]:
    """Dask.distributed: a scheduler at `address` (tcp://host:8786), else a local cluster of
    `jobs` worker processes (one job: a worker thread in this process). Each worker needs kbdsl
    installed (and the rule folder, if it is not a shipped one)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise KbdslError('the dask backend needs Dask: python3 -m pip install ".[dask]" in the kbdsl folder') from None
    if address:
        client, cluster = Client(address), None
    else:
        # One job: a worker thread in this process (Dask's local mode); more: worker processes.
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=jobs > 1, dashboard_address=None)
        client = Client(cluster)
    try:
        futures = [client.submit(task, plan, b, pure=False) for b in work]
        for future in futures:  # in order: a row is yielded once all before it are in
            yield from future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
