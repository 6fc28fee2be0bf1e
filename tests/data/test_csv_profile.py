"""Profiling a CSV file scans it once (`engines.csv_sample`): DuckDB's own file-system
log says which queries read the file, and how many bytes, while the profile was made.

(DuckDB also sniffs a CSV's dialect each time a query binds the view, before the
query runs: those reads carry no query id and are not scans of the data.)"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pandas as pd
import pytest

from agent_nb.data.engines import csv_sample
from agent_nb.data.engines.profile import SAMPLE, clear, profile_source
from agent_nb.data.engines.sources import Source, open_source

pytest.importorskip("ibis")


def _write(path: pathlib.Path, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "id": np.arange(n),
        "region": rng.choice(["East", "West", "North"], n),
        "units": rng.integers(1, 500, n),
    })  # fmt: skip
    frame.to_csv(path, index=False)
    return frame


def _scans(source: Source, path: pathlib.Path) -> tuple[int, int]:
    """How many queries read ``path`` since the log was switched on (`_logging`), and
    how many bytes they read from it."""
    con = source.expr.get_backend().con
    logged = con.sql(
        "SELECT query_id, message FROM duckdb_logs "
        "WHERE type = 'FileSystem' AND query_id IS NOT NULL"
    ).fetchall()
    reads = [(q, json.loads(m)) for q, m in logged]
    reads = [(q, r) for q, r in reads if r["op"] == "READ" and r["path"] == str(path)]
    return len({q for q, _ in reads}), sum(int(r["bytes"]) for _, r in reads)


def _logging(source: Source) -> None:
    # opening the source sniffed the file's types: only what the profile reads counts
    source.expr.get_backend().con.execute("CALL enable_logging('FileSystem')")


def test_a_short_csv_is_read_once_and_keeps_its_order(tmp_path: pathlib.Path) -> None:
    clear()
    path = tmp_path / "sales.csv"
    frame = _write(path, 3_000)
    source = open_source(path)
    _logging(source)
    table = profile_source("sales", source)
    # one query, reading the file once: not a count and then a sample
    assert _scans(source, path) == (1, path.stat().st_size)
    assert table.total == len(table.df) == 3_000
    assert table.df["id"].tolist() == frame["id"].tolist()  # the file's order


def test_a_long_csv_is_counted_and_sampled_in_one_scan(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `PREFIX_BYTES` (32 MB: a file this test would take long to write, so the
    bound is lowered) the file is not tried whole first: one aggregate counts it and
    keeps a uniform sample."""
    clear()
    monkeypatch.setattr(csv_sample, "PREFIX_BYTES", 0)
    path = tmp_path / "sales.csv"
    n = SAMPLE + 30_000
    _write(path, n)
    source = open_source(path)
    _logging(source)
    table = profile_source("sales", source)
    assert _scans(source, path) == (1, path.stat().st_size)
    assert table.total == n and len(table.df) == SAMPLE
    ids = table.df["id"]
    assert ids.is_unique and ids.min() < 0.05 * n and ids.max() > 0.95 * n  # from everywhere
    assert f"a sample of {SAMPLE:,} rows" in " ".join(table.notes)
