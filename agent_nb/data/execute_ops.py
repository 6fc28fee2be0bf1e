"""Each operation of the query language, in pandas (`execute.run_plan` dispatches here).

One function per `Plan.op`. Each filters first (`execute.rows_where`), then
reduces; a filter that leaves no rows, or a column with no values to reduce,
is a `PlanError` that says so truly.
"""

from __future__ import annotations

from typing import Any

from .derive import column_numbers
from .query import AGG_NAME, Plan
from .result import (
    MAX_LIST,
    MAX_ROWS,
    PlanError,
    Result,
    kind_of,
    measure_share,
    plain,
    tie_refused,
    with_ties,
)
from .rows import rows_where
from .table import Table

__all__ = ["OPS", "bucket", "combine", "compare", "holds", "notes_of", "rank_result"]


def _rows(table: Table, plan: Plan, *, empty_ok: bool = False) -> Any:
    df = rows_where(table.df, plan.filters)
    if df.empty and not empty_ok:
        where = " and ".join(f.describe() for f in plan.filters)
        raise PlanError(f"{table.name} has no rows where {where}")
    return df


def _reduce(values: Any, agg: str, k: int = 1, order: str = "desc") -> float:
    if values.empty:
        raise PlanError("no values to compute with")
    if agg == "range":
        return float(values.max() - values.min())
    if agg == "nth":
        ranked = values.sort_values(ascending=order == "asc", kind="stable")
        if len(ranked) < k:
            raise PlanError(f"there are only {len(ranked)} values, not {k}")
        return float(ranked.iloc[k - 1])
    if agg == "count":
        return float(len(values))
    return float(values.agg(agg))


def _aggregate(table: Table, plan: Plan) -> Result:
    import pandas as pd

    if plan.agg == "streak":  # the rows in the table's order, not only the matching ones
        from .row_order import streak

        return streak(table, plan)
    df = _rows(table, plan, empty_ok=plan.agg in ("count", "share"))
    if plan.agg == "share":
        if plan.condition:
            part = rows_where(df, plan.condition)
            base_n, part_n = len(df), len(part)
        else:
            base_n, part_n = len(table.df), len(df)
        if base_n == 0:
            raise PlanError("the base of the share has no rows")
        if plan.measure is not None and plan.condition:  # a part of a measure's total
            part = rows_where(df, plan.condition)
            base_n, part_n = len(df), len(part)
            whole = float(column_numbers(df, plan.measure).sum())
            some = float(column_numbers(part, plan.measure).sum())
            share = some / whole * 100 if whole else 0.0
            return measure_share(share, part_n, base_n, some, whole, plan.measure)
        else:
            share = part_n / base_n * 100
        frame = pd.DataFrame({"rows": [part_n], "of": [base_n], "share %": [share]})
        roles = (("value", share), ("count", float(part_n)), ("base", float(base_n)))
        return Result(share, frame, roles, rows=base_n)
    if plan.measure is None:
        n = len(df)
        return Result(n, pd.DataFrame({"rows": [n]}), (("value", float(n)),), rows=n)
    series = df[plan.measure]
    if table.columns[plan.measure].listy and plan.agg in ("nunique", "mode"):
        from .table_text import items_of

        series = items_of(series)
    if plan.agg == "nunique" and plan.group_by2 is not None:
        n = int(df[[plan.measure, plan.group_by2]].dropna().drop_duplicates().shape[0])
        return Result(n, pd.DataFrame({"pairs": [n]}), (("value", float(n)),), rows=len(df))
    if plan.agg == "nunique":
        n = int(series.nunique(dropna=True))
        values = list(map(plain, series.dropna().unique()[:MAX_ROWS]))
        frame = pd.DataFrame({plan.measure: values})
        return Result(n, frame, (("value", float(n)),), rows=len(df))
    if plan.agg == "mode":
        counts = series.value_counts(dropna=True, sort=True)
        counts = counts[counts > 0]  # a categorical's unused categories: no rows, no mode
        if counts.empty:
            raise PlanError(f"{plan.measure} has no values")
        if plan.order == "asc":
            counts = counts.sort_values(ascending=True, kind="stable")
        top, n = plain(counts.index[0]), int(counts.iloc[0])
        frame = counts.head(MAX_ROWS).rename_axis(plan.measure).reset_index(name="rows")
        told: list[tuple[str, float]] = [("count", float(n)), ("base", float(counts.sum()))]
        numeric = isinstance(top, (int, float)) and not isinstance(top, bool)
        if numeric:
            told.append(("value", float(top)))
        return Result(
            top,
            frame,
            tuple(told),
            () if numeric else (str(top),),
            tuple(map(str, counts.index[1:MAX_ROWS])),
            "bar",
            plan.measure,
            "rows",
            rows=len(df),
        )
    if plan.agg == "count":
        n = int(series.notna().sum())
        return Result(n, pd.DataFrame({"rows": [n]}), (("value", float(n)),), rows=n)
    values = column_numbers(df, plan.measure)
    value = _reduce(values, plan.agg, plan.k, plan.order)
    value = plain(value) if float(value).is_integer() else value
    frame = pd.DataFrame({"measure": [plan.measure], plan.agg: [value]})
    return Result(value, frame, (("value", float(value)),), rows=len(values))


def bucket(series: Any, period: str | None = None) -> tuple[Any, str]:
    """Time values as the periods a trend or a ranking reads: the asked ``period``, else
    years over long spans (or dates that are all January 1st), months, or days."""
    import pandas as pd

    if not pd.api.types.is_datetime64_any_dtype(series):
        whole = pd.api.types.is_float_dtype(series) and bool((series.dropna() % 1 == 0).all())
        return (series.astype("Int64") if whole else series), ""
    if getattr(series.dt, "tz", None) is not None:
        series = series.dt.tz_localize(None)  # periods of local wall time, no tz warning
    if period is None:
        yearly = bool(((series.dt.month == 1) & (series.dt.day == 1)).all())
        span = (series.max() - series.min()).days / 365.25
        if yearly or (span >= 3 and series.nunique() > 24):
            period = "year"
        elif series.nunique() > 24:
            period = "month"
    if period == "year":
        return series.dt.year, "year"
    if period == "month":
        return series.dt.to_period("M").astype(str), "month"
    return series.dt.strftime("%Y-%m-%d"), "day" if period else ""


def _grouped(table: Table, plan: Plan, df: Any) -> tuple[Any, str]:
    import pandas as pd

    assert plan.group_by is not None
    keys, period = bucket(df[plan.group_by], plan.period)
    label = period or plan.group_by
    by = [keys] if plan.group_by2 is None else [keys, df[plan.group_by2]]
    if plan.measure is None and plan.group_by2 is None:
        if table.columns[plan.group_by].listy:  # count items, not whole lists
            from .table_text import items_of

            keys = items_of(df[plan.group_by])
        values = keys.value_counts(sort=True).astype(float)  # ties: first seen first
        values = values[values > 0]  # a categorical's unused categories have no rows
    elif plan.measure is None:
        values = df.groupby(by, observed=True).size().astype(float)
    else:
        numbers = pd.to_numeric(df[plan.measure], errors="coerce")
        if not pd.api.types.is_numeric_dtype(df[plan.measure]):
            raise PlanError(f"{plan.measure} holds no numbers to compute with")
        grouped = numbers.groupby(by, observed=True)
        if plan.agg in ("sum", "share"):
            values = grouped.sum(min_count=1)
        elif plan.agg == "range":
            values = grouped.max() - grouped.min()
        elif plan.agg in ("nunique", "mode"):
            values = df.groupby(by, observed=True)[plan.measure].nunique().astype(float)
        elif plan.agg == "count":
            values = grouped.count().astype(float)
        else:
            values = grouped.agg("mean" if plan.agg == "nth" else plan.agg)
    values = values.dropna()
    if values.empty:
        raise PlanError(f"{plan.measure or 'rows'} has no values in any {label}")
    if plan.agg == "share":
        values = values / values.sum() * 100
    if plan.group_by2 is not None:
        values.index = [f"{a}, {b}" for a, b in values.index]
    return values, label


def _rank(table: Table, plan: Plan) -> Result:
    df = _rows(table, plan)
    values, label = _grouped(table, plan, df)
    if plan.having is not None:  # "appears exactly once": the groups whose rows meet it
        test, n = plan.having
        values = values[holds(test, values, float(n))]
    values = values.sort_values(ascending=plan.order == "asc", kind="stable")
    return rank_result(plan, values, label, len(df), len(values))


def rank_result(plan: Plan, values: Any, label: str, rows: int, groups: int) -> Result:
    """A ranking's `Result` from its groups' values, already in order (a Series: label ->
    value; the first ``max(k + 20, MAX_LIST)`` are enough), computed over ``rows`` rows;
    ``groups``: how many there are in all (more than the table shows: said)."""
    what = plan.measure or "rows"
    name = (
        "share %"
        if plan.agg == "share"
        else (
            "rows" if plan.measure is None else f"{AGG_NAME.get(plan.agg, plan.agg)} {plan.measure}"
        )
    )
    frame = values.rename(name).rename_axis(label).reset_index().head(MAX_ROWS)
    if plan.each:  # "per island": every group's value, the largest first
        shown = values.head(MAX_LIST)
        each = {str(plain(i)): plain(v) for i, v in shown.items()}
        return Result(
            each,
            frame,
            tuple(("value", float(v)) for v in shown.to_numpy()),
            tuple(each),
            (),
            "bar",
            label,
            name,
            rows=rows,
            detail=(("label", label), ("what", what), *_cap(groups)),
        )
    if plan.having is not None:  # every group that meets the test, listed
        return _listed_groups(plan, values, frame, label, name, what, rows, groups)
    asked = min(plan.k, len(values))
    k = with_ties(values, asked) if plan.labels else asked
    tie = (("tied", plain(values.iloc[k - 1])), ("groups", groups)) if k > asked else ()
    top = values.head(k)
    names = tuple(str(plain(i)) for i in top.index)
    listed = [plain(i) for i in top.index] if plan.labels else [plain(v) for v in top.to_numpy()]
    value: Any = listed if plan.listed or k > 1 else listed[0]
    if tie_refused(k, groups, asked):
        value, names = None, ()
    roles = tuple(("value", float(v)) for v in top.to_numpy())
    return Result(
        value,
        frame,
        roles,
        names,
        tuple(str(i) for i in values.index[k : k + 20]),
        "bar",
        label,
        name,
        rows=rows,
        detail=(("label", label), ("what", what), *tie, *_cap(groups)),
    )


def _listed_groups(
    plan: Plan, values: Any, frame: Any, label: str, name: str, what: str, rows: int, groups: int
) -> Result:
    """The groups a frequency test keeps ("exactly once"), all of them: a list, maybe empty."""
    top = values.head(MAX_LIST)
    listed = [plain(i) for i in top.index]
    return Result(
        listed,
        frame,
        tuple(("value", float(v)) for v in top.to_numpy()),
        tuple(str(v) for v in listed),
        (),
        "bar",
        label,
        name,
        rows=rows,
        detail=(("label", label), ("what", what), ("every", True), *_cap(groups)),
    )


def _cap(groups: int) -> tuple[tuple[str, str], ...]:
    """The row cap's note: the result table (and the chart drawn from it) shows the first
    `MAX_ROWS` groups of more."""
    if groups <= MAX_ROWS:
        return ()
    return (("cap", f"the result table and chart show the first {MAX_ROWS} of {groups:,} groups"),)


def notes_of(result: Result) -> tuple[str, ...]:
    """What the reply says about ``result`` itself (the row cap, where it applies)."""
    cap = result.get("cap")
    return (cap,) if cap else ()


def _extreme(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _rows(table, plan)
    assert plan.measure is not None
    # dates order as they are ("the first player born": the earliest date of birth)
    dated = pd.api.types.is_datetime64_any_dtype(df[plan.measure]) and plan.near is None
    numbers = df[plan.measure].dropna() if dated else column_numbers(df, plan.measure)
    if numbers.empty:
        raise PlanError(f"{plan.measure} has no values")
    if plan.near is None:
        ordered = numbers.sort_values(ascending=plan.order == "asc", kind="stable")
    else:  # "the year closest to 2000": the smallest distance first
        ordered = (numbers - plan.near).abs().sort_values(kind="stable")
    show = plan.group_by or plan.measure
    asked = min(plan.k, len(numbers), MAX_LIST)
    k = with_ties(ordered, asked) if show != plan.measure else asked  # one value: no tie
    tie = (("tied", plain(ordered.iloc[k - 1])), ("groups", len(ordered))) if k > asked else ()
    refused = tie_refused(k, len(ordered), asked)
    k = min(k, MAX_LIST)
    rows = numbers.loc[ordered.index[:k]]
    shown = df.loc[rows.index, show]
    frame = pd.DataFrame({show: [plain(v) for v in shown]})
    if show != plan.measure:
        frame[plan.measure] = [plain(v) for v in rows.to_numpy()]
    listed = [plain(v) for v in shown]
    if tie:  # the tied rows' names, each once: rows that share one name leave no tie
        listed = list(dict.fromkeys(listed))
        if len(listed) <= asked:
            tie, refused = (), False
    value: Any = listed if plan.listed or len(listed) > 1 else listed[0]
    names = tuple(str(v) for v in listed) if show != plan.measure else ()
    rest = numbers.drop(rows.index)
    rest = rest.nlargest(3) if plan.order == "desc" else rest.nsmallest(3)
    others = tuple(str(plain(v)) for v in df.loc[rest.index, show] if str(plain(v)) not in names)
    roles = () if dated else tuple(("value", float(v)) for v in rows.to_numpy())
    roles += tuple(("value", float(v)) for v in listed if kind_of(v) == "number")
    if refused:
        value, names = None, ()
    return Result(
        value,
        frame.head(MAX_ROWS),
        roles,
        names,
        others if names else (),
        "bar" if names and k > 1 else None,
        show,
        plan.measure,
        rows=len(df),
        detail=tie,
    )


def _distinct(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _rows(table, plan, empty_ok=True)
    assert plan.measure is not None
    series = df[plan.measure]
    if table.columns[plan.measure].listy:
        from .table_text import items_of

        series = items_of(series)
    unique = series.dropna().unique()
    if plan.listed:  # "the 3 highest different revenues": the top k distinct values
        unique = pd.Series(unique).sort_values(ascending=plan.order == "asc").head(plan.k)
    values = [plain(v) for v in list(unique)[:MAX_LIST]]
    frame = pd.DataFrame({plan.measure: values}).head(MAX_ROWS * 3)
    roles = tuple(("value", float(v)) for v in values if kind_of(v) == "number")
    names = tuple(str(v) for v in values)
    return Result(values, frame, (*roles, ("count", float(len(values)))), names, rows=len(df))


def _values(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _rows(table, plan, empty_ok=True)
    column = plan.group_by or plan.measure
    assert column is not None
    series = df[column].dropna()
    series = series.tail(plan.k) if plan.order == "asc" and plan.listed else series
    if plan.listed and plan.k > 1 and plan.order == "desc":
        series = series.head(plan.k)
    values = [plain(v) for v in series.head(MAX_LIST)]
    frame = pd.DataFrame({column: values})
    roles = tuple(("value", float(v)) for v in values if kind_of(v) == "number")
    names = tuple(str(v) for v in values)
    return Result(values, frame.head(MAX_ROWS * 3), roles, names, rows=len(df))


def _lookup(table: Table, plan: Plan) -> Result:
    import pandas as pd

    if plan.offset:  # "the episode after X": the table's own order
        from .row_order import neighbour

        return neighbour(table, plan)
    df = _rows(table, plan)
    column = plan.group_by or plan.measure
    assert column is not None
    series = df[column].dropna()
    if series.empty:
        raise PlanError(f"{column} has no value in the matching rows")
    at = series.index[-1] if plan.order == "asc" else series.index[0]
    value = plain(series.loc[at])
    written = table.written.get(column)
    if written is not None and at in written.index:  # "3:38:33" read as 13113 for the plan
        value = plain(written.loc[at])
    roles = (("value", float(value)),) if kind_of(value) == "number" else ()
    names = () if roles else (str(value),)
    return Result(value, pd.DataFrame({column: [value]}), roles, names, rows=len(df))


def _exists(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _rows(table, plan, empty_ok=True)
    # A row whose tested column is missing neither meets nor fails the condition: it is
    # left out of "all" and "none" and said, never counted as failing.
    tested = [f.column for f in plan.condition if f.op not in ("missing", "present")]
    unknown = df[tested].isna().any(axis=1) if tested else pd.Series(False, index=df.index)
    known = df[~unknown]
    hit = rows_where(known, plan.condition) if plan.condition else known
    n, base, gaps = len(hit), len(known), int(unknown.sum())
    value = {"any": n > 0, "all": base > 0 and n == base, "none": n == 0}[plan.quantifier]
    frame = pd.DataFrame({"rows that match": [n], "of": [base], "missing": [gaps]})
    roles = (("count", float(n)), ("base", float(base)), ("missing", float(gaps)))
    return Result(value, frame, roles, rows=base)


def _scalar(table: Any, plan: Plan, ops: dict[str, Any]) -> Result:
    if plan.op not in ops:
        raise PlanError(f"{plan.op} gives no single value to compare")
    result = ops[plan.op](table, plan)
    if isinstance(result.value, list):
        if len(result.value) != 1:
            raise PlanError(f"{plan.describe()} gives {len(result.value)} values, not one")
        return Result(result.value[0], result.frame, result.roles, result.names, rows=result.rows)
    return result


def compare(table: Any, plan: Plan, ops: dict[str, Any] | None = None) -> Result:
    """A computed value tested against a constant or another computed value; each side is
    run by ``ops`` (an engine's operations; default: pandas')."""
    import pandas as pd

    ops = OPS if ops is None else ops
    if plan.of is None or plan.test is None:
        raise PlanError("a comparison needs a computed value and a test")
    left = _scalar(table, plan.of, ops)
    right_value = plan.against
    right_roles: tuple[tuple[str, float], ...] = ()
    if plan.versus is not None:
        right = _scalar(table, plan.versus, ops)
        right_value = right.value
        right_roles = tuple(("other", v) for r, v in right.roles if r in ("value", "count"))
    a, b = left.value, right_value
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        value = holds(plan.test, na, nb)
    elif plan.test in ("=", "!="):
        same = _same(a, b)
        value = same if plan.test == "=" else not same
    else:
        raise PlanError(f"{a!r} and {b!r} cannot be ordered")
    frame = pd.DataFrame({"computed": [str(a)], "test": [plan.test], "against": [str(b)]})
    roles = tuple(("left", v) for r, v in left.roles if r in ("value", "count")) + right_roles
    if nb is not None and plan.versus is None:
        roles += (("threshold", nb),)
    return Result(
        value, frame, roles, left.names, rows=left.rows, detail=(("left", a), ("right", b))
    )


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def _same(a: Any, b: Any) -> bool:
    from .lexicon import phrase

    x, y = phrase(str(a)), phrase(str(b))
    return x == y or (bool(x) and set(y.split()) == set(x.split()))


def holds(test: str, a: Any, b: Any) -> Any:
    """``a test b`` (a number, a pandas Series or an Ibis column: whatever compares)."""
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[test]


def combine(table: Any, plan: Plan, ops: dict[str, Any] | None = None) -> Result:
    """The difference or ratio of two computed values, each run by ``ops`` (default: pandas')."""
    import pandas as pd

    ops = OPS if ops is None else ops
    assert plan.versus is not None
    left = _scalar(table, plan.model_copy(update={"combine": None, "versus": None}), ops)
    right = _scalar(table, plan.versus, ops)
    a, b = _num(left.value), _num(right.value)
    if a is None or b is None:
        raise PlanError("a difference or ratio needs two numbers")
    if plan.combine == "ratio" and b == 0:
        raise PlanError("the second value is 0: no ratio")
    value = a / b if plan.combine == "ratio" else abs(a - b) if plan.combine == "gap" else a - b
    frame = pd.DataFrame({"first": [a], "second": [b], plan.combine or "": [value]})
    return Result(value, frame, (("value", value), ("first", a), ("second", b)), rows=left.rows)


def _dispatch_aggregate(table: Table, plan: Plan) -> Result:
    if plan.combine and plan.versus is not None:
        return combine(table, plan)
    return _aggregate(table, plan)


OPS: dict[str, Any] = {
    "aggregate": _dispatch_aggregate,
    "rank": _rank,
    "extreme": _extreme,
    "distinct": _distinct,
    "values": _values,
    "lookup": _lookup,
    "exists": _exists,
    "compare": compare,
}
