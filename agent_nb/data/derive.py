"""Columns computed from a table's own (`query.Derived`) by pandas: a fixed set of typed ops.

``+``, ``-``, ``*``, ``/`` of two columns of numbers (a division by zero is a
missing value, not an infinity), a text column's ``length`` in characters
and its ``words`` (whitespace-separated), and a column of dates' ``month``.
`with_derived` returns the table with each derived column added as a measure,
so every operation of the query language (filters, aggregates, rankings, the
row at an extreme) reads it like any other column. Nothing here evaluates
text: the operation is one of `query.DERIVE_OPS`, the operands are column
names checked against the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from .query import Derived
from .result import PlanError
from .table import Column, Table

__all__ = ["column_numbers", "derived_column", "derived_values", "is_text", "with_derived"]


def is_text(series: Any) -> bool:
    """Whether ``series`` holds text (strings, not numbers, dates or booleans)."""
    import pandas as pd

    if pd.api.types.is_string_dtype(series) and not pd.api.types.is_bool_dtype(series):
        probe = series.dropna().head(50)
        return bool(len(probe)) and all(isinstance(v, str) for v in probe)
    return False


def column_numbers(df: Any, column: str, *, aligned: bool = False) -> Any:
    """``df[column]`` as floats, or a `PlanError` when it holds no numbers.

    Aggregates (``aligned=False``) count a boolean as 0/1 and drop missing
    values. Arithmetic between columns (``aligned=True``) keeps every row, so
    the two sides stay aligned, and refuses booleans: a difference of flags
    is not a quantity anyone asks for.
    """
    import pandas as pd

    s = df[column]
    if pd.api.types.is_bool_dtype(s) and not aligned:
        return s.astype(float)
    if pd.api.types.is_bool_dtype(s) or not pd.api.types.is_numeric_dtype(s):
        raise PlanError(f"{column} holds no numbers to compute with")
    numbers = pd.to_numeric(s, errors="coerce").astype(float)
    return numbers if aligned else numbers.dropna()


def derived_values(df: Any, d: Derived) -> Any:
    """The values of ``d`` over ``df`` (a Series), or a `PlanError` that says why not."""
    import numpy as np

    for name in (d.column, d.other):
        if name is not None and name not in df.columns:
            raise PlanError(f"there is no column {name!r}")
    if d.op == "month":
        import pandas as pd

        s = df[d.column]
        if not pd.api.types.is_datetime64_any_dtype(s):
            raise PlanError(f"{d.column} holds no dates to read months of")
        return s.dt.month.astype("Float64").astype(float)
    if d.op == "year":
        return year_written(df[d.column])
    if d.op == "years":
        return years_spanned(df[d.column])
    if d.op in ("length", "words"):
        s = df[d.column]
        if not is_text(s):
            raise PlanError(f"{d.column} holds no text to measure")
        text = s.astype("string")
        out = text.str.len() if d.op == "length" else text.str.count(r"\S+")
        return out.astype("Float64").astype(float)
    assert d.other is not None
    a = column_numbers(df, d.column, aligned=True)
    b = column_numbers(df, d.other, aligned=True)
    with np.errstate(all="ignore"):
        out = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[d.op]
    return out.replace([np.inf, -np.inf], np.nan)


#: A range of years written in a cell: "1997-2006", "1920–1928", "1990–91" (a footnote
#: or a note after it aside); an open end ("2000–current") spans no known number.
YEAR_FROM = r"^\s*(1[5-9]\d\d|20\d\d)\s*[-–—]"
YEAR_RANGE = YEAR_FROM + r"\s*(\d{4}|\d{2})\b"


#: A year as a cell writes it, alone or among a date's or a note's words.
WRITTEN_YEAR = r"\b(1[5-9]\d\d|20\d\d)\b"


def year_written(cells: Any) -> Any:
    """The year each cell writes (a range's first), NaN where a cell writes none."""
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(cells):
        return cells.dt.year.astype("Float64").astype(float)
    found = cells.astype("string").str.extract(WRITTEN_YEAR)[0]
    return pd.to_numeric(found, errors="coerce").astype(float)


def years_spanned(cells: Any) -> Any:
    """The years each cell's range spans (its end less its start, a two-digit end in the
    start's century), NaN where a cell holds none."""
    import pandas as pd

    found = cells.astype("string").str.extract(YEAR_RANGE)
    start = pd.to_numeric(found[0], errors="coerce")
    end = pd.to_numeric(found[1], errors="coerce")
    short = found[1].str.len() == 2
    end = end.where(~short, start // 100 * 100 + end)
    end = end.where(~(short & (end < start)), end + 100)  # "1999–00"
    return (end - start).astype("Float64").astype(float)


def derived_column(d: Derived, words: Iterable[str] = ()) -> Column:
    """The `Column` a derived value is planned as: a measure named by ``words`` (none:
    a column only a filter reads, "A greater than B")."""
    parts = tuple(dict.fromkeys(words))
    whole = d.op in ("length", "words", "month", "year", "years")
    return Column(d.name, "measure", parts, frozenset(parts), {}, -1, whole, True)


def with_derived(
    table: Table, derived: Iterable[Derived], words: dict[str, tuple[str, ...]] | None = None
) -> Table:
    """``table`` with each derived column added (one already there is kept as it is)."""
    new = [d for d in derived if d.name not in table.df.columns]
    if not new:
        return table
    values = {d.name: derived_values(table.df, d) for d in new}
    df = table.df.assign(**values)
    columns = dict(table.columns)
    for d in new:
        columns[d.name] = derived_column(d, (words or {}).get(d.name, ()))
    return dataclasses.replace(table, df=df, columns=columns)
