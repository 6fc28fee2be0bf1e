"""The descriptive operations in pandas: trend, correlation, missing values, shape, columns."""

from __future__ import annotations

from typing import Any

from .execute_ops import bucket
from .query import Plan
from .result import MAX_ROWS, PlanError, Result
from .rows import rows_where
from .table import Table

__all__ = ["MORE", "trend_by_result", "trend_result"]


def _trend(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = rows_where(table.df, plan.filters)
    assert plan.time is not None
    if df.empty:
        raise PlanError(
            f"{table.name} has no rows where " + " and ".join(f.describe() for f in plan.filters)
        )
    keys, period = bucket(df[plan.time], plan.period)
    label = period or plan.time
    if plan.measure is None:  # "how did the number of penguins change": rows per period
        numbers = pd.Series(1, index=df.index)
        agg, y = "count", "rows"
    else:
        numbers = pd.to_numeric(df[plan.measure], errors="coerce")
        agg = plan.agg if plan.agg in ("sum", "mean", "median") else "mean"
        y = f"{agg} {plan.measure}"
    if plan.group_by is None:
        grouped = numbers.groupby(keys)
        series = grouped.sum(min_count=1) if agg in ("sum", "count") else grouped.agg(agg)
        return trend_result(plan, series.dropna().sort_index(), label, agg, y, len(df))
    by = numbers.groupby([df[plan.group_by], keys], observed=True)
    by = (by.sum() if agg == "count" else by.agg(agg)).dropna()
    return trend_by_result(plan, by, label, agg, len(df))


def trend_result(plan: Plan, series: Any, label: str, agg: str, y: str, rows: int) -> Result:
    """A trend's `Result` from its values per period (a Series in period order)."""
    if len(series) < 2:
        raise PlanError(f"{plan.measure} has fewer than two {label} values: no trend")
    first, last = float(series.iloc[0]), float(series.iloc[-1])
    frame = series.rename(y).rename_axis(label).reset_index()
    cap: tuple[tuple[str, Any], ...] = ()
    if len(frame) > 60:  # the row cap: every n-th period, and said
        step = max(1, len(frame) // 60)
        frame = frame.iloc[::step]
        shown = f"{len(frame)} of {len(series):,} {label} values (every {step})"
        cap = (("cap", f"the result table and chart show {shown}"),)
    roles: list[tuple[str, float]] = [("first", first), ("last", last)]
    change = None
    if first != 0:
        change = (last - first) / abs(first) * 100
        roles.append(("change", change))
    detail: tuple[tuple[str, Any], ...] = (
        ("agg", agg),
        ("from", str(series.index[0])),
        ("to", str(series.index[-1])),
        ("first", first),
        ("last", last),
        ("change", change),
        *cap,
    )
    value = round(change, 4) if change is not None else last - first
    return Result(value, frame, tuple(roles), (), (), "line", label, y, rows=rows, detail=detail)


def trend_by_result(plan: Plan, by: Any, label: str, agg: str, n_rows: int) -> Result:
    """A trend per group's `Result` from its values per (group, period) (a Series on a
    two-level index, missing values dropped)."""
    import pandas as pd

    assert plan.group_by is not None
    rows = []
    for group, series in by.groupby(level=0, observed=True):
        series = series.droplevel(0).sort_index()
        if len(series) < 2 or float(series.iloc[0]) == 0:
            continue
        first, last = float(series.iloc[0]), float(series.iloc[-1])
        rows.append(
            (
                str(group),
                str(series.index[0]),
                first,
                str(series.index[-1]),
                last,
                (last - first) / abs(first) * 100,
            )
        )
    if not rows:
        raise PlanError(f"no {plan.group_by} has two {label} values of {plan.measure}: no trend")
    frame = pd.DataFrame(rows, columns=[plan.group_by, "from", "first", "to", "last", "change %"])
    frame = frame.sort_values("change %", ascending=False, kind="stable").reset_index(drop=True)
    hi, lo = frame.iloc[0], frame.iloc[-1]
    names = (str(hi[plan.group_by]),) + ((str(lo[plan.group_by]),) if len(frame) > 1 else ())
    detail_by: tuple[tuple[str, Any], ...] = (
        ("agg", agg),
        ("high", str(hi[plan.group_by])),
        ("low", str(lo[plan.group_by])),
        ("high_change", float(hi["change %"])),
        ("low_change", float(lo["change %"])),
    )
    changes = (("change", float(hi["change %"])), ("change", float(lo["change %"])))
    return Result(
        str(hi[plan.group_by]),
        frame.head(MAX_ROWS),
        changes,
        names,
        tuple(str(g) for g in frame[plan.group_by].iloc[1:-1]),
        "bar",
        plan.group_by,
        "change %",
        rows=n_rows,
        detail=detail_by,
    )


def _correlation(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = rows_where(table.df, plan.filters)
    assert plan.measure is not None and plan.other is not None
    a = pd.to_numeric(df[plan.measure], errors="coerce")
    b = pd.to_numeric(df[plan.other], errors="coerce")
    r = float(a.corr(b))
    if r != r:
        raise PlanError(f"{plan.measure} and {plan.other} share too few values to correlate")
    frame = pd.DataFrame({"x": [plan.measure], "y": [plan.other], "correlation": [round(r, 4)]})
    return Result(round(r, 4), frame, (("value", round(r, 2)), ("value", r)), rows=len(df))


def _missing(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = table.df
    if plan.measure is not None:
        n = int(df[plan.measure].isna().sum())
        frame = pd.DataFrame({"column": [plan.measure], "missing": [n]})
        share = n / len(df) * 100
        return Result(n, frame, (("value", float(n)), ("share", share)), rows=len(df))
    counts = df.isna().sum()
    counts = counts[counts > 0].sort_values(ascending=False)
    if counts.empty:
        return Result(0, pd.DataFrame({"missing": [0]}), (("value", 0.0),), rows=len(df))
    frame = counts.head(MAX_ROWS).rename_axis("column").reset_index(name="missing")
    listed = tuple((str(c), int(n)) for c, n in counts.head(5).items())
    roles = (("value", float(counts.sum())), *tuple(("part", float(n)) for _, n in listed))
    return Result(
        int(counts.sum()),
        frame,
        roles,
        tuple(c for c, _ in listed),
        (),
        "bar",
        "column",
        "missing",
        rows=len(df),
        detail=(("listed", listed),),
    )


def _shape(table: Table, plan: Plan) -> Result:
    import pandas as pd

    rows, cols = table.df.shape
    frame = pd.DataFrame({"rows": [rows], "columns": [cols]})
    return Result(rows, frame, (("value", float(rows)), ("columns", float(cols))), rows=rows)


def _columns(table: Table, plan: Plan) -> Result:
    import pandas as pd

    names = [c for c in table.columns if table.columns[c].role != "empty"]
    frame = pd.DataFrame({"column": names, "role": [table.columns[c].role for c in names]})
    return Result(None, frame.head(30), (), tuple(names[:20]), rows=len(table.df))


MORE: dict[str, Any] = {
    "trend": _trend,
    "correlation": _correlation,
    "missing": _missing,
    "shape": _shape,
    "columns": _columns,
}
