"""The row operations compiled to Ibis: the rows at an extreme, distinct values, the
matching rows' values, a lookup, and whether rows exist.

The engine picks the few rows the answer shows (ordered, with the source's row
order breaking ties); pandas' own operation then shapes them (`compile.on_pandas`),
so both paths word and order the answer alike.
"""

from __future__ import annotations

import operator
from functools import reduce
from typing import Any, Literal, get_args

from ..query import Plan
from ..result import MAX_LIST, PlanError, Result
from .compile import Engine, on_pandas
from .filters import ROW, kind
from .periods import flag

__all__ = ["ROW_OPS"]


def _first(t: Any, e: Engine, *, last: bool = False) -> list[Any]:
    return [t[ROW].desc() if last else t[ROW].asc()] if ROW in t.columns else []


def _extreme(e: Engine, plan: Plan) -> Result:
    t, n_rows = e.rows(plan)
    assert plan.measure is not None
    # dates order as they are ("the first player born": the earliest date of birth)
    dated = kind(t, plan.measure) in ("time", "date") and plan.near is None
    x = t[plan.measure] if dated else e.numbers(t, plan.measure)
    show = plan.group_by or plan.measure
    kind(t, show)
    kept = t.filter(x.notnull())
    by = x.asc() if plan.order == "asc" else x.desc()
    if plan.near is not None:  # the smallest distance first, as pandas orders it
        by = (x - plan.near).abs().asc()
    k = min(plan.k, MAX_LIST)
    columns = list(dict.fromkeys([show, plan.measure]))
    # a label shown: enough rows to see how many tie with the k-th (`result.with_ties`)
    limit = MAX_LIST + 1 if show != plan.measure else k + 3
    got = e.fetch(kept.order_by([by, *_first(kept, e)]).select(*columns).limit(limit))
    if got.empty:
        raise PlanError(f"{plan.measure} has no values")
    return on_pandas(e, plan, got, n_rows)


def _distinct(e: Engine, plan: Plan) -> Result:
    t, n_rows = e.rows(plan, empty_ok=True)
    assert plan.measure is not None
    kind(t, plan.measure)
    col = e.table.columns.get(plan.measure)
    if col is not None and col.listy:
        raise PlanError(
            f"{plan.measure} holds lists written as text: only pandas reads their items"
        )
    s = t[plan.measure]
    kept = t.filter(s.notnull())
    if plan.listed:  # the k highest (lowest) different values
        values = kept.select(v=s).distinct()
        by = values.v.asc() if plan.order == "asc" else values.v.desc()
        got = e.fetch(values.order_by(by).limit(plan.k))
    else:  # the first different values, in the source's order
        if ROW in t.columns:
            values = kept.group_by(v=s).aggregate(first=kept[ROW].min())
            ordered = values.order_by(values.first)
        else:
            values = kept.select(v=s).distinct()
            ordered = values.order_by(values.v)
        got = e.fetch(ordered.limit(MAX_LIST))
    frame = got[["v"]].rename(columns={"v": plan.measure})
    return on_pandas(e, plan, frame, n_rows)


def _values(e: Engine, plan: Plan) -> Result:
    t, n_rows = e.rows(plan, empty_ok=True)
    column = plan.group_by or plan.measure
    assert column is not None
    kind(t, column)
    kept = t.filter(t[column].notnull())
    if plan.order == "asc" and plan.listed:  # the last k
        got = e.fetch(kept.order_by(_first(kept, e, last=True)).limit(plan.k))
        got = got.iloc[::-1]
    else:
        n = plan.k if plan.listed and plan.k > 1 else MAX_LIST
        got = e.fetch(kept.order_by(_first(kept, e)).limit(n))
    return on_pandas(e, plan, got[[column]].reset_index(drop=True), n_rows)


def _neighbour(e: Engine, plan: Plan) -> Result:
    """The row ``plan.offset`` places from the matching rows, by the source's row order
    (`row_order`: the positions `filters.ROW` numbers from 0)."""
    from ..row_order import anchor_run, neighbour_result

    t = e.t
    if ROW not in t.columns:
        raise PlanError("a table in a database has no row order to count rows after or before")
    column = plan.group_by or plan.measure
    assert column is not None
    kind(t, column)
    hit = e.where(t, plan.filters)
    got = e.one(hit.aggregate(first=hit[ROW].min(), last=hit[ROW].max(), n=hit.count()))
    rows = int(e.one(t.aggregate(n=t.count()))["n"])
    matched = int(got["n"] or 0)
    first, last = (int(got["first"]), int(got["last"])) if matched else (0, 0)
    target = anchor_run(first, last, matched, plan, rows)
    row = e.fetch(t.filter(t[ROW] == target).select(column))
    return neighbour_result(plan, row[column].iloc[0] if len(row) else None, rows)


def _lookup(e: Engine, plan: Plan) -> Result:
    if plan.offset:  # "the episode after X": the table's own order
        return _neighbour(e, plan)
    t, n_rows = e.rows(plan)
    column = plan.group_by or plan.measure
    assert column is not None
    kind(t, column)
    kept = t.filter(t[column].notnull())
    got = e.fetch(kept.order_by(_first(kept, e, last=plan.order == "asc")).limit(1))
    return on_pandas(e, plan, got[[column, *([ROW] if ROW in got.columns else [])]], n_rows)


def _exists(e: Engine, plan: Plan) -> Result:
    import pandas as pd

    t, _ = e.rows(plan, empty_ok=True)
    # A row whose tested column is missing neither meets nor fails the condition: it is
    # left out of "all" and "none" and said (`execute_ops._exists`). Said explicitly,
    # so that no undecided row is counted as failing: ``unknown`` and ``known`` are
    # never NULL, and where a row is known, the condition (`mask`) is true or false
    # (a NULL there would be a condition the tested columns do not decide: not met).
    tested = [f.column for f in plan.condition if f.op not in ("missing", "present")]
    for column in tested:
        kind(t, column)
    met = e.mask(t, plan.condition) if plan.condition else None
    if tested:
        unknown = reduce(operator.or_, [t[column].isnull() for column in tested])
        known = ~unknown
        counts = {"n": flag(known if met is None else known & met), "base": flag(known)}
        counts["gaps"] = flag(unknown)
    else:  # nothing tested can be missing: every row is known
        counts = {"n": t.count() if met is None else flag(met), "base": t.count()}
    got = e.one(t.aggregate(**counts))
    n, base, gaps = (int(got.get(k) or 0) for k in get_args(_Counted))
    value = {"any": n > 0, "all": base > 0 and n == base, "none": n == 0}[plan.quantifier]
    frame = pd.DataFrame({"rows that match": [n], "of": [base], "missing": [gaps]})
    roles = (("count", float(n)), ("base", float(base)), ("missing", float(gaps)))
    return Result(value, frame, roles, rows=base)


#: The counts an `exists` plan aggregates: the rows that match, the known rows, the missing.
_Counted = Literal["n", "base", "gaps"]

ROW_OPS: dict[str, Any] = {
    "extreme": _extreme,
    "distinct": _distinct,
    "values": _values,
    "lookup": _lookup,
    "exists": _exists,
}
