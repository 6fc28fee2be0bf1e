"""A `Plan` run: the typed answer, a small result table and the numbers in their roles.

A DataFrame's plan runs on DuckDB (`engines.frames`, which says what pandas still
runs), a file's or a database table's where the data lives (`engines.run`), and
the rest on pandas' hand-written operations (`execute_ops`, `execute_more`).

`run_plan` returns a `Result`: ``value`` (a bool, a number, a string or a
list: `kind` names which, in DataBench's five answer types), the result as a
small DataFrame (at most `MAX_ROWS` rows), the numbers it holds by role
(``value``, ``count``, ``base``, ``first``, ``last``, ``change``...), the
answer's labels and the result's other labels, and the chart it wants. A
column read from text as numbers (`cells`) is shown as written in
`Result.shown`. The sentence is `describe`'s job; what the check compares is `evidence`'s.

A plan whose precondition fails (a filter that leaves no rows, a column with
no numbers, a value of the wrong type) raises `PlanError` in one true line;
the caller tries its next candidate. Every reduction runs under
``np.errstate`` with numpy's and pandas' warnings caught, so nothing leaks
into the cell.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

from .execute_more import MORE
from .execute_ops import OPS
from .query import Plan
from .result import MAX_LIST, MAX_ROWS, PlanError, Result, kind_of, plain
from .rows import rows_where
from .table import Table

__all__ = [
    "MAX_LIST",
    "MAX_ROWS",
    "PlanError",
    "Result",
    "amount_as_written",
    "kind_of",
    "plain",
    "rows_where",
    "run_plan",
]

RUN = {**OPS, **MORE}


def _as_written(table: Table, plan: Plan, result: Result) -> Result:
    """``result`` with the cells of a column read from text shown as written ("17 years"
    read as 17 for the plan), whichever executor computed it."""
    if table.written:
        from .cells import shown_as_written

        shown = shown_as_written(result.frame, dict(table.written), table.df)
        if shown is not result.frame:
            result = dataclasses.replace(result, written=shown)
    return _as_time(table, plan, result)


def _as_time(table: Table, plan: Plan, result: Result) -> Result:
    """``result`` stated as the time it is, where it is one: the years of a term ("34
    years"), a time written "m:ss.xx", a month by its name."""
    return _months_named(plan, _duration_as_written(table, plan, _years_held(table, plan, result)))


def amount_as_written(table: Table, plan: Plan, result: Result) -> Result:
    """A total, a mean, an extreme or a difference of a column of amounts written with
    their unit ("84 t", "$362,285") stated in that form ("36 t"): the plan reads them
    as numbers, and "36" drops what it is. A ratio has no unit; a time is the
    duration step's. (The answer's step, not the executor's: "how many
    municipalities" is answered by the number, its unit being the question's.)"""
    from .cells import amount_text

    cells = table.written.get(plan.measure or "")
    value = result.value
    if cells is None or plan.op != "aggregate" or plan.agg not in _DURATIONS or plan.derive:
        return result
    if plan.combine == "ratio" or (plan.versus is not None and plan.versus.measure != plan.measure):
        return result
    if not _a_number(value):
        return result
    text = amount_text(float(value), cells, finer=2 if plan.agg in ("mean", "median") else 0)
    return result if text is None else dataclasses.replace(result, value=text, names=(text,))


def _months_named(plan: Plan, result: Result) -> Result:
    """The month a question asks for ("which month had the most games?") is named
    ("February"), not written "2011-02", where no two of the result's months share a
    name: its months are then the calendar's, and the name says all of it."""
    import calendar

    frame = result.frame
    if plan.period != "month" or result.x != "month" or len(frame) < result.get("groups", 0):
        return result
    keys = [str(k) for k in frame["month"]] if "month" in getattr(frame, "columns", ()) else []
    months = [int(k[5:7]) for k in keys if len(k) == 7 and k[4] == "-" and k[5:7].isdigit()]
    if not keys or len(months) != len(keys) or len(set(months)) != len(months):
        return result
    name = {k: calendar.month_name[m] for k, m in zip(keys, months, strict=True)}
    value = result.value
    if isinstance(value, str):
        value = name.get(value, value)
    elif isinstance(value, list):
        value = [name.get(str(v), v) for v in value]
    return dataclasses.replace(
        result,
        value=value,
        names=tuple(name.get(n, n) for n in result.names),
        others=tuple(name.get(n, n) for n in result.others),
    )


#: The aggregates whose value is a duration when their column's cells are ("1:56.42").
_DURATIONS = ("max", "min", "mean", "median", "sum")


def _years_held(table: Table, plan: Plan, result: Result) -> Result:
    """A total of the years between two columns of years ("how long was X in office":
    To − From) or of ranges of years ("1997–2006"), or the difference between two
    years, is a length of time: stated as one ("34 years"), the number in its roles."""
    from .table import holds_years

    value = result.value
    ends = _years_bounding(plan)
    if not _a_number(value) or ends is None:
        return result
    if not all(c in table.df.columns and holds_years(table.df[c]) for c in ends):
        return result
    text = f"{value:g} year" + ("" if value == 1 else "s")
    return dataclasses.replace(result, value=text, names=(text,))


def _years_bounding(plan: Plan) -> tuple[str, ...] | None:
    """The columns of years whose span the plan's number is, or None: the measure itself
    for a difference of two years, a term's two bounds (To − From), none for a column
    of ranges ("1997–2006", checked where it was derived)."""
    if plan.op != "aggregate" or plan.measure is None:
        return None
    if plan.combine in ("difference", "gap"):  # "between the founding of A and of B"
        versus = plan.versus
        same = versus is not None and versus.measure == plan.measure and not versus.derive
        one = same and not plan.derive and plan.agg in ("mean", "max", "min")
        return (plan.measure,) if one else None
    spans = [d for d in plan.derive if d.op in ("-", "years") and d.name == plan.measure]
    if plan.agg != "sum" or plan.combine or not spans:
        return None
    return () if spans[0].op == "years" else (spans[0].column, spans[0].other or "")


def _a_number(value: Any) -> bool:
    """Whether ``value`` is a number a unit can be put to (not a bool, not NaN)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _duration_as_written(table: Table, plan: Plan, result: Result) -> Result:
    """A mean, a total, an extreme of a column of times written "m:ss.xx", stated in that
    form: the plan reads them as seconds, and "116.415" is no time the reader knows."""
    cells = table.written.get(plan.measure or "")
    value = result.value
    if cells is None or plan.agg not in _DURATIONS or plan.derive:
        return result
    if plan.op == "rank":
        return _durations_per_group(result, cells)
    if plan.op != "aggregate":
        return result
    if plan.combine is not None:  # a difference of times is stated in seconds, a ratio bare
        return result
    if not isinstance(value, int | float) or isinstance(value, bool):
        return result
    from .cells import duration_text, read_cell

    text = duration_text(float(value), cells)
    if plan.agg in ("max", "min") or result.rows == 1:  # a cell: as it is written there
        numbers = table.df.get(plan.measure)
        same = numbers is not None and len(numbers) == len(cells)
        held = cells[(numbers == value).to_numpy()].dropna() if same else cells[:0]
        if len(held) and read_cell(held.iloc[0]).unit == "time":
            text = str(held.iloc[0])
    return result if text is None else dataclasses.replace(result, value=text, names=(text,))


def _durations_per_group(result: Result, cells: Any) -> Result:
    """Each group's mean, total or extreme of times, in the form the table writes them
    ("D 1:57.17", not "D 117.17"): the value, and the column the reader sees; the frame
    keeps the seconds (the chart, the order)."""
    from .cells import duration_text

    frame = result.frame
    if frame is None or frame.shape[1] < 2 or duration_text(0.0, cells) is None:
        return result
    column = frame.columns[1]
    texts = [
        duration_text(float(n), cells) if n is not None and n == n else None for n in frame[column]
    ]
    shown = result.shown.copy()
    shown[column] = [t if t is not None else n for t, n in zip(texts, frame[column], strict=True)]
    value = result.value
    if isinstance(value, dict):  # each group's: "D 1:57.17, C 1:57.08, ..."
        by = dict(zip(frame.iloc[:, 0], texts, strict=True))
        value = {k: by.get(k) or n for k, n in value.items()}
    detail = (*result.detail, ("shown", texts[0])) if texts and texts[0] else result.detail
    return dataclasses.replace(result, value=value, written=shown, detail=detail)


def run_plan(table: Table, plan: Plan) -> Result:
    """The answer to ``plan`` over ``table`` (see the module docstring). A table read
    from an engine (a file, a database: `engines.profile.SourceTable`) runs it there."""
    import numpy as np

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nothing leaks into the cell: pandas', Ibis' warnings
        if getattr(table, "source", None) is not None:
            from .engines.run import run_compiled

            return _as_time(table, plan, run_compiled(table, plan))
        from .engines.frames import engine_for_frames, run_on_duckdb

        if engine_for_frames() == "duckdb":
            done = run_on_duckdb(table, plan)
            if done is not None:
                return _as_written(table, plan, done)
        try:
            if plan.derive:
                from .derive import with_derived

                table = with_derived(table, plan.derive)
            return _as_written(table, plan, RUN[plan.op](table, plan))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            if isinstance(exc, PlanError):
                raise
            raise PlanError(f"{plan.describe()}: {type(exc).__name__}: {exc}") from None
