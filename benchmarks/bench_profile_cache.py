"""A table's profile, computed cold and given back from `agent_nb.data.profiles`.

For each table: the median of ``--reps`` runs of `table.profile` (cold), of
`profiles.profiled` on the same unchanged frame (cached: the content digest and
a lookup), and of `profiles.content_key` alone, side by side with the ratio
cold / cached. Then the phrasing set's questions through `answer.ask` (no model),
with every kept profile dropped before each question (cold) and kept (cached).

The tables: those of the phrasing set (`tests/data/phrasings.py`, a few hundred
rows each) and two of 10⁶ rows, where the digest, which reads every value,
costs about as much as the profile it spares.

Times are this process's CPU time (the machine it runs on is often shared, and
CPU is what a suite on two cores runs out of).

Run: ``python benchmarks/bench_profile_cache.py [--reps 7] [--no-large]``
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from agent_nb.data.answer import ask
from agent_nb.data.profiles import clear, content_key, profiled
from agent_nb.data.table import profile
from tests.data.phrasings import PHRASINGS, frame

__all__ = ["main"]


def _median_ms(reps: int, fn: Callable[..., Any], *args: Any) -> float:
    times = []
    for _ in range(reps):
        started = time.process_time()
        fn(*args)
        times.append(time.process_time() - started)
    return statistics.median(times) * 1000


def _large() -> dict[str, pd.DataFrame]:
    n = 1_000_000
    rng = np.random.default_rng(1)
    return {
        "sales 10⁶": pd.DataFrame({
            "date": pd.date_range("2000-01-01", periods=n, freq="h"),
            "store": rng.choice([f"s{i}" for i in range(500)], n),
            "region": rng.choice(["N", "S", "E", "W"], n),
            "sales": rng.random(n),
        }),
        "names 10⁶": pd.DataFrame({
            "name": [f"name{i}" for i in range(n)], "v": rng.random(n),
        }),
    }  # fmt: skip


def _ask_all(cold: bool) -> None:
    for p in PHRASINGS:
        if cold:
            clear()
        try:
            ask({p.table: frame(p.table)}, p.text)
        except ValueError:
            pass  # a question no plan answers: timed all the same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--no-large", action="store_true", help="skip the 10⁶-row tables")
    args = parser.parse_args()
    tables = {name: frame(name) for name in dict.fromkeys(p.table for p in PHRASINGS)}
    if not args.no_large:
        tables |= _large()
    print(
        f"{'table':<16} {'rows':>9} {'cold ms':>9} {'cached ms':>10} {'digest ms':>10} {'ratio':>7}"
    )
    for name, df in tables.items():
        cold = _median_ms(args.reps, profile, name, df)
        clear()
        profiled(name, df)
        cached = _median_ms(args.reps, profiled, name, df)
        digest = _median_ms(args.reps, content_key, df)
        print(
            f"{name:<16} {len(df):>9,} {cold:>9.2f} {cached:>10.2f} {digest:>10.2f}"
            f" {cold / cached:>6.1f}x"
        )
    reps = max(1, args.reps // 3)
    cold = _median_ms(reps, _ask_all, True) / 1000
    clear()
    cached = _median_ms(reps, _ask_all, False) / 1000
    print(
        f"\n{len(PHRASINGS)} phrasings through ask (no model, CPU): cold {cold:.2f} s, "
        f"cached {cached:.2f} s, {cold / cached:.2f}x"
    )


if __name__ == "__main__":
    main()
