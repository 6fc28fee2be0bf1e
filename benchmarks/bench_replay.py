"""Replay and stale marks: what a second Run All costs, and what watching costs.

1. ``notebooks/01_quickstart.ipynb`` in a fresh kernel (nbclient) twice, on
   the embedded model, with an empty replay file first: the wall time of the
   model cells (``%%agent``, ``%agent explain``) cold and replayed, and their
   ratio (target <= 0.1 on the CPU fast path); the whole Run All too, which
   also holds the kernel start, the model load and the Python API turns
   (never replayed unless asked).
2. The stale-mark check after a cell, for one ``--data df`` answer on a
   10⁶-row DataFrame: the median of `Staleness.post_run_cell` (one
   fingerprint) and of `fingerprint` alone (target <= 5 ms).

Run: ``python benchmarks/bench_replay.py`` (``--skip-notebook`` for part 2 only).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

QUICKSTART = Path(__file__).parents[1] / "notebooks" / "01_quickstart.ipynb"


def _seconds(cell: Any) -> float:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not start or not end:
        return 0.0
    parse = dt.datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def _model_cell(cell: Any) -> bool:
    source = cell.source.lstrip()
    return cell.cell_type == "code" and source.startswith(("%%agent", "%agent explain"))


def run_notebook(folder: str) -> tuple[float, float, list[float]]:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(QUICKSTART, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", record_timing=True,
        resources={"metadata": {"path": folder}},
    )  # fmt: skip
    started = time.perf_counter()
    client.execute()
    total = time.perf_counter() - started
    cells = [_seconds(c) for c in nb.cells if _model_cell(c)]
    return total, sum(cells), cells


def bench_notebook() -> None:
    with tempfile.TemporaryDirectory() as folder:
        os.environ["AGENT_NB_REPLAY"] = "1"
        os.environ["AGENT_NB_REPLAY_FILE"] = str(Path(folder) / "replay.sqlite")
        cold_total, cold_cells, cold = run_notebook(folder)
        warm_total, warm_cells, warm = run_notebook(folder)
    print(f"quickstart, {len(cold)} model cells: cold {cold_cells:.2f} s, replayed "
          f"{warm_cells:.2f} s, ratio {warm_cells / cold_cells:.3f} (target <= 0.1)")  # fmt: skip
    print("  per cell (s), cold -> replayed: "
          + ", ".join(f"{a:.2f}->{b:.2f}" for a, b in zip(cold, warm, strict=True)))  # fmt: skip
    print(f"whole Run All (kernel start, model load, Python API turns included): cold "
          f"{cold_total:.1f} s, replayed {warm_total:.1f} s, ratio "
          f"{warm_total / cold_total:.3f}")  # fmt: skip


def _median_ms(fn: Any, repeat: int = 30) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def bench_fingerprint() -> None:
    import numpy as np
    import pandas as pd

    from agent_nb._jupyter.fingerprint import fingerprint
    from agent_nb._jupyter.staleness import StaleMarks, Staleness

    rows = 1_000_000
    rng = np.random.default_rng(0)
    frames = {
        "RangeIndex": pd.DataFrame(
            {
                "year": rng.integers(2000, 2025, rows),
                "revenue": rng.random(rows),
                "region": rng.choice(["N", "S", "E", "W"], rows),
            }
        ),
    }
    frames["DatetimeIndex"] = frames["RangeIndex"].set_index(
        pd.date_range("2000-01-01", periods=rows, freq="min")
    )
    frames["string index"] = frames["RangeIndex"].set_index("region")
    for label, df in frames.items():
        ns = {"df": df}

        class Shell:
            user_ns = ns
            execution_count = 1

        watcher = Staleness(Shell(), StaleMarks())
        watcher.watch("cell", "s", "inv", watcher.inputs(names=["df"]), lambda line: None)
        check = _median_ms(watcher.post_run_cell)
        alone = _median_ms(lambda df=df: fingerprint(df))
        print(f"stale check after a cell, 10^6-row DataFrame ({label}): {check:.2f} ms "
              f"(fingerprint alone {alone:.2f} ms; target <= 5 ms)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-notebook", action="store_true")
    args = parser.parse_args()
    bench_fingerprint()
    if not args.skip_notebook:
        bench_notebook()


if __name__ == "__main__":
    main()
