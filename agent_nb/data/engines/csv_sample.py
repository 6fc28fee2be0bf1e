"""A CSV source's row count and profile sample, read in one pass over its files.

A Parquet file states its row count in its metadata; a CSV file does not, so
counting its rows is a full scan, and a block sample taken after the count is
a second one (the profile used to read a 10⁸-row CSV twice). `count_and_sample`
reads it once:

* first the leading ``n + 1`` rows (DuckDB stops after the buffers that hold
  them): a file of at most ``n`` rows is then read whole, once, and its sample
  keeps the file's order, which the profiler reads (a totals row at the end, the
  first cells of a column);
* a longer file is scanned once by one aggregate that counts its rows and keeps
  a uniform sample of ``n`` of them (``min_by(row, random(), n)``: the ``n``
  rows with the smallest random keys, held in a bounded heap, never the file).

A file bigger than `PREFIX_BYTES` skips the first step: DuckDB reads a CSV in
buffers of 32 MB, so the leading rows of a smaller file cost a read of the whole
file, and of a bigger one at most a buffer, which would only be wasted when the
file turns out long. The SQL is this module's constant text around the source's
own compiled table: nothing of a question reaches it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["PREFIX_BYTES", "count_and_sample"]

#: Files up to this size (all together) are tried whole first: DuckDB's CSV buffer.
PREFIX_BYTES = 32 * 1024 * 1024
_N = "__agent_nb_rows"  # the count, beside the sampled rows
_ROW = "agent_nb_row"  # the scanned row as a struct (a name no CSV column takes first)


def _one_scan(expr: Any, n: int) -> tuple[int, Any]:
    import ibis

    con = expr.get_backend()
    inner = ibis.to_sql(expr, dialect="duckdb")
    query = (
        f"WITH {_ROW} AS ({inner}), "
        f"agent_nb_one AS (SELECT count(*) AS total, min_by({_ROW}, random(), {int(n)}) "
        f"AS picked FROM {_ROW}), "
        "agent_nb_rows AS (SELECT total, unnest(picked) AS picked FROM agent_nb_one) "
        f'SELECT total AS "{_N}", picked.* FROM agent_nb_rows'
    )
    # the schema given: Ibis need not run the query to learn it (a second scan)
    schema = ibis.schema({_N: "int64", **dict(expr.schema().items())})
    out = con.sql(query, schema=schema).execute()
    if len(out) == 0:  # an empty file: no sampled row carries the count
        return 0, expr.limit(0).execute()
    total = int(out[_N].iloc[0])
    return total, out.drop(columns=[_N])


def count_and_sample(
    expr: Any, paths: Sequence[str], run: Callable[[Any], Any]
) -> Callable[[int], tuple[int, Any]]:
    """How ``expr`` (a DuckDB view over the CSV files ``paths``) gives its row count and a
    sample of at most ``n`` rows in one pass (module docstring); ``run`` executes an Ibis
    expression (`sources.Source.execute`)."""

    def read(n: int) -> tuple[int, Any]:
        if sum(os.path.getsize(p) for p in paths if os.path.isfile(p)) <= PREFIX_BYTES:
            first = run(expr.limit(n + 1))
            if len(first) <= n:
                return len(first), first
        return _one_scan(expr, n)

    return read
