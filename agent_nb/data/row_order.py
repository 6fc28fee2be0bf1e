"""Rows in the table's own order, in pandas: the row some places after or before a
named row ("the episode after X", "who finished before Y"), a `Plan`'s ``offset``;
and the longest run of matching rows ("how many consecutive wins"), `streak`.

The filters name the anchor: the rows they match must be one run of
neighbouring rows (a coach named on three seasons in a row is one anchor;
an opponent met twice in a season is two, and which one is meant is not
clear: a `PlanError`, never a guess). The answer is the reported column
(``group_by``) in the row ``offset`` places past the end of that run (before
its start when ``offset`` is negative). The engines find the same positions
through their row order (`engines.compile_rows`) and build the answer with
`neighbour_result`, so both paths say it alike.
"""

from __future__ import annotations

from typing import Any

from .query import Plan
from .result import PlanError, Result, kind_of, plain
from .rows import rows_where
from .table import Table

__all__ = [
    "anchor_run", "chronology", "longest_run", "neighbour", "neighbour_result", "streak",
    "streak_result", "tested_columns",
]  # fmt: skip

_YEAR = r"\b(1[5-9]\d\d|20\d\d)\b"  # a year written in a cell ("2011", "06/04/2006")


def anchor_run(first: int, last: int, matched: int, plan: Plan, rows: int) -> int:
    """The position (0-based, among ``rows``) of the row ``plan.offset`` places from the
    matching rows: ``matched`` of them, the first at position ``first``, the last at
    ``last``, which must be one run."""
    where = " and ".join(f.describe() for f in plan.filters)
    if not matched:
        raise PlanError(f"no row has {where}")
    if last - first + 1 != matched:
        raise PlanError(
            f"{matched} rows that are not next to each other have {where}: "
            "which one the order counts from is not clear"
        )
    target = last + plan.offset if plan.offset > 0 else first + plan.offset
    if not 0 <= target < rows:
        side = "after" if plan.offset > 0 else "before"
        raise PlanError(f"no row comes {abs(plan.offset)} {side} the row where {where}")
    return target


def neighbour_result(plan: Plan, value: Any, rows: int) -> Result:
    """The answer: the reported column's value in the row found (`anchor_run`)."""
    import pandas as pd

    column = plan.group_by or plan.measure
    if value is None or bool(pd.isna(value)):
        raise PlanError(f"{column} has no value in that row")
    value = plain(value)
    roles = (("value", float(value)),) if kind_of(value) == "number" else ()
    names = () if roles else (str(value),)
    return Result(value, pd.DataFrame({column: [value]}), roles, names, rows=rows)


def neighbour(table: Table, plan: Plan) -> Result:
    """``plan``'s lookup with an ``offset``, in pandas (see the module docstring)."""
    column = plan.group_by or plan.measure
    if column is None or column not in table.df.columns:
        raise PlanError(f"there is no column {column!r}")
    df = table.df.reset_index(drop=True)
    hits = rows_where(df, plan.filters).index
    first, last = (int(hits.min()), int(hits.max())) if len(hits) else (0, 0)
    target = anchor_run(first, last, len(hits), plan, len(df))
    return neighbour_result(plan, df[column].iloc[target], len(df))


def chronology(df: Any) -> int:
    """Which way the table's rows run in time: 1 oldest first, -1 newest first (a list of
    seasons from the latest down), 0 neither or not known. Read from the years written
    in its cells: a column where nearly every row has one and they never go back."""
    import pandas as pd

    ways = set()
    for name in df.columns:
        s = df[name]
        if pd.api.types.is_datetime64_any_dtype(s):
            years = s.dt.year
        else:
            years = pd.to_numeric(s.astype(str).str.extract(_YEAR)[0], errors="coerce")
        if len(df) < 3 or years.notna().mean() < 0.8 or years.nunique() < 2:
            continue
        seen = years.dropna()
        if seen.is_monotonic_increasing:
            ways.add(1)
        elif seen.is_monotonic_decreasing:
            ways.add(-1)
    return ways.pop() if len(ways) == 1 else 0


def longest_run(positions: Any) -> tuple[int, int, int]:
    """(length, first, last) of the longest run of consecutive positions in the sorted
    ``positions`` (the earliest run where two are as long); (0, -1, -1) for none."""
    import numpy as np

    at = np.asarray(positions, dtype="int64")
    if not len(at):
        return 0, -1, -1
    starts = np.flatnonzero(np.diff(at, prepend=at[0] - 2) != 1)  # where a run begins
    ends = np.append(starts[1:], len(at)) - 1
    lengths = ends - starts + 1
    best = int(np.argmax(lengths))  # the first of the longest
    return int(lengths[best]), int(at[starts[best]]), int(at[ends[best]])


def streak_result(n: int, first: int, last: int, rows: int, skipped: int = 0) -> Result:
    """The longest run of matching rows, one after another in the table's order ("how
    many consecutive wins"): its length, where it starts and ends (rows from 1), and how
    many rows with no value to test were passed over (``skipped``)."""
    import pandas as pd

    frame = pd.DataFrame({"rows in a row": [n], "from row": [first + 1], "to row": [last + 1]})
    roles = [("value", float(n)), ("first", float(first + 1)), ("last", float(last + 1))]
    roles = roles if n else [("value", 0.0)]
    roles += [("missing", float(skipped))] if skipped else []
    return Result(n, frame, tuple(roles), rows=rows)


def tested_columns(plan: Plan) -> list[str]:
    """The columns a run's filters test for a value (not for a gap: "no notes listed"):
    a row with none there is no row of the run, nor the end of one."""
    return list(dict.fromkeys(f.column for f in plan.filters if f.op not in ("missing", "present")))


def streak(table: Table, plan: Plan) -> Result:
    """``plan``'s longest run (`Plan.agg` "streak") in pandas. A row whose tested column
    has no value (a fight with no result) neither counts nor breaks the run: the runs
    are found among the rows that have one, and the sentence says how many were not."""
    df = table.df.reset_index(drop=True)
    columns = [c for c in tested_columns(plan) if c in df.columns]
    known = df[df[columns].notna().all(axis=1)] if columns else df
    hits = rows_where(known, plan.filters).index
    order = known.index.get_indexer(hits)  # the hits' places among the known rows
    n, first, last = longest_run(sorted(order))
    if n:
        first, last = int(known.index[first]), int(known.index[last])
    return streak_result(n, first, last, rows=len(df), skipped=len(df) - len(known))
