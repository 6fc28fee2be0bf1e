"""Data agent at scale: plan and compute a question on 10⁶ rows (target: under 1 s each).

Run: ``python benchmarks/bench_data_scale.py [--reps 5] [--engines pandas,duckdb]``

The tables of ``tests/data/test_bad_input.py`` (which checks the answers, not
the time): a code column among 10⁶ rows, 10⁶ hourly rows with 500 store labels
and four regions, and a 100,000 x 300 table. Prints the median seconds per
question and its ratio to the 1 s target; no model is involved (`ask`).

``--engines pandas,duckdb`` runs each question on both executors of a
DataFrame's plans (``AGENT_NB_DATA_ENGINE``, read at each plan), their
repetitions interleaved so that a noisy machine weighs on both alike, and
prints DuckDB's median over pandas'. Each table's first question is timed
once per engine on a frame not asked about before: the profile, and DuckDB's
copy of the frame, are in it (the imports of Ibis and DuckDB, once per kernel,
are timed on their own line first). A frame of more than `frames.WIDEST`
columns runs on pandas under both settings (the 10⁵ x 300 table: its ratio
shows that choice costs nothing). Each question is then timed twice over, on a
frame already profiled and copied: asked again (a cell run again: DuckDB's
path reuses the SQL it compiled for it) and asked anew (the compiled SQL
forgotten first, as for a question not asked before).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import pandas as pd

from agent_nb.data.answer import ask
from agent_nb.data.engines.frames import forget_compiled

__all__ = ["main"]

TARGET_S = 1.0


def _tables() -> dict[str, tuple[pd.DataFrame, list[str]]]:
    n = 1_000_000
    codes = pd.DataFrame({"k": np.arange(n) % 7, "v": np.random.default_rng(0).random(n)})
    rng = np.random.default_rng(1)
    sales = pd.DataFrame({
        "date": pd.date_range("2000-01-01", periods=n, freq="h"),
        "store": rng.choice([f"s{i}" for i in range(500)], n),
        "region": rng.choice(["N", "S", "E", "W"], n),
        "sales": rng.random(n),
    })  # fmt: skip
    rng = np.random.default_rng(2)
    wide = pd.DataFrame(rng.random((100_000, 300)), columns=[f"m{i}" for i in range(300)])
    wide["g"] = rng.choice(list("abcdefgh"), 100_000)
    return {
        "codes 10⁶": (codes, ["Which k has the highest total v?"]),
        "sales 10⁶": (sales, ["How did sales change over time?", "Which store has the most sales?",
                              "What is the total sales in the N region?"]),
        "wide 10⁵x300": (wide, ["Which g has the highest mean m250?"]),
    }  # fmt: skip


def _timed(df: pd.DataFrame, question: str, engine: str, *, anew: bool = False) -> float:
    os.environ["AGENT_NB_DATA_ENGINE"] = engine
    if anew:  # as a question not asked before: its queries compiled again
        forget_compiled()
    started = time.perf_counter()
    ask({"t": df}, question)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--engines", default="", help="e.g. pandas,duckdb: both, compared")
    args = parser.parse_args()
    engines = [e for e in args.engines.split(",") if e] or [
        os.environ.get("AGENT_NB_DATA_ENGINE", "duckdb")
    ]
    heads = "".join(f" {e + ' s':>9}" for e in engines)
    ratio = f" {engines[-1] + '/' + engines[0]:>14}" if len(engines) > 1 else f" {'vs 1 s':>7}"
    print(f"{'table':<14} {'question':<44}{heads}{ratio}")
    if "duckdb" in engines:  # once per kernel, at the first question on DuckDB
        started = time.perf_counter()
        import ibis

        ibis.duckdb.connect().raw_sql("SELECT 1")
        blank = " " * (10 * engines.index("duckdb"))
        took = time.perf_counter() - started
        print(
            f"{'(kernel)':<14} {'import Ibis and DuckDB, once per kernel':<44}{blank} {took:>9.3f}"
        )
    for name, (df, questions) in _tables().items():
        # a frame not asked about before (a copy: another object, so nothing is kept
        # for it): its first question pays for its profile, and DuckDB's for its copy
        firsts = [_timed(df.copy(), questions[0], e) for e in engines]
        shown = "".join(f" {t:>9.3f}" for t in firsts)
        tail = f" {firsts[-1] / firsts[0]:>13.2f}x first" if len(engines) > 1 else ""
        print(f"{name:<14} {'(first question: profile, copy)':<44}{shown}{tail}", flush=True)
        for engine in engines:  # the frame timed below: profiled and copied, untimed
            _timed(df, questions[0], engine)
        for question in questions:
            for anew in (False, True) if len(engines) > 1 else (False,):
                times: dict[str, list[float]] = {e: [] for e in engines}
                for _ in range(args.reps):
                    for engine in engines:
                        times[engine].append(_timed(df, question, engine, anew=anew))
                medians = [statistics.median(times[e]) for e in engines]
                shown = "".join(f" {m:>9.3f}" for m in medians)
                if len(engines) > 1:
                    tail = f" {medians[-1] / medians[0]:>13.2f}x {'anew' if anew else 'again'}"
                else:
                    tail = f" {medians[0] / TARGET_S:>6.2f}x"
                print(f"{name:<14} {question:<44}{shown}{tail}", flush=True)


if __name__ == "__main__":
    main()
