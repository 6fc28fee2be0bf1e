"""Interpreter exit under stress: many fresh scripts on the embedded model, three at a time.

Run: ``python benchmarks/stress_clean_exit.py [--scripts 60]``

The suite's `tests/runtime/test_clean_exit.py` runs nine of the issue's
scripts (an `AgentRunner`, one short turn, no shutdown), forked from one
interpreter that paid the imports; this runs them in fresh interpreters, the
way the issue reported them. The crash they guard
against (``terminate called without an active exception``, exit code 134)
hit about one run in three. This runs as many as you ask and prints how many
failed, what the first failures said, and the median seconds per script.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.runtime.test_clean_exit import FINISHED_TURN, Run  # noqa: E402

__all__ = ["main"]


def run_script(source: str) -> Run:
    """The script in a fresh interpreter, as the issue ran it."""
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=240
    )
    return Run(done.returncode, done.stdout, done.stderr)


def timed_run(source: str) -> tuple[float, Run]:
    start = time.perf_counter()
    done = run_script(source)
    return time.perf_counter() - start, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scripts", type=int, default=60)
    args = parser.parse_args()
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(timed_run, [FINISHED_TURN] * args.scripts))
    failed = [done.describe() for _, done in runs if done.returncode != 0 or not done.stdout]
    print(f"{len(failed)} of {args.scripts} scripts failed")
    for line in failed[:5]:
        print("  ", line)
    print(f"median {statistics.median(s for s, _ in runs):.1f} s a script, three at a time")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
