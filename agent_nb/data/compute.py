"""pandas runs a `Plan`: a small result table, a template sentence, and what it may say.

`run_plan` computes the plan's answer over the `Table` and returns a
`Result`: the result as a small DataFrame (at most `MAX_ROWS` rows; a ranking
of many groups ends with an "other" row where the aggregate adds up), the
template sentence built from it ("Japan has the highest mean
Miles_per_Gallon (30.45)."), the numbers and group names that sentence
states (the check's reference, `check`), the other groups in the result (a
sentence naming one of them names the wrong answer) and the chart it wants
(a bar for a ranking, a line for a trend).

Every reduction runs under ``np.errstate`` and with numpy's warnings caught,
so an all-NaN group never leaks a ``RuntimeWarning`` into the cell; a group
or a filter with no values is left out, or is a one-line error, never "0".
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Literal

from .insights import format_number
from .plan import Plan, default_agg
from .table import Table

__all__ = ["MAX_ROWS", "Result", "run_plan"]

MAX_ROWS = 10
_AGG_NAME = {"sum": "total", "mean": "mean", "median": "median", "min": "lowest",
             "max": "highest", "count": "number of rows", "share": "share"}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Result:
    """A plan's answer (see the module docstring)."""

    frame: Any
    sentence: str
    numbers: tuple[float, ...] = ()  # stated by the sentence; the check needs one of them
    names: tuple[str, ...] = ()  # the answer's groups; the check needs them named
    others: tuple[str, ...] = ()  # the result's other groups; the check refuses them
    allowed: tuple[float, ...] = ()  # every number a sentence may state
    chart: Literal["bar", "line"] | None = None
    x: str = ""
    y: str = ""


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _where(plan: Plan) -> str:
    if not plan.filters:
        return ""
    return " (" + ", ".join(f"{f.column} {f.value}" for f in plan.filters) + ")"


def _filtered(table: Table, plan: Plan) -> Any:
    df = table.df
    for f in plan.filters:
        series = df[f.column]
        import pandas as pd

        if pd.api.types.is_datetime64_any_dtype(series) and isinstance(f.value, int):
            mask = series.dt.year == f.value
        elif series.dtype == object or isinstance(f.value, str):
            mask = series.astype(str).str.lower() == str(f.value).lower()
        else:
            mask = series == f.value
        df = df[mask]
        if df.empty:
            raise ValueError(f"{table.name} has no rows where {f.column} is {f.value!r}")
    return df


def _bucket(series: Any, period: str | None = None) -> tuple[Any, str]:
    """Time values as the periods a trend reads: the asked ``period``, else years over
    long spans (or dates that are all January 1st), months, or days."""
    import pandas as pd

    if not pd.api.types.is_datetime64_any_dtype(series):
        whole = pd.api.types.is_float_dtype(series) and bool((series.dropna() % 1 == 0).all())
        return (series.astype("Int64") if whole else series), ""
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


def _numbers(frame: Any) -> tuple[float, ...]:
    import numpy as np

    out: list[float] = []
    for column in frame.columns:
        values = frame[column]
        if values.dtype.kind in "biuf":
            out += [float(v) for v in values.to_numpy(dtype=float) if np.isfinite(v)]
        else:
            for v in values.astype(str):
                try:
                    out.append(float(v))
                except ValueError:
                    pass
    return tuple(out)


def run_plan(table: Table, plan: Plan) -> Result:
    """The answer to ``plan`` over ``table`` (see the module docstring)."""
    import numpy as np

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = _RUN[plan.op](table, plan)
    extra = tuple(float(f.value) for f in plan.filters if isinstance(f.value, (int, float)))
    allowed = (
        *_numbers(result.frame),
        *result.numbers,
        *extra,
        float(plan.k),
        float(len(table.df)),
    )
    return dataclasses.replace(result, allowed=allowed)


def _aggregate(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _filtered(table, plan)
    where = _where(plan)
    if plan.measure is None:
        if plan.agg == "share":
            share = len(df) / len(table.df) * 100
            frame = pd.DataFrame({"rows": [len(df)], "of": [len(table.df)], "share %": [share]})
            which = " and ".join(str(f.value) for f in plan.filters) or "These"
            text = (
                f"{which} rows are {_pct(share)} of {table.name} "
                f"({len(df):,} of {len(table.df):,})."
            )
            return Result(frame, text, (share, float(len(df))))
        frame = pd.DataFrame({"rows": [len(df)]})
        return Result(frame, f"{table.name}{where} has {len(df):,} rows.", (float(len(df)),))
    series = df[plan.measure]
    if plan.agg == "nunique":
        values = sorted(map(str, series.dropna().unique()))
        frame = pd.DataFrame({plan.measure: values[:MAX_ROWS]})
        shown = ", ".join(values[:5]) + (", ..." if len(values) > 5 else "")
        text = f"{plan.measure}{where} has {len(values):,} distinct values: {shown}."
        return Result(frame, text, (float(len(values)),), tuple(values[:5]))
    if plan.agg == "mode":
        counts = series.value_counts(dropna=True)
        if counts.empty:
            raise ValueError(f"{plan.measure} has no values{where}")
        top, n = str(counts.index[0]), int(counts.iloc[0])
        frame = counts.head(MAX_ROWS).rename_axis(plan.measure).reset_index(name="rows")
        text = (
            f"The most common {plan.measure}{where} is {top} ({n:,} of {int(counts.sum()):,} rows)."
        )
        value = counts.index[0].item() if hasattr(counts.index[0], "item") else counts.index[0]
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        return Result(
            frame,
            text,
            (float(n), float(value)) if numeric else (float(n),),  # "the commonest is 4" is true
            (top,),
            tuple(map(str, counts.index[1:MAX_ROWS])),
            chart="bar",
            x=plan.measure,
            y="rows",
        )
    values = pd.to_numeric(series, errors="coerce").dropna()
    if values.empty:
        raise ValueError(f"{plan.measure} has no values{where}: nothing to compute")
    if plan.agg == "share":  # this part's share of the whole table's total
        whole = float(pd.to_numeric(table.df[plan.measure], errors="coerce").sum())
        if whole == 0:
            raise ValueError(f"the total {plan.measure} is 0: no share to compute")
        part = float(values.sum())
        share = part / whole * 100
        frame = pd.DataFrame({"part": [part], "whole": [whole], "share %": [share]})
        text = (f"The share of total {plan.measure}{where} is {_pct(share)} "
                f"({format_number(part)} of {format_number(whole)}).")  # fmt: skip
        return Result(frame, text, (share,))
    agg = plan.agg
    value = float(len(values)) if agg == "count" else float(values.agg(agg))
    word = _AGG_NAME[agg]
    frame = pd.DataFrame({"measure": [plan.measure], word: [value]})
    return Result(frame, f"The {word} {plan.measure}{where} is {format_number(value)}.", (value,))


def _rank(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _filtered(table, plan)
    assert plan.group_by is not None
    keys, period = _bucket(df[plan.group_by], plan.period)
    label = period or plan.group_by
    if plan.measure is None:
        values = df.groupby(keys, observed=True).size().astype(float)
        what = "rows"
    else:
        numbers = pd.to_numeric(df[plan.measure], errors="coerce")
        grouped = numbers.groupby(keys, observed=True)
        values = grouped.sum(min_count=1) if plan.agg in ("sum", "share") else grouped.agg(plan.agg)
        what = plan.measure
    values = values.dropna()
    if values.empty:
        raise ValueError(f"{plan.measure or 'rows'} has no values in any {label}")
    if plan.agg == "share" or (plan.measure is None and plan.agg == "share"):
        values = values / values.sum() * 100
    values = values.sort_values(ascending=plan.order == "asc", kind="stable")
    if plan.measure is None:
        name = "share %" if plan.agg == "share" else "rows"
    else:
        word = "share % of" if plan.agg == "share" else _AGG_NAME.get(plan.agg, plan.agg)
        name = f"{word} {plan.measure}"
    frame = values.rename(name).rename_axis(label).reset_index()
    additive = plan.agg in ("sum", "count", "share") or plan.measure is None
    if len(frame) > MAX_ROWS and additive:
        rest = frame.iloc[MAX_ROWS - 1 :][name].sum()
        frame = pd.concat(
            [frame.head(MAX_ROWS - 1), pd.DataFrame({label: ["other"], name: [rest]})]
        )
    else:
        frame = frame.head(MAX_ROWS)
    frame = frame.reset_index(drop=True)
    k = min(plan.k, len(values))
    top = [(str(i), float(v)) for i, v in values.head(k).items()]
    side = "highest" if plan.order == "desc" else "lowest"
    fmt = _pct if plan.agg == "share" else format_number
    if plan.measure is None:
        thing = "share of rows" if plan.agg == "share" else "number of rows"
    else:
        thing = f"{'share of total' if plan.agg == 'share' else _AGG_NAME[plan.agg]} {what}"
    where = _where(plan)
    if k == 1:
        text = f"{top[0][0]} has the {side} {thing}{where} ({fmt(top[0][1])})."
    else:
        listed = ", ".join(f"{n} ({fmt(v)})" for n, v in top)
        first = "Top" if plan.order == "desc" else "Bottom"
        text = f"{first} {k} {label} by {thing}{where}: {listed}."
    others = tuple(str(i) for i in values.index[k:])
    return Result(
        frame,
        text,
        tuple(v for _, v in top),
        tuple(n for n, _ in top),
        others,
        chart="bar",
        x=label,
        y=name,
    )


def _extreme(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _filtered(table, plan)
    assert plan.measure is not None and plan.group_by is not None
    numbers = pd.to_numeric(df[plan.measure], errors="coerce").dropna()
    if numbers.empty:
        raise ValueError(f"{plan.measure} has no values")
    k = min(plan.k, len(numbers), MAX_ROWS)
    rows = numbers.nlargest(k) if plan.order == "desc" else numbers.nsmallest(k)
    labels = df.loc[rows.index, plan.group_by]
    keys = (
        labels.dt.strftime("%Y-%m-%d") if pd.api.types.is_datetime64_any_dtype(labels) else labels
    )
    frame = pd.DataFrame(
        {plan.group_by: keys.astype(str).to_numpy(), plan.measure: rows.to_numpy()}
    )
    side = "highest" if plan.order == "desc" else "lowest"
    pairs = list(zip(frame[plan.group_by], frame[plan.measure], strict=True))
    if k == 1:
        value = format_number(float(pairs[0][1]))
        text = f"{pairs[0][0]} has the {side} {plan.measure}{_where(plan)} ({value})."
    else:
        listed = ", ".join(f"{n} ({format_number(float(v))})" for n, v in pairs)
        text = f"The {k} {side} by {plan.measure}{_where(plan)}: {listed}."
    names = tuple(dict.fromkeys(str(n) for n, _ in pairs))
    runner_up = (
        df.loc[numbers.drop(rows.index).nlargest(3).index, plan.group_by]
        if plan.order == "desc"
        else df.loc[numbers.drop(rows.index).nsmallest(3).index, plan.group_by]
    )
    others = tuple(str(x) for x in runner_up if str(x) not in names)
    return Result(
        frame,
        text,
        tuple(float(v) for _, v in pairs),
        names,
        others,
        chart="bar",
        x=plan.group_by,
        y=plan.measure,
    )


def _trend(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _filtered(table, plan)
    assert plan.measure is not None and plan.time is not None
    keys, period = _bucket(df[plan.time], plan.period)
    label = period or plan.time
    numbers = pd.to_numeric(df[plan.measure], errors="coerce")
    agg = (
        plan.agg
        if plan.agg in ("sum", "mean", "median")
        else default_agg(table.columns[plan.measure])
    )
    word = _AGG_NAME[agg]
    where = _where(plan)
    if plan.group_by is None:
        series = (
            numbers.groupby(keys).agg(agg)
            if agg != "sum"
            else numbers.groupby(keys).sum(min_count=1)
        )
        series = series.dropna().sort_index()
        if len(series) < 2:
            raise ValueError(f"{plan.measure} has fewer than two {label} values{where}: no trend")
        first, last = float(series.iloc[0]), float(series.iloc[-1])
        frame = series.rename(f"{word} {plan.measure}").rename_axis(label).reset_index()
        a, b = str(series.index[0]), str(series.index[-1])
        if first == 0:
            text = (f"The {word} {plan.measure}{where} went from {format_number(first)} in {a} "
                    f"to {format_number(last)} in {b}.")  # fmt: skip
            nums: tuple[float, ...] = (first, last)
        else:
            change = (last - first) / abs(first) * 100
            verb = "rose" if change >= 0 else "fell"
            text = (f"The {word} {plan.measure}{where} {verb} {_pct(abs(change))} from {a} "
                    f"({format_number(first)}) to {b} ({format_number(last)}).")  # fmt: skip
            nums = (abs(change), first, last)
        if len(frame) > 60:
            frame = frame.iloc[:: max(1, len(frame) // 60)]
        return Result(frame, text, nums, chart="line", x=label, y=f"{word} {plan.measure}")
    table_ = numbers.groupby([df[plan.group_by], keys], observed=True).agg(agg).dropna()
    rows = []
    for group, series in table_.groupby(level=0, observed=True):
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
        raise ValueError(f"no {plan.group_by} has two {label} values of {plan.measure}: no trend")
    frame = pd.DataFrame(rows, columns=[plan.group_by, "from", "first", "to", "last", "change %"])
    frame = frame.sort_values("change %", ascending=False, kind="stable").reset_index(drop=True)
    hi, lo = frame.iloc[0], frame.iloc[-1]
    text = (f"The {word} {plan.measure}{where} changed most for {hi[plan.group_by]} "
            f"({hi['change %']:+.1f}%) and least for {lo[plan.group_by]} "
            f"({lo['change %']:+.1f}%).")  # fmt: skip
    names = (
        (str(hi[plan.group_by]), str(lo[plan.group_by]))
        if len(frame) > 1
        else (str(hi[plan.group_by]),)
    )
    others = tuple(str(g) for g in frame[plan.group_by].iloc[1:-1])
    return Result(
        frame.head(MAX_ROWS),
        text,
        (float(hi["change %"]), abs(float(hi["change %"]))),
        names,
        others,
        chart="bar",
        x=plan.group_by,
        y="change %",
    )


def _missing(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = table.df
    if plan.measure is not None:
        n = int(df[plan.measure].isna().sum())
        frame = pd.DataFrame({"column": [plan.measure], "missing": [n]})
        return Result(
            frame,
            f"{plan.measure} has {n:,} missing values ({_pct(n / len(df) * 100)} of rows).",
            (float(n),),
        )
    counts = df.isna().sum()
    counts = counts[counts > 0].sort_values(ascending=False)
    if counts.empty:
        return Result(pd.DataFrame({"missing": [0]}), f"{table.name} has no missing values.")
    frame = counts.head(MAX_ROWS).rename_axis("column").reset_index(name="missing")
    listed = ", ".join(f"{c} ({int(n):,})" for c, n in counts.head(5).items())
    text = f"{table.name} has {int(counts.sum()):,} missing values: {listed}."
    return Result(frame, text, (float(counts.sum()),), (), (), chart="bar", x="column", y="missing")


def _shape(table: Table, plan: Plan) -> Result:
    import pandas as pd

    rows, cols = table.df.shape
    frame = pd.DataFrame({"rows": [rows], "columns": [cols]})
    return Result(
        frame, f"{table.name} has {rows:,} rows and {cols} columns.", (float(rows), float(cols))
    )


def _correlation(table: Table, plan: Plan) -> Result:
    import pandas as pd

    df = _filtered(table, plan)
    assert plan.measure is not None and plan.other is not None
    a = pd.to_numeric(df[plan.measure], errors="coerce")
    b = pd.to_numeric(df[plan.other], errors="coerce")
    r = float(a.corr(b))
    if r != r:
        raise ValueError(f"{plan.measure} and {plan.other} share too few values to correlate")
    strength = "strong" if abs(r) >= 0.7 else "moderate" if abs(r) >= 0.4 else "weak"
    sign = "positive" if r >= 0 else "negative"
    frame = pd.DataFrame({"x": [plan.measure], "y": [plan.other], "correlation": [round(r, 4)]})
    text = f"The correlation of {plan.measure} and {plan.other} is {r:.2f} ({strength}, {sign})."
    return Result(frame, text, (round(r, 2), abs(round(r, 2))))


def _columns(table: Table, plan: Plan) -> Result:
    import pandas as pd

    names = [c for c in table.columns if table.columns[c].role != "empty"]
    frame = pd.DataFrame({"column": names, "role": [table.columns[c].role for c in names]})
    shown = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
    text = f"The question names nothing in {table.name}; its columns are: {shown}."
    return Result(frame.head(30), text, names=tuple(names[:20]))  # a reply lists them all


_RUN = {
    "aggregate": _aggregate, "rank": _rank, "extreme": _extreme, "trend": _trend,
    "missing": _missing, "shape": _shape, "correlation": _correlation, "columns": _columns,
}  # fmt: skip
