"""A `Plan` compiled to Ibis and run where the data lives: the engine's `run_plan`.

The engine does the work that grows with the table (filtering, grouping,
reducing, ordering) in one or two SELECTs built from the typed plan through
Ibis, and brings back only what the answer shows: an aggregate, the top
groups, the rows at an extreme (never more than `FETCH` rows). The small
result is then put into a `Result` by the same code that shapes pandas'
answer (`execute_ops.rank_result`, `execute_more.trend_result`, the pandas
operations themselves on a handful of rows), so that the two paths cannot
drift apart in wording, order or rounding; `tests/data/test_engines.py` runs
every plan of the suite on pandas, DuckDB and PostgreSQL and compares.

Ties and "first"/"last" follow the source's row order where it has one (the
`filters.ROW` column the engine adds to a DataFrame); a table in a database has
none, so there ties fall by label.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..query import Plan
from ..result import PlanError, Result
from .filters import ROW, derive, kind, mask, text_filters, where

__all__ = ["FETCH", "Engine", "engine_for", "on_pandas"]

#: The most rows one query brings back into the kernel (a trend's periods, per group).
FETCH = 10_000


@dataclasses.dataclass(frozen=True)
class Engine:
    """One plan's run: the table as the planner saw it and its Ibis expression."""

    table: Any  # a `profile.SourceTable`
    t: Any  # the source's Ibis table, with the plan's derived columns
    derived: tuple[Any, ...] = ()  # the plan's `Derived` columns
    # the distinct values of the text columns the plan's filters compare, where the
    # source knows them (`Source.distinct`): such a filter matches them exactly
    distinct: dict[str, tuple[Any, ...]] = dataclasses.field(default_factory=dict)

    def where(self, t: Any, filters: tuple[Any, ...]) -> Any:
        """``t``'s rows that meet every filter (`filters.where`)."""
        return where(t, filters, self.distinct)

    def mask(self, t: Any, filters: tuple[Any, ...]) -> Any:
        """Whether each row of ``t`` meets every filter (`filters.mask`)."""
        return mask(t, filters, self.distinct)

    def fetch(self, expr: Any) -> Any:
        """``expr``'s rows as a pandas DataFrame (at most `FETCH`)."""
        return self.table.source.execute(expr.limit(FETCH))

    def one(self, expr: Any) -> dict[str, Any]:
        """An aggregate's one row, missing values as None."""
        row = self.table.source.execute(expr).iloc[0].to_dict()
        return {k: (None if _missing(v) else v) for k, v in row.items()}

    def order(self, t: Any) -> list[Any]:
        """The row order to break ties with (none for a table without one)."""
        return [t[ROW]] if ROW in t.columns else []

    def rows(self, plan: Plan, *, empty_ok: bool = False) -> tuple[Any, int]:
        """The rows that meet the plan's filters and how many there are."""
        if not plan.filters and self.table.source.kind == "frame":
            return self.t, int(self.table.total)  # a DataFrame's copy: its length, no query
        t = self.where(self.t, plan.filters)
        n = int(self.one(t.aggregate(n=t.count()))["n"])
        if n == 0 and not empty_ok:
            raise self.no_rows(plan)
        return t, n

    def no_rows(self, plan: Plan) -> PlanError:
        """The error of a plan whose filters leave no rows."""
        where_ = " and ".join(f.describe() for f in plan.filters)
        return PlanError(f"{self.table.name} has no rows where {where_}")

    def numbers(self, t: Any, column: str) -> Any:
        """``column`` as floats (a flag as 0/1), or a `PlanError` when it holds no numbers."""
        what = kind(t, column)
        if what not in ("number", "bool"):
            raise PlanError(f"{column} holds no numbers to compute with")
        if what == "bool":  # a CASE, not a cast: PostgreSQL casts no boolean to a number
            import ibis

            s = t[column]
            return ibis.ifelse(s.isnull(), ibis.null("float64"), ibis.ifelse(s, 1.0, 0.0))
        return t[column].cast("float64")

    def as_pandas(self, values: Any, measure: str | None, agg: str) -> Any:
        """Groups' values (floats, as the engine computes them) typed as pandas' groupby
        types them: integers where ``measure`` holds integers (or is a flag, summed) and
        ``agg`` keeps them (a sum, a least, a most, a range; ``rows``: a trend's rows per
        period, counted; a ranking's counts are floats in pandas),
        so that the table and chart say 1234, not 1234.0. The measure's type is the
        profile's: a text column of whole numbers ("1,234") is integers there, as in
        pandas. A value that is not whole (rows the sample did not see) keeps floats."""
        import pandas as pd

        column = self.table.df[measure] if measure in self.table.df.columns else None
        if measure is None:
            whole = agg == "rows"
        elif column is None:  # a derived column: pandas computes it in floats
            whole = False
        elif pd.api.types.is_bool_dtype(column):
            whole = agg == "sum"
        else:
            whole = pd.api.types.is_integer_dtype(column) and agg in ("sum", "min", "max", "range")
        numbers = values.astype(float)
        if whole and len(numbers) and bool(((numbers % 1) == 0).all()):
            return numbers.astype("int64")
        return numbers

    def small(self, frame: Any) -> Any:
        """The table as pandas sees it, holding ``frame`` (a few rows the engine chose)."""
        from ..derive import derived_column

        columns = dict(self.table.columns)
        for name in frame.columns:
            if name not in columns and name != ROW:
                d = next(d for d in self.derived if d.name == name)
                columns[name] = derived_column(d)
        # Cells as written ("3:38:33" read as 13113) follow the rows by the source's row
        # order (`ROW`: positions in the DataFrame); a source without it has none.
        written: dict[str, Any] = {}
        if ROW in frame.columns and self.table.written:
            positions = frame[ROW].to_numpy(dtype="int64")
            at = self.table.df.index[positions]
            frame = frame.set_axis(at)
            written = {
                c: s.iloc[positions].set_axis(at)
                for c, s in self.table.written.items()
                if c in frame.columns and s.index.equals(self.table.df.index)
            }
        frame = frame.drop(columns=[ROW], errors="ignore")
        return dataclasses.replace(
            self.table, df=frame, columns=columns, source=None, written=written
        )


def _missing(value: Any) -> bool:
    try:
        return value is None or bool(value != value)
    except (TypeError, ValueError):
        return False


def on_pandas(e: Engine, plan: Plan, frame: Any, rows: int) -> Result:
    """The pandas operation run on ``frame``, the few rows the engine picked for ``plan``
    (already filtered and ordered), counted over ``rows`` rows."""
    from ..execute_ops import OPS

    small = plan.model_copy(update={"filters": (), "derive": ()})
    result: Result = OPS[plan.op](e.small(frame), small)
    return dataclasses.replace(result, rows=rows)


def engine_for(table: Any, plan: Plan) -> Engine:
    """The run of ``plan`` over ``table``: its source with the plan's derived columns."""
    source = table.source
    distinct: dict[str, tuple[Any, ...]] = {}
    for f in text_filters((*plan.filters, *plan.condition)):
        if f.column in source.expr.columns and kind(source.expr, f.column) == "text":
            known = source.distinct(f.column)
            if known is not None:
                distinct[f.column] = known
    return Engine(table, derive(source.expr, plan.derive), plan.derive, distinct)
