"""How long `kbdsl lint rules/` takes as a fresh process, imports included, as a user runs it.

Run: python3 tools/bench_lint.py [--runs N] [--compare CHECKOUT]. Each run is a new Python
process; bytecode is cached (in a temporary PYTHONPYCACHEPREFIX, after one warm-up run), as in
an installed package. Prints the median and best wall time and the CPU time (user + system) of
the process, which stays honest when other programs share the machine; with --compare, the same
for another checkout of kbdsl run side by side, and the ratio.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(checkout: Path, runs: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """(wall seconds, CPU seconds) of `python3 -m kbdsl lint rules/` in `checkout`, per run."""
    command = [sys.executable, "-m", "kbdsl", "lint", "rules/"]
    run_env = env | {"PYTHONPATH": str(checkout)}
    subprocess.run(command, cwd=checkout, env=run_env, check=True, capture_output=True)  # warm-up: bytecode
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, cwd=checkout, env=run_env, check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--compare", type=Path, help="another kbdsl checkout to time the same way")
    args = ap.parse_args()
    import yaml

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    print(f"YAML parser: {'LibYAML (C)' if getattr(yaml, '__with_libyaml__', False) else 'pure Python'}")
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    results = {}
    for name, checkout in [("this checkout", ROOT)] + ([("compared", args.compare)] if args.compare else []):
        with tempfile.TemporaryDirectory() as cache:
            walls, cpus = measure(checkout.resolve(), args.runs, env | {"PYTHONPYCACHEPREFIX": cache})
        results[name] = statistics.median(cpus)
        print(
            f"{name:<14} {checkout}: wall median {statistics.median(walls):.3f} s (best {min(walls):.3f}), "
            f"CPU median {statistics.median(cpus):.3f} s (best {min(cpus):.3f}), {args.runs} runs"
        )
    if args.compare:
        print(f"CPU ratio, compared / this checkout: {results['compared'] / results['this checkout']:.2f}")


if __name__ == "__main__":
    main()
