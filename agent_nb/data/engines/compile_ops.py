"""The aggregate and the ranking compiled to Ibis (the engine's `execute_ops`), and the
table of every operation the engine runs (`ENGINE_OPS`)."""

from __future__ import annotations

from typing import Any

from ..query import Plan
from ..result import MAX_LIST, MAX_ROWS, PlanError, Result, measure_share, plain
from .compile import Engine, engine_for
from .compile_more import MORE_OPS
from .compile_rows import ROW_OPS
from .filters import ROW, kind
from .periods import bucket

__all__ = ["ENGINE_OPS"]

_TOP = MAX_LIST + 20  # enough groups for any ranking's answer, table and "others"


def _listy(e: Engine, column: str) -> None:
    col = e.table.columns.get(column)
    if col is not None and col.listy:
        raise PlanError(f"{column} holds lists written as text: only pandas reads their items")


def _share(e: Engine, plan: Plan) -> Result:
    """The share of the base rows (those meeting the filters) that meet the condition
    (or of the measure's sum). Each count is its own filtered query, not one pass of
    ``SUM(CASE ...)``: a WHERE is pushed into the engine's scan and evaluated lazily
    (a condition only on the rows that passed the one before): on a 10⁸-row file,
    1.3 s for the share instead of 2.1 s with the CASE over every row."""
    import pandas as pd

    t = e.t
    if plan.condition:  # "of the East's sales, what share are toys"
        base = e.where(t, plan.filters)
        part = e.where(base, plan.condition)
    else:  # "what share of the sales are in the East": of all rows
        base, part = t, e.where(t, plan.filters)
    base_got, part_got = {"n": base.count()}, {"n": part.count()}
    if plan.measure is not None and plan.condition:
        base_got["x"] = e.numbers(base, plan.measure).sum()
        part_got["x"] = e.numbers(part, plan.measure).sum()
    got_base, got_part = e.one(base.aggregate(**base_got)), e.one(part.aggregate(**part_got))
    base_n, part_n = int(got_base["n"] or 0), int(got_part["n"] or 0)
    if base_n == 0:
        raise PlanError("the base of the share has no rows")
    if plan.measure is not None and plan.condition:
        whole, some = float(got_base["x"] or 0.0), float(got_part["x"] or 0.0)
        share = some / whole * 100 if whole else 0.0
        return measure_share(share, part_n, base_n, some, whole, plan.measure)
    else:
        share = part_n / base_n * 100
    frame = pd.DataFrame({"rows": [part_n], "of": [base_n], "share %": [share]})
    roles = (("value", share), ("count", float(part_n)), ("base", float(base_n)))
    return Result(share, frame, roles, rows=base_n)


def _streak(e: Engine, plan: Plan) -> Result:
    """The longest run of matching rows in the source's row order (`row_order.streak`):
    among the rows whose tested columns hold a value, a run's rows share their place
    less their rank among the matches."""
    import ibis

    from ..row_order import streak_result, tested_columns

    t = e.t
    if ROW not in t.columns:
        raise PlanError("a table in a database has no row order to find rows in a row")
    known = t
    for column in tested_columns(plan):
        known = known.filter(known[column].notnull())
    known = known.mutate(k=ibis.row_number().over(order_by=known[ROW]))
    hit = e.where(known, plan.filters)
    at = hit.select(p=hit[ROW], k=hit.k)
    at = at.mutate(g=at.k - ibis.row_number().over(order_by=at.k))
    runs = at.group_by("g").aggregate(n=at.count(), first=at.p.min(), last=at.p.max())
    got = e.fetch(runs.order_by([runs.n.desc(), runs.first.asc()]).limit(1))
    rows = int(e.one(t.aggregate(n=t.count()))["n"])
    skipped = rows - int(e.one(known.aggregate(n=known.count()))["n"])
    if got.empty:
        return streak_result(0, -1, -1, rows, skipped)
    top = got.iloc[0]
    return streak_result(int(top["n"]), int(top["first"]), int(top["last"]), rows, skipped)


def _mode(e: Engine, plan: Plan, t: Any, n_rows: int) -> Result:
    import pandas as pd

    assert plan.measure is not None
    s = t[plan.measure]
    kept = t.filter(s.notnull())
    aggs: dict[str, Any] = {"rows": kept.count()}
    if ROW in t.columns:
        aggs["first"] = kept[ROW].min()
    counts = kept.group_by(v=s).aggregate(**aggs)
    counts = counts.mutate(base=counts.rows.sum().over())
    tie = [counts.first] if ROW in t.columns else [counts.v]
    by = counts.rows.asc() if plan.order == "asc" else counts.rows.desc()
    got = e.fetch(counts.order_by([by, *tie]).limit(MAX_ROWS))
    if got.empty:
        raise PlanError(f"{plan.measure} has no values")
    top, n = plain(got["v"].iloc[0]), int(got["rows"].iloc[0])
    frame = pd.DataFrame({plan.measure: [plain(v) for v in got["v"]], "rows": got["rows"]})
    told: list[tuple[str, float]] = [("count", float(n)), ("base", float(got["base"].iloc[0]))]
    numeric = isinstance(top, (int, float)) and not isinstance(top, bool)
    if numeric:
        told.append(("value", float(top)))
    others = tuple(str(plain(v)) for v in got["v"].iloc[1:MAX_ROWS])
    return Result(
        top, frame, tuple(told), () if numeric else (str(top),), others, "bar",
        plan.measure, "rows", rows=n_rows,
    )  # fmt: skip


def _aggregate(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    from ..execute_ops import combine

    if plan.combine and plan.versus is not None:
        return combine(e.table, plan, _scalar_ops(e))
    if plan.agg == "share":
        return _share(e, plan)
    if plan.agg == "streak":
        return _streak(e, plan)
    if plan.measure is not None and plan.agg in _REDUCE:
        return _reduced(e, plan)
    t, n_rows = e.rows(plan, empty_ok=plan.agg == "count")
    if plan.measure is None:
        return Result(n_rows, pd.DataFrame({"rows": [n_rows]}), (("value", float(n_rows)),),
                      rows=n_rows)  # fmt: skip
    if plan.agg in ("nunique", "mode"):
        _listy(e, plan.measure)
    if plan.agg == "mode":
        return _mode(e, plan, t, n_rows)
    s = t[plan.measure] if plan.measure in t.columns else None
    if s is None:
        raise PlanError(f"there is no column {plan.measure!r}")
    if plan.agg == "nunique" and plan.group_by2 is not None:
        pairs = t.filter(s.notnull() & t[plan.group_by2].notnull())
        n = int(e.one(_count_distinct(pairs, plan))["n"])
        return Result(n, pd.DataFrame({"pairs": [n]}), (("value", float(n)),), rows=n_rows)
    if plan.agg == "nunique":
        n = int(e.one(t.aggregate(n=s.nunique()))["n"])
        firsts = t.filter(s.notnull()).group_by(v=s)
        firsts = firsts.aggregate(first=t[ROW].min()) if ROW in t.columns else firsts.aggregate()
        tie = [firsts.first] if ROW in t.columns else [firsts.v]
        got = e.fetch(firsts.order_by(tie).limit(MAX_ROWS))
        frame = pd.DataFrame({plan.measure: [plain(v) for v in got["v"]]})
        return Result(n, frame, (("value", float(n)),), rows=n_rows)
    if plan.agg == "count":
        n = int(e.one(t.aggregate(n=s.count()))["n"])
        return Result(n, pd.DataFrame({"rows": [n]}), (("value", float(n)),), rows=n)
    if plan.agg != "nth":
        raise PlanError(f"{plan.agg!r} is not an aggregate of one column")
    return _nth(e, plan, t, e.numbers(t, plan.measure))


_REDUCE = ("sum", "mean", "median", "std", "min", "max", "range")


def _reduced(e: Engine, plan: Plan) -> Result:
    """A sum, mean, median... of the measure over the rows the filters keep, with the
    number of rows and of values, in one query (one scan of the source)."""
    import pandas as pd

    assert plan.measure is not None
    t = e.where(e.t, plan.filters)
    if plan.measure not in t.columns:
        raise PlanError(f"there is no column {plan.measure!r}")
    x = e.numbers(t, plan.measure)
    got = e.one(t.aggregate(rows=t.count(), n=x.count(), v=_reduction(x, plan.agg)))
    if not got["rows"]:
        raise e.no_rows(plan)
    if not got["n"]:
        raise PlanError("no values to compute with")
    value = float("nan") if got["v"] is None else float(got["v"])
    value = plain(value) if float(value).is_integer() else value
    frame = pd.DataFrame({"measure": [plan.measure], plan.agg: [value]})
    return Result(value, frame, (("value", float(value)),), rows=int(got["n"]))


def _reduction(x: Any, agg: str) -> Any:
    return {
        "sum": x.sum, "mean": x.mean, "median": x.median, "std": x.std,
        "min": x.min, "max": x.max, "range": lambda: x.max() - x.min(),
    }[agg]()  # fmt: skip


def _count_distinct(t: Any, plan: Plan) -> Any:
    assert plan.measure is not None and plan.group_by2 is not None
    pairs = t.select(plan.measure, plan.group_by2).distinct()
    return pairs.aggregate(n=pairs.count())


def _nth(e: Engine, plan: Plan, t: Any, x: Any) -> Result:
    """The k-th highest (or lowest) value of the measure."""
    import pandas as pd

    n = int(e.one(t.aggregate(n=x.count()))["n"])
    if n == 0:
        raise PlanError("no values to compute with")
    if n < plan.k:
        raise PlanError(f"there are only {n} values, not {plan.k}")
    kept = t.mutate(__x=x).filter(x.notnull())
    by = kept.__x.asc() if plan.order == "asc" else kept.__x.desc()
    got = e.fetch(kept.order_by(by).select("__x").limit(1, offset=plan.k - 1))
    value = float(got["__x"].iloc[0])
    value = plain(value) if value.is_integer() else value
    frame = pd.DataFrame({"measure": [plan.measure], plan.agg: [value]})
    return Result(value, frame, (("value", float(value)),), rows=n)


def grouped(e: Engine, plan: Plan, t: Any) -> tuple[Any, list[Any], str, Any]:
    """The groups' values (a table of ``__k1`` [, ``__k2``], ``v``), the tie order, the
    label, and how a fetched ``__k1`` reads."""
    assert plan.group_by is not None
    key, period, read = bucket(e, t, plan.group_by, plan.period)
    label = period or plan.group_by
    # Only the columns the groups read: a wide frame's others would be carried through
    # every step of the query (a 300-column table's ranking: 0.05 s instead of 0.01 s)
    needed = (plan.measure, plan.group_by2, ROW)
    keyed = t.select(*[c for c in dict.fromkeys(needed) if c in t.columns], __k1=key)
    keys = ["__k1"]
    if plan.group_by2 is not None:
        kind(t, plan.group_by2)
        keyed = keyed.mutate(__k2=keyed[plan.group_by2])
        keys.append("__k2")
    keyed = keyed.filter([keyed[k].notnull() for k in keys])
    if plan.measure is None:
        if plan.group_by2 is None:
            _listy(e, plan.group_by)
        aggs: dict[str, Any] = {"v": keyed.count().cast("float64")}
        first = plan.group_by2 is None and ROW in t.columns  # value_counts: first seen first
        if first:
            aggs["first"] = keyed[ROW].min()
        g = keyed.group_by(keys).aggregate(**aggs)
        return g, ([g.first] if first else [g[k] for k in keys]), label, read
    x = e.numbers(keyed, plan.measure)
    agg = plan.agg
    reduce = {
        "sum": x.sum(), "share": x.sum(), "range": x.max() - x.min(),
        "nunique": keyed[plan.measure].nunique().cast("float64"),
        "mode": keyed[plan.measure].nunique().cast("float64"),
        "count": x.count().cast("float64"), "nth": x.mean(), "mean": x.mean(),
        "median": x.median(), "std": x.std(), "min": x.min(), "max": x.max(),
    }  # fmt: skip
    g = keyed.group_by(keys).aggregate(v=reduce[agg])
    g = g.filter(g.v.notnull())
    return g, [g[k] for k in keys], label, read


def _rank(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    from ..execute_ops import holds, rank_result

    t, n_rows = e.rows(plan)
    g, tie, label, read = grouped(e, plan, t)
    if plan.having is not None:  # "appears exactly once": as pandas keeps them
        test, n = plan.having
        g = g.filter(holds(test, g.v, float(n)))
    g = g.mutate(total=g.v.sum().over(), groups=g.v.count().over())
    by = g.v.asc() if plan.order == "asc" else g.v.desc()
    got = e.fetch(g.order_by([by, *tie]).limit(_TOP))
    if got.empty and plan.having is not None:  # no group meets the test: none listed
        return rank_result(plan, pd.Series([], dtype=float), label, n_rows, 0)
    if got.empty:
        raise PlanError(f"{plan.measure or 'rows'} has no values in any {label}")
    values = e.as_pandas(got["v"], plan.measure, plan.agg)
    if plan.agg == "share":
        values = values / float(got["total"].iloc[0]) * 100
    firsts = [read(k) for k in got["__k1"]]
    if plan.group_by2 is not None:
        index: list[Any] = [f"{a}, {b}" for a, b in zip(firsts, got["__k2"], strict=True)]
    else:
        index = firsts
    groups = int(got["groups"].iloc[0])
    return rank_result(plan, pd.Series(values.to_numpy(), index=index), label, n_rows, groups)


def _scalar_ops(e: Engine) -> dict[str, Any]:
    """The engine's operations as `execute_ops.compare`/`combine` call them (on a table)."""

    def again(table: Any, plan: Plan) -> Result:
        return ENGINE_OPS[plan.op](engine_for(table, plan), plan)

    return dict.fromkeys(ENGINE_OPS, again)


def _compare(e: Engine, plan: Plan) -> Result:
    from ..execute_ops import compare

    return compare(e.table, plan, _scalar_ops(e))


ENGINE_OPS: dict[str, Any] = {
    "aggregate": _aggregate, "rank": _rank, "compare": _compare, **ROW_OPS, **MORE_OPS,
}  # fmt: skip
