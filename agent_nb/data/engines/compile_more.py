"""The descriptive operations compiled to Ibis: trend, correlation, missing values,
shape, columns. The engine groups and counts; `execute_more`'s result builders word it."""

from __future__ import annotations

from typing import Any

from ..query import Plan
from ..result import MAX_ROWS, PlanError, Result
from .compile import Engine
from .filters import ROW
from .periods import bucket, flag

__all__ = ["MORE_OPS"]

#: The most periods (or group-periods) a trend brings back: a day per row for 270 years.
PERIODS = 100_000


def _columns_of(t: Any) -> list[str]:
    return [c for c in t.columns if c != ROW]


def _trend(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    from ..execute_more import trend_by_result, trend_result

    t, n_rows = e.rows(plan)
    assert plan.time is not None
    key, period, read = bucket(e, t, plan.time, plan.period)
    label = period or plan.time
    keyed = t.mutate(__k=key)
    keyed = keyed.filter(keyed.__k.notnull())
    if plan.measure is None:  # rows per period
        agg, y = "count", "rows"
        v = keyed.count().cast("float64")
    else:
        agg = plan.agg if plan.agg in ("sum", "mean", "median") else "mean"
        y = f"{agg} {plan.measure}"
        x = e.numbers(keyed, plan.measure)
        v = {"sum": x.sum(), "mean": x.mean(), "median": x.median()}[agg]
    if plan.group_by is None:
        g = keyed.group_by("__k").aggregate(v=v)
        g = g.filter(g.v.notnull()).order_by("__k")
        got = e.table.source.execute(g.limit(PERIODS))
        periods = [read(k) for k in got["__k"]]
        values = e.as_pandas(got["v"], plan.measure, agg if plan.measure else "rows")
        series = pd.Series(values.to_numpy(), index=periods)
        return trend_result(plan, series, label, agg, y, n_rows)
    keyed = keyed.filter(keyed[plan.group_by].notnull())
    if agg == "sum":  # pandas' grouped sum of nothing is 0, not missing
        v = v.fill_null(0)
    g = keyed.group_by([keyed[plan.group_by].name("__g"), "__k"]).aggregate(v=v)
    g = g.filter(g.v.notnull()).order_by(["__g", "__k"])
    got = e.table.source.execute(g.limit(PERIODS))
    index = pd.MultiIndex.from_arrays([got["__g"], [read(k) for k in got["__k"]]])
    values = e.as_pandas(got["v"], plan.measure, agg if plan.measure else "rows")
    by = pd.Series(values.to_numpy(), index=index)
    return trend_by_result(plan, by, label, agg, n_rows)


def _correlation(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    from .compile import _missing

    t, n_rows = e.rows(plan, empty_ok=True)
    assert plan.measure is not None and plan.other is not None
    # Pearson's r is the same for the population and the sample (the n - 1 cancel)
    too_few = f"{plan.measure} and {plan.other} share too few values to correlate"
    try:
        a, b = e.numbers(t, plan.measure), e.numbers(t, plan.other)
    except PlanError:
        raise PlanError(too_few) from None
    kept = t.mutate(__a=a, __b=b)
    kept = kept.filter(kept.__a.notnull() & kept.__b.notnull())
    got = e.one(kept.aggregate(n=kept.count(), r=kept.__a.corr(kept.__b, how="pop")))
    r = got["r"]
    if r is None or _missing(r) or int(got["n"] or 0) < 2:
        raise PlanError(too_few)
    r = max(-1.0, min(1.0, float(r)))
    frame = pd.DataFrame({"x": [plan.measure], "y": [plan.other], "correlation": [round(r, 4)]})
    return Result(round(r, 4), frame, (("value", round(r, 2)), ("value", r)), rows=n_rows)


def _missing_values(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    t = e.t
    names = [plan.measure] if plan.measure is not None else _columns_of(t)
    counts = {f"m{i}": flag(t[c].isnull()) for i, c in enumerate(names)}
    got = e.one(t.aggregate(__n=t.count(), **counts))
    total = int(got["__n"])
    missing = pd.Series({c: int(got[f"m{i}"] or 0) for i, c in enumerate(names)})
    if plan.measure is not None:
        n = int(missing.iloc[0])
        frame = pd.DataFrame({"column": [plan.measure], "missing": [n]})
        return Result(n, frame, (("value", float(n)), ("share", n / total * 100)), rows=total)
    missing = missing[missing > 0].sort_values(ascending=False)
    if missing.empty:
        return Result(0, pd.DataFrame({"missing": [0]}), (("value", 0.0),), rows=total)
    frame = missing.head(MAX_ROWS).rename_axis("column").reset_index(name="missing")
    listed = tuple((str(c), int(n)) for c, n in missing.head(5).items())
    roles = (("value", float(missing.sum())), *tuple(("part", float(n)) for _, n in listed))
    return Result(
        int(missing.sum()), frame, roles, tuple(c for c, _ in listed), (), "bar",
        "column", "missing", rows=total, detail=(("listed", listed),),
    )  # fmt: skip


def _count(e: Engine) -> int:
    return int(e.one(e.t.aggregate(n=e.t.count()))["n"])


def _shape(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    rows, cols = _count(e), len(_columns_of(e.t))
    frame = pd.DataFrame({"rows": [rows], "columns": [cols]})
    return Result(rows, frame, (("value", float(rows)), ("columns", float(cols))), rows=rows)


def _columns(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    table = e.table
    names = [c for c in table.columns if table.columns[c].role != "empty"]
    frame = pd.DataFrame({"column": names, "role": [table.columns[c].role for c in names]})
    return Result(None, frame.head(30), (), tuple(names[:20]), rows=_count(e))


MORE_OPS: dict[str, Any] = {
    "trend": _trend,
    "correlation": _correlation,
    "missing": _missing_values,
    "shape": _shape,
    "columns": _columns,
}
