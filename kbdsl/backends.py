"""Where simulated games run: this process, worker processes, or a Dask cluster.

Work comes as batches of games and a picklable task that plays one batch (kbdsl.simulate gives
`play_batch`); rows come back in game order whatever finishes first. Each game's row depends only
on the plan and its index, so every backend gives the same rows. A backend is started once
(`start`), before any timing, and then plays any number of runs (`Backend.run`): worker
processes stay warm, with the rule set loaded, and are fed one batch at a time. A worker process
that dies (killed, out of memory) is noticed at once: its batch is played again once by a fresh
worker, and a batch that loses its worker twice stops the run with an error, so no game is ever
lost silently. This module knows nothing of games: it sits below kbdsl.simulate.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import pickle
import signal
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from kbdsl.errors import KbdslError

BACKENDS = ("local", "process", "dask")

#: A batch task: (plan, range of game indices) -> one row per game, in order.
Task = Callable[[Any, range], list[dict]]
#: Told, in one sentence, when a lost worker's games are played again.
Notice = Callable[[str], None]


class Backend(Protocol):
    jobs: int  # how many batches it plays at once
    # Whether each task costs a round trip through a scheduler (milliseconds of processor time), so
    # that fewer, larger batches pay, shrinking towards the end of a run to keep its end even.
    guided: bool

    def run(self, task: Task, plan: Any, work: Sequence[range]) -> Iterator[dict]:
        """The rows of `task(plan, b)` for every batch `b` of `work`, in order."""
        ...

    def close(self) -> None: ...


def start(
    backend: str,
    jobs: int,
    address: str | None = None,
    warm: Callable[[], object] | None = None,
    notice: Notice | None = None,
) -> Backend:
    """A started backend: "local" (this process), "process" (`jobs` worker processes) or "dask"
    (the scheduler at `address`, else a local cluster of `jobs` worker processes). `warm()` runs where
    the games will run before any batch (say, loading the rule set), so that a run's time is the
    games' time."""
    if backend == "local":
        if warm is not None:
            warm()
        return Local()
    if backend == "process":
        return Processes(jobs, warm, notice)
    if backend == "dask":
        return Dask(jobs, address, warm)
    raise KbdslError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")


class Local:
    """Every batch in this process, one after the other."""

    jobs, guided = 1, False

    def run(self, task: Task, plan: Any, work: Sequence[range]) -> Iterator[dict]:
        for b in work:
            yield from task(plan, b)

    def close(self) -> None:
        pass


class Worker:
    """One worker process and the pipe it takes batches from and answers on."""

    def __init__(self, ctx: multiprocessing.context.BaseContext, warm: Callable[[], object] | None):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, warm), daemon=True)
        self.proc.start()
        child.close()
        self.batch: int | None = None  # the index of the batch it is playing

    def stop(self) -> None:
        if self.proc.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.proc.join(1)
            if self.proc.is_alive():
                self.proc.kill()
        self.proc.join()
        self.conn.close()

    def death(self) -> str:
        """How the process ended, for people."""
        self.proc.join()
        code = self.proc.exitcode
        if code is not None and code < 0:
            return f"killed by signal {-code} ({signal.Signals(-code).name})"
        return f"exit status {code}"


def _serve(conn: Connection, warm: Callable[[], object] | None) -> None:
    """A worker's loop: play each batch it is sent and answer with its rows (or the error)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops us
    if warm is not None:
        warm()
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        task, plan, b = job
        try:
            answer = ("rows", task(plan, b))
        except Exception as e:  # the parent raises it, as if the batch had run there
            answer = ("error", e)
        try:
            conn.send(answer)
        except Exception as e:  # an error that does not pickle: send its text
            conn.send(("error", KbdslError(f"{type(e).__name__}: {e}")))


class Processes:
    """`jobs` worker processes started at once and kept for every run. On Linux they are forked,
    so they start in milliseconds with whatever the parent loaded (the rule set) already there;
    elsewhere they are spawned. Each holds one batch at a time, so a lost worker's batch is known."""

    retries = 1  # how many times a batch whose worker died is played again
    guided = False  # a batch costs a pipe's message each way: tenths of a millisecond

    def __init__(self, jobs: int, warm: Callable[[], object] | None = None, notice: Notice | None = None):
        methods = multiprocessing.get_all_start_methods()
        self.ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        if warm is not None and "fork" in methods:
            warm()  # once, here: every forked worker inherits it
            warm = None
        self.warm, self.notice = warm, notice
        self.pool = [Worker(self.ctx, warm) for _ in range(max(jobs, 1))]
        self.jobs = len(self.pool)

    def run(self, task: Task, plan: Any, work: Sequence[range]) -> Iterator[dict]:
        todo = deque(range(len(work)))
        tries = [0] * len(work)
        done: dict[int, list[dict]] = {}
        out = 0
        for i, w in enumerate(self.pool):
            if w.batch is not None:  # left playing a batch of a run that was abandoned
                w.proc.kill()
                w.stop()
                self.pool[i] = Worker(self.ctx, self.warm)
        try:
            while out < len(work):
                for w in self.pool:
                    if w.batch is None and todo:
                        w.batch = todo.popleft()
                        tries[w.batch] += 1
                        w.conn.send((task, plan, work[w.batch]))
                busy = [w for w in self.pool if w.batch is not None]
                ready = set(wait([x for w in busy for x in (w.conn, w.proc.sentinel)]))
                for i, w in enumerate(self.pool):
                    if w.batch is None or (w.conn not in ready and w.proc.sentinel not in ready):
                        continue
                    answer = self._answer(w)
                    if answer is None:  # the process died with the batch
                        lost, how = w.batch, w.death()
                        w.batch = None
                        w.stop()
                        self.pool[i] = Worker(self.ctx, self.warm)
                        games = _games(work[lost])
                        if tries[lost] > self.retries:
                            raise KbdslError(
                                f"a worker process died ({how}) while playing {games}, for the second time: "
                                "stopped (run it again, or with fewer --jobs if memory is short)"
                            )
                        if self.notice is not None:
                            again = "it" if len(work[lost]) == 1 else "them"
                            self.notice(f"a worker process died ({how}) while playing {games}: playing {again} again")
                        todo.appendleft(lost)
                        continue
                    kind, value = answer
                    if kind == "error":
                        w.batch = None
                        raise value
                    done[w.batch] = value
                    w.batch = None
                while out in done:
                    yield from done.pop(out)
                    out += 1
        except BaseException:
            for w in self.pool:  # still playing batches of no use: the next run replaces them
                if w.batch is not None:
                    w.proc.kill()
            raise

    @staticmethod
    def _answer(w: Worker) -> tuple[str, Any] | None:
        """The worker's answer, or None if its process died before giving one."""
        try:
            if w.conn.poll():
                return w.conn.recv()
        except (EOFError, OSError):
            pass
        return None

    def close(self) -> None:
        for w in self.pool:
            w.stop()


def _games(b: range) -> str:
    return f"game {b.start}" if len(b) == 1 else f"games {b.start}-{b.stop - 1}"


class Dask:
    """Dask.distributed: a scheduler at `address` (tcp://host:8786), else a local cluster of `jobs`
    worker processes (one job: a worker thread in this process). Each worker needs kbdsl installed
    (and the rule folder, if it is not a shipped one). Dask plays a lost worker's batches again itself,
    on the worker processes left; a run that has none left stops with an error.

    A batch's rows travel as one pickled bytes object: Dask would otherwise measure and serialise every
    row apart (`sizeof`, `serialize`), which cost its worker processes more than the pickling."""

    guided = True

    def __init__(self, jobs: int, address: str | None = None, warm: Callable[[], object] | None = None):
        try:
            import dask
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise KbdslError(
                'the dask backend needs Dask: python3 -m pip install ".[dask]" in the kbdsl folder'
            ) from None
        self.cluster, self.procs = None, []
        if address:
            self.client = Client(address)
            if warm is not None:
                self.client.run(warm)
            self.jobs = sum(self.client.nthreads().values()) or jobs  # the cluster's threads
            return
        with dask.config.set(LOCAL):
            conns = self._start_workers(jobs, warm) if jobs > 1 else []  # before this process has a thread
            # The scheduler in this process; one job: a worker thread here too (Dask's local mode).
            self.cluster = LocalCluster(
                n_workers=0 if conns else 1,
                threads_per_worker=1,
                processes=bool(conns),
                dashboard_address=None,
                memory_limit=0,
            )
            self.client = Client(self.cluster)
            if not conns and warm is not None:
                self.client.run(warm)
            for conn in conns:
                conn.send(self.cluster.scheduler_address)
                conn.close()
            if conns:
                self.client.wait_for_workers(jobs, timeout=WAIT)
        self.jobs = jobs

    def _start_workers(self, jobs: int, warm: Callable[[], object] | None) -> list[Connection]:
        """`jobs` worker processes without nannies, each waiting for the scheduler's address. Forked
        (on Linux), they start in milliseconds with Dask imported and the rule set loaded, as the
        process backend's; elsewhere they are spawned and load it themselves."""
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        if warm is not None and "fork" in methods:
            warm()
            warm = None
        conns = []
        for _ in range(jobs):
            conn, child = ctx.Pipe()
            proc = ctx.Process(target=_dask_worker, args=(child, warm), daemon=True)
            proc.start()
            child.close()
            self.procs.append(proc)
            conns.append(conn)
        return conns

    def run(self, task: Task, plan: Any, work: Sequence[range]) -> Iterator[dict]:
        from dask.distributed import KilledWorker

        futures = [self.client.submit(_pickled, task, plan, b, pure=False) for b in work]
        try:
            for b, future in zip(work, futures, strict=True):  # in order: a row is yielded once all before it are in
                while True:
                    try:
                        rows = future.result(timeout=1)
                        break
                    except TimeoutError:
                        if self.procs and not any(p.is_alive() for p in self.procs):
                            raise KbdslError(
                                f"every Dask worker process died while playing {_games(b)}: stopped"
                            ) from None
                    except KilledWorker:
                        raise KbdslError(
                            f"Dask worker processes died again and again while playing {_games(b)}: stopped"
                        ) from None
                yield from pickle.loads(rows)
        except BaseException:
            self.client.cancel(futures)  # batches of no use
            raise

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()  # the scheduler tells its worker processes to close
        for proc in self.procs:
            proc.join(WAIT)
            if proc.is_alive():
                proc.kill()
                proc.join()


#: Dask's settings for a cluster of our own on this machine: no statistical profiler (a stack sample
#: of every thread every 10 ms, for a dashboard a local run does not show), no memory limit (its
#: monitor polls every process ten times a second; the process backend has none either), no work
#: stealing or active memory manager (batches wait on the scheduler and hold no data to move), and
#: the event loops' health tick and system monitor at a second and ten instead of 20 ms and 500 ms.
LOCAL = {
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.work-stealing": False,
    "distributed.scheduler.active-memory-manager.start": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "10s",
}
WAIT = 60  # seconds for local worker processes to join the scheduler, or to close


def _pickled(task: Task, plan: Any, b: range) -> bytes:
    """A batch's rows as one pickle (what the process backend sends through its pipe)."""
    return pickle.dumps(task(plan, b), protocol=pickle.HIGHEST_PROTOCOL)


def _dask_worker(conn: Connection, warm: Callable[[], object] | None) -> None:
    """A local Dask worker process: one thread of games, served until the scheduler closes."""
    import dask
    import dask.distributed  # (which sets up its logging, when the worker is spawned)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops us
    logging.getLogger("distributed").setLevel(logging.WARNING)  # as LocalCluster's own
    dask.config.set(LOCAL)  # (a forked worker has it already, a spawned one not)
    if warm is not None:
        warm()
    address = conn.recv()
    conn.close()
    asyncio.run(_serve_dask(address))


async def _serve_dask(address: str) -> None:
    from dask.distributed import Worker

    async with Worker(address, nthreads=1, memory_limit=0, dashboard_address=None) as worker:
        # Its heap (Dask's and the rule set's objects) out of the cyclic collector's sight: its full
        # collections walked it all, and cost the games a third more time.
        gc.freeze()
        await worker.finished()
